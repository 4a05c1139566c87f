"""Lesson 3's second half: the notebook's conclusion, tested. The notebook says its ViT fails at unseen positions
because it lacks the CNN's built-in translation invariance. Two controls the lab has the parts for:

- **The split.** Every test centre of the notebook's split is a training centre moved by whole patches, and the
  training centres cover every offset within a patch (``split_structure``): the test asks for whole-patch moves
  only, the one move a stride-P patchify turns into a reordering of the same tokens (lessons 1 and 2).
- **The table's scale.** The lesson's ViT adds a fixed sin-cos table whose rows are larger than its patch tokens
  (``core.inspect.position_scale``); the sweep of its scale α (shipped, 15 seeds) shows what that costs.

A third measure needs no training: how much each model's answer, and what it computes, changes when the test
patterns move by one pixel or by one patch (``core.inspect.equivariance``). Every sentence here is written
from those numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.data.data_config import DataConfig
from core.data.shapes import make_image
from core.engine.results.behaviour import (
    OFFSETS,
    REGIONS,
    answer_groups,
    map_images_per_cell,
    map_scores,
    new_for_stride,
    offset_kind,
    region,
)
from core.engine.results.run_result import RunResult, summary
from core.engine.results.units import run_units, scores
from core.engine.results.verdict import (
    Interval,
    band_of,
    difference,
    map_interval,
    margin,
    paired,
    phrase,
    points,
    unit_interval,
)
from core.inspect.equivariance import ShiftResponse
from core.lessons.lesson3_vit_vs_cnn import POS_SCALE_SWEEP, pos_scale_base
from core.lessons.model_cards import label
from core.lessons.shipped import load_shipped_rows
from core.models.registry import spec

SCALE_ROWS = {"shapes": "pos-scale", "where": "pos-scale-where"}  # results/<name>.json: each task's α sweep


@dataclass(frozen=True)
class ScalePoint:
    alpha: float
    interval: Interval
    seeds: tuple[float, ...]  # each seed's test accuracy


def scale_points(task: str = "shapes") -> list[ScalePoint] | None:
    """The shipped α sweep of the lesson's ViT on ``task`` (the lesson's, or the position task "where"): each α's
    test accuracy, each seed's exact, with the interval of their mean; None when the shipped rows are missing or
    stale."""
    base = pos_scale_base(task)
    rows = load_shipped_rows(SCALE_ROWS[task], base)
    if rows is None:
        return None
    out = []
    for alpha in POS_SCALE_SWEEP.values:
        accs = {(r["seed"], base.data.data_seed): r["test_acc"] for r in rows
                if r["value"] == alpha and r["test_acc"] is not None}
        if accs:
            out.append(ScalePoint(alpha, unit_interval(accs), tuple(accs.values())))
    return out


def scale_notes(points: list[ScalePoint], learned: Interval | None = None, chance: float = 0.5) -> list[str]:
    """What the α sweep shows, band by band, against the notebook's α = 1 (and the learned table, if given)."""
    if not points:
        return []
    best = max(points, key=lambda p: p.interval.mean).interval
    said = [f"α = {p.alpha:g}{' (the notebook)' if p.alpha == 1 else ''}: {p.interval}, "
            + phrase(band_of(p.interval, best, chance, p.interval is best), chance, "best α", p.interval is best)
            for p in points]
    out = [f"The lesson's ViT, {points[0].interval.units} seeds at each scale of its fixed table, on the notebook's "
           "test and the notebook's own training draw: "
           + "; ".join(said) + ". The lesson's verdict above counts ten training draws on the test set, this "
           "sweep one draw's seeds on the notebook's test, so its α = 1 can differ from the lesson's."]
    notebook = next((p for p in points if p.alpha == 1), None)
    small = [p for p in points if p.alpha < 1 and p.interval.lo > chance]
    if notebook is not None and small and notebook.interval.contains(chance):
        out.append("Only the table's size changed between these runs: at " + ", ".join(f"α = {p.alpha:g}" for p in small)
                   + " the ViT is above chance on the notebook's test, at the notebook's α = 1 it is not. So \"a ViT "
                   "cannot do this\" is not what these runs show; \"this ViT, with this table at this size, does not\" "
                   "is.")
    if learned is not None:
        out.append(f"The ViT paper's own default, a learned table started at 0.02 × random (lesson 4's bench, test "
                   f"set): {learned}.")
    return out


