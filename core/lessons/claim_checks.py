"""The lab's conclusions, checked against its shipped runs: each claim in ``docs/claims.md`` rests on ``check:``
lines, and each line is recomputed here from the files in results/ (``python -m core claims``; a test runs them
all). A line reads

    check: <preset> <model> <measure> <statistic> <op> <number>
    check: <preset> <model> minus <model> <measure> <statistic> <op> <number>

- ``preset``: a shipped run (``core.lessons.shipped.SHIPPED``), or a shipped sweep at one of its values,
  ``pos-scale@0.02`` (``SWEEPS``: its rows hold each seed's test accuracy only, so its measure is ``test``).
- ``measure``: ``test`` (the run's test set), ``unseen`` (every map centre never trained on), ``new`` (the
  held-out map centres that are new for the model's own sampling stride: no training centre reaches them by
  whole strides, ``behaviour.new_for_stride``) or ``reached`` (the held-out centres its stride does reach).
- ``statistic``: over the seeds, each seed's accuracy exact over its images: ``mean``, ``min``, ``max``, or the
  95 % interval's ``lo`` and ``hi`` (``verdict.accuracy_interval``). With ``minus``: the same of the paired
  per-seed differences (``lo``/``hi`` from the two intervals, ``verdict.difference``).
- ``op``: ``<``, ``>``, ``<=`` or ``>=``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from core.engine.results.behaviour import REGIONS, map_images_per_cell, map_scores, new_for_stride, region
from core.engine.results.run_result import RunResult
from core.engine.results.verdict import accuracy_interval, difference, distinct_test_images
from core.engine.setting.fingerprint import ROOT
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.lesson3_vit_vs_cnn import pos_scale_base
from core.lessons.shipped import load_shipped_rows
from core.models.registry import spec

CLAIMS_FILE = ROOT / "docs" / "claims.md"
# The shipped sweeps a check may name, by file: their base settings
SWEEPS: dict[str, Callable[[], GeneralizationConfig]] = {"pos-scale": pos_scale_base,
                                                         "pos-scale-where": lambda: pos_scale_base("where")}
MEASURES = ("test", "unseen", "new", "reached")
STATISTICS = ("mean", "min", "max", "lo", "hi")
OPS: dict[str, Callable[[float, float], bool]] = {"<": operator.lt, ">": operator.gt, "<=": operator.le,
                                                  ">=": operator.ge}
LINE = re.compile(r"^\s*(?:[-*]\s*)?`?check:\s*(?P<body>[^`]+?)`?\s*$")


@dataclass(frozen=True)
class Check:
    line: str
    preset: str
    models: tuple[str, ...]  # one model, or (a, b) for a minus b
    measure: str
    statistic: str
    op: str
    bound: float


@dataclass(frozen=True)
class Outcome:
    check: Check
    value: float | None  # None: the run, model or cells are not there
    passed: bool


def parse(line: str) -> Check:
    """One ``check:`` line's words as a Check; a malformed line raises ``ValueError`` naming it."""
    words = line.split()
    models = (words[1], words[3]) if len(words) == 8 and words[2] == "minus" else (words[1],) if len(words) == 6 else ()
    if not models:
        raise ValueError(f"a check reads '<preset> <model> [minus <model>] <measure> <statistic> <op> <number>', "
                         f"got {line!r}")
    measure, statistic, op, bound = words[-4:]
    if measure not in MEASURES or statistic not in STATISTICS or op not in OPS:
        raise ValueError(f"{line!r}: measure must be one of {MEASURES}, statistic one of {STATISTICS}, op one of "
                         f"{list(OPS)}")
    try:
        number = float(bound)
    except ValueError:
        raise ValueError(f"{line!r}: {bound!r} is not a number") from None
    return Check(line, words[0], models, measure, statistic, op, number)


def checks_in(text: str) -> list[Check]:
    """Every ``check:`` line of a claims document, in order."""
    return [parse(m.group("body")) for line in text.splitlines() if (m := LINE.match(line))]


