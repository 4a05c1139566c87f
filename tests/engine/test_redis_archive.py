"""core/engine/redis_archive.py against a real Redis: runs shared by replicas, and whatever else wrote the
Redis, a run that is not usable is logged, deleted and read as a miss, its expiry never renewed."""

import logging

import pytest

from core.engine.fingerprint import code_fingerprint
from core.engine.queue_redis import connect
from core.engine.redis_archive import RedisArchive
from core.engine.run import run
from core.engine.run_config import TrainConfig, with_value
from core.engine.store import ResultStore
from core.engine.stored_run import UnusableRun
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.hostile_runs import hostile_rows

TINY = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=5, seeds=(0,))), "models", ("cnn",))
RESULT = run(TINY, workers=0)


def test_a_run_put_by_one_replica_is_read_by_another(redis_url):
    connect(redis_url).flushdb()
    RedisArchive(connect(redis_url), code_fingerprint()).put(TINY, RESULT)
    back = RedisArchive(connect(redis_url), code_fingerprint()).get(TINY)
    assert back.rows == RESULT.rows and back.weights == RESULT.weights
    assert RedisArchive(connect(redis_url), "other code").get(TINY) is None


@pytest.mark.parametrize("case", list(hostile_rows(RESULT)))
def test_a_run_that_is_not_usable_is_logged_deleted_and_read_as_a_miss(redis_url, case, caplog, capsys):
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint(), ttl=1000)
    key = archive._key(TINY)
    text, weights = hostile_rows(RESULT)[case]
    redis.hset(key, mapping={"result": text, **{f"w:{k}": v for k, v in weights.items()}})
    redis.expire(key, 50)
    with pytest.raises(UnusableRun):
        archive.get(TINY)
    assert not redis.exists(key) and "code ran" not in capsys.readouterr().out
    redis.hset(key, mapping={"result": text, **{f"w:{k}": v for k, v in weights.items()}})
    with caplog.at_level(logging.WARNING):
        assert ResultStore(archive=archive).get(TINY) is None
    assert "not usable" in caplog.text and not redis.exists(key)


def test_a_hash_with_fields_no_run_has_is_refused(redis_url, caplog):
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint())
    archive.put(TINY, RESULT)
    redis.hset(archive._key(TINY), "evil", "x")
    with caplog.at_level(logging.WARNING):
        assert ResultStore(archive=archive).get(TINY) is None
    assert "no run has" in caplog.text
