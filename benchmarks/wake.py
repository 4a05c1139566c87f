"""A sleeping app's wake, as Community Cloud does it: a new process, its imports, the first page drawn in a browser.

    python -m benchmarks.wake                          # the home page, 0.5 core and 1 GiB (as benchmarks/cloud_tier.py)
    python -m benchmarks.wake --baseline /tmp/before   # the same for another checkout, in turn
    python -m benchmarks.wake --path ViT_vs_CNN --tries 3
    python -m benchmarks.wake --tries 3 --baseline /tmp/before --out benchmarks/records/wake_last_run.txt
    python -m benchmarks.wake --then ViT_vs_CNN          # and the learner's next click, after reading for 8 s

Each try starts ``streamlit run app.py`` afresh in the emulated tier's cgroup (``cloud_tier.cgroup``; needs root)
and opens the page in a fresh headless Chromium the moment the server answers its health check. Printed per try:
seconds from the process's start to healthy, to the page's title, and to its charts drawn, with the machine's load
and speed measured before it (``benchmarks.harness.machine_now``); the median of the last. With ``--then``, the
learner reads the first page for ``--read-s`` seconds, then clicks the link to another page: seconds from the click
to its charts drawn (what the background imports after the first page, ``ui/warm_up.py``, are for).
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
from benchmarks.harness import machine_now, write_table
from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, streamlit_server, wait_for_charts


def wake(browser, root: Path, path: str, enter, data: Path, then: str | None = None,
         read_s: float = 8.0) -> tuple[float, float, float, float | None]:
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
        clicked = None
        if then is not None:
            page.wait_for_timeout(read_s * 1000)
            click = time.perf_counter()
            page.locator(f'a[href$="/{then}"]').first.click()
            page.get_by_role("heading", name=PAGES[then][0]).first.wait_for(timeout=120_000)
            wait_for_charts(page, PAGES[then][1], timeout=180)
            clicked = time.perf_counter() - click
        context.close()
    return healthy, titled, drawn, clicked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=float, default=0.5)
    parser.add_argument("--memory-mib", type=int, default=1024)
    parser.add_argument("--path", default="", choices=list(PAGES), help="the page opened first (default: home)")
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout, woken in turn with this one")
    parser.add_argument("--then", choices=[p for p in PAGES if p], help="a page opened next, by its link")
    parser.add_argument("--read-s", type=float, default=8.0, help="seconds on the first page before that click")
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args()
    roots = {"baseline": args.baseline, "this checkout": ROOT} if args.baseline else {"this checkout": ROOT}
    tmp = Path(mkdtemp(prefix="vitlab-wake-"))
    lines = [f"# wake to /{args.path}: {args.cpu:g} core(s) of quota, {args.memory_mib} MiB; a fresh process and "
             f"browser context per try"]
    print(lines[-1])
    drawn: dict[str, list[float]] = {name: [] for name in roots}
    with ExitStack() as stack, sync_playwright() as p:
        enter = stack.enter_context(cgroup(args.cpu, args.memory_mib * 2**20))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for i in range(args.tries):
            for name, root in roots.items():
                machine = machine_now()
                healthy, titled, done, clicked = wake(browser, root, args.path, enter, tmp / f"{name}-{i}", args.then,
                                                      args.read_s)
                drawn[name].append(done)
                then = "" if clicked is None else f", then /{args.then} drawn {clicked:4.1f} s after the click"
                lines.append(f"{name:>14} try {i + 1}: healthy {healthy:4.1f} s, title {titled:4.1f} s, charts drawn "
                             f"{done:4.1f} s{then} ({machine})")
                print(lines[-1])
        browser.close()
    for name, times in drawn.items():
        lines.append(f"{name:>14}: wake to the first page drawn, median {statistics.median(times):.1f} s")
        print(lines[-1])
    write_table(lines, args.out)


if __name__ == "__main__":
    main()
