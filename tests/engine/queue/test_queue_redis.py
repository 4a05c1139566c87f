"""core/engine/queue/queue_redis.py: the class's Redis: URLs refused in one line, heartbeats on Redis's clock, reads
measured before anything is read, keys of another type repaired."""

import pytest

from core.engine.queue.queue_redis import (
    ALIVE_SECONDS,
    WORKERS,
    BadRedisURL,
    beat,
    connect,
    live_workers,
    measured_read,
    read_small,
    recent,
    redis_now,
)
from core.engine.setting.typed_json import plain


@pytest.fixture
def redis(redis_url):
    client = connect(redis_url)
    client.flushdb()
    return client


@pytest.mark.parametrize("url", ["redis://:pw@host:notaport/0", "http://:pw@host:6379/0", "redis://:pw@h:6379/0?x=1"])
def test_a_url_the_lab_cannot_use_is_refused_naming_the_setting_never_its_value(url):
    with pytest.raises(BadRedisURL, match="VITLAB_REDIS_URL is not a Redis URL") as refused:
        connect(url)
    assert "pw" not in str(refused.value).replace("password", "")


def test_heartbeats_count_within_alive_seconds_and_none_from_the_future(redis):
    beat(redis, "w1")
    now = redis_now(redis)
    redis.zadd(WORKERS, {"old": now - ALIVE_SECONDS - 1, "ghost": now + 3600})
    assert live_workers(redis) == 1 and recent(redis, "no-such-key", 10) == 0
    beat(redis, "w2")  # a beat prunes what no worker wrote
    assert redis.zscore(WORKERS, "ghost") is None
    redis.delete(WORKERS)
    redis.set(WORKERS, "a string")
    assert live_workers(redis) == 0  # read as none, never an error
    beat(redis, "w1")  # and written anew
    assert live_workers(redis) == 1


def test_a_measured_read_reads_nothing_over_its_bound_and_no_field_it_was_not_asked_for(redis):
    redis.hset("h", mapping={"a": "1", "b": "x" * 100})
    assert measured_read(redis, "h", {"a": 10, "b": 100}, 2) == ("ok", [b"1", b"x" * 100])
    assert measured_read(redis, "h", {"a": 10, "b": 99}, 2)[0].startswith("has its b at 100 bytes")
    assert measured_read(redis, "h", {"a": 10}, 5)[0] == "has a field the lab does not write"
    assert measured_read(redis, "none", {"a": 1}, 1) is None
    assert measured_read(redis, "h", {"a": 10, "b": 100, "c": 5}, 3, {"a", "c"}) == ("ok", [b"1", None])
    redis.set("s", "x" * 200)
    assert read_small(redis, "s", 100) is None and read_small(redis, "s", 200) == b"x" * 200
    assert read_small(redis, "h") is None


def test_text_from_outside_is_one_bounded_line():
    assert plain("a\nb\x1b[31m") == "a\\nb\\x1b[31m"
    assert len(plain("x" * 10_000, 50)) == 50 and plain(b"\xff\n") == "\ufffd\\n"
