"""What one learner's training costs another learner's page, with the training workers niced or not.

    python -m benchmarks.busy_server            # 5 tries each (about 4 minutes here)

Two freshly started servers, the same code: one with ``VITLAB_WORKER_NICE=0`` (workers at the server's
own priority), one with the default (``planning.worker_nice()``). On each, try after try: a first learner
opens lesson 3 by a link naming a setting the server has not run (the lesson with 400 epochs and 5 seeds,
so it trains at once, on every core, for longer than the try), and while it trains a second learner opens
Patchify (first draw) and moves its embedding width (control change), and the server's own part of a first
visit is timed without a browser: fetching the 100 static JavaScript files a first visit loads, the largest
of Streamlit's bundles (Plotly's among them) and the smallest, one after another. The trainer's tab is then closed,
which stops its run before it completes, so the next try trains again. The same two measurements on the
idle server are the reference. Printed: each median, and its ratio to the idle one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import streamlit
from playwright.sync_api import sync_playwright

from benchmarks.browser_latency import CONTROLS, after_input, load, open_done, open_section
from support.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server

TRAINING = "ViT_vs_CNN?epochs=400&seeds=5"
SECTION, WIDER, NARROWER = CONTROLS["Patchify"]["embedding width"]


def static_files() -> list[str]:
    """A first visit's share of Streamlit's JavaScript: its 20 largest files and 80 smallest."""
    folder = Path(streamlit.__file__).parent / "static" / "static" / "js"
    files = sorted(folder.glob("*.js"), key=lambda f: f.stat().st_size)
    return [f"static/js/{f.name}" for f in files[:80] + files[-20:]]


def fetch_all(url: str, names: list[str]) -> float:
    start = time.perf_counter()
    for name in names:
        with urllib.request.urlopen(f"{url}/{name}") as r:
            r.read()
    return time.perf_counter() - start


STATIC_FILES = static_files()  # listed once: the folder's listing stays out of the timed fetches


def second_learner(browser, url: str, i: int) -> tuple[float, float, float]:
    page, first = open_done(browser, url, "Patchify")
    open_section(page, SECTION)
    control = after_input(page, WIDER if i % 2 == 0 else NARROWER)
    page.context.close()
    return first, control, fetch_all(url, STATIC_FILES)


def one_try(browser, url: str, state: str, i: int) -> tuple[float, float, float]:
    """The second learner's (first draw, control change), the server idle or training the first's run."""
    if state == "idle":
        return second_learner(browser, url, i)
    trainer = browser.new_context().new_page()
    trainer.goto(f"{url}/{TRAINING}")
    trainer.get_by_text("epoch").first.wait_for(timeout=60_000)  # its progress bar: training on every core now
    time.sleep(1.0)
    measured = second_learner(browser, url, i)
    assert trainer.get_by_text("trained on this server").count() == 0, "the training ended before the try did"
    trainer.context.close()
    time.sleep(1.5)  # the stale run stops at its next progress update, its workers idle again
    return measured


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=5)
    args = ap.parse_args()
    with ExitStack() as stack:
        servers = {}
        for side, nice in (("workers not niced", "0"), ("workers niced", None)):  # None: the default
            os.environ.pop("VITLAB_WORKER_NICE", None)
            if nice is not None:
                os.environ["VITLAB_WORKER_NICE"] = nice
            servers[side] = stack.enter_context(streamlit_server())[0]  # the server reads it when it starts
        os.environ.pop("VITLAB_WORKER_NICE", None)
        browser = stack.enter_context(sync_playwright()).chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        times = {(side, state): ([], [], []) for side in servers for state in ("idle", "training")}
        for i in range(args.tries + 1):  # the first try warms each server's caches: not counted
            for side, url in servers.items():
                for state in ("idle", "training"):
                    measured = one_try(browser, url, state, i)
                    if i:
                        for kept, value in zip(times[side, state], measured, strict=True):
                            kept.append(value)
            print(f"  try {i}   [{load()}]", flush=True)
        for side in servers:
            idle = [statistics.median(x) for x in times[side, "idle"]]
            for state in ("idle", "training"):
                med = [statistics.median(x) for x in times[side, state]]
                print(f"{side:<18} {state:<9} first draw /Patchify {med[0]:.2f} s ({med[0] / idle[0]:.2f}x idle)   "
                      f"control embedding width {med[1]:.2f} s ({med[1] / idle[1]:.2f}x idle)   "
                      f"100 static files {med[2]:.2f} s ({med[2] / idle[2]:.2f}x idle)")


if __name__ == "__main__":
    main()
