"""What live progress costs the training itself, without a browser on the same machine.

    python -m benchmarks.live_curves_cost            # the lesson preset, 3 tries each

``benchmarks/browser_latency.py`` measures the engine's time inside the page while a headless Chromium on
the same two cores draws the live curves: that mixes the page's own work with the browser's. This splits
it, with the workers already warm in every case (the engine time ``run`` reports):

- the engine alone, as the command line trains (no progress, no test evaluations);
- the engine with the page's progress callback and its test evaluations for the live curve
  (``ui.training.LIVE_POINTS`` per model and seed), the callback doing nothing;
- the page itself re-running the lesson live through Streamlit's AppTest (progress bar, live chart,
  everything the page does), with no browser drawing it.

Printed: each median and its ratio to the engine alone.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

from core.engine.running.run import run, warm
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.browser import ROOT
from ui.training import LIVE_POINTS


def in_the_page() -> float:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.switch_page("pages/3_ViT_vs_CNN.py")
    at.run()
    at.button(key="rerun").click().run()
    caption = next(c.value for c in at.caption if "trained on this server" in c.value)
    return float(re.search(r"trained on this server, in ([\d.]+) s", caption).group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=3)
    args = ap.parse_args()
    cfg = PRESETS["lesson"]
    warm(cfg)
    time.sleep(3)  # the workers import torch
    eval_every = max(1, cfg.train.epochs // LIVE_POINTS)
    sides = {
        "engine alone": lambda: run(cfg).seconds,
        "engine + progress + live test evaluations": lambda: run(cfg, lambda *a: None, eval_every=eval_every).seconds,
        "the page (AppTest, no browser)": in_the_page,
    }
    times: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(args.tries):
        for side, measure in sides.items():
            times[side].append(measure())
    base = statistics.median(times["engine alone"])
    for side, t in times.items():
        m = statistics.median(t)
        print(f"{side:<44} {m:5.2f} s  ({', '.join(f'{x:.2f}' for x in t)})   {m / base:.2f}x the engine alone")


if __name__ == "__main__":
    main()
