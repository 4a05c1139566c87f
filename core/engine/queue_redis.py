"""The Redis a class shares (``VITLAB_REDIS_URL``): its URL, the connection, the keys of a setting and of a job,
Redis's own clock, the workers' heartbeats, and the one-line errors a page shows.

Three modules use it: ``redis_archive`` (finished runs, shared by every replica), ``queue_worker`` (what
``python -m core worker`` runs: only the lab's own training job) and ``queue_flights`` (a page's side: one job
per distinct setting, watched until it ends). The URL may hold a password: it is never printed, logged or
shown; Redis's errors name its host and port, never the password.

Whether a worker is running is decided here from heartbeats the workers renew themselves (``beat``), on Redis's
clock: a heartbeat older than ALIVE_SECONDS is a dead worker, and one more than FUTURE_SECONDS ahead of Redis's
clock was written by hand (no worker writes one) and counts for nothing.

Whatever the shared Redis holds is data from outside: text read from it goes to a log line or a page only
through ``typed_json.plain`` (one line, control characters escaped, bounded).
"""

from __future__ import annotations

import hashlib
import os

from redis import Redis
from redis.exceptions import AuthenticationError, RedisError, ResponseError

from core.engine.archive import config_key
from core.engine.run_config import GeneralizationConfig

URL_VARIABLE = "VITLAB_REDIS_URL"
QUEUE = "vitlab:queue"  # list: the ids of the jobs waiting for a worker, the next one first
TAKEN_BY = "vitlab:wip:"  # + a worker's name: list, the job it took (a dead worker's is handed back by the next)
ASIDE = "vitlab:aside"  # list: the newest entries a worker refused or did not understand, with the reason
# A worker renews its heartbeat, and a job its alive key, every ALIVE_SECONDS / 3; one silent for ALIVE_SECONDS
# is dead
ALIVE_SECONDS = float(os.environ.get("VITLAB_ALIVE_SECONDS") or 15)
WORKERS = "vitlab:workers"  # sorted set: worker name -> its last heartbeat, by Redis's clock
FUTURE_SECONDS = 5.0  # a heartbeat or a watch further ahead of Redis's clock than this was not written by the lab
START_WORKER = "`python -m core worker` with this server's VITLAB_REDIS_URL and VITLAB_ARCHIVE_SECRET"


def redis_url() -> str | None:
    """The Redis the replicas and workers share (``VITLAB_REDIS_URL``), or None: the server runs alone."""
    return os.environ.get(URL_VARIABLE) or None


CONNECT_SECONDS = 5  # a Redis that does not answer a connection this fast is unreachable: never a page left hanging


class BadRedisURL(ValueError):
    """A setting that does not parse as a Redis URL: said in one line that names the setting, never its value
    (it may hold a password)."""

    def __init__(self, variable: str):
        super().__init__(f"{variable} is not a Redis URL (redis://[:password@]host:port/db): fix the setting "
                         "and restart")


def connect(url: str, variable: str = URL_VARIABLE) -> Redis:
    """A connection to ``url`` (no command is sent yet), or ``BadRedisURL``. The URL may hold a password: it is
    never printed, logged or shown."""
    try:
        return Redis.from_url(url, socket_connect_timeout=CONNECT_SECONDS)
    except (ValueError, TypeError, IndexError):  # redis-py's parse errors: a bad port, scheme or database
        raise BadRedisURL(variable) from None


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
        self.job = f"vitlab:job:{job}"  # the job itself: a hash of plain fields (``queue_job``)


def redis_now(redis: Redis) -> float:
    seconds, micro = redis.time()  # Redis's clock: the same for every replica and worker, whatever theirs say
    return seconds + micro / 1e6


def beat(redis: Redis, worker: str) -> None:
    """One heartbeat of ``worker``: it is alive for ALIVE_SECONDS from now (Redis's clock); workers silent for
    an hour are forgotten."""
    now = redis_now(redis)
    with redis.pipeline() as p:
        (p.zadd(WORKERS, {worker: now}).zremrangebyscore(WORKERS, "-inf", now - 3600)
         .zremrangebyscore(WORKERS, f"({now + FUTURE_SECONDS}", "+inf").execute())


def forget_worker(redis: Redis, worker: str) -> None:
    redis.zrem(WORKERS, worker)


def live_workers(redis: Redis) -> int:
    """Workers whose last heartbeat is under ALIVE_SECONDS old, by Redis's clock (none from the future)."""
    return int(recent(redis, WORKERS, ALIVE_SECONDS))


def is_live(redis: Redis, worker: str) -> bool:
    score = redis.zscore(WORKERS, worker)
    now = redis_now(redis)
    return score is not None and now - ALIVE_SECONDS <= score <= now + FUTURE_SECONDS


def recent(redis: Redis, key: str, seconds: float) -> int:
    """How many members of the sorted set ``key`` were scored within the last ``seconds`` of Redis's clock; a
    score further ahead than FUTURE_SECONDS was written by hand and is not counted."""
    now = redis_now(redis)
    return int(redis.zcount(key, now - seconds, now + FUTURE_SECONDS))
