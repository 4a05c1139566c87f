"""The server's settled memory after a class has run many new settings: what README's memory figure states.

    python -m benchmarks.settled_memory                 # 90 new settings
    python -m benchmarks.settled_memory --settings 30

A fresh ``streamlit run app.py``; one headless browser opens lesson 3 by a link to each of N settings the
server has never run (the lesson's two models and three seeds, 8 epochs, each a new training-set size: a
result as large as the lesson's), waits for its result, and
reads the server's resident memory (the server process alone, then its training workers too) every 10
settings; then waits for the idle workers to end (30 s) and reads it again: the settled figure. The result
store is bounded (64 runs, 64 MiB), so the memory must level off, not grow with N.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.harness import machine_now
from core.engine.setting.machine import rss, tree_rss
from support.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_for_charts

MIB = 2**20


def main(n: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"{machine_now()}\n{n} new settings of lesson 3, one after another, on a fresh server")
    with streamlit_server() as (url, _, proc), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/")
        wait_for_charts(page, 1, timeout=120)
        print(f"  after the home page: server {rss(proc.pid) / MIB:.0f} MiB")
        start = time.perf_counter()
        for i in range(n):
            page.goto(f"{url}/ViT_vs_CNN?epochs=8&n_train={100 + i}")
            page.get_by_role("button", name="Show the result without predicting").click(timeout=180_000)
            page.locator("[data-testid=stMetric]", has_text="CNN · test").wait_for(timeout=180_000)
            if (i + 1) % 10 == 0:
                print(f"  after {i + 1} settings ({time.perf_counter() - start:.0f} s): server "
                      f"{rss(proc.pid) / MIB:.0f} MiB, with its workers {tree_rss(proc.pid) / MIB:.0f} MiB", flush=True)
        browser.close()
        time.sleep(40)  # the pool's idle workers end after 30 s
        print(f"  settled, 40 s later: server {rss(proc.pid) / MIB:.0f} MiB, with its workers "
              f"{tree_rss(proc.pid) / MIB:.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", type=int, default=90)
    main(parser.parse_args().settings)
