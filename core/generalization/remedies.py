"""Lesson 4, "Fixing the ViT": what each remedy changes, why it should help, where it comes from, and the
bench that tests them all on the lesson's split (train at centres 5..10, test at 3..4).

The models themselves are registered in ``models.py`` (the lesson's ViT with one thing changed, and the
CNN with its pooling or padding changed); this module holds their cards and the bench's settings. The
papers measured their remedies on their own data (ImageNet, CIFAR, Tiny-ImageNet), never on a split
whose test positions the training set never held: that is what the bench adds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.generalization.config import LESSON, GeneralizationConfig, Sweep, TrainConfig


@dataclass(frozen=True)
class Card:
    model: str  # its name in the registry
    group: str  # data, positions, tokens, attention, pooling, the CNN side
    what: str  # what it changes, against the lesson's model
    why: str  # why it should help at unseen positions
    source: str  # authors, year, venue or arXiv id
    reported: str  # what that source reported, on its own data


GROUPS = ("baseline", "data", "positions", "tokens", "attention", "pooling", "the CNN side")

CARDS: dict[str, Card] = {c.model: c for c in (
    Card("vit", "baseline", "Nothing: the lesson's TinyViT (4×4 patches, class token, the 1-D sin-cos table).",
         "It is the model to beat: every remedy below changes one thing of it.",
         "Dosovitskiy et al. 2021, ICLR (ViT); the table from Vaswani et al. 2017, NeurIPS.",
         "ViT needs large pre-training data to match CNNs; trained on mid-sized data alone it falls behind."),
    Card("cnn", "baseline", "Nothing: the lesson's CNN (two 5×5 convolutions, zero padding, global max pool).",
         "Convolution is translation-equivariant and the global max pool throws the position away.",
         "Biscione & Bowers 2021, arXiv:2011.11757.",
         "CNNs are not translation-invariant by themselves; invariance comes from pooling and from "
         "translated training data."),
    Card("vit-shift", "data", "Every training image is moved by a random offset of up to 2 pixels at every "
         "step (zeros fill in).",
         "The invariance comes from the data: from centres 5..10, shifts of 2 reach 3..12, so the model is "
         "*shown the test positions*. It tests data, not architecture.",
         "Steiner et al. 2021, arXiv:2106.10270 (\"How to train your ViT?\").",
         "Augmentation and regularization were worth about ten times more training data for ViTs."),
    Card("vit-nopos-avg", "positions", "No position table at all, and the head reads the mean of the patch "
         "tokens (no class token).",
         "Without positions a transformer is permutation-invariant (lesson 2): whole-patch moves cannot change "
         "its answer. Moves by part of a patch still change the tokens.",
         "Dosovitskiy et al. 2021, ICLR, appendix D.4 (positional embedding ablation).",
         "Without any position embedding ViT was clearly worse on ImageNet; 1-D, 2-D and relative tables "
         "differed little."),
    Card("vit-learned", "positions", "A learned table (one trained vector per position) instead of the fixed "
         "1-D sin-cos one.",
         "The table can learn which positions are alike; but positions never trained keep their random start.",
         "Dosovitskiy et al. 2021, ICLR (ViT's default).",
         "Learned 1-D tables worked as well as 2-D or relative ones on ImageNet."),
    Card("vit-sincos2d", "positions", "A fixed 2-D sin-cos table: half the features encode the row, half the "
         "column (as in MAE).",
         "Neighbouring patches get similar codes in both directions; the 1-D table makes row neighbours alike "
         "but not column neighbours.",
         "He et al. 2022, CVPR (MAE); Beyer et al. 2022, arXiv:2205.01580.",
         "Used as the default in both; a small gain over learned tables in Beyer et al."),
    Card("vit-relpos", "positions", "No table added to the tokens: a learned bias per (row, column) offset "
         "and head is added to every attention score (Swin style).",
         "The bias depends only on the offset between two patches, never on where they are: a bias towards "
         "translation equivariance.",
         "Liu et al. 2021, ICCV (Swin Transformer).",
         "Relative position bias beat both no positions and absolute embeddings on ImageNet-1K, COCO and "
         "ADE20K; on CIFAR-10, an 820k-parameter ViT scored 79.6 % without positions and 90.6 % with relative "
         "bias (github.com/s-chh/2D-Positional-Encoding-Vision-Transformer)."),
    Card("vit-overlap", "tokens", "Tokens from a strided convolution whose window reaches half a patch into "
         "every neighbour (kernel 8, stride 4 for 4×4 patches).",
         "A shape that straddles two patches is seen whole by both tokens, so moving it by part of a patch "
         "changes the tokens less.",
         "Wang et al. 2022, Computational Visual Media, arXiv:2106.13797 (PVT v2).",
         "One of three changes that together improved PVT v1 on classification, detection and segmentation."),
    Card("vit-spt", "tokens", "Shifted patch tokenization: four copies shifted by half a patch diagonally are "
         "stacked with the image before cutting patches.",
         "Each token also sees its neighbours' pixels: more locality, a CNN-like bias.",
         "Lee, Lee & Song 2021, arXiv:2112.13492.",
         "SPT with LSA improved ViTs by 2.96 % on Tiny-ImageNet on average (Swin by 4.08 %)."),
    Card("hybrid", "tokens", "A 3×3 convolution stem runs before the patches (the lesson's exercise 3).",
         "The stem's filters are shared over positions, so a stroke gives the same features wherever it is.",
         "Xiao et al. 2021, NeurIPS, arXiv:2106.14881 (\"Early convolutions help transformers see better\").",
         "More stable optimization and +1–2 % ImageNet top-1."),
    Card("vit-lsa", "attention", "Locality self-attention: a token may not attend to itself (diagonal masked), "
         "and the softmax temperature is learned.",
         "Sharper attention on the other tokens: more locality.",
         "Lee, Lee & Song 2021, arXiv:2112.13492.",
         "SPT with LSA improved ViTs by 2.96 % on Tiny-ImageNet on average."),
    Card("vit-avg", "pooling", "The head reads the mean of the patch tokens instead of the class token.",
         "A mean does not care which token holds the shape.",
         "Beyer et al. 2022, arXiv:2205.01580 (\"Better plain ViT baselines\").",
         "Global average pooling instead of the class token, a small gain on ImageNet-1k."),
    Card("vit-max", "pooling", "The head reads each feature's maximum over the patch tokens.",
         "The CNN's trick inside a ViT: only the strongest response anywhere survives.",
         "The lesson's CNN (no paper tests it in a ViT that we know of).",
         "—"),
    Card("cnn-avg", "the CNN side", "The CNN with a global *average* pool instead of max.",
         "Still position-free: an average over positions does not care where the response is.",
         "Blything et al. 2021, Journal of Vision.",
         "Global average pooling gave CNNs tolerance to positions never trained."),
    Card("cnn-flatten", "the CNN side", "The CNN with a flatten + linear head: every position's features go "
         "into the last layer with a weight of their own.",
         "Nothing should help here: the head can learn *where* features fire, and never learns weights for "
         "positions it never saw. A CNN can fail too.",
         "Biscione & Bowers 2021, arXiv:2011.11757.",
         "CNNs with fully-connected heads failed at untrained locations unless trained on translated data."),
    Card("cnn-circular", "the CNN side", "The CNN with circular padding instead of zeros.",
         "Zero padding lets filters near the border tell where the border is; a circular image has no border.",
         "Kayhan & van Gemert 2020, CVPR.",
         "CNNs can exploit absolute position through boundary effects; removing it improved translation "
         "invariance and data efficiency on small datasets."),
)}

# The bench: every remedy, five seeds, on the lesson's data split
SEEDS = (0, 1, 2, 3, 4)
BENCH = replace(LESSON, models=tuple(CARDS), train=TrainConfig(LESSON.train.epochs, LESSON.train.lr, SEEDS))
# The data-efficiency view: from one training position to every centre from 5 to 12 (test stays 3..4)
POSITION_RANGES = ((5, 5), (5, 6), (5, 8), (5, 10), (5, 12))
POSITIONS_SWEEP = Sweep("data.train_range", POSITION_RANGES, "distinct training positions (cx, cy)", log_x=True)
# The models the data-efficiency view ships with (three seeds: 5 ranges x 3 models x 3 seeds = 45 runs)
POSITIONS_MODELS, POSITIONS_SEEDS = ("vit", "cnn", "vit-shift"), 3


def positions(train_range: tuple[int, int]) -> int:
    """Distinct training centres (cx, cy) a range allows."""
    lo, hi = train_range
    return (hi - lo + 1) ** 2


def bench(models: tuple[str, ...] | None = None, seeds: int = len(SEEDS)) -> GeneralizationConfig:
    """The bench's config for some of its models (default all) and the first ``seeds`` seeds."""
    chosen = BENCH.models if models is None else tuple(models)
    unknown = [m for m in chosen if m not in CARDS]
    if unknown:
        raise ValueError(f"not on the bench: {unknown}; choose from {list(CARDS)}")
    if not 1 <= seeds <= 10:
        raise ValueError(f"seeds must be in 1..10, got {seeds}")
    return replace(BENCH, models=chosen, train=replace(BENCH.train, seeds=tuple(range(seeds))))


def positions_base(models: tuple[str, ...] = POSITIONS_MODELS, seeds: int = POSITIONS_SEEDS) -> GeneralizationConfig:
    """The data-efficiency view's base config: the bench for ``models``, re-run at each training range."""
    return bench(models, seeds)
