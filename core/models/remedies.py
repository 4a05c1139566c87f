"""Lesson 4's remedies, each declared once: its model (the lesson's ViT with one thing changed, or the CNN
with its pooling or padding changed), its card (what it changes, why it should help, its source and what
that source reported on its own data) and its place on the bench, which is every model with a card, in
the order below.

A new remedy is one ``remedy(...)`` call here (and, for a new kind of change, its option in
``remedy_vit.py``); the lesson's own models join the bench with ``on_bench``.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.models.cnn import CNNClassifier
from core.models.model_config import ModelConfig
from core.models.registry import (
    IN_CHANS,
    VIT_FIELDS,
    ModelSpec,
    check_patch,
    cnn_activation,
    cnn_flops,
    register,
    spec,
    transformer_activation,
    transformer_flops,
)
from core.models.remedy_vit import RemedyViT, ViTRemedy
from core.nn.pos_embed import check_sincos2d


@dataclass(frozen=True)
class Card:
    model: str  # its name in the registry
    group: str  # data, positions, tokens, attention, pooling, the CNN side
    what: str  # what it changes, against the lesson's model
    why: str  # why it should help at unseen positions
    source: str  # authors, year, venue or arXiv id
    reported: str  # what that source reported, on its own data


@dataclass(frozen=True)
class CNNVariant:
    head: str = "max"  # the lesson's global max pool, "avg" or "flatten"
    padding: str = "zeros"  # or "circular"


GROUPS = ("baseline", "data", "positions", "tokens", "attention", "pooling", "the CNN side")
CARDS: dict[str, Card] = {}  # the bench: every model with a card


def on_bench(model: str, **card: str) -> None:
    """Put a model registered elsewhere on the bench, with its card."""
    spec(model)  # unknown names raise here
    if card["group"] not in GROUPS:
        raise ValueError(f"group {card['group']!r} is not one of {GROUPS}")
    CARDS[model] = Card(model, **card)


def remedy(name: str, label: str, color: str, change: ViTRemedy | CNNVariant, **card: str) -> None:
    """Register the remedy's model and put it on the bench with its card."""
    if isinstance(change, ViTRemedy):
        register(ModelSpec(
            name=name, label=label, color=color, transformer=True, uses=VIT_FIELDS[:-1],
            build=lambda m, size, g, outputs: RemedyViT(size, m.patch_size, IN_CHANS, m.embed_dim, m.num_heads,
                                                        m.depth, change, generator=g, num_classes=outputs),
            activation_bytes=transformer_activation, safety=2.0, flops=transformer_flops,
            check=lambda m, size: _check_vit_remedy(change, m, size)))
    else:
        options = {k: v for k, v in vars(change).items() if v != getattr(CNNVariant(), k)}
        register(ModelSpec(
            name=name, label=label, color=color, transformer=False, uses=(),
            build=lambda m, size, g, outputs: CNNClassifier(IN_CHANS, generator=g, nhwc=True, img_size=size,
                                                            num_classes=outputs, **options),
            activation_bytes=cnn_activation, safety=1.0, flops=cnn_flops))
    on_bench(name, **card)


def _check_vit_remedy(change: ViTRemedy, m: ModelConfig, size: int) -> None:
    check_patch(m, size)
    if change.pos_embed == "sincos2d":
        check_sincos2d(m.embed_dim)


on_bench('vit',
    group='baseline',
    what="Nothing: the lesson's TinyViT (4×4 patches, class token, the 1-D sin-cos table).",
    why='It is the model to beat: every remedy below changes one thing of it.',
    source='Dosovitskiy et al. 2021, ICLR (ViT); the table from Vaswani et al. 2017, NeurIPS.',
    reported='ViT needs large pre-training data to match CNNs; trained on mid-sized data alone it falls behind.')

on_bench('cnn',
    group='baseline',
    what="Nothing: the lesson's CNN (two 5×5 convolutions, zero padding, global max pool).",
    why='Convolution is translation-equivariant and the global max pool throws the position away.',
    source='Biscione & Bowers 2021, arXiv:2011.11757.',
    reported=('CNNs are not translation-invariant by themselves; invariance comes from pooling and from translated '
              'training data.'))

remedy('vit-shift', 'ViT + random shifts', '#cc79a7', ViTRemedy(max_shift=2),
    group='data',
    what='Every training image is moved by a random offset of up to 2 pixels at every step (zeros fill in).',
    why=('The invariance comes from the data: from centres 5..10, shifts of 2 reach 3..12, so the model is '
         '*shown the test positions*. It tests data, not architecture.'),
    source='Steiner et al. 2021, arXiv:2106.10270 ("How to train your ViT?").',
    reported='Augmentation and regularization were worth about ten times more training data for ViTs.')

remedy('vit-nopos-avg', 'ViT, no positions, mean pool', '#56b4e9', ViTRemedy(pos_embed="none", global_pool="avg"),
    group='positions',
    what='No position table at all, and the head reads the mean of the patch tokens (no class token).',
    why=('Without positions a transformer is permutation-invariant (lesson 2): whole-patch moves cannot change'
         ' its answer. Moves by part of a patch still change the tokens.'),
    source='Dosovitskiy et al. 2021, ICLR, appendix D.4 (positional embedding ablation).',
    reported=('Without any position embedding ViT was clearly worse on ImageNet; 1-D, 2-D and relative tables '
              'differed little.'))

remedy('vit-learned', 'ViT, learned positions', '#882255', ViTRemedy(pos_embed="learned"),
    group='positions',
    what='A learned table (one trained vector per position) instead of the fixed 1-D sin-cos one.',
    why='The table can learn which positions are alike; but positions never trained keep their random start.',
    source="Dosovitskiy et al. 2021, ICLR (ViT's default).",
    reported='Learned 1-D tables worked as well as 2-D or relative ones on ImageNet.')

