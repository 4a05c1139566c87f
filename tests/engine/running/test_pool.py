import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from core.engine.running.pool import Job, Pool
from core.engine.running.run import run
from core.engine.setting import machine, planning
from core.engine.setting.run_config import TrainConfig
from core.lessons.lesson3_vit_vs_cnn import PRESETS

TINY = replace(PRESETS["tiny"], train=TrainConfig(epochs=8, seeds=(0, 1)))
MiB = 2**20
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def pool():
    p = Pool(planning.Budget(2**31, cores=2))
    yield p
    p.shutdown()


def test_one_worker_two_workers_and_in_process_give_identical_results(pool):
    one, two, here = run(TINY, workers=1, pool=pool), run(TINY, workers=2, pool=pool), run(TINY, workers=0, pool=pool)
    strip = [replace(r, seconds=0) for r in one.rows]
    assert strip and strip == [replace(r, seconds=0) for r in two.rows] == [replace(r, seconds=0) for r in here.rows]
    assert one.test_predictions == two.test_predictions == here.test_predictions
    assert one.position_map == two.position_map


def test_a_lane_in_this_process_trains_beside_one_worker_fewer_with_identical_results(pool):
    alone = run(TINY, workers=0, pool=pool)
    beside = run(TINY, workers=2, pool=pool, here=True)
    assert len(pool.idle) == 1  # one worker process; this process was the other lane
    assert [replace(r, seconds=0) for r in beside.rows] == [replace(r, seconds=0) for r in alone.rows]
    assert beside.test_predictions == alone.test_predictions and beside.weights == alone.weights
    assert pool.budget.busy_cores == 0 and pool.budget.held_bytes == planning.WORKER_BASE


def _fails(*, report):
    raise ArithmeticError("this job fails")


def test_the_lane_here_stops_with_the_run_and_reports_its_errors(pool):
    result = run(TINY, progress=lambda m, s, stats, done, total: False if done >= 3 else None, workers=2, pool=pool,
                 here=True)
    assert not result.complete and result.rows == []
    assert not [t for t in threading.enumerate() if t.name == "vitlab-lane-here"]  # the stopped job ended
    with pytest.raises(RuntimeError, match="in this process(.|\n)*ArithmeticError"):
        pool.run([Job(_fails, (), 1)], 1, here=True)
    assert pool.budget.busy_cores == 0 and pool.idle == []


def test_progress_reaches_the_total_and_workers_are_reused_then_released(pool, monkeypatch):
    seen = []
    run(TINY, progress=lambda m, s, stats, done, total: seen.append((done, total)), workers=2, pool=pool)
    assert seen[-1] == (4 * TINY.train.epochs, 4 * TINY.train.epochs)
    idle = pool.idle
    assert len(idle) == 2 and all(w.alive() for w in idle)
    assert pool.budget.held_bytes == 2 * planning.WORKER_BASE and pool.budget.busy_cores == 0
    monkeypatch.setenv("VITLAB_IDLE_SECONDS", "0.2")
    deadline = time.monotonic() + 10
    while (pool.idle or pool.budget.held_bytes) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pool.idle == [] and pool.budget.held_bytes == 0 and not any(w.alive() for w in idle)


def test_stopping_or_failing_returns_nothing_partial_and_gives_everything_back(pool):
    result = run(TINY, progress=lambda m, s, stats, done, total: False if done >= 3 else None, workers=2, pool=pool)
    assert not result.complete and result.rows == []

    class Moved(Exception):
        pass

    def progress(*args):
        raise Moved

    with pytest.raises(Moved):
        run(TINY, progress=progress, workers=2, pool=pool)
    assert pool.idle == [] and pool.budget.held_bytes == 0 and pool.budget.busy_cores == 0


def test_a_run_that_does_not_fit_waits_for_memory():
    budget = planning.Budget(planning.WORKER_BASE + 64 * MiB, cores=2)
    pool = Pool(budget)
    try:
        assert budget.take(budget.capacity)  # someone else holds everything
        waits = []

        def on_wait(position):
            waits.append(position)
            if len(waits) == 3:
                budget.give(budget.capacity)

        result = run(TINY, workers=2, pool=pool, on_wait=on_wait)
        assert result.complete and waits[:3] == [0, 0, 0]
        assert budget.peak_bytes <= budget.capacity
    finally:
        pool.shutdown()