def tradeoff_notes(what: list[ScalePoint], where: list[ScalePoint], chance: float = 0.5,
                   epochs: int | None = None) -> list[str]:
    """What the two α sweeps show together: at which scales the same ViT is above chance at telling which shape
    (at unseen centres) and where it is (left or right half), each by its own interval. ``epochs``: the sweeps'
    training budget, which what a small table cannot do is said within."""
    by = {p.alpha: p for p in where}
    pairs = [(p, by[p.alpha]) for p in what if p.alpha in by]
    if not pairs:
        return []

    def alphas(keep) -> str:
        return ", ".join(f"{a.alpha:g}" for a, b in pairs if keep(a.interval, b.interval)) or "none"

    def above(iv: Interval) -> bool:
        return iv.lo > chance
    out = [f"Above chance on both tasks (which shape at unseen centres, and where): α = "
           f"{alphas(lambda a, b: above(a) and above(b))}.",
           f"Above chance at *where* but not shown above chance at *which shape*: α = "
           f"{alphas(lambda a, b: above(b) and not above(a))}.",
           f"Above chance at *which shape* but not shown above chance at *where*: α = "
           f"{alphas(lambda a, b: above(a) and not above(b))}."]
    small = [b for a, b in pairs if a.alpha < 0.05]
    if small and all(not above(b.interval) for b in small):
        budget = f" in {epochs} epochs" if epochs else ""
        out.append(f"With a table this small the ViT is not shown to tell where a shape is{budget}: "
                   + "; ".join(f"α = {b.alpha:g}: {b.interval}" for b in small)
                   + ". Passing the notebook's test there is what a model with no positions does, within this "
                   "budget only: trained longer, the ViT at α = 0.02 learns where too (docs/claims.md §8, a control "
                   "these sweeps do not ship), so the trade-off is the training budget's.")
    return out


def answers_changed(responses: list[ShiftResponse], patch_size: int) -> dict[str, tuple[float, float]]:
    """Each trained model's share of the map's images whose answer a move to the right changes: (by 1 pixel, by
    one patch). The figure and the notes both read it, so they say the same number."""
    out = {}
    for model in dict.fromkeys(r.model for r in responses if r.trained):
        moved = {n: [r.answer_changed for r in responses
                     if r.trained and r.model == model and r.axis == "x" and r.pixels == n] for n in (1, patch_size)}
        if moved[1] and moved[patch_size]:
            out[model] = (float(np.mean(moved[1])), float(np.mean(moved[patch_size])))
    return out


def shift_notes(responses: list[ShiftResponse], patch_size: int) -> list[str]:
    """What the one-pixel and one-patch moves to the right did to each trained model, from
    ``equivariance.shift_responses``."""
    trained = [r for r in responses if r.trained]
    if not trained:
        return []
    out = []
    for model, (one_px, one_patch) in answers_changed(responses, patch_size).items():
        moved = {n: [r for r in trained if r.model == model and r.axis == "x" and r.pixels == n]
                 for n in (1, patch_size)}
        inside = {n: [r.inside for r in rs if r.inside is not None] for n, rs in moved.items()}
        what = moved[1][0].inside_what
        fit = {n: sum(r.images for r in rs) for n, rs in moved.items()}  # the map's images that still fit
        line = (f"**{label(model)}**: a 1-pixel move to the right changes its answer for {one_px:.0%} of the "
                f"{fit[1]} map images that still fit, a {patch_size}-pixel move for {one_patch:.0%} of {fit[patch_size]}")
        if inside[1] and inside[patch_size]:
            line += (f"; its {what} change by {np.mean(inside[1]):.2g} and {np.mean(inside[patch_size]):.2g} "
                     "(relative)")
        out.append(line + ".")
    maps = [r for r in trained if r.inside_what == "feature maps" and r.pixels == patch_size and r.inside > 0.01]
    if maps and patch_size % 2 == 0:
        out.append(f"A CNN's feature maps after a {patch_size}-pixel move are not exactly the maps before, moved: "
                   "near the borders its zero padding is not what a blank image gives after the first layer "
                   "(lesson 4's circular padding removes that). Its answer is another matter: read the share above.")
    tokens = [r for r in trained if r.inside_what.startswith("patch tokens") and r.pixels == patch_size]
    if tokens and max(r.inside for r in tokens) < 1e-5:
        out.append(f"Every transformer's patch tokens after a {patch_size}-pixel move are its tokens before, "
                   "reordered (they change by less than 1e-5, the size of rounding): lesson 1's stride-P patchify at work. After a "
                   "1-pixel move they are new tokens. What the model does with a reordering is its position code's "
                   "choice (lesson 2).")
    return out


