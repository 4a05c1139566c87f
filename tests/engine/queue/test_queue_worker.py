"""core/engine/queue/queue_worker.py: a worker on a shared Redis runs the lab's training job and nothing else, each job
once, and lives through whatever the Redis holds. Against a real Redis and real ``python -m core worker``
processes; each hostile write is one an earlier worker (on RQ) obeyed or died of."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from core.engine.queue.queue_job import enqueue, new_job_id, read_job
from core.engine.queue.queue_redis import ASIDE, QUEUE, WORKERS, connect, live_workers, setting_id
from core.engine.queue.queue_worker import JobRefused, job_arguments
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.run_config import TrainConfig, with_value
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.browser import ROOT
from support.services import class_env, start_worker, stop
from tests.engine.conftest import PASSWORD

SMALL = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=20, seeds=(0,))), "models", ("cnn",))
ZEN = "Beautiful is better than ugly"  # what importing the module `this` prints


def burst(url: str, env: dict | None = None) -> tuple[dict, str]:
    """``python -m core worker --burst --json``: its answer and its log."""
    out = subprocess.run([sys.executable, "-m", "core", "worker", "--burst", "--json"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, **class_env(url), **(env or {})}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout), out.stdout + out.stderr


def queue_job(redis, cfg=SMALL, eval_every: int = 0, fingerprint: str | None = None, suffix: str = "0000000a") -> str:
    """A job as a replica enqueues it, watched by a learner for the next WATCH_SECONDS; its id."""
    setting = setting_id(cfg, code_fingerprint())
    job_id = new_job_id(setting, suffix)
    redis.zadd(f"vitlab:watchers:{job_id}", {"learner": float(redis.time()[0])})
    enqueue(redis, job_id, setting, cfg.to_json(), eval_every, fingerprint or code_fingerprint())
    return job_id


def wait_for(predicate, what: str, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    return value


@pytest.fixture
def probe(tmp_path):
    """A module on the worker's path that leaves a file behind if anything imports it: what a name in Redis
    would make RQ import."""
    (tmp_path / "vitlab_probe.py").write_text(f"open({str(tmp_path / 'imported')!r}, 'w').write('x')\n"
                                              "def run(*a, **k):\n    pass\n")
    return {"PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}, tmp_path / "imported"


def test_rq_s_clean_up_entries_import_nothing_and_the_worker_lives(redis_url, tmp_path, probe):
    """Reproduction 1: RQ's registry clean-up imported and called a failure callback named in Redis."""
    env, imported = probe
    redis = connect(redis_url)
    redis.flushdb()
    for name, callback in (("evil", "this.s"), ("evil2", "builtins.print"), ("evil3", "vitlab_probe.run")):
        redis.hset(f"rq:job:{name}", mapping={"data": "x", "status": "started", "failure_callback_name": callback})
        redis.zadd("rq:wip:vitlab", {f"{name}:e1": 1})
        redis.zadd("rq:wip:vitlab:queue", {name: 1})
    job_id = queue_job(redis)
    answer, log = burst(redis_url, env)
    assert answer == {"jobs": 1} and "finished job" in log
    assert ZEN not in log and not imported.exists(), log[-2000:]
    assert read_job(redis, job_id).status == "finished"


