"""core/inspect/equivariance.py on known cases: a stride-P patch embedding turns a P-pixel move into the same
tokens reordered and a 1-pixel move into new ones; a transformer without positions then answers a P-pixel move
exactly as before; a stride-1 convolution is equivariant to every move away from the borders. Shift consistency:
each phase of a model's stride is counted on its own, on a model whose answer is known, and on a small run."""

from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn as nn

from core.data.data_config import DataConfig
from core.data.shapes import make_image
from core.engine.results.run_result import RunResult
from core.engine.running.run import run
from core.engine.setting.run_config import GeneralizationConfig, TrainConfig
from core.inspect import equivariance
from core.inspect.equivariance import (
    movable,
    moved,
    one_pixel_movable,
    patch_tokens,
    sampling_stride,
    shift_consistency,
    shift_response,
    token_set_change,
)
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.shipped import load_fresh_shipped
from core.models.model_config import ModelConfig
from core.models.registry import build

IMAGES = torch.from_numpy(np.stack([make_image(s, cx, cy) for s in ("plus", "circle")
                                                      for cx in range(3, 9) for cy in range(3, 13)]))[:, None]
LABELS = torch.tensor([0.0] * 60 + [1.0] * 60)


def test_only_patterns_that_stay_inside_are_moved_and_a_move_is_the_pattern_drawn_elsewhere():
    x, y = movable(IMAGES, LABELS, "x", 4)
    assert len(x) == len(IMAGES)  # centres 3..8 + 4 still fit a 16-pixel canvas
    plus = torch.from_numpy(make_image("plus", 3, 5))[None, None]
    assert torch.equal(moved(plus, "x", 4), torch.from_numpy(make_image("plus", 7, 5))[None, None])
    assert torch.equal(moved(plus, "y", 1), torch.from_numpy(make_image("plus", 3, 6))[None, None])
    assert len(movable(torch.from_numpy(make_image("plus", 12, 5))[None, None], LABELS[:1], "x", 1)[0]) == 0


def test_a_patch_embedding_turns_a_whole_patch_move_into_the_same_tokens_reordered_and_a_pixel_move_into_new_ones():
    vit = build("vit-nopos-avg", ModelConfig(), 16, 0)
    tokens = patch_tokens(vit, IMAGES)
    assert token_set_change(tokens, patch_tokens(vit, moved(IMAGES, "x", 4))) < 1e-6
    assert token_set_change(tokens, patch_tokens(vit, moved(IMAGES, "x", 1))) > 0.1


def test_without_positions_a_whole_patch_move_leaves_the_answer_and_a_pixel_move_need_not():
    vit = build("vit-nopos-avg", ModelConfig(), 16, 0).eval()
    patch = shift_response(vit, IMAGES, LABELS, "x", 4, "vit-nopos-avg", 0, False)
    one = shift_response(vit, IMAGES, LABELS, "x", 1, "vit-nopos-avg", 0, False)
    assert patch.answer_changed == 0 and patch.p_change < 1e-5 and patch.inside < 1e-6
    assert one.p_change > 100 * patch.p_change and one.inside > 0.1


def test_with_the_lessons_table_a_whole_patch_move_changes_what_the_model_computes():
    vit = build("vit", ModelConfig(), 16, 0).eval()
    response = shift_response(vit, IMAGES, LABELS, "x", 4, "vit", 0, False)
    assert response.inside < 1e-6 and response.p_change > 1e-4  # same tokens, yet another answer: the table


def test_a_cnn_with_circular_padding_is_equivariant_to_an_even_move_and_the_shipped_runs_answer_at_once():
    cnn = build("cnn-circular", ModelConfig(), 16, 0).eval()
    assert shift_response(cnn, IMAGES, LABELS, "x", 4, "cnn-circular", 0, False).inside < 1e-5
    assert shift_response(cnn, IMAGES, LABELS, "x", 1, "cnn-circular", 0, False).inside > 0.05  # the stride-2 pool
    from core.inspect.equivariance import shift_responses

    lesson = load_fresh_shipped()[PRESETS["lesson"]]
    rows = shift_responses(lesson, 0)
    assert {(r.model, r.trained, r.axis, r.pixels) for r in rows} == {
        (m, t, a, n) for m in ("vit", "cnn") for t in (True, False) for a in ("x", "y") for n in (1, 4)}