@dataclass(frozen=True)
class SplitRow:
    model: str
    whole: Interval | None  # the notebook split: every unseen centre of the map (moves by whole patches)
    part: Interval | None  # the phase split: the map's centres at an offset never trained (moves by part of a patch)
    fit: float  # the phase split's mean training accuracy: a model that did not fit says nothing


def held_out_interval(result: RunResult, model: str) -> Interval | None:
    """The model's accuracy at the centres whose offset within a patch no training centre takes, over the run's
    units (seeds × training draws where it ships them). Where its training centres span the canvas, those are
    exactly its unseen centres (the units' ``unseen``); otherwise over the run's own seeds."""
    d = result.config.data
    unseen = [(cx, cy) for cx in d.kind.centres(d.img_size) for cy in d.kind.centres(d.img_size)
              if region(d, cx, cy) != REGIONS[0]]
    if all(offset_kind(d, cx, cy) == OFFSETS[2] for cx, cy in unseen):
        found = scores(run_units(result), model, "unseen")
        return unit_interval(found) if found else None
    return map_interval(result, model, lambda cx, cy: offset_kind(d, cx, cy) == OFFSETS[2])


def unseen_interval(result: RunResult, model: str) -> Interval | None:
    """The model's accuracy at every unseen centre of the map, over the run's units."""
    found = scores(run_units(result), model, "unseen")
    return unit_interval(found) if found else None


def split_rows(notebook: RunResult, phase: RunResult) -> list[SplitRow]:
    """Each model of both runs: its accuracy at whole-patch moves (the notebook's split) and at new offsets (the
    phase split), each over the run's units, with its 95 % interval."""
    fits = summary(phase)
    return [SplitRow(m, unseen_interval(notebook, m), held_out_interval(phase, m),
                     fits[m].train_mean if m in fits else float("nan"))
            for m in phase.config.models if m in notebook.config.models]


def split_notes(rows: list[SplitRow], notebook: DataConfig, phase: DataConfig, chance: float = 0.5) -> list[str]:
    """What the two splits show, model by model, said no more strongly than the difference's interval allows; and
    what else differs between the two splits."""
    out = []
    for r in rows:
        if r.whole is None or r.part is None:
            continue
        d, lo, hi = difference(r.part, r.whole)  # two runs: their seeds are not the same units
        m = margin(chance)
        change = ("lower at new offsets" if hi < 0 else "higher at new offsets" if lo > 0 else
                  f"within {points(m)} either way" if -m <= lo and hi <= m else "can't tell yet which is higher")
        note = (f"**{label(r.model)}**: whole-patch moves {r.whole}; new offsets {r.part}: {d * 100:+.0f} points "
                f"(95 % interval {lo * 100:+.0f} to {hi * 100:+.0f}), {change}.")
        if r.part.hi < chance:
            note += " Below chance at new offsets: there it mostly gives the *other* shape's answer."
        if r.fit < 0.95:
            note += f" It fit only {r.fit:.0%} of its phase-split training images: more epochs before judging it."
        out.append(note)
    if out:
        patterns = phase.kind.patterns()
        out.append(f"The phase split trains at {len(phase.train_positions)} positions ({patterns * len(phase.train_positions)} "
                   f"possible images; the notebook's split: {len(notebook.train_positions)} positions, "
                   f"{patterns * len(notebook.train_positions)} images) spread over the whole canvas, and tests at "
                   f"the {len(phase.test_positions)} others: it changes which moves are asked for, and also where and "
                   "how many the training positions are. Read each model's change with that in mind.")
    return out


