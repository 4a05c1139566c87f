"""What a page and the command line say of each model: its name on the charts, its colour, and, for the
models on lesson 4's bench, its card (what it changes against the lesson's model, why it should help at unseen
positions, its source and what that source reported on its own data).

None of this changes a number, so none of it is in the training code's fingerprint (``core.engine.setting.fingerprint``
hashes the import closure of ``core.engine.running.run``, which never imports this module): a sentence, a label or a
colour edited here re-trains nothing and leaves every shipped result current. A model's card is declared
here once; its model is ``core/models/registry.py``'s (or ``remedies.py``'s). Every registered model has a
card, and every card a registered model (``tests/lessons/test_model_cards.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

GROUPS = ("baseline", "data", "positions", "tokens", "attention", "pooling", "anti-aliasing", "the CNN side")


@dataclass(frozen=True)
class Card:
    label: str  # the model's name on every chart and page
    color: str  # one colour per model on every chart
    group: str = ""  # its group on lesson 4's bench (GROUPS); "" for a model not on the bench
    what: str = ""  # what it changes, against the lesson's model
    why: str = ""  # why it should help at unseen positions
    source: str = ""  # authors, year, venue or arXiv id
    reported: str = ""  # what that source reported, on its own data

    def __post_init__(self) -> None:
        if self.group and self.group not in GROUPS:
            raise ValueError(f"group {self.group!r} is not one of {GROUPS}")
        if self.group and not (self.what and self.why and self.source and self.reported):
            raise ValueError(f"a card on the bench says what, why, source and reported: {self.label!r}")


# In the bench's order: the lesson's two models, then the remedies by group
CARDS: dict[str, Card] = {
    'vit': Card('ViT (lesson)', '#d55e00', group='baseline',
        what="Nothing: the lesson's TinyViT (4×4 patches, class token, the 1-D sin-cos table).",
        why='It is the model to beat: every remedy below changes one thing of it.',
        source='Dosovitskiy et al. 2021, ICLR (ViT); the table from Vaswani et al. 2017, NeurIPS.',
        reported='ViT needs large pre-training data to match CNNs; trained on mid-sized data alone it falls behind.'),
    'cnn': Card('CNN', '#0072b2', group='baseline',
        what="Nothing: the lesson's CNN (two 5×5 convolutions, zero padding, global max pool).",
        why=('Convolution is equivariant to shifts (up to its stride-2 pooling and its borders), and the global max pool '
             'keeps each filter\'s strongest response wherever it is.'),
        source='Biscione & Bowers 2021, arXiv:2011.11757.',
        reported=('CNNs are not translation-invariant by themselves; invariance comes from pooling and from '
                  'translated training data.')),
    'vit-shift': Card('ViT + random shifts', '#cc79a7', group='data',
        what='Every training image is moved by a random offset of up to 2 pixels at every step (zeros fill in).',
        why=('The invariance comes from the data: from centres 5..10, shifts of 2 reach 3..12, so the model is'
             ' *shown the test positions*. It tests data, not architecture.'),
        source='Steiner et al. 2021, arXiv:2106.10270 ("How to train your ViT?").',
        reported='Augmentation and regularization were worth about ten times more training data for ViTs.'),
    'vit-nopos': Card('ViT, no positions', '#33bbee', group='positions',
        what="The lesson's ViT with its position table removed; nothing else changed (the class token stays).",
        why=('Without positions the encoder cannot tell where a patch was: whole-patch moves only reorder the '
             'tokens, and attention with a class-token head gives the same answer for any order (lesson 2). '
             'Moves by part of a patch still change the tokens.'),
        source='Dosovitskiy et al. 2021, ICLR, appendix D.4 (positional embedding ablation).',
        reported=('Without any position embedding ViT was clearly worse on ImageNet; 1-D, 2-D and relative tables '
                  'differed little.')),
    'vit-nopos-avg': Card('ViT, no positions, mean pool', '#56b4e9', group='positions',
        what='No position table at all, and the head reads the mean of the patch tokens (no class token).',
        why=('Without positions a transformer is permutation-invariant (lesson 2): whole-patch moves cannot '
             'change its answer. Moves by part of a patch still change the tokens.'),
        source='Dosovitskiy et al. 2021, ICLR, appendix D.4 (positional embedding ablation).',
        reported=('Without any position embedding ViT was clearly worse on ImageNet; 1-D, 2-D and relative tables '
                  'differed little.')),
    'vit-learned': Card('ViT, learned positions', '#882255', group='positions',
        what='A learned table (one trained vector per position) instead of the fixed 1-D sin-cos one.',
        why=('The table starts small (0.02 × random) against the patch tokens and grows only as training asks: '
             'where the label needs the place (lesson 3\'s position task) it learns it; where it does not, it can '
             'stay small enough that the model answers as one with no positions on average (lesson 3\'s phase '
             'split; single runs differ from it by up to 18 points either way).'),
        source="Dosovitskiy et al. 2021, ICLR (ViT's default).",
        reported='Learned 1-D tables worked as well as 2-D or relative ones on ImageNet.'),
    'vit-sincos2d': Card('ViT, 2-D sin-cos positions', '#117733', group='positions',
        what='A fixed 2-D sin-cos table: half the features encode the row, half the column (as in MAE).',
        why=('Neighbouring patches get similar codes in both directions; the 1-D table makes row neighbours '
             'alike but not column neighbours.'),
        source='He et al. 2022, CVPR (MAE); Beyer et al. 2022, arXiv:2205.01580.',
        reported='Used as the default in both; a small gain over learned tables in Beyer et al.'),
    'vit-relpos': Card('ViT, 2-D relative position bias', '#999933', group='positions',
        what=('No table added to the tokens: a learned bias per (row, column) offset and head is added to every'
              ' attention score (Swin style).'),
        why=('The bias depends only on the offset between two patches, never on where they are: a bias towards'
             ' translation equivariance.'),
        source='Liu et al. 2021, ICCV (Swin Transformer).',
        reported=('Relative position bias beat both no positions and absolute embeddings on ImageNet-1K, COCO and '
                  'ADE20K (Liu et al.). A clipped, Shaw-style relative position *embedding* (not Swin\'s bias) in an '
                  '820k-parameter ViT on CIFAR-10 scored 90.6 %, against 79.6 % without positions '
                  '(github.com/s-chh/2D-Positional-Encoding-Vision-Transformer).')),
    'vit-overlap': Card('ViT, overlapping patches', '#44aa99', group='tokens',
        what=('Tokens from a strided convolution whose window reaches half a patch into every neighbour (kernel'
              ' 8, stride 4 for 4×4 patches).'),
        why=('A shape that straddles two patches is seen whole by both tokens, so moving it by part of a patch'
             ' changes the tokens less.'),
        source='Wang et al. 2022, Computational Visual Media, arXiv:2106.13797 (PVT v2).',
        reported='One of three changes that together improved PVT v1 on classification, detection and segmentation.'),
    'vit-spt': Card('ViT, shifted patch tokens', '#aa4499', group='tokens',
        what=('Shifted patch tokenization: four copies shifted by half a patch diagonally are stacked with the '
              'image before cutting patches.'),
        why="Each token also sees its neighbours' pixels: more locality, a CNN-like bias.",
        source='Lee, Lee & Song 2021, arXiv:2112.13492.',
        reported='SPT with LSA improved ViTs by 2.96 % on Tiny-ImageNet on average (Swin by 4.08 %).'),
    'hybrid': Card('Hybrid (CNN stem + ViT)', '#e69f00', group='tokens',
        what="A 3×3 convolution stem runs before the patches (the lesson's exercise 3).",
        why="The stem's filters are shared over positions, so a stroke gives the same features wherever it is.",
        source='Xiao et al. 2021, NeurIPS, arXiv:2106.14881 ("Early convolutions help transformers see better").',
        reported='More stable optimization and +1–2 % ImageNet top-1.'),
    'vit-lsa': Card('ViT, locality self-attention', '#332288', group='attention',
        what=('Locality self-attention: a token may not attend to itself (diagonal masked), and the softmax '
              "temperature is learned: one per layer here, where the paper's code learns one per head."),
        why='Sharper attention on the other tokens: more locality.',
        source='Lee, Lee & Song 2021, arXiv:2112.13492.',
        reported='SPT with LSA improved ViTs by 2.96 % on Tiny-ImageNet on average.'),
    'vit-avg': Card('ViT, mean of patches', '#88ccee', group='pooling',
        what='The head reads the mean of the patch tokens instead of the class token.',
        why='A mean does not care which token holds the shape.',
        source='Beyer et al. 2022, arXiv:2205.01580 ("Better plain ViT baselines").',
        reported='Global average pooling instead of the class token, a small gain on ImageNet-1k.'),
    'vit-max': Card('ViT, max over patches', '#661100', group='pooling',
        what="The head reads each feature's maximum over the patch tokens.",
        why="The CNN's trick inside a ViT: only the strongest response anywhere survives.",
        source="The lesson's CNN (no paper tests it in a ViT that we know of).",
        reported='—'),
    'vit-blur': Card('ViT, blurred before patches', '#ee7733', group='anti-aliasing',
        what=("A fixed binomial blur (P+1 taps: 1-4-6-4-1 for 4×4 patches, no weights) on the image before it is "
              'cut into patches.'),
        why=('Cutting patches samples the image every P pixels, so a shape moved by part of a patch falls on the '
             'grid differently (aliasing). Blurring first should make the tokens change more smoothly with such '
             'moves; it cannot make whole-patch moves matter less, and it loses fine detail.'),
        source=('Zhang 2019, ICML, arXiv:1904.11486 (anti-aliasing before subsampling); Azulay & Weiss 2019, '
                'JMLR, arXiv:1805.12177 (why strided sampling breaks shift invariance).'),
        reported=('Both on CNNs, not ViTs: Azulay & Weiss found that moving an image by a few pixels could change '
                  "a CNN's answer; Zhang's blur before subsampling made ImageNet CNNs more consistent under shifts "
                  'and slightly more accurate.')),
    'cnn-blurpool': Card('CNN, blur pool', '#004488', group='anti-aliasing',
        what=("The CNN's 2×2 max pool becomes Zhang's MaxBlurPool: the max at stride 1, then a fixed [1, 2, 1] "
              'blur at stride 2 (no weights: the same weights as the CNN).'),
        why=('The stride-2 pool keeps one position in two, so the features see even and odd moves differently. '
             'Blurring before subsampling should make them less sensitive to a one-pixel move; the stride is '
             'still 2, so it is not exactly invariant.'),
        source='Zhang 2019, ICML, arXiv:1904.11486; Azulay & Weiss 2019, JMLR, arXiv:1805.12177.',
        reported=('Anti-aliased pooling made ImageNet CNNs (ResNet, DenseNet, MobileNet among them) more '
                  'consistent under shifts and slightly more accurate.')),
    'cnn-avg': Card('CNN, global average pool', '#6699cc', group='the CNN side',
        what='The CNN with a global *average* pool instead of max.',
        why=('An average over positions does not care where a response is, but it is not position-free: zero '
             'padding marks the border, and on the position task this CNN tells left from right (77–98 % in six '
             'runs; with circular padding, no border, the CNN is at chance: docs/claims.md §12).'),
        source='Blything et al. 2021, Journal of Vision.',
        reported='Global average pooling gave CNNs tolerance to positions never trained.'),
    'cnn-flatten': Card('CNN, flatten + linear head', '#888888', group='the CNN side',
        what=("The CNN with a flatten + linear head: every position's features go into the last layer with a "
              'weight of their own.'),
        why=('The opposite of a remedy: the head can learn *where* features fire, so it may fail at positions it '
             'never saw (a CNN can fail too). Whether it does on this split is what the bench measures.'),
        source='Biscione & Bowers 2021, arXiv:2011.11757.',
        reported='CNNs with fully-connected heads failed at untrained locations unless trained on translated data.'),
    'cnn-circular': Card('CNN, circular padding', '#ddcc77', group='the CNN side',
        what='The CNN with circular padding instead of zeros.',
        why='Zero padding lets filters near the border tell where the border is; a circular image has no border.',
        source='Kayhan & van Gemert 2020, CVPR.',
        reported=('CNNs can exploit absolute position through boundary effects; removing it improved translation '
                  'invariance and data efficiency on small datasets.')),
    'vit-prenorm': Card('ViT (pre-norm, configurable)', '#009e73'),
    'mlp': Card('MLP (flatten + hidden layer)', '#7a5195'),
    'linear': Card('Linear (one weight per pixel)', '#997700',
        what='Flatten the image, one linear layer to the logits: every pixel read with a weight of its own.',
        why=('Not a remedy, a control: nothing is shared across positions, so a shape at pixels no training image '
             'lit meets weights that never learned from it.'),
        source='A linear classifier of the pixels (our control; no paper).'),
}
# Lesson 4's bench: every model with a group, in the order above
BENCH = tuple(name for name, c in CARDS.items() if c.group)


def card(name: str) -> Card:
    try:
        return CARDS[name]
    except KeyError:
        raise ValueError(f"no card for model {name!r}; models with one: {list(CARDS)}") from None


def label(name: str) -> str:
    """The model's name on charts and pages: "ViT (lesson)"."""
    return card(name).label


def color(name: str) -> str:
    return card(name).color


def missing_cards() -> list[str]:
    """Registered models without a card (none: a test keeps it so)."""
    from core.models.registry import REGISTRY  # torch: a chart's label needs none of it (the home page's maps)

    return [name for name in REGISTRY if name not in CARDS]
