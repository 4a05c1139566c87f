"""core/engine/queue/queue_flights.py against a real Redis (Debian's redis-server) and real ``python -m core worker``
processes: one job per distinct setting across replicas, Cancel, a worker dying mid-job, the shared store, and
a learner never left waiting on a dead worker or a vanished job."""

import json
import os
import signal
import threading
import time

import pytest

from core.engine.queue import queue_flights, queue_redis, queue_worker
from core.engine.queue.queue_flights import QueueFlights
from core.engine.queue.queue_job import read_job, update
from core.engine.queue.queue_redis import QueueUnreachable, connect
from core.engine.queue.redis_archive import RedisArchive
from core.engine.running.flights import TrainingStopped
from core.engine.running.run import run
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.run_config import TrainConfig, with_value
from core.engine.storage.store import ResultStore
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.services import ARCHIVE_SECRET, class_env
from tests.engine.conftest import PASSWORD

SECRET = ARCHIVE_SECRET.encode()

SMALL = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=30, seeds=(0,))), "models", ("cnn",))
LONG = with_value(SMALL, "train.epochs", 10_000)  # a minute or more: only ever stopped here


def replica(url):
    """What one app replica holds: its memory store on the shared Redis, its queue flights."""
    redis = connect(url)
    return QueueFlights(redis, ResultStore(archive=RedisArchive(redis, code_fingerprint(), SECRET)))


def until(ticket, predicate, timeout=120):
    deadline = time.monotonic() + timeout
    while not predicate(s := ticket.wait(0.2)):
        assert time.monotonic() < deadline and not s.finished, f"timed out or over: {s}"
    return s


def test_learners_on_two_replicas_start_one_job_and_all_get_the_same_result(redis_url, worker):
    replicas = [replica(redis_url), replica(redis_url)]
    tickets = [None] * 6

    def learner(i):
        tickets[i] = replicas[i % 2].attach(SMALL, eval_every=5)

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.started for r in replicas) == 1 and sum(t.started for t in tickets) == 1
    results = [until(t, lambda s: s.finished).result for t in tickets]
    assert all(r is not None and r.complete for r in results)
    alone = run(SMALL, eval_every=5)  # what the learner's own machine would have trained
    for r in results:
        assert [(x.model, x.seed, x.train_acc, x.test_acc) for x in r.rows] == \
            [(x.model, x.seed, x.train_acc, x.test_acc) for x in alone.rows]
        assert r.weights == alone.weights and r.curves == results[0].curves
    for t in tickets:
        t.detach()
    # every replica now has it, a third one too, without a job
    third = replica(redis_url)
    assert until(third.attach(SMALL), lambda s: s.finished).result.rows == results[0].rows and third.started == 0


def test_progress_reaches_the_page_and_one_cancel_leaves_the_other_training(redis_url, worker):
    a_side, b_side = replica(redis_url), replica(redis_url)
    a = a_side.attach(LONG, eval_every=50)
    b = b_side.attach(LONG)
    assert b.eval_every == 50 and not b.started
    s = until(b, lambda s: s.step is not None and s.curve)
    assert s.step.total == LONG.train.epochs and s.curve[0]["model"] == "cnn"
    a.detach()
    time.sleep(2 * queue_worker.CHECK_INTERVAL)  # the job has looked at its watchers since
    later = b.wait(1.5)
    assert not later.finished and later.step.done > s.step.done  # still training, for b
    b.detach()  # the last one: the job stops on the worker
    redis = connect(redis_url)
    deadline = time.monotonic() + 30
    while (job := read_job(redis, b.job_id)).status != "stopped":
        assert time.monotonic() < deadline, job.status
        time.sleep(0.2)
    assert not job.complete and RedisArchive(redis, a_side.fingerprint, SECRET).get(LONG) is None


def test_a_worker_that_dies_mid_job_is_replaced_and_the_job_retried(redis_url, worker, monkeypatch):
    monkeypatch.setattr(queue_flights, "ALIVE_SECONDS", 3)  # as the workers have it (the fixture): a test's patience
    flights = replica(redis_url)
    ticket = flights.attach(with_value(SMALL, "train.epochs", 3000))
    first = until(ticket, lambda s: s.step is not None)
    assert first.step.done > 0
    os.kill(worker.procs[-1].pid, signal.SIGKILL)  # only the worker process, mid-job
    worker()  # another worker is there to take the retried job
    s = until(ticket, lambda s: s.finished, timeout=180)
    assert s.error is None and s.result.complete and flights.started == 2


