"""Shared helpers for tests and scripts that drive a real ``streamlit run`` in headless Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags Chromium keeps trying hosts this machine cannot reach.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

def _pages() -> dict[str, tuple[str, int]]:
    """URL path -> (title, charts on first view) of the home page and the lessons, from the one list of pages."""
    from ui.lesson_list import HOME, LESSONS

    return {page.url_path: (page.title, page.min_charts) for page in (HOME, *LESSONS)}


PAGES = _pages()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(python: str = sys.executable, timeout: float = 60, root: Path = ROOT, env: dict | None = None,
                     script: str = "app.py", on_start=None):
    """Start ``streamlit run app.py`` (or ``script``, of the checkout at ``root``) on a free local port; yield
    (base_url, seconds_to_healthy, process). ``env``: variables to set for it (Streamlit's own options included, as
    ``STREAMLIT_…``); ``on_start(pid)``: called in the new process before it runs Python (to put it in a cgroup)."""
    port = free_port()
    start = time.perf_counter()
    proc = subprocess.Popen([python, "-m", "streamlit", "run", script, "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, **(env or {})},
                            preexec_fn=None if on_start is None else lambda: on_start(os.getpid()))
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.perf_counter() - start > timeout:
                raise RuntimeError(f"streamlit did not start: {proc.stdout.read().decode()[-2000:]}")
            time.sleep(0.1)
        yield url, time.perf_counter() - start, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for_charts(page, minimum: int = 1, timeout: float = 60) -> int:
    """Wait until the Streamlit run is over and at least ``minimum`` Plotly charts have drawn their SVG.
    "Over" means no status widget *and* no stale (fading) element, twice in a row 100 ms apart: a short
    rerun shows no status widget, only elements marked ``data-stale`` while it runs (an accessibility scan
    in that moment sees faded text and reports its contrast)."""
    page.wait_for_selector("[data-testid=stAppViewContainer]", timeout=timeout * 1000)
    deadline = time.perf_counter() + timeout
    quiet = 0
    while time.perf_counter() < deadline:
        running = page.locator("[data-testid=stStatusWidget]").count() + page.locator("[data-stale=true]").count()
        n = page.locator(".js-plotly-plot:has(.main-svg)").count()
        quiet = quiet + 1 if not running and n >= minimum else 0
        if quiet >= 2:
            return n
        page.wait_for_timeout(100)
    raise TimeoutError(f"only {page.locator('.js-plotly-plot:has(.main-svg)').count()} charts drawn after {timeout} s")


def revealed_metric(page, label: str, timeout: float = 180) -> str:
    """On lesson 3: reveal the result on screen (skipping the prediction) and read the metric ``label``."""
    page.get_by_role("button", name="Show the result without predicting").click(timeout=timeout * 1000)
    metric = page.locator("[data-testid=stMetric]", has_text=label)
    metric.wait_for(timeout=timeout * 1000)
    return metric.inner_text()


def require_browser():
    """Return Playwright's ``sync_playwright``, or skip the calling test module when the browser is missing.

    With VITLAB_REQUIRE_BROWSER=1 (as .ci/run sets) a missing browser is an error instead.
    """
    import pytest

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None or not Path(CHROMIUM).exists():
        if os.environ.get("VITLAB_REQUIRE_BROWSER") == "1":
            raise RuntimeError(f"browser tests required but Playwright or {CHROMIUM} is missing")
        pytest.skip("Playwright or Chromium not installed", allow_module_level=True)
    return sync_playwright
