"""How large the position table is against what a patch says: the norms of the patch tokens and of the table's
rows, in a model as it started and as it ended.

The lesson's ViT adds a fixed 1-D sin-cos table to its patch tokens. Each row holds D/2 sine-cosine pairs, so
every row's norm is sqrt(D/2) (4 for D = 32) whatever the patch; a token's content starts as one small linear map
of 16 pixels. When the table is the larger part of every token, two images of one shape at two places differ
more than a plus and a circle at one place: the scale α of the table (lesson 3's sweep) sets that balance.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn

from core.inspect.equivariance import patch_tokens


@dataclass(frozen=True)
class Scales:
    inked: float  # mean norm of the tokens of patches with ink
    blank: float  # mean norm of the tokens of blank patches (the embedding's bias alone)
    table: float | None  # mean norm of the position table's rows for the patches (None: no table)

    @property
    def ratio(self) -> float | None:
        """How many times larger a table row is than an inked patch's token."""
        return None if self.table is None else self.table / max(self.inked, 1e-12)


def scales(model: nn.Module, images: torch.Tensor) -> Scales | None:
    """The patch tokens' and the table rows' sizes in ``model`` on ``images`` (None for a model without patch
    tokens)."""
    with torch.no_grad():
        tokens = patch_tokens(model, images)  # (B, N, D)
        if tokens is None:
            return None
        P = model.patch_size
        ink = images.unfold(2, P, P).unfold(3, P, P).abs().sum(dim=(1, 4, 5)).flatten(1) > 0  # (B, G, G) -> (B, N)
        norms = tokens.norm(dim=-1)  # (B, N)
        table = model.patch_position_table() if hasattr(model, "patch_position_table") else None
    return Scales(float(norms[ink].mean()), float(norms[~ink].mean()) if (~ink).any() else 0.0,
                  None if table is None else float(table.detach().norm(dim=-1).mean()))


def bias_rms(model: nn.Module) -> float | None:
    """The root mean square of a relative position bias (added to every attention score; it starts at 0.02 ×
    random): how far training moved it from near zero. None for a model without one."""
    bias = getattr(model, "rel_bias", None)
    return None if bias is None else float(bias.table.detach().pow(2).mean().sqrt())