def test_a_job_naming_code_or_carrying_extras_is_refused_and_nothing_of_it_runs(redis_url, tmp_path, probe):
    env, imported = probe
    redis = connect(redis_url)
    redis.flushdb()
    marker = tmp_path / "ran"
    setting = setting_id(SMALL, code_fingerprint())
    good = {"setting": setting, "status": "queued", "config": json.dumps(SMALL.to_json()), "eval_every": "0",
            "fingerprint": code_fingerprint()}
    hostile = {
        "an RQ function name": {**good, "func_name": "os.system", "args": json.dumps([f"touch {marker}"])},
        "a failure callback": {**good, "failure_callback_name": "vitlab_probe.run"},
        "a success callback": {**good, "success_callback_name": "builtins.exec"},
        "dependencies": {**good, "dependency_ids": "other"},
        "a pickle": {**good, "data": "\x80\x04\x95"},
        "over the cost cap": {**good, "config": json.dumps(with_value(SMALL, "train.epochs", 99_999).to_json())},
        "a setting of wrong types": {**good, "config": json.dumps({**SMALL.to_json(), "train": {"epochs": "9"}})},
        "other training code": {**good, "fingerprint": "someone-else"},
        "a bad eval_every": {**good, "eval_every": "all"},
        "a NaN": {**good, "config": json.dumps({**SMALL.to_json(), "train": {**SMALL.to_json()["train"],
                                                                              "lr": float("nan")}})},
        "a huge number": {**good, "eval_every": "99999999"},
        "a negative seed": {**good, "config": json.dumps({**SMALL.to_json(), "train": {**SMALL.to_json()["train"],
                                                                                        "seeds": [-1]}})},
        "deep nesting": {**good, "config": "[" * 5000 + "]" * 5000},
        "a model named as code": {**good, "config": json.dumps({**SMALL.to_json(), "models": ["os.system"]})},
        "a status no job has": {**good, "status": "pwned"},
        "another setting's id": {**good, "setting": "f" * 32},
    }
    ids = {}
    for i, (what, fields) in enumerate(hostile.items()):
        ids[what] = new_job_id(setting, f"{i:08x}")
        redis.hset(f"vitlab:job:{ids[what]}", mapping=fields)
        redis.rpush(QUEUE, ids[what])
    answer, log = burst(redis_url, env)
    assert answer == {"jobs": 0} and not marker.exists() and not imported.exists(), log[-3000:]
    assert log.count("refused") == len(hostile) and "finished job" not in log and PASSWORD not in log
    assert redis.llen(ASIDE) == len(hostile) and redis.llen(QUEUE) == 0
    for what, job_id in ids.items():
        if what in ("a huge number", "over the cost cap", "a setting of wrong types", "other training code",
                    "a model named as code", "a negative seed"):  # a job the lab's, with arguments refused
            job = read_job(redis, job_id)
            assert job.status == "failed" and "refused by the ViT Lab worker" in job.error, what
    assert not redis.keys("vitlab:run:*")  # nothing trained


