"""The Redis a class shares (``VITLAB_REDIS_URL``): its URL, the connection, the keys of a setting and of a job,
Redis's own clock, the workers' heartbeats, and the one-line errors a page shows.

Three modules use it: ``redis_archive`` (finished runs, shared by every replica), ``queue_worker`` (what
``python -m core worker`` runs: only the lab's own training job) and ``queue_flights`` (a page's side: one job
per distinct setting, watched until it ends). The URL may hold a password: it is never printed, logged or
shown; Redis's errors name its host and port, never the password.

Whether a worker is running is decided here from heartbeats the workers renew themselves (``beat``), on Redis's
clock: not from RQ's list of registered workers, which keeps a killed worker for about an hour and forgets a
live one when Redis restarts.
"""

from __future__ import annotations

import hashlib
import os

from redis import Redis
from redis.exceptions import AuthenticationError, RedisError, ResponseError

from core.engine.archive import config_key
from core.engine.run_config import GeneralizationConfig

URL_VARIABLE = "VITLAB_REDIS_URL"
QUEUE = "vitlab"
# A worker renews its heartbeat, and a job its alive key, every ALIVE_SECONDS / 3; one silent for ALIVE_SECONDS
# is dead
ALIVE_SECONDS = float(os.environ.get("VITLAB_ALIVE_SECONDS") or 15)
WORKERS = "vitlab:workers"  # sorted set: worker name -> its last heartbeat, by Redis's clock
START_WORKER = "`python -m core worker` with this server's VITLAB_REDIS_URL"


def redis_url() -> str | None:
    """The Redis the replicas and workers share (``VITLAB_REDIS_URL``), or None: the server runs alone."""
    return os.environ.get(URL_VARIABLE) or None


CONNECT_SECONDS = 5  # a Redis that does not answer a connection this fast is unreachable: never a page left hanging


def connect(url: str) -> Redis:
    """A connection to ``url``. The URL may hold a password: it is never printed, logged or shown."""
    return Redis.from_url(url, socket_connect_timeout=CONNECT_SECONDS)


def setting_id(cfg: GeneralizationConfig, fingerprint: str) -> str:
    return hashlib.sha256(f"{fingerprint}\0{config_key(cfg)}".encode()).hexdigest()[:32]


def refused_password(exc: BaseException) -> bool:
    """Redis refused the URL's password (a wrong one, or none where one is required): waiting will not help."""
    text = str(exc)
    return isinstance(exc, AuthenticationError) or (
        isinstance(exc, ResponseError) and any(w in text for w in ("NOAUTH", "WRONGPASS", "AUTH")))


class QueueUnreachable(OSError):
    """Redis cannot be reached, or refused the password: the page says which in one line. ``retry``: whether
    trying again later can help (a Redis down or restarting can come back; a wrong password never will)."""

    def __init__(self, exc: RedisError, what: str = "the training queue", variable: str = URL_VARIABLE):
        self.retry = not refused_password(exc)
        if self.retry:
            super().__init__(f"{what} (Redis) cannot be reached: {exc}")
        else:
            super().__init__(f"{what} (Redis) refused the password in {variable} ({exc}): fix the setting and "
                             "restart the app; trying again will not help")


class Keys:
    """The Redis keys of one job (``job``) and of its setting (``setting``)."""

    def __init__(self, setting: str, job: str = ""):
        self.current = f"vitlab:current:{setting}"  # -> the id of the job now training this setting
        self.lock = f"vitlab:lock:{setting}"
        self.tries = f"vitlab:tries:{setting}"  # enqueues of this setting since it last finished
        self.watchers = f"vitlab:watchers:{job}"
        self.alive = f"vitlab:alive:{job}"
        self.stop = f"vitlab:stop:{job}"
        self.taken = f"vitlab:taken:{job}"  # -> the worker that took the job: a second delivery runs nothing


def redis_now(redis: Redis) -> float:
    seconds, micro = redis.time()  # Redis's clock: the same for every replica and worker, whatever theirs say
    return seconds + micro / 1e6


def beat(redis: Redis, worker: str) -> None:
    """One heartbeat of ``worker``: it is alive for ALIVE_SECONDS from now (Redis's clock); workers silent for
    an hour are forgotten."""
    now = redis_now(redis)
    with redis.pipeline() as p:
        p.zadd(WORKERS, {worker: now}).zremrangebyscore(WORKERS, "-inf", now - 3600).execute()


def forget_worker(redis: Redis, worker: str) -> None:
    redis.zrem(WORKERS, worker)


def live_workers(redis: Redis) -> int:
    """Workers whose last heartbeat is under ALIVE_SECONDS old."""
    return int(redis.zcount(WORKERS, redis_now(redis) - ALIVE_SECONDS, "+inf"))
