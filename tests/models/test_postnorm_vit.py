import numpy as np
import pytest
import torch

from core.models.postnorm_vit import PostNormViT, ViTVariant, overlap_kernel
from core.nn import seeded
from support.notebook_reference import NotebookHybrid, NotebookViT


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("notebook,variant", [(NotebookViT, ViTVariant()), (NotebookHybrid, ViTVariant(tokens="stem"))])
def test_same_seed_gives_the_notebooks_weights_and_outputs(seed, notebook, variant):
    torch.manual_seed(seed)
    ref = notebook()
    mine = PostNormViT(variant=variant, generator=seeded.generator(seed))
    ref_params, my_params = list(ref.state_dict().values()), list(mine.state_dict().values())
    assert len(ref_params) == len(my_params)
    assert all(torch.equal(a, b) for a, b in zip(ref_params, my_params, strict=True))
    x = torch.rand(8, 1, 16, 16)
    sdpa = PostNormViT(variant=ViTVariant(tokens=variant.tokens, attn_impl="sdpa"), generator=seeded.generator(seed))
    assert torch.equal(ref(x), sdpa(x))  # torch's own attention: bit for bit
    assert (ref(x) - mine(x)).abs().max() < 1e-5  # "fast": written out, the last layer for the class token only


def test_the_table_scale_multiplies_the_fixed_table_only():
    plain = PostNormViT(generator=seeded.generator(0))
    scaled = PostNormViT(variant=ViTVariant(pos_scale=2.5), generator=seeded.generator(0))
    assert torch.equal(scaled.pos_embed, 2.5 * plain.pos_embed)
    assert all(torch.equal(a, b) for k, a in plain.state_dict().items() for j, b in scaled.state_dict().items()
               if k == j and k != "pos_embed")


def test_other_patch_sizes_and_the_hybrid_stem():
    x = torch.rand(4, 1, 16, 16)
    assert PostNormViT(patch_size=2, generator=seeded.generator(0))(x).shape == (4,)
    hybrid = PostNormViT(variant=ViTVariant(tokens="stem", stem_channels=6), generator=seeded.generator(0))
    assert hybrid(x).shape == (4,) and hybrid.embed.in_features == 6 * 4 * 4


def test_attention_weights_of_every_layer_on_request():
    model = PostNormViT(generator=seeded.generator(0))
    attentions: list[torch.Tensor] = []
    model(torch.rand(2, 1, 16, 16), attentions)
    assert len(attentions) == 2 and attentions[0].shape == (2, 4, 17, 17)
    torch.testing.assert_close(attentions[1].sum(-1), torch.ones(2, 4, 17))


@pytest.mark.parametrize("pool", ["avg", "max"])
def test_without_positions_and_with_a_pool_whole_patch_cyclic_shifts_change_nothing(pool):
    model = PostNormViT(variant=ViTVariant(pos_embed="none", global_pool=pool), generator=seeded.generator(0))
    model = model.double().eval()
    x = torch.rand(3, 1, 16, 16, dtype=torch.float64)
    moved = torch.roll(x, shifts=(4, 8), dims=(2, 3))  # one patch down, two right: the patches permute
    assert torch.allclose(model(x), model(moved), atol=1e-12)
    with_pos = PostNormViT(variant=ViTVariant(global_pool=pool), generator=seeded.generator(0)).double().eval()
    assert not torch.allclose(with_pos(x), with_pos(moved), atol=1e-6)  # the 1-D table tells them apart


@pytest.mark.parametrize("patch_size", [1, 2, 4, 8])
def test_overlapping_patches_keep_the_grid_and_reach_into_neighbours(patch_size):
    kernel, padding = overlap_kernel(patch_size)
    assert kernel >= patch_size and (16 + 2 * padding - kernel) // patch_size + 1 == 16 // patch_size
    model = PostNormViT(patch_size=patch_size, variant=ViTVariant(tokens="overlap"), generator=seeded.generator(0))
    assert model.tokens(torch.rand(2, 1, 16, 16)).shape == (2, (16 // patch_size) ** 2, 32)


@pytest.mark.parametrize("variant", [ViTVariant(pos_embed=p) for p in ("none", "learned", "sincos2d", "relative")]
                         + [ViTVariant(tokens=t) for t in ("overlap", "spt")] + [ViTVariant(blur=True),
                         ViTVariant(blur=True, tokens="stem"), ViTVariant(attention="lsa"),
                         ViTVariant(global_pool="avg"), ViTVariant(global_pool="max"), ViTVariant(max_shift=2)])
def test_every_variant_trains_one_step_and_answers_one_logit(variant):
    model = PostNormViT(variant=variant, generator=seeded.generator(0))
    x = torch.rand(5, 1, 16, 16)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x), torch.ones(5))
    loss.backward()
    assert model(x).shape == (5,) and all(p.grad is not None for p in model.parameters() if p.requires_grad)


