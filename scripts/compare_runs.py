"""Train shipped settings with this code and compare, bit for bit, with the results another checkout made on this
same machine: the evidence ``scripts/restamp.py`` asks for before stamping shipped results anew.

    git worktree add /tmp/before <commit>; (cd /tmp/before && python -m scripts.precompute lesson remedies)
    python -m scripts.compare_runs /tmp/before/results lesson remedies

Prints, per name, whether every test prediction, map cell, curve point, accuracy and weight byte is equal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from core.engine.run import run
from core.lessons.shipped import SHIPPED_CONFIGS


def compare(before: Path, name: str) -> dict[str, bool]:
    result = run(SHIPPED_CONFIGS[name], limit=False)
    new, old = result.to_json(), json.loads((before / f"{name}.json").read_text())["result"]
    rows = [(x["model"], x["seed"], x["train_acc"], x["test_acc"]) for x in old["rows"]]
    return {**{k: old[k] == new[k] for k in ("test_predictions", "position_map", "curves")},
            "accuracies": rows == [(x["model"], x["seed"], x["train_acc"], x["test_acc"]) for x in new["rows"]],
            "weights": torch.load(before / f"{name}.weights.pt", weights_only=True) == result.weights}


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    for name in sys.argv[2:]:
        same = compare(folder, name)
        print(f"{name}: {'identical' if all(same.values()) else 'DIFFERENT'} {same}", flush=True)
