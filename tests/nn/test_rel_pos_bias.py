import torch

from core.nn import seeded
from core.nn.rel_pos_bias import RelativePositionBias, offset_index


def test_pairs_with_the_same_offset_get_the_same_bias_and_other_offsets_differ():
    G = 4
    bias = RelativePositionBias(G, num_heads=3, generator=seeded.generator(0))()  # (H, N, N)
    assert bias.shape == (3, G * G, G * G)

    def at(r1, c1, r2, c2):
        return bias[:, r1 * G + c1, r2 * G + c2]

    assert torch.equal(at(0, 0, 1, 2), at(2, 1, 3, 3))  # both: one row down, two columns right
    assert torch.equal(at(3, 3, 3, 3), at(0, 0, 0, 0))  # no offset
    assert not torch.equal(at(0, 0, 1, 2), at(0, 0, 2, 1))  # a different offset


def test_offset_index_covers_every_offset_once_per_distinct_offset():
    index = offset_index(3)
    assert index.shape == (9, 9) and index.min() == 0 and index.max() == 24
    assert len(index.unique()) == 25  # (2G-1)^2 offsets on a 3x3 grid
