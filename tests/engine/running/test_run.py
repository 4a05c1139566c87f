import json
from dataclasses import replace

import pytest

from core.engine.results.run_result import summary
from core.engine.running.flights import Flights, sweep_through
from core.engine.running.run import every, run
from core.engine.running.train import EpochStats
from core.engine.setting.run_config import NOTEBOOK_SETUP, TrainConfig, with_value
from core.engine.storage.store import ResultStore
from core.lessons.lesson3_vit_vs_cnn import PRESETS, SWEEPS

TINY = PRESETS["tiny"]


def test_tiny_preset_is_the_lesson_in_seconds():
    """Its ViT fits its training images (every seed) and still fails at unseen positions, where the CNN
    does not: a small preset that shows the lesson's gap, not a ViT too small to learn anything."""
    seen = []
    result = run(TINY, progress=lambda m, s, stats, done, total: seen.append((m, stats.epoch, done, total)))
    assert result.complete
    s = summary(result)
    assert all(r.train_acc >= 0.95 for r in result.rows), [(r.model, r.seed, r.train_acc) for r in result.rows]
    assert s["cnn"].test_mean > 0.95 and s["cnn"].test_mean - s["vit"].test_mean > 0.3
    # each job reports its first and last epoch, and others at most every REPORT_INTERVAL: far fewer than all
    assert seen[-1][2] == seen[-1][3] and len(seen) < len(TINY.jobs) * TINY.train.epochs / 4
    assert sum(1 for _, epoch, _, _ in seen if epoch in (1, TINY.train.epochs)) == 2 * len(TINY.jobs)
    assert len(result.test_predictions) == len(TINY.jobs) * TINY.data.n_test
    assert {c.model for c in result.curves} == {"vit", "cnn"}
    json.dumps(result.to_json(), allow_nan=False)  # strict JSON


def test_progress_callback_can_stop_a_run():
    result = run(TINY, progress=lambda m, s, stats, done, total: False if done >= 5 else None)
    assert not result.complete and result.rows == []


def test_every_registered_model_runs_in_registry_order():
    cfg = replace(with_value(with_value(TINY, "model.pos_embed", "sincos2d"), "model.global_pool", "avg"),
                  models=("vit-prenorm", "hybrid", "cnn", "vit"), train=TrainConfig(epochs=3, seeds=(0,)))
    result = run(cfg)
    assert [r.model for r in result.rows] == ["vit", "cnn", "hybrid", "vit-prenorm"]


def test_divergence_is_reported_never_as_an_accuracy():
    cfg = replace(TINY, models=("vit",), train=TrainConfig(epochs=30, lr=10.0, seeds=(0,)))
    result = run(cfg)
    (row,) = result.rows
    assert row.diverged_at is not None and row.test_acc is None and row.train_acc is None
    assert summary(result) == {}
    json.dumps(result.to_json(), allow_nan=False)


def test_work_per_click_is_capped_with_what_to_reduce():
    big = with_value(with_value(NOTEBOOK_SETUP, "train.epochs", 400), "model.patch_size", 2)
    big = with_value(with_value(big, "train.seeds", (0, 1, 2, 3, 4)), "model.depth", 4)
    with pytest.raises(ValueError, match=r"x the lesson's training work \(limit 12x\): reduce epochs \(400\)"):
        run(big)


def test_sweep_rows_and_its_caps(monkeypatch):
    from core.engine.running import flights as flights_module

    def sweep(base, s, **kw):
        return sweep_through(Flights(ResultStore()), base, s, poll=0.01, **kw)

    rows = sweep(replace(TINY, models=("cnn",), train=TrainConfig(epochs=2, seeds=(0,))), SWEEPS["patch size"], values=(4, 8))
    assert [r.value for r in rows] == [4, 8]
    heavy = replace(with_value(NOTEBOOK_SETUP, "train", TrainConfig(epochs=400, seeds=(0, 1, 2, 3, 4))),
                    models=("vit", "cnn", "hybrid", "vit-prenorm"))
    with pytest.raises(ValueError, match=r"the sweep's run at patch size P \(pixels\) = 2 is .* \(limit 12x\)"):
        sweep(heavy, SWEEPS["patch size"])  # refused before anything trains
    monkeypatch.setattr(flights_module, "MAX_SWEEP_COST", 2.0)
    with pytest.raises(ValueError, match=r"this sweep is .* \(limit 2x\)"):
        sweep(NOTEBOOK_SETUP, SWEEPS["training-set size"])


