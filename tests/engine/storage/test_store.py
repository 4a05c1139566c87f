from core.engine.results.run_result import RunResult, SeedResult
from core.engine.setting.run_config import TrainConfig, with_value
from core.engine.storage.store import ResultStore
from core.lessons.lesson3_vit_vs_cnn import PRESETS


def _result(cfg, n=1):
    return RunResult(cfg, rows=[SeedResult("cnn", s, 1.0, 1.0, 0.1) for s in range(n)])


def test_bounded_in_entries_and_bytes_least_recently_used_out_presets_pinned():
    lesson = PRESETS["lesson"]
    store = ResultStore(pinned={lesson: _result(lesson)}, max_entries=3)
    configs = [with_value(PRESETS["tiny"], "train.epochs", e) for e in range(10, 60, 10)]
    for cfg in configs[:3]:
        store.put(cfg, _result(cfg))
    assert store.get(configs[0]) is not None  # now the most recently used
    store.put(configs[3], _result(configs[3]))
    assert store.get(configs[1]) is None and store.get(configs[0]) is not None and store.get(lesson) is not None
    small = ResultStore(max_entries=100, max_bytes=3000)
    for cfg in configs:
        small.put(cfg, _result(cfg, n=5))
    assert small.nbytes <= 3000 and 0 < len(small) < len(configs)


def test_incomplete_runs_are_not_kept():
    cfg = with_value(PRESETS["tiny"], "train", TrainConfig(epochs=3))
    store = ResultStore()
    store.put(cfg, RunResult(cfg, complete=False))
    assert store.get(cfg) is None


def test_forget_drops_only_this_process_memory():
    cfg = with_value(PRESETS["tiny"], "train", TrainConfig(epochs=3))
    store = ResultStore()
    store.put(cfg, _result(cfg))
    store.forget(cfg)
    store.forget(cfg)  # twice is once
    assert store.get(cfg) is None and store.nbytes == 0