PHASE = GeneralizationConfig(models=("vit", "cnn"), model=ModelConfig(embed_dim=16, num_heads=2, depth=1),
                             data=DataConfig(n_train=60, n_test=40, train_range=(3, 12), phases=(0, 1, 2)),
                             train=TrainConfig(epochs=5, seeds=(0, 1)))
# The map of a 16-pixel canvas: centres 3..12 along each axis, both classes. Moving one pixel keeps centres
# 3..11; their offsets mod 4 are 3, 0, 1, 2, 3, 0, 1, 2, 3 and mod 2 are 1, 0, 1, 0, ...: pairs per phase
PAIRS = {4: [2 * 10 * 2, 2 * 10 * 2, 2 * 10 * 2, 3 * 10 * 2], 2: [4 * 10 * 2, 5 * 10 * 2]}


def test_a_move_keeps_only_patterns_whose_centre_plus_one_still_fits():
    centres = np.array([[3, 12], [11, 4], [12, 5]])
    assert one_pixel_movable(centres, range(3, 13), "x").tolist() == [True, True, False]
    assert one_pixel_movable(centres, range(3, 13), "y").tolist() == [False, True, True]


def test_the_stride_is_the_patch_for_a_transformer_and_the_pool_for_the_cnn():
    result = RunResult(PHASE)
    assert (sampling_stride(result, "vit"), sampling_stride(result, "cnn")) == (4, 2)
    two = RunResult(replace(PHASE, model=replace(PHASE.model, patch_size=2)))
    assert sampling_stride(two, "vit") == 2


class AnswersByColumn(nn.Module):
    """Answers class 1 exactly when the pattern's centre column is 3 mod 4: its answer changes with every move
    into or out of offset 3 along x, and with no move along y."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        columns = x.sum(dim=(1, 2))  # (B, W): ink per column
        centre = (columns * torch.arange(x.shape[-1])).sum(1) / columns.sum(1)  # (B,): both shapes are symmetric
        return torch.where(centre.round() % 4 == 3, 1.0, -1.0)  # (B,): one logit


def test_each_phase_is_counted_on_its_own_moves(monkeypatch):
    monkeypatch.setattr(equivariance, "shared_model", lambda result, name, seed: AnswersByColumn())
    result = RunResult(replace(PHASE, models=("vit",), train=replace(PHASE.train, seeds=(0,))), weights={"vit/0": b""})
    rows = shift_consistency(result)
    assert [(r.axis, r.phase, r.stride) for r in rows] == [(a, k, 4) for a in ("x", "y") for k in range(4)]
    assert [r.pairs for r in rows] == PAIRS[4] * 2
    # along x, 2 -> 3 and 3 -> 0 cross offset 3: every answer changes; the other moves and every y move keep it
    assert [r.same for r in rows] == [1.0, 1.0, 0.0, 0.0] + [1.0] * 4


@pytest.fixture(scope="module")
def small_run():
    return run(PHASE, workers=0)


def test_a_run_gives_one_row_per_model_seed_axis_and_phase(small_run):
    rows = shift_consistency(small_run)
    assert {(r.model, r.seed, r.axis, r.phase) for r in rows} == {
        (m, s, a, k) for m, stride in (("vit", 4), ("cnn", 2)) for s in (0, 1) for a in ("x", "y")
        for k in range(stride)}
    for r in rows:
        assert r.pairs == PAIRS[r.stride][r.phase] and 0 <= r.same <= 1
    assert {r.seed for r in shift_consistency(small_run, (1,))} == {1}
    assert shift_consistency(small_run, (7,)) == []  # a seed the run has no weights for: nothing to measure
