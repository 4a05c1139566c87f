import pytest
import torch

from core.models.lesson_vit import LessonViT
from core.models.remedy_vit import RemedyViT, ViTRemedy, overlap_kernel
from core.nn import seeded


def test_no_remedy_is_the_lessons_vit_weight_for_weight():
    x = torch.rand(4, 1, 16, 16)
    for stem, remedy in ((0, ViTRemedy()), (8, ViTRemedy(tokens="stem"))):
        lesson = LessonViT(16, 4, 1, 32, 4, 2, stem_channels=stem, attn_impl="fast", generator=seeded.generator(3))
        ours = RemedyViT(remedy=remedy, generator=seeded.generator(3))
        assert torch.equal(lesson(x), ours(x))


@pytest.mark.parametrize("pool", ["avg", "max"])
def test_without_positions_and_with_a_pool_whole_patch_cyclic_shifts_change_nothing(pool):
    model = RemedyViT(remedy=ViTRemedy(pos_embed="none", global_pool=pool), generator=seeded.generator(0)).eval()
    x = torch.rand(3, 1, 16, 16, dtype=torch.float64)
    model = model.double()
    moved = torch.roll(x, shifts=(4, 8), dims=(2, 3))  # one patch down, two right: the patches permute
    assert torch.allclose(model(x), model(moved), atol=1e-12)
    with_pos = RemedyViT(remedy=ViTRemedy(global_pool=pool), generator=seeded.generator(0)).double().eval()
    assert not torch.allclose(with_pos(x), with_pos(moved), atol=1e-6)  # the 1-D table tells them apart


@pytest.mark.parametrize("patch_size", [1, 2, 4, 8])
def test_overlapping_patches_keep_the_grid_and_reach_into_neighbours(patch_size):
    kernel, padding = overlap_kernel(patch_size)
    assert kernel >= patch_size and (16 + 2 * padding - kernel) // patch_size + 1 == 16 // patch_size
    model = RemedyViT(patch_size=patch_size, remedy=ViTRemedy(tokens="overlap"), generator=seeded.generator(0))
    assert model.tokens(torch.rand(2, 1, 16, 16)).shape == (2, (16 // patch_size) ** 2, 32)


@pytest.mark.parametrize("remedy", [ViTRemedy(pos_embed=p) for p in ("none", "learned", "sincos2d", "relative")]
                         + [ViTRemedy(tokens=t) for t in ("overlap", "spt")] + [ViTRemedy(attention="lsa"),
                         ViTRemedy(global_pool="avg"), ViTRemedy(global_pool="max"), ViTRemedy(max_shift=2)])
def test_every_remedy_trains_one_step_and_answers_one_logit(remedy):
    model = RemedyViT(remedy=remedy, generator=seeded.generator(0))
    x = torch.rand(5, 1, 16, 16)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x), torch.ones(5))
    loss.backward()
    assert model(x).shape == (5,) and all(p.grad is not None for p in model.parameters() if p.requires_grad)


def test_augmentation_is_on_while_training_only():
    model = RemedyViT(remedy=ViTRemedy(max_shift=2), generator=seeded.generator(0))
    x = torch.rand(4, 1, 16, 16)
    model.eval()
    assert torch.equal(model(x), model(x))
    model.train()
    assert not torch.equal(model(x), model(x))  # a new shift every call


def test_bad_remedies_are_refused_with_the_offending_value():
    with pytest.raises(ValueError, match="pos_embed='rope' is not one of"):
        ViTRemedy(pos_embed="rope")
    with pytest.raises(ValueError, match="embed_dim divisible by 4, got 30"):
        RemedyViT(embed_dim=30, num_heads=3, remedy=ViTRemedy(pos_embed="sincos2d"), generator=seeded.generator(0))
