"""Real services for the job-queue tests: a Redis with a password (Debian's redis-server) and real
``python -m core worker`` processes on it, each ended with its test."""

import pytest

from core.engine.queue.queue_redis import connect
from support.services import REDIS_SERVER, redis_server, require, start_worker, stop

PASSWORD = "s3cret-word"


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    require(REDIS_SERVER)
    with redis_server(tmp_path_factory.mktemp("redis"), password=PASSWORD) as url:
        yield url


@pytest.fixture
def worker(redis_url, tmp_path):
    """``worker()`` starts one more worker (the first is started already); ``worker.procs``: every one."""
    connect(redis_url).flushdb()
    procs = []

    def start():
        procs.append(start_worker(redis_url, tmp_path / "worker.log", env={"VITLAB_ALIVE_SECONDS": "3"}))
        return procs[-1]

    start.procs = procs
    start()
    yield start
    for p in procs:
        stop(p)
