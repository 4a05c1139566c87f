"""Load test: N learners start different training runs on one server at the same moment.

    python -m benchmarks.load_test            # N = 4, then N = 8
    python -m benchmarks.load_test --n 8

A real ``streamlit run app.py`` (budget and idle timeout as set in the environment; the idle timeout is
10 s here so the test sees the server shrink back), one headless Chromium, N browser sessions on the
ViT-vs-CNN page, each with its own setting (presets re-run live, the tiny preset with other seeds and
epochs). All N press Run within a second; the whole process tree's resident memory is sampled every
50 ms. Printed: peak memory against the budget, each session's time to results and whether its numbers
equal what ``core`` computes for its config alone, how long another session's Patchify page takes to draw
meanwhile (against the same page on the quiet server), and the memory after the idle timeout.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

from playwright.sync_api import sync_playwright

from benchmarks.harness import PeakRss
from core.engine.results.run_result import summary
from core.engine.running.run import run
from core.engine.setting.machine import total_budget, tree_rss
from core.engine.setting.run_config import TrainConfig
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.shipped import load_shipped
from support.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_for_charts

TINY = PRESETS["tiny"]
# (name, preset button, how to start: "rerun" the shipped result live, or "run" with slider key presses)
SESSIONS = [
    ("lesson (live re-run)", "lesson", "rerun", {}),
    ("exercise-3 (live re-run)", "exercise-3", "rerun", {}),
    ("tiny", "tiny", "run", {}),
    ("tiny, 5 seeds", "tiny", "run", {"Seeds (0, 1, …)": 4}),
    ("exercise-1 (live re-run)", "exercise-1", "rerun", {}),
    ("tiny, 40 epochs", "tiny", "run", {"Epochs (full-batch Adam steps)": 1}),
    ("exercise-2 (live re-run)", "exercise-2", "rerun", {}),
    ("tiny, 3 seeds, 60 epochs", "tiny", "run", {"Seeds (0, 1, …)": 2, "Epochs (full-batch Adam steps)": 3}),
]


def expected_config(preset: str, presses: dict):
    cfg = PRESETS[preset]
    seeds = len(cfg.train.seeds) + presses.get("Seeds (0, 1, …)", 0)
    epochs = cfg.train.epochs + 10 * presses.get("Epochs (full-batch Adam steps)", 0)
    return replace(cfg, train=TrainConfig(epochs=epochs, lr=cfg.train.lr, seeds=tuple(range(seeds))))


def expected_metrics(cfg) -> list[str]:
    shipped = [p for p in ("lesson", "exercise-1", "exercise-2", "exercise-3") if PRESETS[p] == cfg]
    result = load_shipped(shipped[0])[0] if shipped else run(cfg)
    return [f"{s.test_mean:.1%}" for s in summary(result).values()]


def page_draw_seconds(browser, url: str) -> float:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(f"{url}/Patchify")
    wait_for_charts(page, 7, timeout=300)
    seconds = time.perf_counter() - start
    context.close()
    return seconds


def open_session(browser, url: str, name: str, preset: str, how: str, presses: dict):
    """A learner's page with its setting in the form (and, to re-run a preset, its shipped result shown)."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(f"{url}/ViT_vs_CNN")
    wait_for_charts(page, 7, timeout=300)
    page.get_by_role("button", name=preset, exact=True).click()
    page.wait_for_timeout(1500)
    if how == "rerun":  # make the preset the page's active setting (its shipped result), then re-run it
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("precomputed with this code").wait_for(timeout=60_000)
    for label, k in presses.items():
        slider = page.get_by_role("slider", name=label)
        slider.focus()
        for _ in range(k):
            slider.press("ArrowRight")
    print(f"  session ready: {name}", flush=True)
    return page


def wait_all(pages: list, start: float, limit: float = 900) -> dict[str, float]:
    """Seconds from the clicks to each session's results."""
    finished: dict[str, float] = {}
    while len(finished) < len(pages) and time.perf_counter() - start < limit:
        for name, *_, page in pages:
            if name not in finished and page.get_by_text("trained on this server").count():
                finished[name] = time.perf_counter() - start
                print(f"  finished: {name} after {finished[name]:.1f} s", flush=True)
        time.sleep(0.2)
    for name, *_, page in pages:
        if name not in finished:
            page.screenshot(path=f"/tmp/load_{name.split()[0]}.png", full_page=True)
    return finished


def load(n: int) -> None:
    os.environ.setdefault("VITLAB_IDLE_SECONDS", "10")
    idle_wait = float(os.environ["VITLAB_IDLE_SECONDS"])
    with streamlit_server() as (url, _, proc), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        quiet = page_draw_seconds(browser, url)
        print(f"  quiet Patchify draw: {quiet:.1f} s", flush=True)
        pages = [(name, preset, how, presses, open_session(browser, url, name, preset, how, presses))
                 for name, preset, how, presses in SESSIONS[:n]]
        idle_rss = tree_rss(proc.pid)
        with PeakRss(proc.pid, every=0.05) as sampler:
            start = time.perf_counter()
            for _, _, how, _, page in pages:
                button = "Re-run this setting live" if how == "rerun" else "Run"
                page.get_by_role("button", name=button, exact=True).click(no_wait_after=True)
            busy = page_draw_seconds(browser, url)
            finished = wait_all(pages, start)
            for *_, page in pages:
                wait_for_charts(page, 7, timeout=120)
        after_runs = tree_rss(proc.pid)
        time.sleep(idle_wait + 5)
        after_idle = tree_rss(proc.pid)
        print(f"\n{n} concurrent runs on one server (budget {total_budget() / 2**20:.0f} MiB, idle timeout "
              f"{idle_wait:g} s)")
        print(f"  server idle before the runs: {idle_rss / 2**20:.0f} MiB; peak of the whole process tree: "
              f"{sampler.peak / 2**20:.0f} MiB; after the runs: {after_runs / 2**20:.0f} MiB; "
              f"{idle_wait:g} s + 5 s later: {after_idle / 2**20:.0f} MiB")
        print(f"  another session's Patchify page drew in {busy:.1f} s during the runs ({quiet:.1f} s on the quiet "
              f"server: {busy / quiet:.1f}x)")
        all_own = True
        for name, preset, _, presses, page in pages:
            shown = page.locator("[data-testid=stMetricValue]").all_inner_texts()
            want = expected_metrics(expected_config(preset, presses))
            own = shown[:len(want)] == want
            all_own &= own
            print(f"  {name:<26} results after {finished.get(name, float('nan')):6.1f} s; shown {shown[:len(want)]} "
                  f"{'==' if own else '!='} its own config's {want}")
        print(f"  every session got its own config's numbers: {'yes' if all_own else 'NO'}; peak within budget: "
              f"{'yes' if sampler.peak <= total_budget() else 'NO'}")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[4, 8], help="concurrent sessions (at most 8)")
    args = parser.parse_args()
    for n in args.n:
        load(min(n, len(SESSIONS)))


if __name__ == "__main__":
    main()
