"""What a model does, beyond how often it is right: which answer it gives and how sure it is, and where on the
map it is right. An accuracy at chance can hide a model that guesses and a model that answers *circle* for
every image with p = 0.99; a map's mean can hide that a model is right where only the horizontal position is
new and wrong where the vertical one is.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.data.data_config import DataConfig, make_data
from core.engine.results.run_result import RunResult


@dataclass(frozen=True)
class Answers:
    """One model's answers to the test images, over its seeds."""

    shares: dict[str, float]  # class name -> share of the test answers that named it
    confidence: float  # the mean probability of the answer it gave
    constant: dict[int, str]  # seed -> the one class it answered for every test image (seeds that did)
    seeds: int

    def sentence(self) -> str:
        """"answers circle for every test image (seeds 0, 1)", or the shares, with the confidence."""
        top = max(self.shares, key=self.shares.get)
        parts = [f"answers {top} {self.shares[top]:.0%} of the time (mean confidence {self.confidence:.2f})"]
        by_class: dict[str, list[int]] = {}
        for seed, name in self.constant.items():
            by_class.setdefault(name, []).append(seed)
        for name, seeds in by_class.items():
            which = "every seed" if len(seeds) == self.seeds else ("seed " if len(seeds) == 1 else "seeds ") + \
                ", ".join(map(str, seeds))
            parts.append(f"{which}: {name} for every test image")
        return "; ".join(parts)


def answers(result: RunResult, model: str) -> Answers | None:
    """The model's answers to the test images (None: no test predictions kept for it)."""
    kind = result.config.data.kind
    preds = [p for p in result.test_predictions if p.model == model]
    if not preds:
        return None
    given = [(p.seed, *p.answer()) for p in preds]
    counts = Counter(kind.name_of(c) for _, c, _ in given)
    per_seed: dict[int, set[str]] = {}
    for seed, c, _ in given:
        per_seed.setdefault(seed, set()).add(kind.name_of(c))
    constant = {seed: next(iter(names)) for seed, names in sorted(per_seed.items()) if len(names) == 1}
    return Answers({name: n / len(given) for name, n in counts.most_common()}, float(np.mean([p for _, _, p in given])),
                   constant, len(per_seed))


# Where a map cell lies against the training positions: both coordinates trained, one new, or both new
REGIONS = ("seen", "only x new", "only y new", "both new")


def region(d: DataConfig, cx: int, cy: int) -> str:
    """Seen only at a training centre: a split of one's own can train a cx and a cy apart and never together, and
    such a centre is new in both (on the lab's splits, squares of one axis, the two coordinates say it alone)."""
    if trained_centre(d, cx, cy):
        return REGIONS[0]
    x_in, y_in = d.trains_at(cx), d.trains_at(cy)
    return REGIONS[1] if y_in and not x_in else REGIONS[2] if x_in and not y_in else REGIONS[3]


def trained_centre(d: DataConfig, cx: int, cy: int) -> bool:
    """Whether (cx, cy) is one of the training centres."""
    return (cx, cy) in _training(d)


@lru_cache(maxsize=64)
def _training(d: DataConfig) -> frozenset[tuple[int, int]]:
    return frozenset(d.train_positions)


# The phase split's question, per map centre: trained, a new place at offsets trained (a whole-patch move), or
# an offset within a patch never trained (a move by part of a patch)
OFFSETS = ("seen", "new place, trained offsets", "new offset")


def offset_kind(d: DataConfig, cx: int, cy: int) -> str:
    P = d.phase_period if d.phases else None
    if trained_centre(d, cx, cy):
        return OFFSETS[0]
    trained = {c % (P or 1) for c in d.kind.centres(d.img_size) if d.trains_at(c)} if P else None
    if P and not (cx % P in trained and cy % P in trained):
        return OFFSETS[2]
    return OFFSETS[1]


def new_for_stride(d: DataConfig, stride: int, cx: int, cy: int) -> bool:
    """Whether the centre (cx, cy) is new for a model that samples its input every ``stride`` pixels (a ViT's
    patch, a CNN's pool): no training centre reaches it by moves of whole strides in each coordinate. Such a
    move only reorders what the model samples (a ViT's tokens; a CNN's pooled grid, up to the border), so a
    centre that is not new for a model's stride asks nothing the model's sampling has not seen. A stride as
    wide as the image (a model with no shared sampling grid: the MLP) makes every untrained centre new."""
    return (cx % stride, cy % stride) not in _reached(d, stride)


@lru_cache(maxsize=256)
def _reached(d: DataConfig, stride: int) -> frozenset[tuple[int, int]]:
    """The offsets (cx mod stride, cy mod stride) training centres take, as pairs: a centre is reached from a training
    centre by whole strides in each coordinate when its pair is one of them. Pairs, not each coordinate alone: a
    split of one's own need not train every cy at every cx it trains (the ranges and the phase split do)."""
    return frozenset((cx % stride, cy % stride) for cx, cy in d.train_positions)


