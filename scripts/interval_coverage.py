"""How often the lab's 95 % interval (``core.engine.results.verdict.unit_interval``) covers the true mean over units,
for truths with a known mean: docs/statistics.md's table.

    python -m scripts.interval_coverage              # the table, 20,000 draws a row (a few minutes)
    python -m scripts.interval_coverage 2000         # fewer draws a row

Units that are all-or-nothing (each seed 100 % or 0 %: the hardest case, a coin with the truth as its bias) are
counted exactly, by summing over every number of successes; the others are simulated. Every draw comes from a
``numpy.random.Generator`` seeded here, so the table is reproduced exactly.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np

from core.engine.results.verdict import unit_interval

UNITS = (3, 5, 15)
# Truths: (name, mean, draw(rng, n, k) -> (n, k) unit scores in [0, 1])
Truth = tuple[str, float, Callable[[np.random.Generator, int, int], np.ndarray]]
TRUTHS: tuple[Truth, ...] = (
    ("every unit 100 %", 1.0, lambda rng, n, k: np.ones((n, k))),
    ("units near 72 % (sd 3 points)", 0.72, lambda rng, n, k: np.clip(rng.normal(0.72, 0.03, (n, k)), 0, 1)),
    ("beta(2, 2): spread around 50 %", 0.5, lambda rng, n, k: rng.beta(2, 2, (n, k))),
    ("beta(0.3, 0.3): mostly near 0 or 1", 0.5, lambda rng, n, k: rng.beta(0.3, 0.3, (n, k))),
    ("the lesson's ViT: 51 % or 26 % (4 to 1)", 0.8 * 0.507 + 0.2 * 0.26,
     lambda rng, n, k: np.where(rng.random((n, k)) < 0.8, 0.507, 0.26)),
    ("a rare failure: 100 % or 0 % (9 to 1)", 0.9, lambda rng, n, k: (rng.random((n, k)) < 0.9).astype(float)),
    ("split: 100 % or 50 % (1 to 1)", 0.75, lambda rng, n, k: np.where(rng.random((n, k)) < 0.5, 1.0, 0.5)),
)
SHARES = tuple(round(p, 3) for p in np.arange(0.001, 1.0, 0.001))  # the all-or-nothing truths, exactly (a fine grid:
# coverage jumps where an interval's end crosses the truth, so a coarse grid misses the worst share)


def simulated(truth: Truth, k: int, draws: int, seed: int = 0) -> tuple[float, float]:
    """(coverage, mean width) of the interval over ``draws`` experiments of ``k`` units each."""
    _, mean, draw = truth
    samples = draw(np.random.default_rng(seed), draws, k)
    hits, width = 0, 0.0
    for row in samples:
        iv = unit_interval(list(map(float, row)))
        hits += iv.lo <= mean <= iv.hi
        width += iv.hi - iv.lo
    return hits / draws, width / draws


def all_or_nothing(p: float, k: int) -> float:
    """The exact coverage when each unit scores 100 % with probability ``p``, else 0 %."""
    covered = 0.0
    for j in range(k + 1):
        iv = unit_interval([1.0] * j + [0.0] * (k - j))
        if iv.lo <= p <= iv.hi:
            covered += math.comb(k, j) * p**j * (1 - p) ** (k - j)
    return covered


def table(draws: int) -> list[dict]:
    rows = []
    for k in UNITS:
        for truth in TRUTHS:
            coverage, width = simulated(truth, k, draws)
            rows.append({"truth": truth[0], "units": k, "coverage": coverage, "width": width})
        worst = min(SHARES, key=lambda p: all_or_nothing(p, k))
        rows.append({"truth": f"all-or-nothing, worst share ({worst:.3f}), exact", "units": k,
                     "coverage": all_or_nothing(worst, k), "width": float("nan")})
    return rows


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    print("| truth | units | coverage | mean width |\n|---|---|---|---|")
    for r in table(n):
        width = "exact" if math.isnan(r["width"]) else f"{r['width']:.2f}"
        print(f"| {r['truth']} | {r['units']} | {r['coverage']:.1%} | {width} |")
