"""A sleeping app's wake, as Community Cloud does it: a new process, its imports, the first page drawn in a browser.

    python -m benchmarks.wake                          # the home page, 0.5 core and 1 GiB (as benchmarks/cloud_tier.py)
    python -m benchmarks.wake --baseline /tmp/before   # the same for another checkout, in turn
    python -m benchmarks.wake --path ViT_vs_CNN --tries 3

Each try starts ``streamlit run app.py`` afresh in the emulated tier's cgroup (``cloud_tier.cgroup``; needs root)
and opens the page in a fresh headless Chromium the moment the server answers its health check. Printed per try:
seconds from the process's start to healthy, to the page's title, and to its charts drawn; the median of the last.
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import ExitStack
from pathlib import Path
from tempfile import mkdtemp

from playwright.sync_api import sync_playwright

from benchmarks.cloud_tier import cgroup
from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, streamlit_server, wait_for_charts


def wake(browser, root: Path, path: str, enter, data: Path) -> tuple[float, float, float]:
    title, charts = PAGES[path]
    start = time.perf_counter()
    with streamlit_server(root=root, env={"VITLAB_DATA_DIR": str(data)}, on_start=enter, timeout=180) as (url, _, _):
        healthy = time.perf_counter() - start
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(f"{url}/{path}")
        page.get_by_role("heading", name=title).first.wait_for(timeout=120_000)
        titled = time.perf_counter() - start
        wait_for_charts(page, charts, timeout=180)
        drawn = time.perf_counter() - start
        context.close()
    return healthy, titled, drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=float, default=0.5)
    parser.add_argument("--memory-mib", type=int, default=1024)
    parser.add_argument("--path", default="", choices=list(PAGES), help="the page opened first (default: home)")
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout, woken in turn with this one")
    args = parser.parse_args()
    roots = {"baseline": args.baseline, "this checkout": ROOT} if args.baseline else {"this checkout": ROOT}
    tmp = Path(mkdtemp(prefix="vitlab-wake-"))
    print(f"# wake to /{args.path}: {args.cpu:g} core(s) of quota, {args.memory_mib} MiB; a fresh process and browser "
          f"context per try")
    drawn: dict[str, list[float]] = {name: [] for name in roots}
    with ExitStack() as stack, sync_playwright() as p:
        enter = stack.enter_context(cgroup(args.cpu, args.memory_mib * 2**20))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for i in range(args.tries):
            for name, root in roots.items():
                healthy, titled, done = wake(browser, root, args.path, enter, tmp / f"{name}-{i}")
                drawn[name].append(done)
                print(f"{name:>14} try {i + 1}: healthy {healthy:4.1f} s, title {titled:4.1f} s, charts drawn {done:4.1f} s")
        browser.close()
    for name, times in drawn.items():
        print(f"{name:>14}: wake to the first page drawn, median {statistics.median(times):.1f} s")


if __name__ == "__main__":
    main()
