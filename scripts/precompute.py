"""Precompute the presets' results, shipped in results/ so the ViT-vs-CNN page opens on them at once.

    python -m scripts.precompute             # every shipped result and sweep (lessons 3, 4 and 5)
    python -m scripts.precompute lesson      # just one

Each file holds the full RunResult and the code fingerprint it was made with;
tests/lessons/test_shipped.py fails when the fingerprint no longer matches the code (stale).
"""

from __future__ import annotations

import sys
import time
from functools import partial

from core.engine.running.flights import Flights, sweep_through
from core.engine.running.run import run
from core.engine.storage.store import ResultStore
from core.lessons.lesson3_vit_vs_cnn import POS_SCALE_SWEEP, pos_scale_base
from core.lessons.lesson4_fixing_the_vit import POSITIONS_SWEEP, positions_base
from core.lessons.shipped import SHIPPED, SHIPPED_CONFIGS, save_shipped, save_shipped_rows

# The shipped sweeps: name -> (base, sweep)
SWEEPS = {"remedies-positions": (positions_base, POSITIONS_SWEEP), "pos-scale": (pos_scale_base, POS_SCALE_SWEEP),
          "pos-scale-where": (partial(pos_scale_base, "where"), POS_SCALE_SWEEP)}


def main(names: list[str]) -> None:
    for name in names or (*SHIPPED, *SWEEPS):
        start = time.perf_counter()
        if name in SWEEPS:
            base, axis = SWEEPS[name][0](), SWEEPS[name][1]
            rows = sweep_through(Flights(ResultStore(), train=partial(run, limit=False)), base, axis, limit=False)
            path = save_shipped_rows(name, base, rows)
            print(f"{name}: {time.perf_counter() - start:.1f} s, {path.stat().st_size / 1024:.0f} KiB, {len(rows)} rows")
            continue
        result = run(SHIPPED_CONFIGS[name], limit=False)
        path = save_shipped(name, result)
        print(f"{name}: {time.perf_counter() - start:.1f} s, {path.stat().st_size / 1024:.0f} KiB, "
              + ", ".join(f"{r.model}/{r.seed} {r.test_acc:.1%}" for r in result.rows))


if __name__ == "__main__":
    main(sys.argv[1:])