def test_workers_end_when_their_parent_dies(tmp_path):
    script = ("import sys, time; from core.lessons.lesson3_vit_vs_cnn import PRESETS; from core.engine.running.run import run;"
              "from core.engine.running.pool import server_pool; run(PRESETS['tiny'], workers=2);"
              "print(' '.join(str(w.proc.pid) for w in server_pool().idle), flush=True); time.sleep(60)")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert pids
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while any(machine.rss(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(machine.rss(p) for p in pids)


def test_workers_outlive_the_session_thread_that_started_them(pool):
    """A server starts workers from a session's short-lived thread; the next session reuses them."""
    import threading

    first = threading.Thread(target=run, args=(TINY,), kwargs={"workers": 2, "pool": pool})
    first.start()
    first.join()
    time.sleep(1.5)  # a worker tied to the thread that started it would be dead by now
    assert len(pool.idle) == 2 and all(w.alive() for w in pool.idle)
    assert run(TINY, workers=2, pool=pool).complete


def test_warm_starts_idle_workers_within_the_budget_and_the_run_uses_them():
    from core.engine.running.pool import Pool
    from core.engine.running.run import run, warm
    from core.engine.setting.machine import WORKER_BASE
    from core.engine.setting.planning import Budget

    pool = Pool(Budget(capacity=3 * WORKER_BASE, cores=2))
    try:
        assert warm(TINY, pool) == 2 and len(pool.idle) == 2
        assert warm(TINY, pool) == 0  # already warm: nothing more
        first = set(pool.idle)
        result = run(TINY, pool=pool)
        assert result.complete and set(pool.idle) == first  # the run took the warm workers and gave them back
        tight = Pool(Budget(capacity=WORKER_BASE, cores=2))
        assert tight.warm(3) == 1  # as many as the budget affords
        tight.shutdown()
    finally:
        pool.shutdown()


def test_warming_again_keeps_idle_workers_while_visitors_stay(pool, monkeypatch):
    """A visitor reading the page (every rerun warms) keeps its idle workers; without visits they end."""
    monkeypatch.setenv("VITLAB_IDLE_SECONDS", "1.2")
    assert pool.warm(1) == 1
    kept = pool.idle[0]
    for _ in range(6):  # 1.8 s of visits, 0.3 s apart: longer than the idle time
        time.sleep(0.3)
        assert pool.warm(1) == 0 and pool.idle == [kept] and kept.alive()
    deadline = time.monotonic() + 10
    while (pool.idle or kept.alive()) and time.monotonic() < deadline:  # no more visits: ended after the idle time
        time.sleep(0.1)
    assert pool.idle == [] and not kept.alive()


def test_a_servers_workers_run_below_its_priority_and_the_command_lines_do_not(monkeypatch):
    """A server's training must not take the cores from every learner's page draws: its workers are niced
    (``worker_nice()``, default 10), their torch import included; the command line's are not."""
    if not hasattr(os, "getpriority"):
        pytest.skip("no process priorities here")
    from core.engine.running.pool import server_pool

    own = os.getpriority(os.PRIO_PROCESS, 0)
    pool = Pool(planning.Budget(2**31, cores=2), nice=5)
    try:
        assert pool.warm(1) == 1 and run(TINY, pool=pool).complete  # warm, and one more started by the run
        assert len(pool.idle) == 2
        assert all(os.getpriority(os.PRIO_PROCESS, w.proc.pid) == min(own + 5, 19) for w in pool.idle)
    finally:
        pool.shutdown()
    monkeypatch.delenv("VITLAB_WORKER_NICE", raising=False)
    assert planning.worker_nice() == 10
    import core.engine.running.pool as pool_module

    monkeypatch.setattr(pool_module, "_pool", None)
    try:
        assert server_pool().nice == 10
    finally:
        server_pool().shutdown()
    probe = ("import os, core.cli\n"
             "try:\n    core.cli.main(['--help'], process=True)\nexcept SystemExit:\n    pass\n"
             "print(os.environ['VITLAB_WORKER_NICE'])")
    env = {k: v for k, v in os.environ.items() if k != "VITLAB_WORKER_NICE"}
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                          cwd=ROOT).stdout.splitlines()[-1] == "0"  # the command line as a process: its workers not niced
