"""What a click in *Look inside* and *Draw your own* costs the server: the probe (every model of the run at one
seed, and a look inside one) and a drawing's answers (every model at every seed), on each shipped run.

    python -m benchmarks.bench_inspect
    python -m benchmarks.bench_inspect --tries 5 --out benchmarks/records/bench_inspect_last_run.txt

"rebuilt" empties the cache of rebuilt models before each try, so every model is built and its weights loaded
again, as every click did before models were shared (``core.inspect.trained_model.shared_model``); "shared" is
the same call with the run's models already rebuilt, as every click after a run's first. Medians in ms; the two
take turns within every try, so both see the same machine load.
"""

from __future__ import annotations

import statistics

import numpy as np
import torch

from benchmarks.harness import ms, table_arguments, write_table
from core.inspect import trained_model
from core.inspect.own_input import answers
from core.lessons.shipped import load_fresh_shipped


def main() -> None:
    args = table_arguments(__doc__, 5)
    torch.set_num_threads(1)  # a page's thread: the server's sessions share its cores
    lines = [f"{'run':<40} {'call':<10} {'rebuilt':>9} {'shared':>9}   (ms, median of {args.tries})"]
    for cfg, result in load_fresh_shipped().items():
        d = cfg.data
        name, seed = cfg.models[0], cfg.train.seeds[0]
        drawing = trained_model.run_data(d).Xte[0, 0].numpy()
        calls = {"probe": lambda r=result, n=name, s=seed, d=d: trained_model.probe(
                     r, n, s, d.kind.classes[0], d.test_range[0], d.test_range[0]),
                 "answers": lambda r=result, x=drawing: answers(r, np.asarray(x))}
        for what, call in calls.items():
            times = {"rebuilt": [], "shared": []}
            for _ in range(args.tries):
                trained_model._loaded.cache_clear()
                times["rebuilt"].append(ms(call))
                times["shared"].append(ms(call))
            label = f"{d.dataset}, {len(cfg.models)} models x {len(cfg.train.seeds)} seeds"
            lines.append(f"{label:<40} {what:<10} {statistics.median(times['rebuilt']):9.1f} "
                         f"{statistics.median(times['shared']):9.1f}")
            print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()
