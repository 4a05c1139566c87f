"""Precompute the presets' results, shipped in results/ so the ViT-vs-CNN page opens on them at once.

    python -m scripts.precompute             # lesson, exercise-1, exercise-2, exercise-3
    python -m scripts.precompute lesson      # just one

Each file holds the config, the full RunResult and the code fingerprint it was made with;
tests/test_shipped_results.py fails when the fingerprint no longer matches the code (stale).
"""

from __future__ import annotations

import json
import sys
import time

from core.experiments import PRESETS, code_fingerprint, run
from ui.shipped import SHIPPED, path_for


def main(names: list[str]) -> None:
    for name in names or SHIPPED:
        start = time.perf_counter()
        result = run(PRESETS[name])
        data = {"preset": name, "fingerprint": code_fingerprint(), "result": result.to_json()}
        path_for(name).write_text(json.dumps(data, separators=(",", ":")))
        print(f"{name}: {time.perf_counter() - start:.1f} s, {path_for(name).stat().st_size / 1024:.0f} KiB, "
              + ", ".join(f"{r['model']}/{r['seed']} {r['test_acc']:.1%}" for r in result.rows))


if __name__ == "__main__":
    main(sys.argv[1:])