remedy('vit-sincos2d', 'ViT, 2-D sin-cos positions', '#117733', ViTRemedy(pos_embed="sincos2d"),
    group='positions',
    what='A fixed 2-D sin-cos table: half the features encode the row, half the column (as in MAE).',
    why=('Neighbouring patches get similar codes in both directions; the 1-D table makes row neighbours alike '
         'but not column neighbours.'),
    source='He et al. 2022, CVPR (MAE); Beyer et al. 2022, arXiv:2205.01580.',
    reported='Used as the default in both; a small gain over learned tables in Beyer et al.')

remedy('vit-relpos', 'ViT, 2-D relative position bias', '#999933', ViTRemedy(pos_embed="relative"),
    group='positions',
    what=('No table added to the tokens: a learned bias per (row, column) offset and head is added to every '
          'attention score (Swin style).'),
    why=('The bias depends only on the offset between two patches, never on where they are: a bias towards '
         'translation equivariance.'),
    source='Liu et al. 2021, ICCV (Swin Transformer).',
    reported=('Relative position bias beat both no positions and absolute embeddings on ImageNet-1K, COCO and '
              'ADE20K; on CIFAR-10, an 820k-parameter ViT scored 79.6 % without positions and 90.6 % with relative '
              'bias (github.com/s-chh/2D-Positional-Encoding-Vision-Transformer).'))

remedy('vit-overlap', 'ViT, overlapping patches', '#44aa99', ViTRemedy(tokens="overlap"),
    group='tokens',
    what=('Tokens from a strided convolution whose window reaches half a patch into every neighbour (kernel 8, '
          'stride 4 for 4×4 patches).'),
    why=('A shape that straddles two patches is seen whole by both tokens, so moving it by part of a patch '
         'changes the tokens less.'),
    source='Wang et al. 2022, Computational Visual Media, arXiv:2106.13797 (PVT v2).',
    reported='One of three changes that together improved PVT v1 on classification, detection and segmentation.')

remedy('vit-spt', 'ViT, shifted patch tokens', '#aa4499', ViTRemedy(tokens="spt"),
    group='tokens',
    what=('Shifted patch tokenization: four copies shifted by half a patch diagonally are stacked with the '
          'image before cutting patches.'),
    why="Each token also sees its neighbours' pixels: more locality, a CNN-like bias.",
    source='Lee, Lee & Song 2021, arXiv:2112.13492.',
    reported='SPT with LSA improved ViTs by 2.96 % on Tiny-ImageNet on average (Swin by 4.08 %).')

on_bench('hybrid',
    group='tokens',
    what="A 3×3 convolution stem runs before the patches (the lesson's exercise 3).",
    why="The stem's filters are shared over positions, so a stroke gives the same features wherever it is.",
    source='Xiao et al. 2021, NeurIPS, arXiv:2106.14881 ("Early convolutions help transformers see better").',
    reported='More stable optimization and +1–2 % ImageNet top-1.')

remedy('vit-lsa', 'ViT, locality self-attention', '#332288', ViTRemedy(attention="lsa"),
    group='attention',
    what=('Locality self-attention: a token may not attend to itself (diagonal masked), and the softmax '
          'temperature is learned: one per layer here, where the paper\'s code learns one per head.'),
    why='Sharper attention on the other tokens: more locality.',
    source='Lee, Lee & Song 2021, arXiv:2112.13492.',
    reported='SPT with LSA improved ViTs by 2.96 % on Tiny-ImageNet on average.')

remedy('vit-avg', 'ViT, mean of patches', '#88ccee', ViTRemedy(global_pool="avg"),
    group='pooling',
    what='The head reads the mean of the patch tokens instead of the class token.',
    why='A mean does not care which token holds the shape.',
    source='Beyer et al. 2022, arXiv:2205.01580 ("Better plain ViT baselines").',
    reported='Global average pooling instead of the class token, a small gain on ImageNet-1k.')

remedy('vit-max', 'ViT, max over patches', '#661100', ViTRemedy(global_pool="max"),
    group='pooling',
    what="The head reads each feature's maximum over the patch tokens.",
    why="The CNN's trick inside a ViT: only the strongest response anywhere survives.",
    source="The lesson's CNN (no paper tests it in a ViT that we know of).",
    reported='—')

remedy('cnn-avg', 'CNN, global average pool', '#6699cc', CNNVariant(**{"head": "avg"}),
    group='the CNN side',
    what='The CNN with a global *average* pool instead of max.',
    why='Still position-free: an average over positions does not care where the response is.',
    source='Blything et al. 2021, Journal of Vision.',
    reported='Global average pooling gave CNNs tolerance to positions never trained.')

remedy('cnn-flatten', 'CNN, flatten + linear head', '#888888', CNNVariant(**{"head": "flatten"}),
    group='the CNN side',
    what=("The CNN with a flatten + linear head: every position's features go into the last layer with a weight"
          ' of their own.'),
    why=('Nothing should help here: the head can learn *where* features fire, and never learns weights for '
         'positions it never saw. A CNN can fail too.'),
    source='Biscione & Bowers 2021, arXiv:2011.11757.',
    reported='CNNs with fully-connected heads failed at untrained locations unless trained on translated data.')

remedy('cnn-circular', 'CNN, circular padding', '#ddcc77', CNNVariant(**{"padding": "circular"}),
    group='the CNN side',
    what='The CNN with circular padding instead of zeros.',
    why='Zero padding lets filters near the border tell where the border is; a circular image has no border.',
    source='Kayhan & van Gemert 2020, CVPR.',
    reported=('CNNs can exploit absolute position through boundary effects; removing it improved translation '
              'invariance and data efficiency on small datasets.'))
