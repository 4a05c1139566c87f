import math

import numpy as np
import pytest
import torch
import torch.nn as nn

from core.lessons.lesson2_symmetry import (
    EXERCISES,
    SEED,
    SEED_CASES,
    SymmetryConfig,
    bright_patch_attention,
    experiment,
    model_and_input,
    one_patch_change,
    patch_permutation,
    permute_and_compare,
    random_permutation_changes,
    verify,
)
from core.models.prenorm_vit import build_prenorm
from core.nn import seeded


class SeedReference(nn.Module):
    """An independent re-implementation of the seed module's TinyViT, written from its text for this test."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 4, 4)
        self.cls = nn.Parameter(torch.randn(1, 1, 16) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 17, 16) * 0.02)
        self.ln1 = nn.LayerNorm(16)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(16, 16) for _ in range(4))
        self.ln2 = nn.LayerNorm(16)
        self.up, self.down = nn.Linear(16, 32), nn.Linear(32, 16)
        self.ln = nn.LayerNorm(16)
        self.out = nn.Linear(16, 3)

    def attention_weights(self, x):
        h = self.ln1(x)
        q = self.wq(h).view(x.shape[0], -1, 2, 8).permute(0, 2, 1, 3)
        k = self.wk(h).view(x.shape[0], -1, 2, 8).permute(0, 2, 1, 3)
        return torch.softmax(q @ k.transpose(2, 3) / math.sqrt(8), dim=3)

    def forward(self, image):
        tokens = self.conv(image).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(len(image), 1, 16), tokens], 1) + self.pos
        w = self.attention_weights(x)
        v = self.wv(self.ln1(x)).view(x.shape[0], -1, 2, 8).permute(0, 2, 1, 3)
        x = x + self.wo((w @ v).permute(0, 2, 1, 3).reshape(x.shape[0], -1, 16))
        x = x + self.down(nn.functional.gelu(self.up(self.ln2(x))))
        return self.out(self.ln(x)[:, 0]), w


def reference():
    torch.manual_seed(13)
    return SeedReference().double().eval()


def test_seed_preset_matches_independent_reference():
    ref = reference()
    model = build_prenorm(SymmetryConfig().vit_config(), seeded.generator(13))
    torch.manual_seed(99)
    x = torch.randn(4, 3, 16, 16, dtype=torch.float64)
    with torch.no_grad():
        ref_logits, ref_w = ref(x)
        attentions: list[torch.Tensor] = []
        logits = model(x, attentions)
    assert (logits - ref_logits).abs().max() <= 1e-12
    assert (attentions[0] - ref_w).abs().max() <= 1e-12


def test_seed_experiment_matches_reference_for_the_three_cases():
    ref = reference()
    result = experiment()
    assert [c["id"] for c in result["cases"]] == ["top-left", "middle", "bottom-right"]
    assert set(result) == {"kind", "title", "description", "controlLabel", "cases"}
    for case, (_, _, row, col) in zip(result["cases"], SEED_CASES, strict=True):
        image = torch.zeros(1, 3, 16, 16, dtype=torch.float64)
        image[..., row * 4:(row + 1) * 4, col * 4:(col + 1) * 4] = 1
        with torch.no_grad():
            logits, w = ref(image)
        np.testing.assert_allclose(case["vectors"][1]["values"], logits[0].numpy(), atol=1e-12, rtol=0)
        np.testing.assert_allclose(case["matrices"][1]["values"], w[0, 0, 0, 1:].reshape(4, 4).numpy(), atol=1e-12, rtol=0)
        assert abs(case["metrics"][2]["value"] - w[0, 0, 0, 0].item()) <= 1e-12
        assert abs(case["metrics"][3]["value"] - 1.0) <= 1e-12


@pytest.mark.parametrize("pos_embed", ["none", "learned", "sincos", "sincos2d"])
def test_four_claims_pass_for_every_pos_embed(pos_embed):
    claims = verify(SymmetryConfig(pos_embed=pos_embed))
    assert len(claims) == 4 and all(c.passed for c in claims), claims


@pytest.mark.parametrize("kind", ["reversal", "random", "swap", "shift"])
def test_permutations_invariant_without_positions_and_broken_with(kind):
    model, x = model_and_input(SymmetryConfig(pos_embed="learned"))
    perm = patch_permutation(kind, 16, 4, seed=5, swap=(2, 9), shift=(1, 2))
    assert sorted(perm.tolist()) == list(range(16)) and perm.tolist() != list(range(16))
    r = permute_and_compare(model, x, perm)
    assert r.no_pos.class_change <= 1e-10
    assert r.no_pos.equivariance_error <= 1e-10
    assert r.pos.class_change > 1e-6


def test_mean_pooling_without_class_token_is_invariant_too():
    cfg = SymmetryConfig(pos_embed="sincos2d")
    model = build_prenorm(cfg.vit_config().__class__(**{**cfg.vit_config().__dict__, "class_token": False,
                                                   "global_pool": "avg"}), seeded.generator(0))
    x = torch.randn(1, 3, 16, 16, dtype=torch.float64)
    r = permute_and_compare(model, x, patch_permutation("random", 16, 4, seed=1))
    assert r.no_pos.class_change <= 1e-10 and r.pos.class_change > 1e-6


def test_random_permutation_distribution():
    model, x = model_and_input(SymmetryConfig())
    d = random_permutation_changes(model, x, n=100)
    assert d.no_pos.shape == (100,) and d.no_pos.max() <= 1e-10
    assert d.pos.min() > 0


def test_one_patch_change_is_local_before_and_global_after_attention():
    model, x = model_and_input(SymmetryConfig())
    r = one_patch_change(model, x, patch=6)
    assert np.count_nonzero(r.embedding_change) == 1 and r.embedding_change[1, 2] > 0
    assert r.outputs_changed == 16
    assert np.abs(r.logits - r.logits_changed).max() > 1e-6


def test_bright_patch_attention_any_position():
    model = build_prenorm(SymmetryConfig().vit_config(), seeded.generator(13))
    a = bright_patch_attention(model, 2, 1)
    assert a.class_to_patch.shape == (2, 4, 4)
    np.testing.assert_allclose(a.row_sum, 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="row=4"):
        bright_patch_attention(model, 4, 0)


def test_bad_permutation_arguments():
    with pytest.raises(ValueError, match="0..15"):
        patch_permutation("swap", 16, 4, swap=(0, 16))
    with pytest.raises(ValueError, match="unknown permutation"):
        patch_permutation("spiral", 16, 4)


def test_lesson_views_from_a_config():
    from core.lessons.lesson2_symmetry import attention, change, shuffle

    cfg = SymmetryConfig()
    sh = shuffle(cfg, "swap", swap=(0, 5))
    assert sh.perm[:6] == (5, 1, 2, 3, 4, 0) and sh.compared.no_pos.class_change <= 1e-10
    assert sh.random.no_pos.shape == (100,) and sh.moved.shape == sh.image.shape
    assert change(cfg, 3).outputs_changed == 16
    assert attention(cfg, 1, 1).class_to_patch.shape == (2, 4, 4)
    with pytest.raises(ValueError, match="patch must be in 0..15"):
        change(cfg, 16)
    with pytest.raises(ValueError, match="seed"):
        SymmetryConfig(seed=-1)


def test_the_image_is_the_seeds_whatever_the_positional_encoding():
    # The seed's image follows the seed's model (learned positions) in the stream; a fixed table draws nothing,
    # so drawing after that model would change the picture with the encoding
    seed_model, seed_image = model_and_input(SymmetryConfig(pos_embed="learned"))
    g = seeded.generator(SEED)
    build_prenorm(seed_model.cfg, g)
    assert torch.equal(seed_image, torch.randn(seed_image.shape, dtype=torch.float64, generator=g))
    for pos_embed in ("none", "sincos", "sincos2d"):
        model, image = model_and_input(SymmetryConfig(pos_embed=pos_embed))
        assert torch.equal(image, seed_image), pos_embed
        assert model.cfg.pos_embed == pos_embed


def test_what_to_notice_is_read_from_the_numbers():
    from dataclasses import replace

    from core.lessons.lesson2_symmetry import attention, attention_notes, change, change_notes, shuffle, shuffle_notes

    cfg = SymmetryConfig()
    [local] = change_notes(change(cfg, 0), 0)
    assert "changed **1** patch embedding(s)" in local and "attention is global" in local
    [att] = attention_notes(attention(cfg, 2, 1), 2, 1)
    assert "1/17 = 0.059" in att
    no_pos = shuffle_notes(replace(cfg, pos_embed="none"), "reversal", shuffle(replace(cfg, pos_embed="none"), "reversal"))
    assert "**no position table**" in no_pos[1]


def test_a_model_without_positions_is_not_said_to_have_positions_that_break_the_symmetry():
    from core.lessons.lesson2_symmetry import SymmetryConfig, verify

    claims = verify(SymmetryConfig(pos_embed="none"))
    said = " ".join(c.claim for c in claims)
    assert "none positions break" not in said and "only the first half is tested" in said


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.key)
def test_every_exercise_answer_is_valid_for_every_preset(ex):
    for preset in ("seed", "two blocks, 4 heads, width 32"):
        a = ex.answer(SymmetryConfig(preset=preset))
        assert 0 <= a.correct < len(ex.options) and "**" in a.explanation


def test_the_exercises_known_answers():
    shift, one_patch, sincos = (ex.answer(SymmetryConfig()) for ex in EXERCISES)
    assert shift.correct == 0 and one_patch.correct == 1 and sincos.correct == 1


def test_the_check_follows_the_numbers(monkeypatch):
    """If changing one patch changed every embedding, the answer would say so: it is computed, not stored."""
    from dataclasses import replace

    from core.lessons import lesson2_symmetry

    real = lesson2_symmetry.change

    def every_embedding_changes(cfg, patch):
        ch = real(cfg, patch)
        return replace(ch, embedding_change=ch.embedding_change + 1.0)

    monkeypatch.setattr(lesson2_symmetry, "change", every_embedding_changes)
    assert EXERCISES[1].answer(SymmetryConfig()).correct == 2
