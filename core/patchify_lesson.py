"""Lesson 1, Patchify, as one function of a frozen config: what the page and ``python -m core patchify`` run."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch

from core.images import SYNTHETIC_IMAGES, as_batch, image_from_bytes, synthetic_image
from core.patch_embed import compare_embeddings, seeded_linear_embed
from core.patchify import patchify, unpatchify, valid_patch_sizes

DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass(frozen=True)
class PatchifyConfig:
    image: str = "plus"  # one of SYNTHETIC_IMAGES, or "upload"
    img_size: int = 16
    in_chans: int = 3
    patch_size: int = 4
    embed_dim: int = 16
    seed: int = 0
    dtype: str = "float64"
    wrong_flatten_order: bool = False
    conv_stride: int | None = None  # None: stride == patch_size (the real patch embedding)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not 2 <= self.img_size <= 256 or not 1 <= self.embed_dim <= 1024 or not 0 <= self.seed < 2**32:
            raise ValueError(f"need img_size in 2..256, embed_dim in 1..1024 and seed in 0..2**32-1, got "
                             f"img_size={self.img_size}, embed_dim={self.embed_dim}, seed={self.seed}")
        if self.patch_size < 1:
            raise ValueError(f"patch_size must be >= 1, got {self.patch_size}")
        if self.image not in SYNTHETIC_IMAGES + ("upload",):
            raise ValueError(f"unknown image {self.image!r}; choose one of {SYNTHETIC_IMAGES + ('upload',)}")
        if self.in_chans not in (1, 3):
            raise ValueError(f"in_chans must be 1 or 3, got {self.in_chans}")
        if self.img_size % self.patch_size:
            raise ValueError(
                f"patch size {self.patch_size} does not divide image size {self.img_size}; "
                f"valid patch sizes: {valid_patch_sizes(self.img_size, self.img_size)}"
            )
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {list(DTYPES)}, got {self.dtype!r}")
        if self.conv_stride is not None and not 1 <= self.conv_stride <= self.patch_size:
            raise ValueError(f"conv_stride must be in 1..{self.patch_size}, got {self.conv_stride}")


@dataclass(frozen=True)
class PatchifyResult:
    config: PatchifyConfig
    image: np.ndarray  # (C, H, W) in [0, 1]
    tokens: np.ndarray  # (N, C*P*P): the patch sequence as the linear path flattens it (pixels first if broken)
    linear: np.ndarray  # (N, D): flatten + linear
    conv: np.ndarray  # (N', D): the strided convolution (N' = N unless the stride is broken)
    abs_diff: np.ndarray  # (min(N, N'), D)
    max_abs_diff: float
    eps: float  # machine epsilon of the dtype
    n_patches: int
    grid: int  # patches per side
    patch_dim: int  # C*P*P
    n_conv_tokens: int
    roundtrip_max_abs_diff: float  # unpatchify(patchify(x)) vs x
    upload_notes: tuple[str, ...] = ()  # what was done to an uploaded image to fit it

    @property
    def n_tokens_with_cls(self) -> int:
        return self.n_patches + 1

    @property
    def shapes(self) -> dict[str, list[int]]:
        C, H, W = self.image.shape
        return {"image": [1, C, H, W], "patches": [1, self.n_patches, self.patch_dim],
                "embedded": [1, self.n_patches, self.config.embed_dim]}

    def to_json(self) -> dict:
        """The JSON-friendly part (what the command line prints)."""
        keys = ("n_patches", "grid", "patch_dim", "n_tokens_with_cls", "n_conv_tokens", "max_abs_diff", "eps",
                "roundtrip_max_abs_diff", "shapes")
        return {**{k: getattr(self, k) for k in keys}, "config": asdict(self.config),
                "max_abs_diff_in_eps": self.max_abs_diff / self.eps, "upload_notes": list(self.upload_notes)}


def run_patchify(config: PatchifyConfig, upload: bytes | None = None) -> PatchifyResult:
    """Patchify an image, embed it both ways, and measure the difference."""
    dtype = DTYPES[config.dtype]
    notes: tuple[str, ...] = ()
    if config.image == "upload":
        if upload is None:
            raise ValueError("image='upload' needs the uploaded file's bytes")
        image, notes = image_from_bytes(upload, config.img_size, config.in_chans)
    else:
        image = synthetic_image(config.image, config.img_size, config.in_chans, config.patch_size, config.seed)
    x = as_batch(image, dtype)  # (1, C, H, W)
    B, C, H, W = x.shape
    tokens = patchify(x, config.patch_size)  # (1, N, C*P*P)
    roundtrip = (unpatchify(tokens, config.patch_size, C, H, W) - x).abs().max().item()
    if config.wrong_flatten_order:  # show the learner the rows the linear map actually reads
        tokens = patchify(x, config.patch_size, pixels_first=True)  # (1, N, P*P*C)
    embed = seeded_linear_embed(config.patch_size, C, config.embed_dim, config.seed, dtype)
    cmp = compare_embeddings(x, embed, config.wrong_flatten_order, config.conv_stride)
    return PatchifyResult(
        config=config, image=image, tokens=tokens[0].numpy(), linear=cmp["linear"][0].numpy(),
        conv=cmp["conv"][0].numpy(), abs_diff=cmp["abs_diff"][0].numpy(), max_abs_diff=cmp["max_abs_diff"],
        eps=cmp["eps"], n_patches=tokens.shape[1], grid=H // config.patch_size, patch_dim=C * config.patch_size**2,
        n_conv_tokens=cmp["n_conv_tokens"], roundtrip_max_abs_diff=roundtrip, upload_notes=notes,
    )