def test_a_job_whose_worker_died_twice_is_reported_never_waited_on(redis_url, worker, monkeypatch):
    monkeypatch.setattr(queue_flights, "ALIVE_SECONDS", 3)
    flights = replica(redis_url)
    ticket = flights.attach(LONG)
    jobs = []
    for _ in range(queue_flights.RETRIES + 1):
        until(ticket, lambda s: ticket.job_id not in jobs and s.step is not None)  # the job (again) training
        jobs.append(ticket.job_id)
        os.kill(worker.procs[-1].pid, signal.SIGKILL)
        worker()
    s = ticket.wait(60)
    assert "stopped" in str(s.error) and s.result is None
    ticket.detach()


def test_the_worker_never_prints_the_redis_password(redis_url, worker, tmp_path):
    flights = replica(redis_url)
    with flights.attach(SMALL) as ticket:
        until(ticket, lambda s: s.finished)
    log = (tmp_path / "worker.log").read_text()
    assert "takes jobs from vitlab:queue" in log and "s3cret-word" not in log


def test_a_worker_without_the_setting_or_the_redis_says_so(tmp_path):
    from core.cli import main

    assert main(["worker"]) == 2
    os.environ["VITLAB_REDIS_URL"] = "redis://:hidden-pass@127.0.0.1:1/0"
    try:
        assert main(["worker", "--burst"]) == 2
    finally:
        del os.environ["VITLAB_REDIS_URL"]


def test_re_run_live_trains_again_and_every_learner_then_gets_the_new_run(redis_url, worker):
    flights = replica(redis_url)
    with flights.attach(SMALL) as ticket:
        first = until(ticket, lambda s: s.finished).result
    with flights.attach(SMALL, again=True) as ticket:
        assert ticket.started
        again = until(ticket, lambda s: s.finished).result
    assert again is not first and again.seconds != first.seconds and again.rows[0].test_acc == first.rows[0].test_acc
    assert flights.store.get(SMALL).seconds == again.seconds and flights.started == 2


def test_with_no_worker_running_the_page_is_told_so_while_it_waits(redis_url):
    connect(redis_url).flushdb()  # no worker registered
    flights = replica(redis_url)
    with flights.attach(SMALL) as ticket:
        s = ticket.wait(0)
        assert s.waiting == 0 and not s.finished and "no training worker is running" in s.note


def test_a_burst_worker_takes_the_queued_job_and_answers_on_stdout_alone(redis_url):
    import json
    import subprocess
    import sys

    connect(redis_url).flushdb()
    flights = replica(redis_url)
    with flights.attach(SMALL):
        out = subprocess.run([sys.executable, "-m", "core", "worker", "--burst", "--json"], capture_output=True,
                             text=True, env={**os.environ, **class_env(redis_url)}, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout) == {"jobs": 1}, out.stderr[-2000:]
    assert "finished job" in out.stderr and "s3cret-word" not in out.stdout + out.stderr


@pytest.fixture
def patient(monkeypatch):
    """A page's patience cut to test size: a worker dead after 3 s of silence (as the fixture's workers beat),
    a queue without workers given up after 4 s."""
    for module in (queue_redis, queue_flights):
        monkeypatch.setattr(module, "ALIVE_SECONDS", 3)
    monkeypatch.setattr(queue_flights, "NO_WORKER_SECONDS", 4)


def test_with_no_worker_for_a_bounded_time_the_page_is_told_how_to_start_one(redis_url, patient):
    connect(redis_url).flushdb()
    flights = replica(redis_url)
    with flights.attach(SMALL) as ticket:
        start = time.monotonic()
        s = ticket.wait(10)
        waited = time.monotonic() - start
    assert isinstance(s.error, TrainingStopped) and "python -m core worker" in str(s.error), s
    assert 4 <= waited < 6 and s.result is None


def test_a_killed_worker_with_no_replacement_is_reported_within_a_bounded_time(redis_url, worker, patient):
    flights = replica(redis_url)
    with flights.attach(LONG) as ticket:
        until(ticket, lambda s: s.step is not None)
        first = ticket.job_id
        os.kill(worker.procs[-1].pid, signal.SIGKILL)
        start = time.monotonic()
        notes = []
        while not (s := ticket.wait(0.5)).finished:
            notes.append(s.note)
            assert time.monotonic() - start < 20, s
        waited = time.monotonic() - start
    # the job's alive key lapses (up to 3 s), the page gives it 3 s more, enqueues it again once, and nobody takes
    # it (4 s): then one clear line
    assert isinstance(s.error, TrainingStopped) and "python -m core worker" in str(s.error)
    assert waited < 3 + 3 + 4 + 1.5 and any("no training worker is running" in n for n in notes), (waited, notes)
    # the dead worker's job names the one it was handed on to; that one left the queue with its last learner
    redis = connect(redis_url)
    assert read_job(redis, first).next == ticket.job_id and read_job(redis, ticket.job_id).status == "stopped"
    assert redis.llen("vitlab:queue") == 0