def test_augmentation_is_on_while_training_only():
    model = PostNormViT(variant=ViTVariant(max_shift=2), generator=seeded.generator(0))
    x = torch.rand(4, 1, 16, 16)
    model.eval()
    assert torch.equal(model(x), model(x))
    model.train()
    assert not torch.equal(model(x), model(x))  # a new shift every call


def test_bad_variants_are_refused_with_the_offending_value():
    with pytest.raises(ValueError, match="pos_embed='rope' is not one of"):
        ViTVariant(pos_embed="rope")
    with pytest.raises(ValueError, match="attn_impl='fastt' is not one of"):
        ViTVariant(attn_impl="fastt")
    with pytest.raises(ValueError, match="embed_dim divisible by 4, got 30"):
        PostNormViT(embed_dim=30, num_heads=3, variant=ViTVariant(pos_embed="sincos2d"), generator=seeded.generator(0))


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("patch_size,num_classes", [(4, 1), (2, 10), (8, 1)])
def test_the_blurred_vit_has_the_plain_vits_state_dict_key_for_key(seed, patch_size, num_classes):
    plain = PostNormViT(patch_size=patch_size, generator=seeded.generator(seed), num_classes=num_classes)
    blurred = PostNormViT(patch_size=patch_size, variant=ViTVariant(blur=True), generator=seeded.generator(seed),
                          num_classes=num_classes)
    assert list(blurred.state_dict()) == list(plain.state_dict())
    assert all(torch.equal(a, b) for a, b in zip(blurred.state_dict().values(), plain.state_dict().values(),
                                                   strict=True))
    assert blurred.blur.taps == patch_size + 1 and blurred.blur.padding == "zeros"


def test_the_blur_comes_before_the_patches_and_keeps_the_image_size():
    plain = PostNormViT(generator=seeded.generator(0)).eval()
    blurred = PostNormViT(variant=ViTVariant(blur=True), generator=seeded.generator(0)).eval()
    x = torch.rand(3, 1, 16, 16)
    assert blurred.blur(x).shape == x.shape
    torch.testing.assert_close(blurred.tokens(x), plain.tokens(blurred.blur(x)))
    torch.testing.assert_close(blurred(x), plain(blurred.blur(x)))
    assert not torch.allclose(blurred(x), plain(x))


@pytest.mark.parametrize("num_classes,shape", [(1, (4,)), (10, (4, 10))])
def test_the_blurred_vit_answers_random_images_and_digits_in_float32(num_classes, shape):
    from core.data.digits import load, place
    images, _ = load()
    digits = torch.from_numpy(np.stack([place(images[i], 4 + 2 * i, 11 - i, 16) for i in range(4)]))[:, None]
    model = PostNormViT(variant=ViTVariant(blur=True), generator=seeded.generator(0), num_classes=num_classes)
    for x in (torch.rand(4, 1, 16, 16), digits):
        out = model(x)
        assert out.shape == shape and out.dtype == torch.float32 and torch.isfinite(out).all()


def test_no_positions_with_the_class_token_is_the_lesson_vit_without_its_table():
    plain = PostNormViT(generator=seeded.generator(0)).double().eval()
    nopos = PostNormViT(variant=ViTVariant(pos_embed="none"), generator=seeded.generator(0)).double().eval()
    assert nopos.pos_embed is None and nopos.cls_token is not None
    mine, lesson = nopos.state_dict(), plain.state_dict()
    assert list(mine) == [k for k in lesson if k != "pos_embed"]
    assert all(torch.equal(mine[k], lesson[k]) for k in mine)
    with torch.no_grad():
        plain.pos_embed.zero_()  # the table gone: the same model
    x = torch.rand(3, 1, 16, 16, dtype=torch.float64)
    torch.testing.assert_close(nopos(x), plain(x))
    moved = torch.roll(x, shifts=(4, -8), dims=(2, 3))  # whole patches: the tokens only change order
    torch.testing.assert_close(nopos(moved), nopos(x))
