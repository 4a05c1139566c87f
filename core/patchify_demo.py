"""The Patchify lesson as one function of a frozen config: what the page and ``python -m core patchify`` run."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from core.images import SYNTHETIC_IMAGES, as_batch, image_from_bytes, synthetic_image
from core.patch_embed import compare_embeddings, seeded_linear_embed
from core.patchify import patchify, unpatchify, valid_patch_sizes

DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass(frozen=True)
class PatchifyConfig:
    image: str = "plus"  # one of SYNTHETIC_IMAGES, or "upload"
    image_size: int = 16
    channels: int = 3
    patch_size: int = 4
    embed_dim: int = 16
    seed: int = 0
    dtype: str = "float64"
    wrong_flatten_order: bool = False
    conv_stride: int | None = None  # None: stride == patch_size (the real patch embedding)

    def validate(self) -> None:
        if self.image not in SYNTHETIC_IMAGES + ("upload",):
            raise ValueError(f"unknown image {self.image!r}; choose one of {SYNTHETIC_IMAGES + ('upload',)}")
        if self.channels not in (1, 3):
            raise ValueError(f"channels must be 1 or 3, got {self.channels}")
        if self.image_size < 1 or self.image_size % self.patch_size:
            raise ValueError(
                f"patch size {self.patch_size} does not divide image size {self.image_size}; "
                f"valid patch sizes: {valid_patch_sizes(self.image_size, self.image_size)}"
            )
        if self.embed_dim < 1:
            raise ValueError(f"embed_dim must be positive, got {self.embed_dim}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {list(DTYPES)}, got {self.dtype!r}")
        if self.conv_stride is not None and not 1 <= self.conv_stride <= self.patch_size:
            raise ValueError(f"conv_stride must be in 1..{self.patch_size}, got {self.conv_stride}")


def run_patchify(config: PatchifyConfig, upload: bytes | None = None) -> dict:
    """Patchify an image, embed it both ways, and measure the difference. Everything returned is numpy or plain."""
    config.validate()
    dtype = DTYPES[config.dtype]
    if config.image == "upload":
        if upload is None:
            raise ValueError("image='upload' needs the uploaded file's bytes")
        image = image_from_bytes(upload, config.image_size, config.channels)
    else:
        image = synthetic_image(config.image, config.image_size, config.channels, config.patch_size, config.seed)
    x = as_batch(image, dtype)  # (1, C, H, W)
    B, C, H, W = x.shape
    tokens = patchify(x, config.patch_size)  # (1, N, C*P*P)
    roundtrip = (unpatchify(tokens, config.patch_size, C, H, W) - x).abs().max().item()
    embed = seeded_linear_embed(config.patch_size, C, config.embed_dim, config.seed, dtype)
    cmp = compare_embeddings(x, embed, config.wrong_flatten_order, config.conv_stride)
    n = tokens.shape[1]
    return {
        "config": asdict(config),
        "image": image,
        "tokens": tokens[0].numpy(),
        "linear": cmp["linear"][0].numpy(),
        "conv": cmp["conv"][0].numpy(),
        "abs_diff": cmp["abs_diff"][0].numpy(),
        "max_abs_diff": cmp["max_abs_diff"],
        "eps": cmp["eps"],
        "n_patches": n,
        "grid": H // config.patch_size,
        "patch_dim": C * config.patch_size**2,
        "n_tokens_with_cls": n + 1,
        "n_conv_tokens": cmp["n_conv_tokens"],
        "roundtrip_max_abs_diff": roundtrip,
        "shapes": {
            "image": [B, C, H, W],
            "patches": [B, n, C * config.patch_size**2],
            "embedded": [B, n, config.embed_dim],
        },
    }


def summary(result: dict) -> dict:
    """The JSON-friendly part of a result (what the command line prints)."""
    keys = ("n_patches", "grid", "patch_dim", "n_tokens_with_cls", "n_conv_tokens", "max_abs_diff", "eps",
            "roundtrip_max_abs_diff", "shapes", "config")
    out = {k: result[k] for k in keys}
    out["max_abs_diff_in_eps"] = result["max_abs_diff"] / result["eps"]
    return out