def test_a_redis_emptied_mid_job_enqueues_the_setting_again_and_the_learner_gets_the_run(redis_url, worker):
    flights = replica(redis_url)
    with flights.attach(with_value(SMALL, "train.epochs", 400)) as ticket:
        until(ticket, lambda s: s.step is not None)
        first = ticket.job_id
        connect(redis_url).flushall()
        s = until(ticket, lambda s: s.finished, timeout=120)
    # the worker wrote its job again and the page kept following it: one training, delivered
    assert s.error is None and s.result.complete and ticket.job_id == first and flights.started == 1


def test_a_redis_restart_mid_training_kills_nothing_and_the_learner_gets_the_run(tmp_path, patient):
    """Reproduction 3: a Redis restart during a training killed the busy worker ("found an unhandled exception,
    quitting"). Now the worker lives, writes its job again once Redis is back, and the page that kept following it
    gets the run: one training, delivered."""
    from support.browser import free_port
    from support.services import REDIS_SERVER, redis_server, require, start_worker, stop

    require(REDIS_SERVER)
    port = free_port()
    first = redis_server(tmp_path, port=port)
    url = first.__enter__()
    proc = start_worker(url, tmp_path / "worker.log", env={"VITLAB_ALIVE_SECONDS": "3"})
    try:
        flights = replica(url)
        ticket = flights.attach(with_value(SMALL, "train.epochs", 1500))
        until(ticket, lambda s: s.step is not None)
        job = ticket.job_id
        first.__exit__(None, None, None)  # Redis gone; back, empty, on the same port; the worker still training
        with redis_server(tmp_path, port=port):
            deadline = time.monotonic() + 15
            while queue_redis.live_workers(connect(url)) == 0:
                assert time.monotonic() < deadline, "the busy worker's heartbeat never came back"
                time.sleep(0.2)
            s = until(ticket, lambda s: s.finished, timeout=180)
            assert s.error is None and s.result.complete, s
            assert ticket.job_id == job and flights.started == 1 and proc.poll() is None
            log = (tmp_path / "worker.log").read_text()
            assert "unhandled exception" not in log and "written again" in log, log[-3000:]
    finally:
        stop(proc)


def test_every_watcher_of_a_killed_worker_s_job_follows_its_retry_to_the_result(redis_url, worker, patient):
    """Reproduction 4: ten learners on one setting, the worker killed: nine were told "the training failed on a
    worker: no reason given", and with a new worker only one got the result."""
    cfg = with_value(SMALL, "train.epochs", 1500)
    sides = [replica(redis_url), replica(redis_url)]
    tickets = [sides[i % 2].attach(cfg) for i in range(10)]
    until(tickets[0], lambda s: s.step is not None)
    os.kill(worker.procs[-1].pid, signal.SIGKILL)
    worker()  # a replacement, at once
    outcomes = [None] * 10

    def learner(i):
        outcomes[i] = until(tickets[i], lambda s: s.finished, timeout=240)

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s.error is None and s.result is not None and s.result.complete for s in outcomes), outcomes
    assert len({t.job_id for t in tickets}) == 1 and sum(side.started for side in sides) == 2
    assert len({tuple(r.test_acc for r in s.result.rows) for s in outcomes}) == 1


def test_every_watcher_of_a_job_whose_worker_died_twice_reads_the_same_reason(redis_url, worker, patient):
    cfg = with_value(SMALL, "train.epochs", 10_000)
    tickets = [replica(redis_url).attach(cfg) for _ in range(4)]
    for _ in range(queue_flights.RETRIES + 1):
        before = tickets[0].job_id
        until(tickets[0], lambda s, before=before: tickets[0].job_id != before or s.step is not None)
        os.kill(worker.procs[-1].pid, signal.SIGKILL)
        worker()
        until(tickets[0], lambda s, before=before: tickets[0].job_id != before or s.finished, timeout=60)
    errors = {str(until(t, lambda s: s.finished, timeout=60).error) for t in tickets}
    assert len(errors) == 1 and "stopped, 2 times" in errors.pop()


