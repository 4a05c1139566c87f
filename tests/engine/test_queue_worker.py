"""core/engine/queue_worker.py: a worker on a shared Redis runs the lab's training job and nothing else, and
each job once. Against a real Redis and a real ``python -m core worker --burst``."""

import json
import os
import subprocess
import sys

import pytest
from rq import Callback, Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from core.engine.fingerprint import code_fingerprint
from core.engine.queue_redis import QUEUE, connect
from core.engine.queue_worker import ENTRY, JobRefused, job_arguments
from core.engine.run_config import TrainConfig, with_value
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.browser import ROOT
from tests.engine.conftest import PASSWORD

SMALL = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=20, seeds=(0,))), "models", ("cnn",))


def burst(url: str) -> tuple[dict, str]:
    """``python -m core worker --burst --json``: its answer and its log."""
    out = subprocess.run([sys.executable, "-m", "core", "worker", "--burst", "--json"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "VITLAB_REDIS_URL": url}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout), out.stderr


def test_the_worker_refuses_every_job_but_its_own_and_nothing_runs(redis_url, tmp_path):
    redis = connect(redis_url)
    redis.flushdb()
    queue = Queue(QUEUE, connection=redis, serializer=JSONSerializer)
    marker = tmp_path / "ran"
    good = (SMALL.to_json(), 0, code_fingerprint())
    hostile = {
        "os.system": queue.enqueue_call("os.system", args=(f"touch {marker}",)),
        "builtins.exec": queue.enqueue_call("builtins.exec", args=(f"open({str(marker)!r}, 'w').write('x')",)),
        "subprocess.run": queue.enqueue_call("subprocess.run", args=(["touch", str(marker)],)),
        "a missing function": queue.enqueue_call("no_such_module.no_such_function", args=()),
        "over the cost cap": queue.enqueue_call(ENTRY, args=(with_value(SMALL, "train.epochs", 99_999).to_json(), 0,
                                                             code_fingerprint())),
        "a setting of wrong types": queue.enqueue_call(ENTRY, args=({**SMALL.to_json(), "train": {"epochs": "9"}}, 0,
                                                                    code_fingerprint())),
        "other training code": queue.enqueue_call(ENTRY, args=(SMALL.to_json(), 0, "someone-else")),
        "a bad eval_every": queue.enqueue_call(ENTRY, args=(SMALL.to_json(), "all", code_fingerprint())),
        "keyword arguments": queue.enqueue_call(ENTRY, args=good, kwargs={"extra": f"touch {marker}"}),
        "a success callback": queue.enqueue_call(ENTRY, args=good, on_success=Callback(os.system)),
        "a failure callback": queue.enqueue_call(ENTRY, args=good, on_failure=Callback(os.system)),
    }
    answer, log = burst(redis_url)
    assert answer == {"jobs": 0} and not marker.exists()
    for what, job in hostile.items():
        job = Job.fetch(job.id, connection=redis, serializer=JSONSerializer)
        assert job.get_status() == JobStatus.FAILED, what
        assert "refused by the ViT Lab worker" in job.latest_result().exc_string, what
    assert log.count("refused job") == len(hostile) and "Job OK" not in log and PASSWORD not in log
    assert not redis.keys("vitlab:run:*")  # nothing trained


def test_a_job_delivered_twice_runs_once(redis_url):
    redis = connect(redis_url)
    redis.flushdb()
    queue = Queue(QUEUE, connection=redis, serializer=JSONSerializer)
    job = queue.enqueue_call(ENTRY, args=(SMALL.to_json(), 0, code_fingerprint()))
    redis.rpush(queue.key, job.id)  # the same id in the queue a second time
    answer, log = burst(redis_url)
    assert answer == {"jobs": 1} and "delivered again" in log and log.count("Job OK") == 1
    assert Job.fetch(job.id, connection=redis, serializer=JSONSerializer).get_status() == JobStatus.FINISHED


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
    """The heartbeat must not cut into RQ's blocking wait for the next job (it did: the worker quit with "Redis
    connection timeout" after a few idle seconds)."""
    import time

    from core.engine import queue_redis
    from support.services import start_worker, stop

    redis = connect(redis_url)
    redis.flushdb()
    proc = start_worker(redis_url, tmp_path / "idle.log", env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        time.sleep(8)  # idle, beating every second
        assert proc.poll() is None and queue_redis.live_workers(redis) == 1, (tmp_path / "idle.log").read_text()
        job = Queue(QUEUE, connection=redis, serializer=JSONSerializer).enqueue_call(
            ENTRY, args=(SMALL.to_json(), 0, code_fingerprint()))
        deadline = time.monotonic() + 60
        while job.get_status(refresh=True) != JobStatus.FINISHED:
            assert time.monotonic() < deadline, (tmp_path / "idle.log").read_text()[-2000:]
            time.sleep(0.2)
    finally:
        stop(proc)
