"""Precompute the presets' results, shipped in results/ so the ViT-vs-CNN page opens on them at once.

    python -m scripts.precompute             # lesson, exercise-1, exercise-2, exercise-3
    python -m scripts.precompute lesson      # just one

Each file holds the full RunResult and the code fingerprint it was made with;
tests/test_shipped_results.py fails when the fingerprint no longer matches the code (stale).
"""

from __future__ import annotations

import sys
import time

from core.generalization.config import PRESETS
from core.generalization.results import SHIPPED, save_shipped
from core.generalization.run import run


def main(names: list[str]) -> None:
    for name in names or SHIPPED:
        start = time.perf_counter()
        result = run(PRESETS[name])
        path = save_shipped(name, result)
        print(f"{name}: {time.perf_counter() - start:.1f} s, {path.stat().st_size / 1024:.0f} KiB, "
              + ", ".join(f"{r.model}/{r.seed} {r.test_acc:.1%}" for r in result.rows))


if __name__ == "__main__":
    main(sys.argv[1:])
