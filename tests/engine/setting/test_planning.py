import threading
import time
from dataclasses import replace

import pytest

from core.data.data_config import DataConfig
from core.engine.setting import planning
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.model_config import ModelConfig

MiB = 2**20
CAPACITY = int(1.5 * 2**30) - 450 * MiB - planning.MARGIN  # a page with torch loaded, as on the server
LARGEST = replace(NOTEBOOK_SETUP, models=("vit", "cnn", "hybrid", "vit-prenorm"), data=DataConfig(n_train=3000, train_range=(5, 12)),
                  model=ModelConfig(patch_size=2, embed_dim=64, num_heads=8, depth=4, stem_channels=16))


def test_plan_uses_workers_only_while_full_batches_fit():
    lesson = planning.plan(NOTEBOOK_SETUP, CAPACITY, cores=2)
    assert lesson.workers == 2 and not lesson.chunked
    ex1 = planning.plan(PRESETS["exercise-1"], CAPACITY, cores=2)  # 3000 images, but only 72 distinct ones
    assert ex1.workers == 2 and not ex1.chunked
    big = planning.plan(LARGEST, CAPACITY, cores=2)
    # of 128 distinct images (5..12, the widest range that leaves the test centres 3..4 unseen)
    assert big.workers == 1 and big.chunks["vit-prenorm"] is not None and big.chunks["vit-prenorm"] < 128
    assert max(big.job_bytes.values()) + planning.WORKER_BASE <= CAPACITY


def test_no_worker_where_memory_cannot_hold_one():
    small = planning.plan(NOTEBOOK_SETUP, 300 * MiB, cores=2)  # e.g. a 690 MB container less the app itself
    assert small.workers == 0 and max(small.job_bytes.values()) <= 300 * MiB
    assert planning.plan(NOTEBOOK_SETUP, CAPACITY, cores=2, workers=0).workers == 0


def test_budget_line_is_first_come_first_served_and_can_be_left():
    budget = planning.Budget(100, cores=2)
    assert budget.take(80, cores=1)
    order, positions = [], []

    def waiter(name, nbytes):
        budget.admit(lambda: name if budget.take(nbytes) else None, on_wait=positions.append, poll=0.01)
        order.append(name)

    first = threading.Thread(target=waiter, args=("first", 50))
    first.start()
    time.sleep(0.05)
    second = threading.Thread(target=waiter, args=("second", 10))  # would fit now, but waits its turn
    second.start()
    time.sleep(0.05)
    assert order == [] and budget.waiting == 2 and 1 in positions
    budget.give(80, cores=1)
    first.join(2), second.join(2)
    assert order == ["first", "second"] and budget.held_bytes == 60

    class Cancelled(Exception):
        pass

    def cancel(position):
        raise Cancelled

    with pytest.raises(Cancelled):
        budget.admit(lambda: None, on_wait=cancel, poll=0.01)
    assert budget.waiting == 0


def test_relative_cost():
    assert planning.relative_cost(NOTEBOOK_SETUP) == pytest.approx(1.0)
    assert planning.relative_cost(PRESETS["exercise-1"]) == pytest.approx(1.0)  # the same 70-72 distinct images
    assert planning.relative_cost(LARGEST) > planning.MAX_RUN_COST
