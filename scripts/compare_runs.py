"""Train shipped settings with this code and compare, bit for bit, with the results another checkout made on this
same machine: the evidence ``scripts/restamp.py`` asks for before stamping shipped results anew.

    git worktree add /tmp/before <commit>; (cd /tmp/before && python -m scripts.precompute lesson remedies)
    python -m scripts.compare_runs /tmp/before/results lesson remedies

Prints, per name, whether every test prediction, map cell, curve point, accuracy and weight is equal. Weights are
compared tensor by tensor, in order and bit for bit; a state-dict key that was renamed is listed (``python -m
scripts.restamp`` writes the shipped weights under this code's keys).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import torch

from core.engine.running.run import run
from core.lessons.shipped import SHIPPED_CONFIGS


def compare(before: Path, name: str) -> dict[str, bool]:
    result = run(SHIPPED_CONFIGS[name], limit=False)
    new, old = result.to_json(), json.loads((before / f"{name}.json").read_text())["result"]
    rows = [(x["model"], x["seed"], x["train_acc"], x["test_acc"]) for x in old["rows"]]
    return {**{k: old[k] == new[k] for k in ("test_predictions", "position_map", "curves")},
            "accuracies": rows == [(x["model"], x["seed"], x["train_acc"], x["test_acc"]) for x in new["rows"]],
            "weights": same_weights(torch.load(before / f"{name}.weights.pt", weights_only=True), result.weights)}


def same_weights(old: dict[str, bytes], new: dict[str, bytes]) -> bool:
    """Every model's tensors equal in order, bit for bit; renamed keys are printed."""
    if old.keys() != new.keys():
        return False
    for key in old:
        a, b = (torch.load(io.BytesIO(w[key]), weights_only=True) for w in (old, new))
        renamed = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
        if renamed:
            print(f"  {key}: keys renamed {renamed}")
        if len(a) != len(b) or not all(torch.equal(x, y) for x, y in zip(a.values(), b.values(), strict=True)):
            return False
    return True


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    for name in sys.argv[2:]:
        same = compare(folder, name)
        print(f"{name}: {'identical' if all(same.values()) else 'DIFFERENT'} {same}", flush=True)
