"""The results that ship with the app (``results/<name>.json`` and ``.weights.pt``): lesson 3's presets,
lesson 4's bench and lesson 5's two tasks, each with the fingerprint of the code that made them, so a stale file is never shown as
current. ``python -m scripts.precompute`` writes them.

The fingerprints are kept apart, one line per name in ``results/fingerprints.json``: a code change that moves no
number (``scripts/restamp.py``) rewrites that small file, not every result (megabytes each, which a repository
keeps forever). Where the files are and whether they are current is ``core.lessons.shipped_files`` (no torch: the
home page reads its maps there)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from dataclasses import asdict, fields, replace
from pathlib import Path

import torch

from core.engine.results.run_result import RunResult
from core.engine.results.units import Unit
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.lesson4_fixing_the_vit import BENCH, BENCH_PHASE
from core.lessons.lesson5_real_handwriting import PRESETS as DIGIT_PRESETS
from core.lessons.shipped_files import FINGERPRINTS, RESULTS_DIR, is_stamped, shipped_path, stamps

# What ships precomputed: lesson 3's presets, lesson 4's bench and lesson 5's two tasks
SHIPPED_CONFIGS: dict[str, GeneralizationConfig] = {
    **{p: PRESETS[p] for p in ("lesson", "exercise-1", "exercise-2", "exercise-3", "mlp", "splits-notebook",
                                "splits-phase", "splits-odd", "position-task")}, "remedies": BENCH,
    "remedies-phase": BENCH_PHASE,
    "digits": DIGIT_PRESETS["ten digits"], "digits-0-1": DIGIT_PRESETS["0 vs 1"]}
SHIPPED = tuple(SHIPPED_CONFIGS)
# What is random in a run is the seed and the training draw (``core.engine.results.units``): these presets also ship
# their units over UNIT_DRAWS, 3 seeds each (``results/<preset>.units.json``: each unit's scores, no curves or weights),
# and their statistics are over those draws (``verdict``: a draw's seeds share its training set, so the draw is what
# repeats independently). Ten draws decide what a few cannot. Lesson 5's 0 vs 1 too (a draw is its split of the scans by
# image as well as their places); its ten digits ship their own seeds only, one training draw (minutes a draw).
UNIT_DRAWS = tuple(range(1, 11))
# Each draw its own seeds, none shared (a seed shared by two draws would tie them through the same starting weights);
# draw 1's are the notebook's seeds 0, 1, 2, so the lesson's shipped run is draw 1's units
UNIT_SEEDS = {d: tuple(range(3 * (d - 1), 3 * d)) for d in UNIT_DRAWS}
UNIT_FIELDS = {f.name for f in fields(Unit)}
REPLICATED = ("lesson", "exercise-1", "exercise-2", "exercise-3", "mlp", "splits-notebook", "splits-phase", "splits-odd",
              "position-task", "remedies", "remedies-phase", "digits-0-1")


def weights_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.weights.pt"


def stamp(name: str) -> None:
    """Record that ``name``'s shipped file is what this code makes."""
    FINGERPRINTS.write_text(json.dumps({**stamps(), name: code_fingerprint()}, indent=0, sort_keys=True) + "\n")


def save_shipped(preset: str, result: RunResult) -> Path:
    path = shipped_path(preset)
    path.write_text(json.dumps({"preset": preset, "result": result.to_json()}, separators=(",", ":"), allow_nan=False))
    torch.save(result.weights, weights_path(preset))
    stamp(preset)
    return path


def units_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.units.json"


def unit_configs(preset: str) -> dict[int, GeneralizationConfig]:
    """A replicated preset's setting at each training draw, over every unit seed."""
    cfg = SHIPPED_CONFIGS[preset]
    return {d: replace(cfg, data=replace(cfg.data, data_seed=d), train=replace(cfg.train, seeds=UNIT_SEEDS[d]))
            for d in UNIT_DRAWS}


def save_units(preset: str, units: list[Unit]) -> Path:
    path = units_path(preset)
    rows = [asdict(u) for u in sorted(units, key=lambda u: (u.data_seed, u.seed, u.model))]
    path.write_text(json.dumps({"preset": preset, "config": SHIPPED_CONFIGS[preset].to_json(), "units": rows},
                               separators=(",", ":"), allow_nan=False))
    stamp(units_path(preset).stem)
    return path


def load_units(preset: str) -> list[Unit]:
    """A replicated preset's units, when shipped for this code and this preset's setting (else none)."""
    path = units_path(preset)
    if preset not in REPLICATED or not path.exists() or not is_stamped(path.stem):
        return []
    data = json.loads(path.read_text())
    if GeneralizationConfig.from_json(data["config"]) != SHIPPED_CONFIGS[preset]:
        return []
    if any(set(u) != UNIT_FIELDS for u in data["units"]):  # made with other measures: stale
        return []
    return [Unit(**u) for u in data["units"]]


def load_shipped(preset: str) -> tuple[RunResult, bool]:
    """(result, fresh): fresh is False when the code changed since the file was made. The trained weights
    come from the file beside it (tensors only: loaded with ``weights_only``), and its units over seeds and
    training draws from theirs (``load_units``)."""
    data = json.loads(shipped_path(preset).read_text())
    result = RunResult.from_json({**data["result"], "origin": "shipped"})
    if weights_path(preset).exists():
        result.weights = torch.load(weights_path(preset), weights_only=True)
    result.replicates = load_units(preset)
    return result, is_stamped(preset)


class FreshShipped(Mapping):
    """Every shipped result that still matches the code and its preset, by config; a stale or missing one is not
    in it. Each is read from its files the first time it is asked for: a server's first page reads the one it
    shows, not all of them (docs/performance.md). Thread-safe: a server's sessions share it."""

    def __init__(self):
        self._presets = {SHIPPED_CONFIGS[p]: p for p in SHIPPED if shipped_path(p).exists()}
        self._read: dict[GeneralizationConfig, RunResult | None] = {}
        self._lock = threading.Lock()

    def _result(self, cfg) -> RunResult | None:
        preset = self._presets.get(cfg) if isinstance(cfg, GeneralizationConfig) else None
        if preset is None:
            return None
        with self._lock:
            if cfg not in self._read:
                result, fresh = load_shipped(preset)
                self._read[cfg] = result if fresh and result.config == cfg else None
            return self._read[cfg]

    def __getitem__(self, cfg: GeneralizationConfig) -> RunResult:
        result = self._result(cfg)
        if result is None:
            raise KeyError(cfg)
        return result

    def __contains__(self, cfg) -> bool:
        return self._result(cfg) is not None

    def __iter__(self) -> Iterator[GeneralizationConfig]:
        return (cfg for cfg in self._presets if self._result(cfg) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def load_fresh_shipped() -> FreshShipped:
    """Every shipped result that still matches the code and its preset (read when first asked for)."""
    return FreshShipped()


def save_shipped_rows(name: str, base: GeneralizationConfig, rows: list) -> Path:
    """A sweep's rows (dataclasses), shipped like a result: with the code fingerprint and its base config."""
    path = shipped_path(name)
    data = {"name": name, "base": base.to_json(), "rows": [asdict(r) for r in rows]}
    path.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False))
    stamp(name)
    return path


def load_shipped_rows(name: str, base: GeneralizationConfig) -> list[dict] | None:
    """The shipped rows, if the file exists, matches ``base`` and the code (else None: run it instead)."""
    path = shipped_path(name)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    fresh = is_stamped(name) and GeneralizationConfig.from_json(data["base"]) == base
    return data["rows"] if fresh else None