@pytest.mark.slow
def test_lesson_seed_reproduces_the_notebooks_finding():
    """The notebook prints, for seed 2: ViT train 99.7 % test 26.0 %, CNN train 100 % test 100 %. The ViT's
    test accuracy there is at chance, where the float rounding decides it: on an AVX-512 host the notebook's
    own loop gives 26.0 % at one thread and 43.3 % at two, and the engine's loop over distinct images (same
    mathematics, other rounding) 50.7 %. So the finding is asserted here, and the loop's bits below."""
    result = run(with_value(NOTEBOOK_SETUP, "train.seeds", (2,)))
    acc = {r.model: (round(r.train_acc, 3), round(r.test_acc, 3)) for r in result.rows}
    assert acc["cnn"] == (1.0, 1.0) and acc["vit"][0] >= 0.99, acc  # 99.7 % in every variant seen
    s = summary(result)
    assert s["cnn"].test_mean == 1.0 and s["vit"].test_mean <= 0.55, acc


@pytest.mark.slow
def test_the_lessons_loop_as_written_is_the_notebooks_bit_for_bit():
    """``dedup=False`` runs the lesson's loop as written: at one thread (a worker's), the same accuracies as
    the notebook's ``nn.TransformerEncoder`` and ``torch.optim.Adam`` loop, to the last bit."""
    import torch

    from core.data.data_config import make_data
    from core.engine.running.train import train
    from core.models.registry import build
    from support.notebook_reference import NotebookViT, notebook_train_and_eval

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        data = make_data(NOTEBOOK_SETUP.data)
        ours = train(build("vit", NOTEBOOK_SETUP.model, 16, 2), data.Xtr, data.ytr, data.Xte, data.yte, NOTEBOOK_SETUP.train.epochs,
                     NOTEBOOK_SETUP.train.lr, dedup=False)
        theirs = notebook_train_and_eval(NotebookViT, data.Xtr, data.ytr, data.Xte, data.yte, 2,
                                         epochs=NOTEBOOK_SETUP.train.epochs, lr=NOTEBOOK_SETUP.train.lr)
    finally:
        torch.set_num_threads(threads)
    assert (ours.train_acc, ours.test_acc) == theirs


def test_chunked_gradient_matches_full_batch_closely():
    import torch

    from core.data.data_config import make_data
    from core.engine.running.train import train
    from core.models.registry import build

    data = make_data(TINY.data)
    full = train(build("vit", TINY.model, 16, 0), data.Xtr, data.ytr, data.Xte, data.yte, 5, 1e-3)
    chunked = train(build("vit", TINY.model, 16, 0), data.Xtr, data.ytr, data.Xte, data.yte, 5, 1e-3, chunk_size=32)
    assert torch.allclose(full.test_logits, chunked.test_logits, atol=1e-4)
    assert abs(full.curves[-1].loss - chunked.curves[-1].loss) < 1e-5


def test_a_job_reports_test_points_and_its_last_epoch_always_and_the_rest_at_most_every_interval():
    def reported(interval: float) -> list[int]:
        got = []
        report = every(lambda stats: got.append(stats.epoch), epochs=10, interval=interval)
        for epoch in range(1, 11):
            report(EpochStats(epoch, 0.5, 0.5, 0.9 if epoch % 4 == 0 else None))
        return got

    assert reported(float("inf")) == [1, 4, 8, 10]  # the first, the test points, the last
    assert reported(0.0) == list(range(1, 11))
    stops = every(lambda stats: False, epochs=10, interval=float("inf"))
    assert stops(EpochStats(1, 0.5, 0.5, None)) is False and stops(EpochStats(2, 0.5, 0.5, None)) is None