def _keep(result: RunResult, model: str, measure: str) -> Callable[[int, int], bool]:
    """Which map centres a map measure counts, for ``model``."""
    d = result.config.data
    stride = spec(model).stride(result.config.model, d.img_size)
    held_out = {"unseen": lambda cx, cy: True, "new": lambda cx, cy: new_for_stride(d, stride, cx, cy),
                "reached": lambda cx, cy: not new_for_stride(d, stride, cx, cy)}[measure]
    return lambda cx, cy: region(d, cx, cy) != REGIONS[0] and held_out(cx, cy)


def per_seed(result: RunResult, model: str, measure: str) -> dict[int, float]:
    """The model's accuracy on ``measure`` at each seed, exact over that measure's images (on the map, the mean
    over classes: ``verdict.map_scores``)."""
    if measure == "test":
        return {r.seed: r.test_acc for r in result.rows if r.model == model and r.test_acc is not None}
    return map_scores(result, model, _keep(result, model, measure))


def _images(result: RunResult, model: str, measure: str) -> int:
    """The distinct images a measure holds (what the interval's image part counts)."""
    d = result.config.data
    if measure == "test":
        return distinct_test_images(d)
    keep = _keep(result, model, measure)
    return len({(p.cx, p.cy) for p in result.position_map if p.model == model and keep(p.cx, p.cy)}) \
        * map_images_per_cell(d)


def _sweep_scores(check: Check) -> tuple[list[dict[int, float]], int] | None:
    """Each model's per-seed test accuracy at the sweep value a check names, and the test set's distinct images."""
    name, _, at = check.preset.partition("@")
    if name not in SWEEPS or check.measure != "test":
        raise ValueError(f"{check.line!r}: a sweep check names one of {list(SWEEPS)} and the measure 'test'")
    base = SWEEPS[name]()
    rows = load_shipped_rows(name, base)
    if rows is None:
        return None
    return ([{r["seed"]: r["test_acc"] for r in rows if r["model"] == m and r["value"] == float(at)
              and r["test_acc"] is not None} for m in check.models], distinct_test_images(base.data))


def value(check: Check, runs: Mapping[str, RunResult]) -> float | None:
    """The check's statistic, from the shipped run or sweep it names (None where the run, a model or the cells
    are missing)."""
    if "@" in check.preset:
        found = _sweep_scores(check)
        if found is None:
            return None
        scores, images = found
        return _statistic(check, scores, [images] * len(scores))
    result = runs.get(check.preset)
    if result is None:
        return None
    scores = [per_seed(result, m, check.measure) for m in check.models]
    return _statistic(check, scores, [_images(result, m, check.measure) for m in check.models])


def _statistic(check: Check, scores: list[dict[int, float]], images: list[int]) -> float | None:
    """The check's statistic of per-seed scores (one model's, or two models' paired), each over ``images``."""
    if not all(scores):
        return None
    if len(scores) == 1:
        accs = list(scores[0].values())
        if check.statistic in ("lo", "hi"):
            iv = accuracy_interval(accs, images[0])
            return iv.lo if check.statistic == "lo" else iv.hi
        return {"mean": sum(accs) / len(accs), "min": min(accs), "max": max(accs)}[check.statistic]
    a, b = scores
    seeds = sorted(set(a) & set(b))
    diffs = [a[s] - b[s] for s in seeds]
    if check.statistic in ("lo", "hi"):
        ivs = [accuracy_interval([x[s] for s in seeds], n) for x, n in zip(scores, images, strict=True)]
        _, lo, hi = difference(*ivs)
        return lo if check.statistic == "lo" else hi
    return {"mean": sum(diffs) / len(diffs), "min": min(diffs), "max": max(diffs)}[check.statistic]


def run_checks(runs: Mapping[str, RunResult], path: Path = CLAIMS_FILE) -> list[Outcome]:
    """Every check of the claims document against ``runs`` (shipped runs by preset name)."""
    out = []
    for c in checks_in(path.read_text()):
        v = value(c, runs)
        out.append(Outcome(c, v, v is not None and OPS[c.op](v, c.bound)))
    return out
