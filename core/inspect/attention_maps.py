"""Looking inside a trained model: where its attention goes, how far it reaches, what its position table
encodes. Plain tensors in, plain tensors out; ``core.inspect.trained_model`` applies them to a run.

- ``attention_rollout`` (Abnar & Zuidema 2020, arXiv:2005.00928): how much each input token reaches each
  output through every layer, counting the residual path: per layer the heads' mean attention, plus the
  identity (the skip connection), rows renormalised, multiplied through the layers.
- ``attention_distance`` (the ViT paper's figure 7, right): per head, the mean distance in pixels between
  a query patch and the patches it attends to, weighted by the attention.
- ``similarity_grid`` (the ViT paper's figure 7, centre): the cosine similarity of every position's
  embedding with every other.
"""

from __future__ import annotations

import torch


def attention_rollout(attentions: list[torch.Tensor]) -> torch.Tensor:
    """(T, T) rollout from a list of per-layer (H, T, T) attention weights (first layer first)."""
    if not attentions:
        raise ValueError("attention_rollout needs at least one layer's attention")
    T = attentions[0].shape[-1]
    rollout = torch.eye(T, dtype=attentions[0].dtype)
    for weights in attentions:
        a = weights.mean(dim=0) + torch.eye(T, dtype=weights.dtype)  # (T, T): heads averaged, plus the residual
        a = a / a.sum(dim=-1, keepdim=True)  # rows sum to 1 again
        rollout = a @ rollout  # (T, T): this layer's mixing after the earlier layers'
    return rollout


def patch_centres(grid_size: int, patch_size: int) -> torch.Tensor:
    """(N, 2) (row, col) pixel coordinates of each patch's centre, raster order."""
    rows, cols = torch.meshgrid(torch.arange(grid_size), torch.arange(grid_size), indexing="ij")
    return (torch.stack([rows.flatten(), cols.flatten()], dim=1).double() + 0.5) * patch_size  # (N, 2)


def attention_distance(weights: torch.Tensor, grid_size: int, patch_size: int, class_token: bool) -> torch.Tensor:
    """(H,) mean attention distance in pixels of one layer's (H, T, T) weights: for every query patch, the
    attention-weighted mean distance to the key patches (the class token, which has no place, is left out
    and the patch weights renormalised), averaged over the query patches."""
    start = int(class_token)
    w = weights[:, start:, start:].double()  # (H, N, N): patch queries, patch keys
    w = w / w.sum(dim=-1, keepdim=True).clamp_min(1e-12)
    centres = patch_centres(grid_size, patch_size)
    dist = torch.cdist(centres, centres)  # (N, N) pixels
    return (w * dist).sum(dim=-1).mean(dim=-1)  # (H,)


def similarity_grid(table: torch.Tensor) -> torch.Tensor:
    """(N, N) cosine similarity between the rows of a (N, D) position table."""
    unit = table.double() / table.double().norm(dim=-1, keepdim=True).clamp_min(1e-12)  # (N, D)
    return unit @ unit.T
