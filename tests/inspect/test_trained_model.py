"""Looking inside a run's trained models: rebuilt from the weights the run kept, nothing retrained."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from core.data.shapes import make_image
from core.engine.running.run import run
from core.inspect.logit_lens import logit_lens
from core.inspect.trained_model import (
    distances,
    load_every_model,
    position_similarity,
    probe,
    seen_centre,
    shared_model,
    shuffle_positions,
    trained_model,
)
from core.lessons.lesson4_fixing_the_vit import bench


@pytest.fixture(scope="module")
def result():
    cfg = bench(("vit", "cnn", "vit-nopos-avg"), 1)
    return run(replace(cfg, train=replace(cfg.train, epochs=20)), workers=0)


def test_the_run_keeps_every_trained_model_and_the_probe_reproduces_its_forward(result):
    assert set(result.weights) == {"vit/0", "cnn/0", "vit-nopos-avg/0"}
    p = probe(result, "vit", 0, "circle", 3, 4)
    x = torch.from_numpy(make_image("circle", 3, 4))[None, None]
    with torch.no_grad():
        direct = torch.sigmoid(trained_model(result, "vit", 0)(x))[0].item()
    assert p.probs["vit"][1] == pytest.approx(direct, abs=1e-6) and set(p.probs) == {"vit", "cnn", "vit-nopos-avg"}
    assert p.p_true == pytest.approx(direct, abs=1e-6) and p.p_right("cnn") == pytest.approx(p.probs["cnn"][1])
    # the stored test prediction of that model agrees with the rebuilt one
    stored = next(t for t in result.test_predictions if t.model == "vit")
    x = torch.from_numpy(make_image("circle" if stored.label else "plus", stored.cx, stored.cy))[None, None]
    with torch.no_grad():
        assert torch.sigmoid(trained_model(result, "vit", 0)(x))[0].item() == pytest.approx(stored.p_circle, abs=1e-5)


def test_a_transformer_answers_with_attention_and_a_cnn_with_feature_maps(result):
    p = probe(result, "vit", 0, "plus", 3, 3)
    assert len(p.attention) == 2 and p.attention[0].shape == (4, 4, 4)  # layers; heads x grid x grid
    # the class token's row over the patches: the softmax's mass less what it keeps on itself
    assert all(((a.sum(axis=(1, 2)) > 0) & (a.sum(axis=(1, 2)) <= 1 + 1e-6)).all() for a in p.attention)
    assert p.rollout.shape == (4, 4) and len(p.distance) == 2 and p.distance[0].shape == (4,)
    c = probe(result, "cnn", 0, "plus", 3, 3)
    assert c.features.shape == (16, 8, 8) and len(c.peaks) == 16 and c.rollout is None
    assert all(0 <= r < 16 and 0 <= col < 16 for r, col in c.peaks)


def test_seen_centre_is_the_nearest_training_centre(result):
    assert seen_centre(result, 3, 4) == (5, 5) and seen_centre(result, 7, 12) == (7, 10)


def test_seen_centre_on_a_lattice_or_a_split_of_ones_own_is_a_training_centre():
    from dataclasses import replace
    from types import SimpleNamespace

    base = bench(("vit",), 1)
    for data in (replace(base.data, train_range=(3, 12), phases=(0, 1, 2)),
                 replace(base.data, split=(((4, 4), (12, 12)), ((3, 3), (8, 8), (12, 3))))):
        run = SimpleNamespace(config=replace(base, data=data))
        for cx, cy in data.test_positions:
            sx, sy = seen_centre(run, cx, cy)
            assert (sx, sy) in data.train_positions
    split = SimpleNamespace(config=replace(base, data=data))
    assert seen_centre(split, 3, 3) == (4, 4) and seen_centre(split, 12, 3) == (4, 4)


def test_distances_untrained_and_trained_and_position_tables(result):
    untrained, trained = distances(result, "vit", 0, images=8)
    assert untrained.shape == trained.shape == (2, 4) and not np.allclose(untrained, trained)
    assert position_similarity(trained_model(result, "vit-nopos-avg", 0)) is None
    sim = position_similarity(trained_model(result, "vit", 0))
    assert sim.shape == (16, 16) and np.allclose(np.diag(sim), 1)


def test_shuffling_the_table_changes_the_model_not_the_run(result):
    effect = shuffle_positions(result, "vit", 0)
    assert 0 <= effect.test_after <= 1 and effect.train_before == pytest.approx(
        next(r.train_acc for r in result.rows if r.model == "vit"))
    assert shuffle_positions(result, "vit-nopos-avg", 0) is None
    again = shuffle_positions(result, "vit", 0)  # the stored weights were not touched by the first shuffle
    assert again.train_before == effect.train_before


def test_a_model_is_rebuilt_once_and_shared_and_whoever_changes_one_gets_a_copy(result):
    shared = shared_model(result, "vit", 0)
    assert shared_model(result, "vit", 0) is shared and not shared.training
    assert not any(p.requires_grad for p in shared.parameters())  # a forward builds no graph
    own = trained_model(result, "vit", 0)
    assert own is not shared and own is not trained_model(result, "vit", 0)
    x = torch.from_numpy(make_image("plus", 3, 3))[None, None]
    with torch.no_grad():
        assert torch.equal(own(x), shared(x))
        # what changes a copy (the lens's hooks, a shuffled table) never reaches the shared model
        before = shared(x).clone()
        logit_lens(own, x)
        shuffle_positions(result, "vit", 0)
        own.patch_position_table().mul_(0)
        assert torch.equal(shared(x), before) and not own(x).equal(before)
    assert all(not m._forward_hooks for m in shared.modules())
    with pytest.raises(ValueError, match="vit/7"):
        shared_model(result, "vit", 7)


def test_every_model_of_a_run_can_be_rebuilt_ahead_and_is_then_shared(result):
    from core.inspect import trained_model as tm

    tm._loaded.cache_clear()
    assert load_every_model(result) == len(result.weights) == 3
    assert tm._loaded.cache_info().currsize == 3
    misses = tm._loaded.cache_info().misses
    for key in result.weights:
        name, seed = key.rsplit("/", 1)
        shared_model(result, name, int(seed))
    assert tm._loaded.cache_info().misses == misses  # each found built


def test_bad_probes_are_refused_with_the_offending_value(result):
    with pytest.raises(ValueError, match="no trained weights for hybrid/0"):
        trained_model(result, "hybrid", 0)
    with pytest.raises(ValueError, match="cx=1"):
        probe(result, "vit", 0, "plus", 1, 5)
    with pytest.raises(ValueError, match="'star'"):
        probe(result, "vit", 0, "star", 5, 5)


def test_weights_come_back_from_worker_processes_as_bytes():
    """Tensors unpickled by the pool's reader thread made the command line abort at exit now and then, under
    load ("terminate called without an active exception"): workers send torch.save bytes instead."""
    cfg = bench(("cnn",), 1)
    result = run(replace(cfg, train=replace(cfg.train, epochs=5)), workers=1)
    assert isinstance(result.weights["cnn/0"], bytes)
    assert probe(result, "cnn", 0, "plus", 5, 5).features.shape == (16, 8, 8)


def test_a_cnns_feature_maps_come_layer_by_layer(result):
    from core.inspect.trained_model import layer_feature_maps

    x = torch.from_numpy(make_image("plus", 5, 5))[None, None]
    first, last = layer_feature_maps(trained_model(result, "cnn", 0), x)
    assert first.shape == (8, 16, 16) and last.shape == (16, 8, 8) and (first >= 0).all()  # after each ReLU
    assert np.allclose(last, probe(result, "cnn", 0, "plus", 5, 5).features, atol=1e-6)  # the probe's last maps