def answer_groups(result: RunResult) -> list[tuple[str, ...]]:
    """Models that give the same answer on every map image at every seed, grouped (two or more each), in the
    config's order. Two classes only: there, right or wrong on an image is the answer itself; with more classes
    two wrong answers need not be the same, so no group is claimed."""
    if len(result.config.data.kind.classes) != 2:
        return []
    cells: dict[str, tuple] = {}
    for m in result.config.models:
        mine = sorted((p.seed, p.shape, p.cx, p.cy, p.correct) for p in result.position_map if p.model == m)
        if mine:
            cells[m] = tuple(mine)
    groups: dict[tuple, list[str]] = {}
    for m, key in cells.items():
        groups.setdefault(key, []).append(m)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def _map_by(result: RunResult, model: str, kind_of) -> dict[str, float]:
    """The model's mean accuracy on the map's cells grouped by ``kind_of(data, cx, cy)``, in first-seen order."""
    d = result.config.data
    got: dict[str, list[float]] = {}
    for p in result.position_map:
        if p.model == model:
            got.setdefault(kind_of(d, p.cx, p.cy), []).append(p.correct)
    return {k: float(np.mean(v)) for k, v in got.items()}


def map_scores(result: RunResult, model: str, keep) -> dict[int, float]:
    """Each seed's accuracy over the map centres ``keep(cx, cy)`` selects: the mean over classes of each class's
    accuracy there, so that where the label is the place (the position task: one class per centre, and the
    selected centres need not hold both halves alike) answering one class for everything scores chance. Where
    every class is at every centre this is the plain mean."""
    per_seed: dict[int, dict[str, list[float]]] = {}
    for p in result.position_map:
        if p.model == model and keep(p.cx, p.cy):
            per_seed.setdefault(p.seed, {}).setdefault(p.shape, []).append(p.correct)
    return {seed: sum(sum(v) / len(v) for v in by_class.values()) / len(by_class)
            for seed, by_class in per_seed.items()}


@lru_cache(maxsize=64)
def map_images_per_cell(d: DataConfig) -> int:
    """Distinct images the map draws at one centre, over every class (the shapes: 2; digits: 5 of each)."""
    return len(make_data(d).grid_y) // len(d.kind.centres(d.img_size)) ** 2


def map_regions(result: RunResult, model: str) -> dict[str, float]:
    """The model's accuracy in each region of the map (REGIONS), averaged over its seeds and classes."""
    return _map_by(result, model, region)


@dataclass(frozen=True)
class SplitStructure:
    patch_size: int
    train_offsets: tuple[int, ...]  # the offsets within a patch (c mod P) the training centres take
    test_offsets: tuple[int, ...]
    whole_patch: bool  # every test centre is a training centre moved by a multiple of P (in each coordinate)

    def sentence(self, d: DataConfig) -> str:
        (a, b), (c, e), P = d.train_range, d.test_range, self.patch_size
        every = len(self.train_offsets) == P
        offsets = ", ".join(map(str, self.train_offsets))
        if d.phases:
            return (f"The phase split: training centres only at offsets {offsets} within a {P}-pixel patch "
                    f"(within {a}..{b}), and the test at every other centre: most test centres sit at an offset "
                    "never trained, a move by part of a patch, which gives new tokens.")
        if self.whole_patch:
            return (f"Every test centre ({c}..{e}) is a training centre ({a}..{b}) moved by a whole number of "
                    f"{P}-pixel patches, and the training centres take " + ("every" if every else "these")
                    + f" offset within a patch ({offsets}): the test asks only for moves by whole patches. A stride-P "
                    "patchify turns such a move into the same tokens, reordered (lessons 1 and 2).")
        return (f"Some test centres ({c}..{e}) sit at offsets within a {P}-pixel patch that no training centre takes "
                f"(test offsets {', '.join(map(str, self.test_offsets))}; training {offsets}): those are moves by "
                "part of a patch, which give new tokens.")


def split_structure(d: DataConfig, patch_size: int) -> SplitStructure:
    """Which offsets within a patch the split's training and test centres take, and whether every test centre
    is reached from a training centre by whole patches."""
    train = [c for c in d.kind.centres(d.img_size) if d.trains_at(c)]
    test = sorted({c for pos in d.test_positions for c in pos}) if d.phases else range(d.test_range[0],
                                                                                          d.test_range[1] + 1)
    offsets = tuple(sorted({c % patch_size for c in train}))
    return SplitStructure(patch_size, offsets, tuple(sorted({c % patch_size for c in test})),
                          all(c % patch_size in offsets for c in test))
