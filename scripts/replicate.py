"""Train the shipped presets' units over seeds × training draws, shipped in results/<preset>.units.json.

    python -m scripts.replicate              # every replicated preset (core.lessons.shipped.REPLICATED)
    python -m scripts.replicate lesson       # just one

Each unit is one model trained at one seed and one training draw (each draw its own seeds), with its exact score on each measure
(``core.engine.results.units``). The shipped run itself (its data seed, its seeds) gives its own units; the rest
are trained here. Run it after ``python -m scripts.precompute`` for the same names.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

from core.engine.results.units import units_of
from core.engine.running.run import run
from core.lessons.shipped import REPLICATED, SHIPPED_CONFIGS, load_shipped, save_units, unit_configs


def replicate(preset: str) -> int:
    shipped, fresh = load_shipped(preset)
    if not fresh or shipped.config != SHIPPED_CONFIGS[preset]:
        raise SystemExit(f"{preset}: its shipped run is stale: python -m scripts.precompute {preset} first")
    units = []
    for data_seed, cfg in unit_configs(preset).items():
        seeds = cfg.train.seeds
        have = set(shipped.config.train.seeds) & set(seeds) if data_seed == shipped.config.data.data_seed else set()
        units += [u for u in units_of(shipped) if u.seed in have]
        missing = tuple(s for s in seeds if s not in have)
        if missing:
            units += units_of(run(replace(cfg, train=replace(cfg.train, seeds=missing)), limit=False))
    save_units(preset, units)
    return len(units)


if __name__ == "__main__":
    for name in sys.argv[1:] or REPLICATED:
        start = time.perf_counter()
        print(f"{name}: {replicate(name)} units in {time.perf_counter() - start:.0f} s", flush=True)
