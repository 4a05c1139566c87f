"""The lab's conclusions, checked against its shipped runs: each claim in ``docs/claims.md`` rests on ``check:``
lines, and each line is recomputed here from the files in results/ (``python -m core claims``; a test runs them
all). A line reads

    check: <preset> <model> <measure> <statistic> <op> <number>
    check: <preset> <model> minus <model> <measure> <statistic> <op> <number>

- ``preset``: a shipped run (``core.lessons.shipped.SHIPPED``), or a shipped sweep at one of its values,
  ``pos-scale@0.02`` (``SWEEPS``: its rows hold each seed's notebook's test accuracy only, so its measure is
  ``notebook``).
- ``measure``: one of ``core.engine.results.units.MEASURES``: ``notebook`` (the notebook's random draw of test
  images), ``test`` (the test set: every class at every test centre once), ``unseen`` (the unseen map: every map
  centre never trained on), ``new`` (the held-out centres new for the model's own sampling stride) or ``reached``
  (the held-out centres its stride does reach).
- ``statistic``: over the runs (each model at one seed and one training draw: the preset's shipped units over
  seeds × draws, else the run's own seeds), each run's score exact: ``mean``, ``min``, ``max``, or the 95 %
  interval's ``lo`` and ``hi`` over the training draws (``verdict.unit_interval``). With ``minus``: the same of the paired per-unit
  differences (``verdict.paired``).
- ``op``: ``<``, ``>``, ``<=`` or ``>=``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from core.engine.results.run_result import RunResult
from core.engine.results.units import MEASURES, run_units, scores
from core.engine.results.verdict import paired, unit_interval
from core.engine.setting.fingerprint import ROOT
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.lesson3_vit_vs_cnn import pos_scale_base
from core.lessons.shipped import load_shipped_rows

CLAIMS_FILE = ROOT / "docs" / "claims.md"
# The shipped sweeps a check may name, by file: their base settings
SWEEPS: dict[str, Callable[[], GeneralizationConfig]] = {"pos-scale": pos_scale_base,
                                                         "pos-scale-where": lambda: pos_scale_base("where")}
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


def unit_scores(result: RunResult, model: str, measure: str) -> dict[tuple[int, int], float]:
    """The model's score on ``measure`` at each unit: the run's units over seeds and training draws where it
    ships them (``RunResult.replicates``), else its own seeds."""
    return scores(run_units(result), model, measure)


def _sweep_scores(check: Check) -> list[dict[tuple[int, int], float]] | None:
    """Each model's notebook's test accuracy at each seed of the sweep value a check names (one training draw)."""
    name, _, at = check.preset.partition("@")
    if name not in SWEEPS or check.measure != "notebook":
        raise ValueError(f"{check.line!r}: a sweep check names one of {list(SWEEPS)} and the measure 'notebook'")
    base = SWEEPS[name]()
    rows = load_shipped_rows(name, base)
    if rows is None:
        return None
    return [{(r["seed"], base.data.data_seed): r["test_acc"] for r in rows if r["model"] == m
             and r["value"] == float(at) and r["test_acc"] is not None} for m in check.models]


def value(check: Check, runs: Mapping[str, RunResult]) -> float | None:
    """The check's statistic, from the shipped run or sweep it names (None where the run, a model or the cells
    are missing)."""
    if "@" in check.preset:
        found = _sweep_scores(check)
    else:
        result = runs.get(check.preset)
        found = None if result is None else [unit_scores(result, m, check.measure) for m in check.models]
    return None if found is None else _statistic(check, found)


def _statistic(check: Check, found: list[dict[tuple[int, int], float]]) -> float | None:
    """The check's statistic over units: of one model's scores, or of two models' paired differences."""
    if not all(found):
        return None
    if len(found) == 1:
        values = list(found[0].values())
        if check.statistic in ("lo", "hi"):
            iv = unit_interval(found[0])
            return iv.lo if check.statistic == "lo" else iv.hi
        return {"mean": sum(values) / len(values), "min": min(values), "max": max(values)}[check.statistic]
    a, b = found
    shared = [k for k in a if k in b]
    diffs = [a[k] - b[k] for k in shared]
    if check.statistic in ("lo", "hi"):
        _, lo, hi = paired(unit_interval({k: a[k] for k in shared}), unit_interval({k: b[k] for k in shared}))
        return lo if check.statistic == "lo" else hi
    return {"mean": sum(diffs) / len(diffs), "min": min(diffs), "max": max(diffs)}[check.statistic]


def run_checks(runs: Mapping[str, RunResult], path: Path = CLAIMS_FILE) -> list[Outcome]:
    """Every check of the claims document against ``runs`` (shipped runs by preset name)."""
    out = []
    for c in checks_in(path.read_text()):
        v = value(c, runs)
        out.append(Outcome(c, v, v is not None and OPS[c.op](v, c.bound)))
    return out