# Each anti-aliased model and the plain model it differs from by its blur alone (the same weights at every seed)
ANTI_ALIASED = (("vit-blur", "vit"), ("cnn-blurpool", "cnn"))


@dataclass(frozen=True)
class StrideRow:
    """One model on one phase split: its accuracy at the centres whose offset within a 4-pixel patch was held
    out, and whether those offsets are new for the model's own sampling stride."""

    model: str
    stride: int
    held_out: tuple[int, ...]  # the offsets (c mod 4) no training centre takes
    accuracy: Interval | None  # at the map's centres with a held-out offset
    new: bool  # some of those centres are new for the model's stride (no training centre reaches them by whole strides)
    fit: float  # its mean training accuracy: a model that did not fit says nothing


def stride_rows(result: RunResult) -> list[StrideRow]:
    """Every model of a phase-split run: its accuracy at the held-out offsets, and whether they are new for it."""
    d = result.config.data
    fits = summary(result)
    held_out = tuple(o for o in range(d.phase_period) if o not in d.phases)
    rows = []
    for m in result.config.models:
        stride = spec(m).stride(result.config.model, d.img_size)
        at = [(cx, cy) for cx in d.kind.centres(d.img_size) for cy in d.kind.centres(d.img_size)
              if offset_kind(d, cx, cy) == OFFSETS[2]]
        rows.append(StrideRow(m, stride, held_out, held_out_interval(result, m),
                              any(new_for_stride(d, stride, cx, cy) for cx, cy in at),
                              fits[m].train_mean if m in fits else float("nan")))
    return rows


def held_out_words(offsets: tuple[int, ...]) -> str:
    return ("offset " if len(offsets) == 1 else "offsets ") + " and ".join(map(str, offsets))


def stride_notes(runs: list[list[StrideRow]], chance: float = 0.5) -> list[str]:
    """What the phase splits show model by model (each split's held-out offsets, new for its stride or not), and
    what the blur changed against its plain twin, said no more strongly than the difference's interval allows."""
    out = []
    by_model: dict[str, list[StrideRow]] = {}
    for rows in runs:
        for r in rows:
            by_model.setdefault(r.model, []).append(r)
    for model, rows in by_model.items():
        parts = [f"{held_out_words(r.held_out)} held out ({'new' if r.new else 'not new'} for its stride "
                 f"{r.stride}): {r.accuracy}" for r in rows if r.accuracy is not None]
        if parts:
            line = f"**{label(model)}**: " + "; ".join(parts) + "."
            unfit = [r for r in rows if r.fit < 0.95]
            if unfit:
                line += f" It fit only {min(r.fit for r in unfit):.0%} of its training images on one split: read it with care."
            out.append(line)
    for blurred, plain in ANTI_ALIASED:
        for rows in runs:
            pair = {r.model: r for r in rows if r.model in (blurred, plain)}
            if len(pair) < 2 or pair[blurred].accuracy is None or pair[plain].accuracy is None:
                continue
            # the twins start from the same weights at each seed: paired over their seeds
            d, lo, hi = paired(pair[blurred].accuracy, pair[plain].accuracy)
            m = margin(chance)
            change = ("higher" if lo > 0 else "lower" if hi < 0 else
                      f"within {points(m)} either way" if -m <= lo and hi <= m else
                      "can't tell yet which is higher")
            out.append(f"The blur alone, {label(blurred)} against {label(plain)} with {held_out_words(pair[plain].held_out)} "
                       f"held out: {d * 100:+.0f} points (95 % interval {lo * 100:+.0f} to {hi * 100:+.0f}), {change}.")
    return out


