"""Stamp shipped results with this code's fingerprint without training them again.

    python -m scripts.restamp lesson remedies digits     # the names in results/ (a preset's units: lesson.units)

For a change that moves the fingerprint but no number (words moved out of the training code, a field whose
default is the old behaviour): first show that the previous code and this code train bit-identical results on
one machine (``git worktree add /tmp/before <commit>``, ``python -m scripts.precompute NAME`` in both, then compare
every row's accuracies, test predictions, map cells, curves and weight bytes: ``python -m
scripts.compare_runs /tmp/before/results NAMES``), then restamp. A shipped result
keeps the numbers of the machine that made it: a ViT seed can land elsewhere on another host or thread count
(docs/performance.md), so training again here would change shipped numbers that no code change moved.

Only ``results/fingerprints.json`` changes, unless the stored files must: a result whose JSON this code writes
otherwise (a new field) is written again, and weights are written again under this code's state-dict keys (a renamed parameter or buffer): each model's tensors,
in order and unchanged, must match the model this code builds in number and shape, or the name is refused.
"""

from __future__ import annotations

import io
import json
import sys

import torch

from core.engine.running.run import state_bytes
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.shipped import SHIPPED_CONFIGS, load_shipped, save_shipped, shipped_path, stamp
from core.models import registry


def relayout(run: str, weights: bytes, cfg: GeneralizationConfig) -> bytes:
    """``weights`` of ``run`` ("model/seed") under the keys of the model this code builds, tensors unchanged."""
    name, seed = run.split("/")
    model = registry.build(name, cfg.model, cfg.data.img_size, int(seed), cfg.data.kind.outputs)
    old = torch.load(io.BytesIO(weights), weights_only=True)
    shapes = [tuple(t.shape) for t in model.state_dict().values()]
    if shapes != [tuple(t.shape) for t in old.values()]:
        raise SystemExit(f"{run}: the stored tensors {list(old)} do not fit this code's model {list(model.state_dict())}")
    if list(old) == list(model.state_dict()):
        return weights
    model.load_state_dict(dict(zip(model.state_dict(), old.values(), strict=True)))
    return state_bytes(model)


def restamp(name: str) -> None:
    path = shipped_path(name)
    text = path.read_text()
    if name in SHIPPED_CONFIGS:
        result, _ = load_shipped(name)
        if result.config != SHIPPED_CONFIGS[name]:
            raise SystemExit(f"{name}: the file holds another config than the preset's: precompute it instead")
        weights = {run: relayout(run, w, result.config) for run, w in result.weights.items()}
        result.origin = "live"  # as a fresh run is saved; load_shipped marks it shipped again
        again = json.dumps({"preset": name, "result": result.to_json()}, separators=(",", ":"), allow_nan=False)
        if again != text or weights != result.weights:
            result.weights = weights
            save_shipped(name, result)
    elif name.endswith(".units"):  # a preset's units over seeds and training draws
        preset = name.removesuffix(".units")
        if GeneralizationConfig.from_json(json.loads(text)["config"]) != SHIPPED_CONFIGS[preset]:
            raise SystemExit(f"{name}: made for another config than the preset's: python -m scripts.replicate {preset}")
    else:
        data = json.loads(text)
        data = {"name": data["name"], "base": GeneralizationConfig.from_json(data["base"]).to_json(), "rows": data["rows"]}
        again = json.dumps(data, separators=(",", ":"), allow_nan=False)
        if again != text:
            path.write_text(again)
    stamp(name)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        restamp(name)
        print(f"{name}: stamped {code_fingerprint()}")