def test_a_wrong_password_says_so_and_that_retrying_will_not_help(redis_url):
    wrong = redis_url.replace(PASSWORD, "not-the-password")
    with pytest.raises(QueueUnreachable) as caught:
        replica(wrong).attach(SMALL)
    assert not caught.value.retry and "refused the password" in str(caught.value)
    assert "not-the-password" not in str(caught.value) and PASSWORD not in str(caught.value)


def test_a_hand_made_progress_entry_reads_as_no_progress(redis_url):
    connect(redis_url).flushdb()
    flights = replica(redis_url)
    with flights.attach(SMALL) as ticket:
        for hostile in ({"waiting": "x", "step": ["a", "b"], "curve": [{"model": 1}]}, "not a dict",
                        {"step": ["cnn", 0, 1, "loss", 1, 2], "curve": "x", "waiting": -3}):
            update(connect(redis_url), ticket.job_id, progress=json.dumps(hostile))
            s = ticket.wait(0)
            assert s.step is None and s.curve == [] and s.waiting == 0 and not s.finished


def test_a_redis_that_does_not_answer_a_connection_is_given_up_in_seconds():
    """A page opening while a class's Redis is away waits at most CONNECT_SECONDS to say so, not the OS's minutes."""
    client = connect("redis://:secret@127.0.0.1:1/0")
    assert client.connection_pool.connection_kwargs["socket_connect_timeout"] == queue_redis.CONNECT_SECONDS <= 5


def test_a_heartbeat_from_the_future_keeps_no_learner_waiting(redis_url, patient):
    """Reproduction 6: ``ZADD vitlab:workers 99999999999 ghost`` with no worker kept pages saying "you are next"
    for more than 75 s. A heartbeat ahead of Redis's clock counts for nothing: the page is told in seconds."""
    redis = connect(redis_url)
    redis.flushdb()
    redis.zadd(queue_redis.WORKERS, {"ghost": 99999999999})
    with replica(redis_url).attach(SMALL) as ticket:
        start = time.monotonic()
        s = ticket.wait(queue_flights.NO_WORKER_SECONDS + 5)
    assert isinstance(s.error, TrainingStopped) and "no training worker" in str(s.error)
    assert time.monotonic() - start < queue_flights.NO_WORKER_SECONDS + 2


def test_what_a_review_wrote_for_the_pages_side_reads_as_nothing_never_a_traceback(redis_url, patient):
    """An adversarial review's writes on the pages' side: a progress naming a model the setting does not train
    (its label lookup crashed the page), a count of tries that is not a number, a huge or mistyped pointer to the
    setting's job, a lock without an expiry, watchers of another type."""
    redis = connect(redis_url)
    redis.flushdb()
    flights = replica(redis_url)
    setting = queue_redis.setting_id(SMALL, flights.fingerprint)
    redis.set(f"vitlab:current:{setting}", "x" * 2**20)
    redis.set(f"vitlab:lock:{setting}", "held forever")
    redis.set(f"vitlab:tries:{setting}", "abc")
    with flights.attach(SMALL) as ticket:
        assert ticket.started and redis.ttl(f"vitlab:lock:{setting}") != -1
        update(redis, ticket.job_id, progress=json.dumps({"waiting": None, "step": ["evil", 0, 1, 0.5, 1, 2],
                                                          "curve": [{"model": "evil", "seed": 0, "epoch": 1,
                                                                     "test_acc": 0.5}]}))
        redis.delete(f"vitlab:watchers:{ticket.job_id}")
        redis.set(f"vitlab:watchers:{ticket.job_id}", "a string")
        s = ticket.wait(0)
        assert s.step is None and s.curve == [] and not s.finished
        update(redis, ticket.job_id, progress='{"waiting":null,"step":["cnn",0,1,1' + "0" * 400 + ',1,10],"curve":[]}')
        assert ticket.wait(0).step is None  # a loss no float holds: it made the page's progress line raise
        redis.hset(f"vitlab:job:{ticket.job_id}", "status", "started")  # its worker gone at once: handed on
        redis.set(f"vitlab:tries:{setting}", "abc")
        s = ticket.wait(queue_redis.ALIVE_SECONDS + 1)
        assert s.error is None and read_job(redis, ticket.job_id).status == "queued"


@pytest.mark.parametrize("query", ["socket_timeout=-1", "socket_connect_timeout=-1", "encoding=nonexist",
                                   "decode_responses=1"])
def test_a_redis_url_with_options_is_refused_where_it_is_read(query):
    with pytest.raises(queue_redis.BadRedisURL, match="options after") as refused:
        connect(f"redis://:hidden-pass@127.0.0.1:6379/0?{query}")
    assert "hidden-pass" not in str(refused.value)
