"""Seeded builds draw from their own generator: exactly the lesson's weights, and safe beside other threads."""

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.lesson2_symmetry import SymmetryConfig, model_and_input, verify
from core.models.registry import REGISTRY, build
from core.nn import seeded
from support.notebook_reference import NotebookCNN, NotebookViT


def test_layers_match_torch_defaults_after_manual_seed():
    torch.manual_seed(5)
    ref = [torch.nn.Linear(7, 3), torch.nn.Conv2d(2, 4, 3, padding=1), torch.randn(2, 3)]
    g = seeded.generator(5)
    mine = [seeded.linear(7, 3, g), seeded.conv2d(2, 4, 3, g, padding=1), seeded.randn(2, 3, g=g)]
    for a, b in zip(ref[:2], mine[:2], strict=True):
        assert torch.equal(a.weight, b.weight) and torch.equal(a.bias, b.bias)
    assert torch.equal(ref[2], mine[2])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lesson_models_hold_the_notebooks_weights(seed):
    for name, reference in (("vit", NotebookViT), ("cnn", NotebookCNN)):
        torch.manual_seed(seed)
        ref = reference().state_dict()
        mine = build(name, NOTEBOOK_SETUP.model, 16, seed).state_dict()
        assert all(torch.equal(a, b) for a, b in zip(ref.values(), mine.values(), strict=True)), name


def test_building_leaves_the_global_generator_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    for name in REGISTRY:
        build(name, NOTEBOOK_SETUP.model, 16, 0)
    model_and_input(SymmetryConfig())
    assert torch.equal(torch.rand(3), expected)


def _weights(name_seed):
    name, seed = name_seed
    return [p.detach().clone() for p in build(name, NOTEBOOK_SETUP.model, 16, seed).parameters()]


def _symmetry(seed):
    model, x = model_and_input(SymmetryConfig(seed=seed))
    return [p.detach().clone() for p in model.parameters()] + [x], verify(SymmetryConfig(seed=seed))


def test_concurrent_seeded_calls_equal_sequential_ones_bit_for_bit():
    calls = [(name, seed) for seed in range(6) for name in REGISTRY] * 4
    sequential = [_weights(c) for c in calls]
    with ThreadPoolExecutor(max_workers=8) as ex:
        concurrent = list(ex.map(_weights, calls))
    for a, b in zip(sequential, concurrent, strict=True):
        assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    seeds = [13, 0, 7, 42] * 10
    seq = [_symmetry(s) for s in seeds]
    with ThreadPoolExecutor(max_workers=8) as ex:
        con = list(ex.map(_symmetry, seeds))
    for (wa, ca), (wb, cb) in zip(seq, con, strict=True):
        assert all(torch.equal(x, y) for x, y in zip(wa, wb, strict=True))
        assert [c.value for c in ca] == [c.value for c in cb]


def test_bad_seed_is_refused():
    with pytest.raises(ValueError, match="seed must be in"):
        seeded.generator(-1)
