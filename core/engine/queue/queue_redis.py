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
import logging
import os
from urllib.parse import urlsplit

from redis import Redis
from redis.exceptions import AuthenticationError, RedisError, ResponseError

from core.engine.setting.run_config import GeneralizationConfig
from core.engine.storage.archive import config_key

log = logging.getLogger(__name__)

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
    """A setting that is not a Redis URL the lab can use: said in one line that names the setting, never its
    value (it may hold a password)."""

    def __init__(self, variable: str, why: str = ""):
        super().__init__(f"{variable} is not a Redis URL (redis://[:password@]host:port/db or rediss://…){why}: "
                         "fix the setting and restart")


def connect(url: str, variable: str = URL_VARIABLE) -> Redis:
    """A connection to ``url`` (no command is sent yet), or ``BadRedisURL``. The URL may hold a password: it is
    never printed, logged or shown. Options after ``?`` are refused: redis-py takes them unchecked (a negative
    timeout, ``decode_responses``), and they would fail at the first command instead of here."""
    try:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise BadRedisURL(variable)
        if parts.query or parts.fragment:
            raise BadRedisURL(variable, ": options after '?' are not used by the lab, remove them")
        return Redis.from_url(url, socket_connect_timeout=CONNECT_SECONDS)
    except (ValueError, TypeError, IndexError) as exc:  # redis-py's parse errors: a bad port, scheme or database
        raise (exc if isinstance(exc, BadRedisURL) else BadRedisURL(variable)) from None


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


def wrong_type(exc: BaseException) -> bool:
    """Redis refused a command because a key holds another type than the lab writes there (written by hand)."""
    return isinstance(exc, ResponseError) and "WRONGTYPE" in str(exc)


def repaired(redis: Redis, key: str, command):
    """``command()``; where ``key`` holds a type the lab never writes there, the key is deleted (one log line)
    and the command tried once more."""
    try:
        return command()
    except ResponseError as exc:
        if not wrong_type(exc):
            raise
    log.warning("%s held a value of another type than the lab writes there: deleted", key)
    redis.delete(key)
    return command()


def beat(redis: Redis, worker: str) -> None:
    """One heartbeat of ``worker``: it is alive for ALIVE_SECONDS from now (Redis's clock); workers silent for
    an hour are forgotten, and so is any heartbeat from the future."""
    def once() -> None:
        now = redis_now(redis)
        with redis.pipeline() as p:
            (p.zadd(WORKERS, {worker: now}).zremrangebyscore(WORKERS, "-inf", now - 3600)
             .zremrangebyscore(WORKERS, f"({now + FUTURE_SECONDS}", "+inf").execute())

    repaired(redis, WORKERS, once)


def forget_worker(redis: Redis, worker: str) -> None:
    redis.zrem(WORKERS, worker)


def live_workers(redis: Redis) -> int:
    """Workers whose last heartbeat is under ALIVE_SECONDS old, by Redis's clock (none from the future)."""
    return int(recent(redis, WORKERS, ALIVE_SECONDS))


def recent(redis: Redis, key: str, seconds: float) -> int:
    """How many members of the sorted set ``key`` were scored within the last ``seconds`` of Redis's clock; a
    score further ahead than FUTURE_SECONDS was written by hand and is not counted, nor is a key of another type."""
    now = redis_now(redis)
    try:
        return int(redis.zcount(key, now - seconds, now + FUTURE_SECONDS))
    except ResponseError as exc:
        if wrong_type(exc):
            return 0
        raise


# A short string, or nil where the key holds another type or a longer value (never read): KEYS[1], ARGV[1] bytes
_SMALL = """
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then return nil end
if redis.call('STRLEN', KEYS[1]) > tonumber(ARGV[1]) then return nil end
return redis.call('GET', KEYS[1])
"""


def read_small(redis: Redis, key: str, most: int = 128) -> bytes | None:
    """The string at ``key`` if it is one of at most ``most`` bytes, else None: measured before it is read."""
    return redis.eval(_SMALL, 1, key, most)


# One hash read atomically, every length measured before anything is read, no name read that is not asked for:
# KEYS[1] the hash; ARGV[1] the most fields it may have, then (name, the most bytes its value may take, 1 to read
# it) triples. Answers nil (no such key), {"ok", the values read...} or {what is wrong}.
_MEASURED_READ = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return nil end
if kind ~= 'hash' then return {'is a Redis ' .. kind .. ', not a hash'} end
local n = redis.call('HLEN', KEYS[1])
local known = 0
local names = {}
for i = 2, #ARGV, 3 do
  local length = redis.call('HSTRLEN', KEYS[1], ARGV[i])
  if length > tonumber(ARGV[i + 1]) then
    return {'has its ' .. ARGV[i] .. ' at ' .. length .. ' bytes, over the ' .. ARGV[i + 1] .. ' it may take'}
  end
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then known = known + 1 end
  if ARGV[i + 2] == '1' then names[#names + 1] = ARGV[i] end
end
if n > tonumber(ARGV[1]) or n > known then return {'has a field the lab does not write'} end
local values = redis.call('HMGET', KEYS[1], unpack(names))
local out = {'ok'}
for i = 1, #names do out[i + 1] = values[i] end
return out
"""


def measured_read(redis: Redis, key: str, bounds: dict[str, int], most: int,
                  read: set[str] | None = None) -> tuple[str, list] | None:
    """The fields ``read`` (default: all that ``bounds`` names) of the hash ``key``, read in one atomic step that
    first measures every field ``bounds`` names (at most ``bounds[name]`` bytes) and counts the hash's fields (at
    most ``most``, and none but those named): ``("ok", values)`` (in ``bounds``' order, None for a field it
    lacks), ``(what is wrong, [])``, or None where there is no such key. No field is read that was not measured,
    and no name is read at all."""
    read = set(bounds) if read is None else read
    args = [most, *[x for name, bound in bounds.items() for x in (name, bound, int(name in read))]]
    answer = redis.eval(_MEASURED_READ, 1, key, *args)
    if answer is None:
        return None
    head = answer[0].decode(errors="replace") if isinstance(answer[0], bytes) else str(answer[0])
    if head != "ok":
        return head, []
    values = list(answer[1:])
    return "ok", values + [None] * (len(read) - len(values))  # (a Lua table ends at its first nil)
