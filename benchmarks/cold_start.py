"""Cold start: from ``streamlit run app.py`` to a healthy server, and from opening each page to its charts.

    python -m benchmarks.cold_start

Every page is opened by its own URL in a fresh browser context against one freshly started server;
the time runs from ``page.goto`` until the script run is over and the page's Plotly charts have drawn.
Needs Playwright and Debian's Chromium (requirements-dev.txt, .ci/run).
"""

from __future__ import annotations

import time

from playwright.sync_api import sync_playwright

from core.engine.setting.machine import tree_rss
from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, streamlit_server, wait_for_charts


def main() -> None:
    with streamlit_server() as (url, startup, proc), sync_playwright() as p:
        print(f"server healthy after {startup:.1f} s (streamlit run app.py)")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for path, (title, min_charts) in PAGES.items():
            for visit in ("first", "second"):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                start = time.perf_counter()
                page.goto(f"{url}/{path}")
                page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
                n = wait_for_charts(page, min_charts, timeout=120)
                print(f"/{path:<22} {visit:>6} visit: {time.perf_counter() - start:5.1f} s to {n} rendered charts")
                context.close()
        print(f"server resident memory after visiting every page: {tree_rss(proc.pid) / 2**20:.0f} MiB")
        # then train the lesson preset live (Re-run), as a learner would, and measure again
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/ViT_vs_CNN")
        page.get_by_role("button", name="Re-run this setting live").click()
        start = time.perf_counter()
        page.get_by_text("trained on this server").wait_for(timeout=300_000)
        print(f"lesson preset trained live in the browser in {time.perf_counter() - start:.1f} s")
        print(f"server resident memory (with its training workers) after that: "
              f"{tree_rss(proc.pid) / 2**20:.0f} MiB")
        browser.close()


if __name__ == "__main__":
    main()
