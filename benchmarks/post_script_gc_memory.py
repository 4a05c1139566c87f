"""The server's memory with and without Streamlit's full garbage collection after every script run.

    python -m benchmarks.post_script_gc_memory          # 4 rounds of every page, each setting

``.streamlit/config.toml`` turns ``runner.postScriptGC`` off (a full collection after every run cost the
server CPU on every first draw and rerun). This checks what that costs in memory: a fresh server with each
setting, every page opened in a fresh browser context, four rounds; the resident memory of the server and
its workers after each round. (The lesson page starts two training workers a few seconds after it opens,
~0.2 GiB each, which end after 30 s idle: the rounds go up and down with them, equally for both settings.)
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request

from playwright.sync_api import sync_playwright

from core.engine.setting.machine import tree_rss
from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, free_port, wait_for_charts


def rounds(gc_after_runs: bool, n: int = 4) -> list[float]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--runner.postScriptGC", str(gc_after_runs).lower()],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        out = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(n):
                for path, (_, charts) in PAGES.items():
                    context = browser.new_context()
                    page = context.new_page()
                    page.goto(f"{url}/{path}")
                    wait_for_charts(page, charts, timeout=120)
                    context.close()
                out.append(tree_rss(proc.pid) / 2**20)
        return out
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    for setting in (False, True):
        mib = rounds(setting)
        print(f"postScriptGC={str(setting).lower():<5}  server + workers after each round: "
              f"{', '.join(f'{m:.0f}' for m in mib)} MiB", flush=True)


if __name__ == "__main__":
    main()
