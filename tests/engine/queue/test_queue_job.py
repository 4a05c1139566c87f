"""core/engine/queue/queue_job.py: a job is a hash of the lab's plain fields, read measured and checked, against a real
Redis."""

import json

import pytest

from core.engine.queue.queue_job import FIELD_BYTES, BadJob, enqueue, new_job_id, read_job, update
from core.engine.queue.queue_redis import QUEUE, connect

SETTING = "0123456789abcdef" * 2
JOB = new_job_id(SETTING, "00000001")


@pytest.fixture
def redis(redis_url):
    client = connect(redis_url)
    client.flushdb()
    return client


def test_a_job_reads_back_as_written_and_is_queued(redis):
    enqueue(redis, JOB, SETTING, {"models": ["cnn"]}, 5, "code")
    job = read_job(redis, JOB)
    assert (job.status, job.config, job.eval_every, job.fingerprint, job.progress) == ("queued", {"models": ["cnn"]}, 5,
                                                                                      "code", None)
    assert redis.lrange(QUEUE, 0, -1) == [JOB.encode()] and read_job(redis, new_job_id(SETTING, "00000002")) is None
    assert update(redis, JOB, status="started", progress=json.dumps({"step": None}))
    assert read_job(redis, JOB, progress=True).progress == {"step": None}
    assert not update(redis, new_job_id(SETTING, "00000003"), status="started")  # no half-written record made
    assert not redis.exists(f"vitlab:job:{new_job_id(SETTING, '00000003')}")


@pytest.mark.parametrize(("fields", "why"), [
    ({"status": "pwned"}, "not a job's status"),
    ({"func_name": "os.system"}, "a field the lab does not write"),
    ({"config": "x" * (FIELD_BYTES["config"] + 1)}, "over the 16384"),
    ({"config": "[" * 5000 + "]" * 5000}, "nests too deep"),
    ({"config": "NaN"}, "not JSON"),
    ({"eval_every": "²"}, "not a whole number"),
    ({"setting": "f" * 32}, "not the one its id names"),
    ({"status": "handed-on"}, "handed on to no job"),
    ({"next": "elsewhere"}, "not a job id"),
])
def test_a_record_the_lab_did_not_write_is_refused_in_one_line(redis, fields, why):
    enqueue(redis, JOB, SETTING, {}, 0, "code")
    redis.hset(f"vitlab:job:{JOB}", mapping=fields)
    with pytest.raises(BadJob, match=why) as refused:
        read_job(redis, JOB)
    assert "\n" not in str(refused.value)


def test_a_key_of_another_type_or_an_id_the_lab_never_makes_is_refused(redis):
    redis.set(f"vitlab:job:{JOB}", "a string")
    with pytest.raises(BadJob, match="is a Redis string, not a hash"):
        read_job(redis, JOB)
    with pytest.raises(BadJob, match="not a job id"):
        read_job(redis, "x\nforged")
