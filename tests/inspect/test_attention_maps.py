import pytest
import torch

from core.inspect.attention_maps import attention_distance, attention_rollout, patch_centres, similarity_grid
from core.nn.pos_embed import sincos_1d


def test_rollout_of_one_layer_is_its_attention_with_the_residual():
    A = torch.softmax(torch.randn(2, 5, 5, dtype=torch.float64), dim=-1)  # (H, T, T)
    expected = (A.mean(0) + torch.eye(5, dtype=torch.float64)) / 2  # rows of A sum to 1: (A + I) / 2 is renormalised
    assert torch.allclose(attention_rollout([A]), expected)
    identity = torch.eye(5, dtype=torch.float64).expand(3, 5, 5)
    assert torch.allclose(attention_rollout([identity, identity]), torch.eye(5, dtype=torch.float64))


def test_rollout_multiplies_layers_in_order_and_keeps_rows_summing_to_one():
    layers = [torch.softmax(torch.randn(2, 4, 4, dtype=torch.float64), dim=-1) for _ in range(3)]
    r = attention_rollout(layers)
    steps = [(a.mean(0) + torch.eye(4, dtype=torch.float64)) / 2 for a in layers]
    assert torch.allclose(r, steps[2] @ steps[1] @ steps[0]) and torch.allclose(r.sum(-1), torch.ones(4, dtype=r.dtype))
    with pytest.raises(ValueError, match="at least one layer"):
        attention_rollout([])


def test_distance_of_one_hot_attention_is_the_known_distance():
    G, P = 4, 4
    N = G * G
    w = torch.zeros(1, N + 1, N + 1, dtype=torch.float64)
    w[0, :, 1 + 0] = 1.0  # every query attends to patch (0, 0) alone
    centres = patch_centres(G, P)
    expected = torch.cdist(centres, centres)[:, 0].mean()  # each patch's distance to patch 0, averaged
    assert torch.isclose(attention_distance(w, G, P, class_token=True)[0], expected)
    self_only = torch.eye(N, dtype=torch.float64)[None]  # no class token, every patch attends to itself
    assert attention_distance(self_only, G, P, class_token=False)[0] == 0
    # the next patch along the row is P pixels away (the last one of a row wraps to its first: 3P)
    row = torch.zeros(1, N, N, dtype=torch.float64)
    for q in range(N):
        r, c = divmod(q, G)
        row[0, q, r * G + (c + 1) % G] = 1.0  # the next patch along the row (wrapping)
    expected = torch.tensor([P * (1 if c < G - 1 else G - 1) for q in range(N) for c in [q % G]], dtype=torch.float64)
    assert torch.isclose(attention_distance(row, G, P, class_token=False)[0], expected.mean())


def test_similarity_grid_is_the_cosine_of_every_pair():
    table = sincos_1d(17, 32)[1:]
    grid = similarity_grid(table)
    i, j = 3, 9
    direct = torch.dot(table[i].double(), table[j].double()) / (table[i].double().norm() * table[j].double().norm())
    assert torch.isclose(grid[i, j], direct) and torch.allclose(grid.diagonal(), torch.ones(16, dtype=grid.dtype))
    assert torch.allclose(grid, grid.T)
