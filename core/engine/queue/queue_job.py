"""One training job on the class's Redis, as data the lab defines: a hash of plain fields and nothing that names
code. Replicas write it (``queue_flights``), workers take it (``queue_worker``); both read it with ``read_job``.

A Redis shared by a class is writable by whoever holds its password, so a job is read as untrusted data: its
key must be a hash, its fields the lab's own and no more, each field's length measured (``HSTRLEN``) before any
of it is read, its status one the lab writes and its setting JSON of bounded size and depth. Anything else is
``BadJob``, one line that says why: the worker moves the entry aside and goes on, the page treats the job as
lost. Nothing of a job is ever imported or called: the worker runs one function, the lab's training, on the
setting a job carries once it is validated as a page validates it.

A job moves queued -> started -> finished | failed | stopped, or is *handed on*: its worker died, and the page
that noticed enqueued the setting again and wrote the new job's id in ``next``, so every page that watched the
old job follows the new one and all of them learn the same outcome.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from redis import Redis

from core.engine.queue.queue_redis import QUEUE, Keys, measured_read
from core.engine.setting.typed_json import plain

QUEUED, STARTED, FINISHED, FAILED, STOPPED, HANDED_ON = "queued", "started", "finished", "failed", "stopped", "handed-on"
STATUSES = (QUEUED, STARTED, FINISHED, FAILED, STOPPED, HANDED_ON)
LIVE = (QUEUED, STARTED)

JOB_TIMEOUT = 3600  # seconds: the longest training one click may ask for runs well within it
JOB_SECONDS = JOB_TIMEOUT + 3600  # a job's record outlives its training by an hour, for its watchers to read

ID = re.compile(r"vitlab-[0-9a-f]{32}-[0-9a-f]{8}")  # "vitlab-" + the setting's id + 8 hex digits
SETTING = re.compile(r"[0-9a-f]{32}")
# The longest each field may be, in bytes: measured before it is read, so a huge field never reaches memory
FIELD_BYTES = {"setting": 32, "status": 16, "config": 16 * 1024, "eval_every": 8, "fingerprint": 128,
               "worker": 256, "progress": 4 * 2**20, "error": 1024, "complete": 1, "next": 64}
REQUIRED = ("setting", "status", "config", "eval_every", "fingerprint")


class BadJob(ValueError):
    """A job entry the lab did not write (or no longer can read): its message says why, in one line."""


@dataclass(frozen=True)
class JobRecord:
    id: str
    setting: str
    status: str
    config: object  # plain JSON, not yet validated as a setting (``queue_worker.job_arguments`` does)
    eval_every: int
    fingerprint: str
    worker: str = ""
    error: str = ""
    complete: bool = False
    next: str = ""  # handed on: the job that now trains the setting
    progress: object = None  # plain JSON (only when asked for: it is the largest field)


def new_job_id(setting: str, suffix: str) -> str:
    return f"vitlab-{setting}-{suffix}"


def enqueue(redis: Redis, job_id: str, setting: str, config: dict, eval_every: int, fingerprint: str) -> None:
    """Write a queued job and put it at the end of the queue, in one transaction."""
    key = Keys(setting, job_id).job
    fields = {"setting": setting, "status": QUEUED, "config": json.dumps(config, separators=(",", ":")),
              "eval_every": str(eval_every), "fingerprint": fingerprint}
    with redis.pipeline(transaction=True) as p:
        p.delete(key).hset(key, mapping=fields).expire(key, JOB_SECONDS).rpush(QUEUE, job_id).execute()


def update(redis: Redis, job_id: str, **fields: str) -> bool:
    """Set some of a job's fields, only if its record is still there (a Redis emptied meanwhile is not given a
    half-written job). True when it was."""
    key = Keys("", job_id).job
    values = {k: v for k, v in fields.items() if k in FIELD_BYTES}
    assert values == fields, f"fields no job has: {sorted(set(fields) - set(values))}"
    return bool(redis.eval(_UPDATE, 1, key, *[x for kv in values.items() for x in kv]))


# HSET only on an existing hash (as a script, so no reader sees a record created by the update itself)
_UPDATE = "if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return 0 end redis.call('HSET', KEYS[1], unpack(ARGV)) return 1"


def read_job(redis: Redis, job_id: str, progress: bool = False) -> JobRecord | None:
    """The job ``job_id``, checked (``BadJob`` says what is wrong), or None when there is no such job."""
    if not isinstance(job_id, str) or not ID.fullmatch(job_id):
        raise BadJob(f"{plain(job_id, 80)!r} is not a job id the lab makes")
    wanted = [n for n in FIELD_BYTES if progress or n != "progress"]
    answer = measured_read(redis, Keys("", job_id).job, FIELD_BYTES, len(FIELD_BYTES), set(wanted))
    if answer is None:
        return None
    what, values = answer
    if what != "ok":
        raise BadJob(f"job {job_id} {what}")
    fields = {n: v.decode("utf-8", errors="replace") for n, v in zip(wanted, values, strict=True) if v is not None}
    missing = [n for n in REQUIRED if n not in fields]
    if missing:
        raise BadJob(f"job {job_id} has no {missing[0]}")
    try:
        return _record(job_id, fields)
    except BadJob:
        raise
    except (ValueError, TypeError, RecursionError) as exc:  # whatever the fields hold, one line
        raise BadJob(f"job {job_id}: {plain(exc, 200)}") from None


def _record(job_id: str, f: dict[str, str]) -> JobRecord:
    status = f["status"]
    if status not in STATUSES:
        raise BadJob(f"job {job_id}: {plain(status, 20)!r} is not a job's status")
    if not SETTING.fullmatch(f["setting"]) or not job_id.startswith(f"vitlab-{f['setting']}-"):
        raise BadJob(f"job {job_id}: its setting {plain(f['setting'], 40)!r} is not the one its id names")
    if not f["eval_every"].isascii() or not f["eval_every"].isdigit():
        raise BadJob(f"job {job_id}: eval_every {plain(f['eval_every'], 20)!r} is not a whole number")
    nxt = f.get("next", "")
    if nxt and not ID.fullmatch(nxt):
        raise BadJob(f"job {job_id}: next {plain(nxt, 80)!r} is not a job id the lab makes")
    if status == HANDED_ON and not nxt:
        raise BadJob(f"job {job_id} was handed on to no job")
    if f.get("complete", "0") not in ("0", "1"):
        raise BadJob(f"job {job_id}: complete must be 0 or 1")
    return JobRecord(job_id, f["setting"], status, _json(job_id, "config", f["config"]), int(f["eval_every"]),
                     f["fingerprint"], f.get("worker", ""), f.get("error", ""), f.get("complete") == "1", nxt,
                     _json(job_id, "progress", f["progress"]) if "progress" in f else None)


def _json(job_id: str, name: str, text: str) -> object:
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # nested deeper than the parser goes: no setting or progress is
        raise BadJob(f"job {job_id}: its {name} nests too deep") from None
    except ValueError as exc:
        raise BadJob(f"job {job_id}: its {name} is not JSON ({plain(exc, 80)})") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a job may hold")
