"""``python -m core worker``: trains the settings the app's replicas queue on Redis, and nothing else.

A Redis shared by a class is writable by whoever holds its password. So the worker's queue is the lab's own
(``queue_job``: a job is a hash of plain fields, none naming code), and this loop is the lab's own too: no
job, queue entry, control message or registry is ever turned into an import or a call. A job's setting is
validated as a page validates it (``typed_json``, ``planning.check_cost``) and must have been made by this
worker's training code. An entry the worker does not understand (not a job id, no such job, a hash of other
fields, a job no longer queued, a setting that does not validate) is refused in one log line, with its text
escaped, moved aside (``queue_redis.ASIDE``) and failed where it is a job, and the worker goes on. A job id
delivered a second time runs nothing (``Keys.taken``).

Taking a job moves its id atomically from the queue to this worker's own list (``TAKEN_BY``), measured inside
Redis first (an entry longer than any job id is moved aside unread); the lab's clean-up, at start and every
CLEAN_SECONDS, done inside Redis with every name and entry measured, hands back what a dead worker took and never
started. A job's
progress travels in its record (the place in the worker machine's line, the last epoch, every test-accuracy
point); the job renews its ``alive`` key while it trains, and the worker its heartbeat (``queue_redis.beat``)
while it lives, so a page tells a dead worker from a busy one within ALIVE_SECONDS.

Redis may restart, fail over or pause at any time: a command that fails costs a log line and a retry, never
the worker or its training. A job whose record vanished meanwhile (a Redis emptied or restarted without its
data) is written again by the worker training it, so its pages keep following it; its finished run is
delivered once Redis answers. The job checks its watchers at least once a second and stops at its next epoch
when none is left. SIGTERM or SIGINT stops the worker: a job in training is handed back to the queue's front,
and the worker exits 0; anything else that ends it exits non-zero.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
import uuid

from redis import Redis
from redis.exceptions import ConnectionError, RedisError, TimeoutError

from core.engine.queue.queue_job import (
    FAILED,
    FINISHED,
    JOB_SECONDS,
    JOB_TIMEOUT,
    QUEUED,
    STARTED,
    STOPPED,
    BadJob,
    JobRecord,
    read_job,
    update,
)
from core.engine.queue.queue_redis import (
    ALIVE_SECONDS,
    ASIDE,
    QUEUE,
    TAKEN_BY,
    URL_VARIABLE,
    WORKERS,
    Keys,
    QueueUnreachable,
    beat,
    connect,
    forget_worker,
    recent,
    redis_now,
    repaired,
)
from core.engine.queue.redis_archive import RedisArchive
from core.engine.results.run_result import RunResult
from core.engine.running.flights import Detached
from core.engine.running.run import run
from core.engine.running.train import EpochStats
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.planning import check_cost
from core.engine.setting.run_config import GeneralizationConfig
from core.engine.setting.typed_json import from_plain, plain

log = logging.getLogger(__name__)

WATCH_SECONDS = 10.0  # a page renews its watch at least this often, or counts as gone
CHECK_INTERVAL = 1.0  # the job looks at its watchers (and saves its progress) at most this often
POLL_SECONDS = 0.2  # an idle worker looks at the queue this often (a stop signal is seen within it)
MAX_ENTRY_BYTES = 100  # a queue entry longer than any job id is moved aside unread (measured in Redis)
CLEAN_SECONDS = 60.0  # the lab's clean-up of dead workers' entries runs at start and this often
CLEAN_MOST = 1000  # dead workers' lists looked at in one clean-up, at most
DELIVER_SECONDS = 600.0  # a finished run waits this long for an unreachable Redis, then is given up
ASIDE_KEPT = 100  # entries kept aside, newest first
MAX_EVAL_EVERY = 100_000
TAKEN_SECONDS = JOB_TIMEOUT + 600  # a job id stays taken this long: a second delivery within it runs nothing


# Take the queue's first entry into this worker's list, measured in Redis first: KEYS queue, mine, aside;
# ARGV the most bytes an entry may take, the entries kept aside. A key of another type than a list is deleted.
# Answers nil (nothing queued), {"ok", entry} or {"big", its length} (moved aside unread).
_TAKE = """
for i = 1, 3 do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind ~= 'none' and kind ~= 'list' then redis.call('DEL', KEYS[i]) end
end
local entry = redis.call('LINDEX', KEYS[1], 0)
if not entry then return nil end
if #entry > tonumber(ARGV[1]) then
  redis.call('LPOP', KEYS[1])
  redis.call('LPUSH', KEYS[3], cjson.encode({entry = '(' .. #entry .. ' bytes)', why = 'longer than any job id'}))
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[2]) - 1)
  return {'big', tostring(#entry)}
end
redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
return {'ok', entry}
"""

# Move an entry aside: KEYS mine, aside; ARGV the entry, what is kept aside of it (JSON), the entries kept
_ASIDE = """
for i = 1, 2 do
  local kind = redis.call('TYPE', KEYS[i]).ok
  if kind ~= 'none' and kind ~= 'list' then redis.call('DEL', KEYS[i]) end
end
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
return 1
"""


# The lab's clean-up, inside Redis: KEYS workers (their heartbeats), the queue; ARGV the prefix of a worker's
# list, the heartbeat before which a worker is dead, the most dead workers looked at, this worker's name, the most
# bytes an entry may take, the prefix of a job's key. Every name and entry is measured before it is used; a key
# of another type is deleted (the heartbeats' too: the next heartbeat writes them anew). Answers the ids handed back.
_CLEAN_UP = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'zset' then
  if kind ~= 'none' then redis.call('DEL', KEYS[1]) end
  return {}
end
local queue = redis.call('TYPE', KEYS[2]).ok
if queue ~= 'none' and queue ~= 'list' then redis.call('DEL', KEYS[2]) end
local most = tonumber(ARGV[5])
local handed = {}
for _, name in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))) do
  if #name <= 100 and name ~= ARGV[4] then
    local key = ARGV[1] .. name
    if redis.call('TYPE', key).ok == 'list' then
      for i = 0, math.min(redis.call('LLEN', key), 10) - 1 do
        local entry = redis.call('LINDEX', key, i)
        if entry and #entry <= most then
          local job = ARGV[6] .. entry
          if redis.call('TYPE', job).ok == 'hash' and redis.call('HSTRLEN', job, 'status') <= 16
              and redis.call('HGET', job, 'status') == 'queued' then
            redis.call('LPUSH', KEYS[2], entry)
            handed[#handed + 1] = entry
          end
        end
      end
    end
    redis.call('DEL', key)
  end
  redis.call('ZREM', KEYS[1], name)
end
return handed
"""


class JobRefused(ValueError):
    """A job this worker will not run: its message says why, in one line."""


def job_arguments(config: object, eval_every: object, fingerprint: object) -> tuple[GeneralizationConfig, int]:
    """A job's arguments as a setting this worker may train, or ``JobRefused``: the setting decodes field by
    field, is within the page's cost cap, and was made by this worker's training code."""
    if fingerprint != code_fingerprint():
        raise JobRefused(f"it was made by other training code ({plain(fingerprint, 20)!r}, this worker runs "
                         f"{code_fingerprint()}): update the worker and start it again")
    if not isinstance(eval_every, int) or isinstance(eval_every, bool) or not 0 <= eval_every <= MAX_EVAL_EVERY:
        raise JobRefused(f"eval_every must be an integer in 0..{MAX_EVAL_EVERY}, got {plain(eval_every, 40)!r}")
    try:
        cfg = from_plain(GeneralizationConfig, config, "config")
        check_cost(cfg)
    except (ValueError, TypeError, RecursionError, OverflowError) as exc:
        raise JobRefused(f"its setting is not one the lab trains: {plain(exc, 300)}") from None
    return cfg, eval_every


class _Outage:
    """Redis unreachable: one log line when it starts and one when it ends, not one per failed command."""

    def __init__(self):
        self.since: float | None = None

    def failed(self, exc: BaseException, doing: str) -> None:
        if self.since is None:
            self.since = time.monotonic()
            log.warning("Redis cannot be reached while %s (%s): retrying, the training goes on",
                        doing, plain(QueueUnreachable(exc), 300))

    def answered(self) -> None:
        if self.since is not None:
            log.warning("Redis answers again after %.0f s", time.monotonic() - self.since)
            self.since = None


class _Job:
    """One job in training: its progress in its record, whether anyone still watches it (at most every
    CHECK_INTERVAL), its record written again if Redis lost it."""

    def __init__(self, redis: Redis, record: JobRecord, worker: str, stopping: threading.Event, outage: _Outage):
        self.redis, self.record, self.worker, self.stopping, self.outage = redis, record, worker, stopping, outage
        self.keys = Keys(record.setting, record.id)
        self.state: dict = {"waiting": None, "step": None, "curve": []}
        self._last = -float("inf")
        self._grace_until = 0.0  # after the record is written again: pages get WATCH_SECONDS to watch again

    def save_and_check(self, force: bool = False) -> bool:
        """Save the progress and say whether to go on: someone watches, nobody asked to stop, the worker is not
        stopping. Redis unreachable: go on (the pages cannot have left a training they cannot see)."""
        if self.stopping.is_set():
            return False
        if not force and time.monotonic() - self._last < CHECK_INTERVAL:
            return True
        self._last = time.monotonic()
        try:
            if not update(self.redis, self.record.id, progress=json.dumps(self.state, separators=(",", ":"))):
                self._write_again()
            watched = recent(self.redis, self.keys.watchers, WATCH_SECONDS) > 0
            stop = self.redis.exists(self.keys.stop)
        except RedisError as exc:
            self.outage.failed(exc, "a job trains")
            return True
        self.outage.answered()
        return (watched or time.monotonic() < self._grace_until) and not stop

    def _write_again(self) -> None:
        """The job's record vanished (Redis emptied or restarted without its data): write it again as started,
        with this setting's pointer to it unless another job took the setting meanwhile."""
        r = self.record
        log.warning("job %s vanished from Redis while it trained: written again", r.id)
        key = self.keys.job
        fields = {"setting": r.setting, "status": STARTED, "config": json.dumps(r.config, separators=(",", ":")),
                  "eval_every": str(r.eval_every), "fingerprint": r.fingerprint, "worker": self.worker,
                  "progress": json.dumps(self.state, separators=(",", ":"))}
        with self.redis.pipeline(transaction=True) as p:
            (p.hset(key, mapping=fields).expire(key, JOB_SECONDS)
             .set(self.keys.current, r.id, ex=JOB_TIMEOUT, nx=True)
             .set(self.keys.taken, self.worker, ex=TAKEN_SECONDS)
             .set(self.keys.alive, 1, px=int(ALIVE_SECONDS * 1000)).execute())
        self._grace_until = time.monotonic() + WATCH_SECONDS

    def on_wait(self, position: int) -> None:
        self.state["waiting"] = position
        if not self.save_and_check():
            raise Detached

    def progress(self, model: str, seed: int, stats: EpochStats, done: int, total: int) -> bool | None:
        self.state["waiting"] = None
        self.state["step"] = [model, seed, stats.epoch, stats.loss, done, total]
        if stats.test_acc is not None:
            self.state["curve"].append({"model": model, "seed": seed, "epoch": stats.epoch, "test_acc": stats.test_acc})
        return None if self.save_and_check() else False


def _every(seconds: float, renew) -> threading.Event:
    """Call ``renew()`` now and every ``seconds`` on a thread until the returned event is set; a Redis that
    fails meanwhile (restarting) costs a beat, not the thread."""
    done = threading.Event()

    def loop() -> None:
        while True:
            try:
                renew()
            except RedisError:
                pass
            if done.wait(seconds):
                return

    threading.Thread(target=loop, name="vitlab-beat", daemon=True).start()
    return done


class LabWorker:
    """Takes the lab's jobs from the queue, one at a time, and trains each in this machine's pool."""

    def __init__(self, redis: Redis, secret: bytes, name: str | None = None):
        self.redis, self.secret = redis, secret
        self.name = name or f"vitlab-worker-{uuid.uuid4().hex[:12]}"
        self.taken_by = TAKEN_BY + self.name
        self.stopping = threading.Event()
        self.outage = _Outage()
        self.jobs = 0  # jobs it trained

    def work(self, burst: bool = False) -> None:
        """Take jobs until stopped (``burst``: until the queue is empty)."""
        cleaned = -float("inf")
        take = self.redis.register_script(_TAKE)
        while not self.stopping.is_set():
            try:
                if time.monotonic() - cleaned >= CLEAN_SECONDS:
                    cleaned = time.monotonic()  # once per period, whatever it meets
                    self.clean_up()
                answer = take(keys=[QUEUE, self.taken_by, ASIDE], args=[MAX_ENTRY_BYTES, ASIDE_KEPT])
                self.outage.answered()
                if answer is None:
                    if burst:
                        return
                    self.stopping.wait(POLL_SECONDS)
                elif answer[0] == b"big":
                    log.warning("refused a queue entry of %s bytes (no job id is that long): moved aside unread",
                                answer[1].decode())
                else:
                    self._take_or_refuse(answer[1])
            except (ConnectionError, TimeoutError) as exc:
                self.outage.failed(exc, "it waits for a job")
                self.stopping.wait(1.0)
            except RedisError as exc:  # refused by Redis (a script error, a read-only replica): said, then again
                log.warning("Redis refused a command (%s): trying again", plain(exc, 200))
                self.stopping.wait(1.0)

    # ------------------------------------------------------------ one entry
    def _take_or_refuse(self, raw: bytes) -> None:
        """``take``; an entry whose reading fails in a way no check foresaw is refused like any other, and the
        worker goes on (a Redis that fails is the loop's to wait for)."""
        try:
            self.take(raw)
        except RedisError:
            raise
        except Exception as exc:  # noqa: BLE001 (whatever an entry makes a check raise: one line, then the next)
            self.refuse(raw, f"reading it failed: {type(exc).__name__}: {plain(exc, 200)}")

    def take(self, raw: bytes) -> None:
        job_id = raw.decode("utf-8", errors="replace")
        try:
            record = read_job(self.redis, job_id)
        except BadJob as exc:
            return self.refuse(raw, str(exc))
        if record is None:
            return self.refuse(raw, f"there is no job {plain(job_id, 80)!r}")
        if record.status != QUEUED:
            return self.refuse(raw, f"job {job_id} is {record.status}, not queued: nothing to run")
        try:
            cfg, eval_every = job_arguments(record.config, record.eval_every, record.fingerprint)
        except JobRefused as exc:
            return self.refuse(raw, f"job {job_id}: {exc}", fail=job_id)
        keys = Keys(record.setting, job_id)
        if not self.redis.set(keys.taken, self.name, nx=True, ex=TAKEN_SECONDS):
            log.warning("job %s was delivered again: it was taken already, so this delivery runs nothing", job_id)
            # a finished job put back in the queue by hand is finished again; any other is failed, once
            update(self.redis, job_id, status=FINISHED if record.complete else FAILED,
                   error="" if record.complete else "it was delivered twice")
            repaired(self.redis, self.taken_by, lambda: self.redis.lrem(self.taken_by, 1, raw))
            return None
        with self.redis.pipeline(transaction=True) as p:
            p.set(keys.alive, 1, px=int(ALIVE_SECONDS * 1000)).execute()
        update(self.redis, job_id, status=STARTED, worker=self.name)
        log.info("job %s: training %s", job_id, plain(f"{cfg.models} {cfg.train}", 160))
        self.jobs += 1
        self.train(record, cfg, eval_every)
        return None

    def refuse(self, raw: bytes, reason: str, fail: str | None = None) -> None:
        """Move an entry aside with ``reason`` (failing its job first, when it is one), in one log line; nothing
        of it runs."""
        reason = plain(reason, 400)
        log.warning("refused %s: %s", plain(raw, 80), reason)
        if fail is not None:
            update(self.redis, fail, status=FAILED, error=f"refused by the ViT Lab worker: {reason}")
        self.redis.eval(_ASIDE, 2, self.taken_by, ASIDE, raw, json.dumps({"entry": plain(raw, 80), "why": reason}),
                        ASIDE_KEPT)

    # ------------------------------------------------------------ training
    def train(self, record: JobRecord, cfg: GeneralizationConfig, eval_every: int) -> None:
        job = _Job(self.redis, record, self.name, self.stopping, self.outage)
        alive = _every(ALIVE_SECONDS / 3, lambda: self.redis.set(job.keys.alive, 1, px=int(ALIVE_SECONDS * 1000)))
        try:
            result = run(cfg, job.progress, eval_every=eval_every, on_wait=job.on_wait, here=True)
        except Detached:
            result = RunResult(cfg, complete=False)
        except Exception as exc:  # noqa: BLE001 (a training that fails fails its job, not the worker)
            if self.stopping.is_set():  # stopped with its process group: the pool's processes went first
                result = RunResult(cfg, complete=False)
            else:
                log.exception("job %s failed", record.id)
                result, error = None, f"{type(exc).__name__}: {plain(exc, 300)}"
        finally:
            alive.set()
        if result is None:
            self._deliver(lambda: self._end(record, FAILED, error=error))
        elif result.complete:
            self._deliver(lambda: self._finish(record, cfg, result, job))
        elif self.stopping.is_set():
            self._deliver(lambda: self._hand_back(record))
        else:
            self._deliver(lambda: self._end(record, STOPPED, progress=json.dumps(job.state, separators=(",", ":"))))
            log.info("stopped job %s: nobody watches it any more", record.id)

    def _deliver(self, step) -> None:
        """Do ``step`` once Redis answers (retrying for DELIVER_SECONDS), or log that it was given up."""
        deadline = time.monotonic() + DELIVER_SECONDS
        while True:
            try:
                step()
                self.outage.answered()
                return
            except (ConnectionError, TimeoutError) as exc:
                self.outage.failed(exc, "a job's end was delivered")
                if time.monotonic() > deadline:
                    log.error("a job's end could not be delivered in %.0f s: given up", DELIVER_SECONDS)
                    return
                time.sleep(1.0)
            except RedisError as exc:  # refused, not unreachable: trying again would not help
                log.warning("a job's end was not delivered: Redis refused a command (%s)", plain(exc, 200))
                return

    def _finish(self, record: JobRecord, cfg: GeneralizationConfig, result: RunResult, job: _Job) -> None:
        RedisArchive(self.redis, record.fingerprint, self.secret).put(cfg, result)
        if not update(self.redis, record.id, progress=json.dumps(job.state, separators=(",", ":"))):
            job._write_again()
        self._end(record, FINISHED, complete="1")
        log.info("finished job %s: its run is stored", record.id)

    def _end(self, record: JobRecord, status: str, **fields: str) -> None:
        update(self.redis, record.id, status=status, **fields)
        repaired(self.redis, self.taken_by, lambda: self.redis.lrem(self.taken_by, 1, record.id))

    def _hand_back(self, record: JobRecord) -> None:
        """This worker is stopping mid-job: the job goes back to the queue's front, for the next worker."""
        keys = Keys(record.setting, record.id)
        with self.redis.pipeline(transaction=True) as p:
            p.delete(keys.taken, keys.alive).lrem(self.taken_by, 1, record.id).execute()
        repaired(self.redis, QUEUE, lambda: self.redis.lpush(QUEUE, record.id))
        update(self.redis, record.id, status=QUEUED, worker="")
        log.warning("job %s handed back to the queue: this worker is stopping", record.id)

    # ------------------------------------------------------------ the lab's clean-up
    def clean_up(self) -> None:
        """Hand back to the queue what dead workers took and never started, and forget them (``_CLEAN_UP``:
        done inside Redis, every length measured there). A started job whose worker died is its pages' to hand
        on: they know whether anyone still wants it."""
        stale = redis_now(self.redis) - ALIVE_SECONDS
        handed = self.redis.eval(_CLEAN_UP, 2, WORKERS, QUEUE, TAKEN_BY, stale, CLEAN_MOST, self.name,
                                 MAX_ENTRY_BYTES, Keys("", "").job)
        for job_id in handed or []:
            log.warning("job %s, taken by a dead worker and never started, is handed back", plain(job_id, 80))


def work(url: str, secret: bytes, burst: bool = False) -> int:
    """Take jobs until stopped (``burst``: until the queue is empty), one at a time, each trained in this
    machine's pool (torch is imported once, by this process and its pool's workers). Returns how many jobs
    it trained."""
    redis = connect(url)
    try:
        redis.ping()
    except RedisError as exc:  # its text names host and port, never the password
        raise OSError(f"cannot use the Redis in {URL_VARIABLE}: {QueueUnreachable(exc)}") from None
    import torch  # noqa: F401  (now, not in the first job)

    # the log on stderr: stdout is the command's answer
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    worker = LabWorker(redis, secret)
    previous = {s: signal.signal(s, lambda *_: worker.stopping.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    # the heartbeat on a client of its own, so that it never waits behind the worker's blocking take
    beat_redis = connect(url)
    beating = _every(ALIVE_SECONDS / 3, lambda: beat(beat_redis, worker.name))
    log.info("worker %s takes jobs from %s%s", worker.name, QUEUE, " until it is empty" if burst else "")
    try:
        worker.work(burst=burst)
    finally:
        beating.set()
        for s, handler_before in previous.items():
            signal.signal(s, handler_before)
        try:
            forget_worker(beat_redis, worker.name)
        except RedisError:
            pass
    log.info("worker %s stopped after %d job(s)", worker.name, worker.jobs)
    return worker.jobs
