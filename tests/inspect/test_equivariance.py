"""core/inspect/equivariance.py on known cases: a stride-P patch embedding turns a P-pixel move into the same
tokens reordered and a 1-pixel move into new ones; a transformer without positions then answers a P-pixel move
exactly as before; a stride-1 convolution is equivariant to every move away from the borders."""

import numpy as np
import torch

from core.data.shapes import make_image
from core.inspect.equivariance import movable, moved, patch_tokens, shift_response, token_set_change
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