def by_region(result: RunResult) -> dict[str, dict[str, list[float]]]:
    """Each model's accuracy at the held-out centres of each region (``behaviour.region``: one coordinate new, or
    both), one number per seed: {model: {region: [accuracy at each seed]}}, regions with no centre left out."""
    d = result.config.data
    out: dict[str, dict[str, list[float]]] = {}
    for model in result.config.models:
        for r in REGIONS[1:]:
            per_seed = map_scores(result, model, lambda cx, cy, r=r: region(d, cx, cy) == r)
            if per_seed:
                out.setdefault(model, {})[r] = [per_seed[s] for s in sorted(per_seed)]
    return out


def parity_ink(shape: str, cx: int, cy: int, size: int = 16) -> tuple[int, ...]:
    """The ink of one shape at (cx, cy) on each pixel-parity class: (x even, y even), (x odd, y even), (x even, y odd),
    (x odd, y odd). A model can read these counts without knowing where anything is."""
    image = make_image(shape, cx, cy, size)
    return tuple(int(round(float(image[y::2, x::2].sum()))) for y in (0, 1) for x in (0, 1))


def region_notes(result: RunResult) -> list[str]:
    """Where on the odd split (``result``: a run of it) each kind of model fails: the models right at every centre with one coordinate odd and
    wrong at those with both odd, said with their seeds' ranges, and the parity cue the images carry there. Said as
    what the numbers are consistent with: the deciding intervention (parity-balanced images) is not run."""
    table = by_region(result)
    one, both = REGIONS[1:3], REGIONS[3]
    split = [m for m, rs in table.items() if both in rs and all(r in rs for r in one)
             and min(min(rs[r]) for r in one) >= 0.95 and max(rs[both]) <= 0.15]
    backwards = [m for m, rs in table.items() if both in rs and max(rs[both]) <= 0.15]
    if not backwards:
        return []
    d = result.config.data
    even = next(c for c in d.kind.centres(d.img_size) if c % 2 == 0 and d.trains_at(c))
    odd = even + 1
    ink = {shape: (parity_ink(shape, even, even, d.img_size), parity_ink(shape, odd, odd, d.img_size))
           for shape in ("plus", "circle")}

    def counts(c):
        return "/".join(map(str, c))
    out = []
    def span(xs):
        return f"{round(100 * min(xs))}–{round(100 * max(xs))} %"
    for m in split:
        out.append(f"**{label(m)}**: right at every held-out centre with one odd coordinate on every seed, which is "
                   f"just as new for its stride of {spec(m).stride(result.config.model, d.img_size)}; at the centres "
                   f"with both odd, {span(table[m][both])} over its seeds.")
    out.append("At the centres with both coordinates odd, " + ", ".join(f"**{label(m)}**" for m in backwards)
               + " give the other shape's answer on every seed (at most "
               + f"{round(100 * max(max(table[m][both]) for m in backwards))} % right), stride or none. The images offer a cue that "
               "reverses exactly there: ink counted on the four pixel-parity classes (x even or odd, y even or odd) is "
               f"{counts(ink['plus'][0])} for a plus at ({even}, {even}) and {counts(ink['circle'][0])} for a circle; at "
               f"({odd}, {odd}) the plus has {counts(ink['plus'][1])} and the circle {counts(ink['circle'][1])}, so a "
               "rule read from those counts in training answers backwards there. The failures are consistent with "
               "each model's stride and with this cue; images with the cue removed would decide, and the lab has not "
               "run them yet.")
    return out


def alike_notes(result: RunResult, split: str) -> list[str]:
    """Models of ``result`` that give the same answer on every map image at every seed: one behaviour, named once."""
    d = result.config.data
    images = len(d.kind.centres(d.img_size)) ** 2 * map_images_per_cell(d)
    return [f"On the {split}, " + ", ".join(f"**{label(m)}**" for m in group) + f" give the same answer on every one "
            f"of the map's {images} images at each of the {len(result.config.train.seeds)} seeds: one behaviour, not "
            f"{len(group)}." for group in answer_groups(result)]