def test_one_write_no_longer_stops_every_worker(redis_url, tmp_path):
    """Reproduction 2: an RQ job hash with a status RQ does not know made every worker exit at dequeue, for good;
    and RQ's pub/sub shutdown command stopped workers. Entries the worker does not understand are moved aside in
    one line each, and it goes on to the next job."""
    redis = connect(redis_url)
    redis.flushdb()
    redis.hset("rq:job:bad", mapping={"data": "x", "status": "pwned"})
    redis.rpush("rq:queue:vitlab", "bad")
    redis.hset(f"vitlab:job:{new_job_id('a' * 32, '0000000b')}", mapping={"data": "x", "status": "pwned"})
    redis.set(f"vitlab:job:{new_job_id('a' * 32, '0000000c')}", "a string, not a hash")
    for entry in ("bad", new_job_id("a" * 32, "0000000b"), new_job_id("a" * 32, "0000000c"),
                  new_job_id("a" * 32, "0000000d"),  # no such job
                  "x\n00:00:00 finished job vitlab-forged: its run is stored"):
        redis.rpush(QUEUE, entry)
    log_path = tmp_path / "worker.log"
    proc = start_worker(redis_url, log_path, env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        wait_for(lambda: live_workers(redis) == 1, "the worker never beat")
        for name in [m.decode() for m in redis.zrange(WORKERS, 0, -1)]:
            redis.publish(f"rq:pubsub:{name}", json.dumps({"command": "shutdown"}))
        redis.publish("rq:pubsub:vitlab", json.dumps({"command": "shutdown"}))
        job_id = queue_job(redis)
        wait_for(lambda: (j := read_job(redis, job_id)) and j.status == "finished", "the good job never ran")
        assert proc.poll() is None, log_path.read_text()[-2000:]
        log = log_path.read_text()
        assert log.count("refused") == 5 and redis.llen(ASIDE) == 5 and redis.llen(QUEUE) == 0
        assert "\n00:00:00 finished job vitlab-forged" not in log and "\\n00:00:00 finished job" in log
        proc.send_signal(signal.SIGTERM)  # its own signal: it leaves, exit 0
        assert proc.wait(timeout=30) == 0
    finally:
        stop(proc)


def test_a_job_delivered_twice_runs_once_and_a_finished_job_put_back_is_resolved(redis_url):
    redis = connect(redis_url)
    redis.flushdb()
    job_id = queue_job(redis)
    redis.rpush(QUEUE, job_id)  # the same id in the queue a second time
    answer, log = burst(redis_url)
    assert answer == {"jobs": 1} and log.count("finished job") == 1 and redis.llen(QUEUE) == 0
    assert read_job(redis, job_id).status == "finished"
    # Reproduction 6b: a finished job re-enqueued by hand, even marked queued again, is resolved, not left queued
    redis.hset(f"vitlab:job:{job_id}", "status", "queued")
    redis.rpush(QUEUE, job_id)
    answer, log = burst(redis_url)
    assert answer == {"jobs": 0} and "delivered again" in log and redis.llen(QUEUE) == 0
    assert read_job(redis, job_id).status == "finished"


def test_sigterm_mid_job_hands_the_job_back_and_the_worker_exits_0(redis_url, tmp_path):
    redis = connect(redis_url)
    redis.flushdb()
    setting = setting_id(with_value(SMALL, "train.epochs", 10_000), code_fingerprint())
    job_id = queue_job(redis, with_value(SMALL, "train.epochs", 10_000))

    def watched_and_started() -> bool:  # a learner watching, as a page renews its watch
        redis.zadd(f"vitlab:watchers:{job_id}", {"learner": float(redis.time()[0])})
        return read_job(redis, job_id).status == "started"

    watched_and_started()
    proc = start_worker(redis_url, tmp_path / "w.log", env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        wait_for(watched_and_started, "never started")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, (tmp_path / "w.log").read_text()[-2000:]
    finally:
        stop(proc)
    assert read_job(redis, job_id).status == "queued" and redis.lrange(QUEUE, 0, -1) == [job_id.encode()]
    assert not redis.exists(f"vitlab:taken:{job_id}") and setting in job_id


def test_a_taken_job_whose_worker_died_before_it_started_is_handed_back(redis_url):
    redis = connect(redis_url)
    redis.flushdb()
    job_id = queue_job(redis)
    redis.lmove(QUEUE, "vitlab:wip:dead-worker", "LEFT", "RIGHT")  # taken, then the worker died
    redis.zadd(WORKERS, {"dead-worker": 1})  # its last heartbeat, long ago
    answer, log = burst(redis_url)
    assert answer == {"jobs": 1} and "handed back" in log and not redis.exists("vitlab:wip:dead-worker")
    assert read_job(redis, job_id).status == "finished"


def test_a_job_s_setting_too_large_to_read_is_refused_before_it_is_read(redis_url):
    """Reproduction 7b: a small job whose setting expanded to 26 MiB took the worker from 264 to 594 MiB. A
    job's every field is measured before it is read."""
    redis = connect(redis_url)
    redis.flushdb()
    job_id = queue_job(redis)
    redis.hset(f"vitlab:job:{job_id}", "config", json.dumps({**SMALL.to_json(), "models": ["cnn"] * 4_000_000}))
    answer, log = burst(redis_url)
    assert answer == {"jobs": 0} and "over the 16384" in log


@pytest.mark.parametrize(("args", "message"), [
    ((SMALL.to_json(), 0, "other"), "other training code"),
    ((SMALL.to_json(), True, code_fingerprint()), "eval_every"),
    ((SMALL.to_json(), -1, code_fingerprint()), "eval_every"),
    (({**SMALL.to_json(), "models": "cnn"}, 0, code_fingerprint()), "config.models must be a list"),
    (({**SMALL.to_json(), "models": ["os.system"]}, 0, code_fingerprint()), "unknown model"),
    (({**SMALL.to_json(), "train": {**SMALL.to_json()["train"], "lr": 1e308}}, 0, code_fingerprint()), "lr"),
    (("not a setting", 0, code_fingerprint()), "config must be an object"),
])
def test_a_job_s_arguments_are_the_page_s_validated_setting(args, message):
    with pytest.raises(JobRefused, match=message):
        job_arguments(*args)
    assert job_arguments(SMALL.to_json(), 5, code_fingerprint()) == (SMALL, 5)


def test_an_idle_worker_keeps_waiting_and_beating_then_takes_a_late_job(redis_url, tmp_path):
    redis = connect(redis_url)
    redis.flushdb()
    proc = start_worker(redis_url, tmp_path / "idle.log", env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        wait_for(lambda: live_workers(redis) == 1, "the worker never beat")
        time.sleep(5)  # idle, beating every second, blocking on the queue
        assert proc.poll() is None and live_workers(redis) == 1, (tmp_path / "idle.log").read_text()
        job_id = queue_job(redis)
        wait_for(lambda: read_job(redis, job_id).status == "finished", (tmp_path / "idle.log").read_text()[-2000:])
    finally:
        stop(proc)


def test_a_heartbeat_from_the_future_is_no_live_worker(redis_url):
    """Reproduction 6: a heartbeat written by hand far in the future made pages wait on a ghost forever."""
    redis = connect(redis_url)
    redis.flushdb()
    redis.zadd(WORKERS, {"ghost": 99999999999})
    assert live_workers(redis) == 0


def test_what_a_review_wrote_to_redis_costs_one_line_each_and_the_worker_goes_on(redis_url, tmp_path):
    """An adversarial review's writes, each of which stopped or crashed a worker, or slipped past its checks:
    brackets hidden in a string to pass a depth count, then nesting past the parser's limit; a 1 MiB queue entry
    and a job field with a 1 MiB name (read whole before any check); keys of another type where the queue, a
    worker's list, the entries kept aside and the heartbeats go."""
    redis = connect(redis_url)
    redis.flushdb()
    setting = setting_id(SMALL, code_fingerprint())
    deep = new_job_id(setting, "000000d1")
    redis.hset(f"vitlab:job:{deep}", mapping={
        "setting": setting, "status": "queued", "eval_every": "0", "fingerprint": code_fingerprint(),
        "config": '["' + "]" * 2000 + '",' + "[" * 2000 + "]" * 2000 + "]"})
    named = new_job_id(setting, "000000d2")
    redis.hset(f"vitlab:job:{named}", mapping={"setting": setting, "status": "queued", "config": "{}",
                                               "eval_every": "0", "fingerprint": "x", "n" * 2**20: "1"})
    redis.set("vitlab:wip:ghost", "a string where a dead worker's list goes")
    redis.set(ASIDE, "a string where the entries kept aside go")
    huge = new_job_id(setting, "000000d3")  # a number no float holds: it crashed every worker in turn
    redis.hset(f"vitlab:job:{huge}", mapping={
        "setting": setting, "status": "queued", "eval_every": "0", "fingerprint": code_fingerprint(),
        "config": json.dumps(SMALL.to_json(), separators=(",", ":")).replace('"epochs":20', '"epochs":1' + "0" * 309)})
    redis.zadd(WORKERS, {"w" * 2**20: 1})  # a dead worker with a 1 MiB name, and a ghost's list of huge entries
    redis.rpush("vitlab:wip:" + "w" * 2**20, "x" * 2**20)
    redis.rpush(QUEUE, deep, "vitlab-" + "a" * 2**20, named, huge)
    log_path = tmp_path / "worker.log"
    proc = start_worker(redis_url, log_path, env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        wait_for(lambda: redis.llen(QUEUE) == 0 and redis.type(ASIDE) == b"list" and redis.llen(ASIDE) == 4,
                 "the entries were not moved aside")
        redis.delete(QUEUE)
        redis.hset(QUEUE, "a", "a hash where the queue goes")
        wait_for(lambda: redis.type(QUEUE) != b"hash", "the queue of another type was never deleted")
        job_id = queue_job(redis)
        wait_for(lambda: read_job(redis, job_id).status == "finished", log_path.read_text()[-3000:], timeout=90)
        assert proc.poll() is None and live_workers(redis) == 1
        redis.set(WORKERS, "a string where the heartbeats go")
        assert live_workers(redis) == 0  # read as none, never an error
        wait_for(lambda: live_workers(redis) == 1, "the heartbeats were never written anew")
        log = log_path.read_text()
        assert "RecursionError" not in log and "Traceback" not in log and "of 1048583 bytes" in log, log[-3000:]
    finally:
        stop(proc)


def test_sigterm_to_the_worker_s_process_group_hands_the_job_back(redis_url, tmp_path):
    """As systemd or ``kill -- -PGID`` stops a worker: its pool's processes die first, which once failed the job."""
    redis = connect(redis_url)
    redis.flushdb()
    job_id = queue_job(redis, with_value(SMALL, "train.epochs", 10_000))

    def watched_and_training() -> bool:
        redis.zadd(f"vitlab:watchers:{job_id}", {"learner": float(redis.time()[0])})
        job = read_job(redis, job_id, progress=True)
        return job.status == "started" and bool((job.progress or {}).get("step"))

    watched_and_training()
    proc = start_worker(redis_url, tmp_path / "w.log", env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        wait_for(watched_and_training, "never trained", timeout=90)
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, (tmp_path / "w.log").read_text()[-2000:]
    finally:
        stop(proc)
    assert read_job(redis, job_id).status == "queued" and redis.lrange(QUEUE, 0, -1) == [job_id.encode()]
