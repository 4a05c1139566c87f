"""Precompute the presets' results, shipped in results/ so the ViT-vs-CNN page opens on them at once.

    python -m scripts.precompute             # lesson, exercise-1..3, lesson 4's bench and its positions sweep
    python -m scripts.precompute lesson      # just one

Each file holds the full RunResult and the code fingerprint it was made with;
tests/test_shipped_results.py fails when the fingerprint no longer matches the code (stale).
"""

from __future__ import annotations

import sys
import time

from core.engine.run import run, sweep
from core.lessons.lesson4_fixing_the_vit import POSITIONS_SWEEP, positions_base
from core.lessons.shipped import SHIPPED, SHIPPED_CONFIGS, save_shipped, save_shipped_rows

POSITIONS = "remedies-positions"


def main(names: list[str]) -> None:
    for name in names or (*SHIPPED, POSITIONS):
        start = time.perf_counter()
        if name == POSITIONS:
            rows = sweep(positions_base(), POSITIONS_SWEEP, limit=False)
            path = save_shipped_rows(name, positions_base(), rows)
            print(f"{name}: {time.perf_counter() - start:.1f} s, {path.stat().st_size / 1024:.0f} KiB, {len(rows)} rows")
            continue
        result = run(SHIPPED_CONFIGS[name], limit=False)
        path = save_shipped(name, result)
        print(f"{name}: {time.perf_counter() - start:.1f} s, {path.stat().st_size / 1024:.0f} KiB, "
              + ", ".join(f"{r.model}/{r.seed} {r.test_acc:.1%}" for r in result.rows))


if __name__ == "__main__":
    main(sys.argv[1:])
