from dataclasses import replace

import pytest

from core import parallel
from core.experiments import PRESETS, run

TINY = replace(PRESETS["tiny"], seeds=(0, 1), epochs=8)


def test_one_worker_and_two_workers_give_identical_results():
    one, two = run(TINY, workers=1), run(TINY, workers=2)
    assert one.rows and [r | {"seconds": 0} for r in one.rows] == [r | {"seconds": 0} for r in two.rows]
    assert one.test_predictions == two.test_predictions and one.position_map == two.position_map


def test_parallel_workers_give_the_same_numbers_as_one_process():
    one = run(TINY, workers=0)  # in this process
    two = run(TINY, workers=2)
    assert two.complete and one.rows and [
        (r["model"], r["seed"], r["train_acc"], r["test_acc"]) for r in one.rows
    ] == [(r["model"], r["seed"], r["train_acc"], r["test_acc"]) for r in two.rows]
    # thread count changes float rounding (one process uses all threads, a worker one), nothing more
    assert [p["correct"] for p in one.test_predictions] == [p["correct"] for p in two.test_predictions]
    assert max(abs(a["p_circle"] - b["p_circle"]) for a, b in zip(one.test_predictions, two.test_predictions,
                                                                   strict=True)) < 1e-4


def test_progress_reaches_the_total_and_workers_are_reused():
    seen = []
    run(TINY, progress=lambda m, s, stats, done, total: seen.append((done, total)), workers=2)
    assert seen[-1] == (4 * TINY.epochs, 4 * TINY.epochs)
    idle = list(parallel._idle)
    assert len(idle) == 2 and all(w.alive() for w in idle)


def test_stopping_returns_nothing_partial_and_kills_the_workers():
    result = run(TINY, progress=lambda m, s, stats, done, total: False if done >= 3 else None, workers=2)
    assert not result.complete and result.rows == []


def test_an_exception_in_progress_propagates_and_kills_workers():
    class Moved(Exception):
        pass

    def progress(*args):
        raise Moved

    with pytest.raises(Moved):
        run(TINY, progress=progress, workers=2)


def test_worker_count_respects_override(monkeypatch):
    monkeypatch.setenv("VITLAB_WORKERS", "0")
    assert parallel.worker_count(6) == 0
    monkeypatch.delenv("VITLAB_WORKERS")
    assert 1 <= parallel.worker_count(6) <= 6


def test_no_worker_where_memory_cannot_hold_one(monkeypatch):
    monkeypatch.delenv("VITLAB_WORKERS", raising=False)
    monkeypatch.setattr(parallel, "available_memory", lambda: 300 * 2**20)
    assert parallel.worker_count(6) == 0
    monkeypatch.setattr(parallel, "available_memory", lambda: 3 * 2**30)
    assert parallel.worker_count(6) >= 1
