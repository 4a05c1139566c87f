import torch

from core.models.lesson_vit import LessonViT
from core.nn import seeded
from support.notebook_reference import NotebookViT


def test_same_seed_gives_the_notebooks_weights_and_outputs():
    for seed in (0, 1, 2):
        torch.manual_seed(seed)
        ref = NotebookViT()
        mine = LessonViT(generator=seeded.generator(seed))
        ref_params, my_params = list(ref.state_dict().values()), list(mine.state_dict().values())
        assert len(ref_params) == len(my_params)
        assert all(torch.equal(a, b) for a, b in zip(ref_params, my_params, strict=True))
        x = torch.rand(8, 1, 16, 16)
        assert torch.equal(ref(x), mine(x))  # sdpa path: bit for bit
        for layer in mine.layers:
            layer.attn_impl = "math"
        assert (ref(x) - mine(x)).abs().max() < 1e-5


def test_other_patch_sizes_and_hybrid():
    x = torch.rand(4, 1, 16, 16)
    assert LessonViT(patch_size=2, generator=seeded.generator(0))(x).shape == (4,)
    hybrid = LessonViT(stem_channels=8, generator=seeded.generator(0))
    assert hybrid(x).shape == (4,) and hybrid.embed.in_features == 8 * 4 * 4


def test_attention_implementation_is_validated():
    import pytest

    with pytest.raises(ValueError, match="attn_impl='fastt'"):
        LessonViT(attn_impl="fastt", generator=seeded.generator(0))
