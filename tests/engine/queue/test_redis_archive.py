"""core/engine/queue/redis_archive.py against a real Redis: runs shared by replicas, and whatever else wrote the
Redis, a run that is not usable is logged, deleted and read as a miss, its expiry never renewed."""

import json
import logging

import pytest

from core.engine.queue.queue_redis import connect
from core.engine.queue.redis_archive import RedisArchive
from core.engine.running.run import run
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.run_config import TrainConfig, with_value
from core.engine.storage.archive import config_key
from core.engine.storage.run_signature import signature
from core.engine.storage.store import ResultStore
from core.engine.storage.stored_run import UnusableRun
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.hostile_runs import hostile_rows
from support.memory import peak_bytes
from support.services import ARCHIVE_SECRET

SECRET = ARCHIVE_SECRET.encode()

TINY = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=5, seeds=(0,))), "models", ("cnn",))
RESULT = run(TINY, workers=0)


def test_a_run_put_by_one_replica_is_read_by_another(redis_url):
    connect(redis_url).flushdb()
    RedisArchive(connect(redis_url), code_fingerprint(), SECRET).put(TINY, RESULT)
    back = RedisArchive(connect(redis_url), code_fingerprint(), SECRET).get(TINY)
    assert back.rows == RESULT.rows and back.weights == RESULT.weights
    assert RedisArchive(connect(redis_url), "other code", SECRET).get(TINY) is None


def _write(redis, key: str, text: str, weights: dict, secret: bytes | None = SECRET) -> None:
    """What another writer of the Redis stores at ``key`` (signed with ``secret`` where given)."""
    signed = {} if secret is None else {"sig": signature(secret, code_fingerprint(), config_key(TINY), text, weights)}
    redis.delete(key)
    redis.hset(key, mapping={"result": text, **signed, **{f"w:{k}": v for k, v in weights.items()}})


@pytest.mark.parametrize("case", list(hostile_rows(RESULT)))
def test_a_run_that_is_not_usable_is_logged_deleted_and_read_as_a_miss(redis_url, case, caplog, capsys):
    """Each case signed with the class's secret: what is checked beyond the signature holds too."""
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint(), SECRET, ttl=1000)
    key = archive._key(TINY)
    text, weights = hostile_rows(RESULT)[case]
    _write(redis, key, text, weights)
    redis.expire(key, 50)
    with pytest.raises(UnusableRun):
        archive.get(TINY)
    assert not redis.exists(key) and "code ran" not in capsys.readouterr().out
    _write(redis, key, text, weights)
    with caplog.at_level(logging.WARNING):
        assert ResultStore(archive=archive).get(TINY) is None
    assert "not usable" in caplog.text and not redis.exists(key)


def test_a_hash_with_fields_no_run_has_is_refused(redis_url, caplog):
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint(), SECRET)
    archive.put(TINY, RESULT)
    redis.hdel(archive._key(TINY), "sig")
    redis.hset(archive._key(TINY), "evil", "x")
    with caplog.at_level(logging.WARNING):
        assert ResultStore(archive=archive).get(TINY) is None
    assert "a field the lab does not write" in caplog.text


def _forged() -> str:
    plain = json.loads(json.dumps(RESULT.to_json()))
    plain["rows"][0]["test_acc"] = 0.125  # the CNN's accuracy, 12.5 %: well formed, and false
    return json.dumps(plain)


@pytest.mark.parametrize(("secret", "why"), [(None, "not signed"), (b"a secret that is not the class's", "does not match")])
def test_a_forged_run_is_never_served(redis_url, secret, why, caplog):
    """Reproduction 8: a well-formed run with the CNN's test accuracy set to 12.5 % was shown as computed."""
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint(), SECRET)
    _write(redis, archive._key(TINY), _forged(), RESULT.weights, secret)
    with caplog.at_level(logging.WARNING):
        assert ResultStore(archive=archive).get(TINY) is None
    assert why in caplog.text and not redis.exists(archive._key(TINY))


def test_a_run_with_one_map_cell_and_no_test_predictions_is_incomplete_even_signed(redis_url):
    redis = connect(redis_url)
    redis.flushdb()
    plain = json.loads(json.dumps(RESULT.to_json()))
    plain["position_map"], plain["test_predictions"] = plain["position_map"][:1], []
    archive = RedisArchive(redis, code_fingerprint(), SECRET)
    _write(redis, archive._key(TINY), json.dumps(plain), RESULT.weights)
    with pytest.raises(UnusableRun, match="0 test predictions, a complete run"):
        archive.get(TINY)


def test_a_huge_weights_field_is_measured_not_read(redis_url):
    """Reproduction 7: a 200 MiB weights field was read in full before its size was checked."""
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint(), SECRET)
    archive.put(TINY, RESULT)
    key = archive._key(TINY)
    redis.setrange("scratch", 64 * 2**20 - 1, b"x")  # 64 MiB made in Redis, never in this process
    redis.eval("redis.call('HSET', KEYS[1], 'w:cnn/0', redis.call('GET', KEYS[2]))", 2, key, "scratch")
    peak = peak_bytes(lambda: pytest.raises(UnusableRun, archive.get, TINY).match("bytes, over the"))
    assert peak < 8 * 2**20 and not redis.exists(key), peak


def test_a_run_key_of_the_wrong_type_is_reported_and_deleted(redis_url, caplog):
    """Reproduction 10b: a run key that was a string was neither deleted nor reported."""
    redis = connect(redis_url)
    redis.flushdb()
    archive = RedisArchive(redis, code_fingerprint(), SECRET)
    redis.set(archive._key(TINY), "x")
    with caplog.at_level(logging.WARNING):
        assert ResultStore(archive=archive).get(TINY) is None
    assert "not a hash" in caplog.text and not redis.exists(archive._key(TINY))
