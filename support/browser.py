"""Shared helpers for tests and scripts that drive a real ``streamlit run`` in headless Chromium."""

from __future__ import annotations

import os
import random
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


# Under pytest-xdist (``-n 2``) each worker process draws its ports from a range of its own, below the kernel's
# ephemeral ports (32768 and up): a port one worker found free cannot be taken by the other before its server binds it
XDIST_PORTS = 1000


def free_port() -> int:
    """A local port nothing listens on now. One process alone: the kernel's pick; an xdist worker ``gwN``: one of
    ``20000 + N·1000`` and the next 999."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    candidates = [0]
    if worker.startswith("gw") and worker[2:].isdigit():
        low = 20_000 + XDIST_PORTS * int(worker[2:])
        candidates = random.SystemRandom().sample(range(low, low + XDIST_PORTS), XDIST_PORTS)
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError(f"no free port among {len(candidates)} for xdist worker {worker}")


@contextmanager
def streamlit_server(python: str = sys.executable, timeout: float = 300, root: Path = ROOT, env: dict | None = None,
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


def wait_for_charts(page, minimum: int = 1, timeout: float = 300) -> int:
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


# What a settled page shows, or None while it is not settled: the script has finished its run (stApp's
# data-test-script-state, which Streamlit sets from the run's start to its end, is "notRunning"), no status widget
# ("Running"/"Stop") shows, no element is stale (faded: a rerun is replacing it) or a skeleton, and every chart in
# view has drawn its SVG at its column's width (Plotly draws a chart, then resizes it to the column). The content:
# the app's text, the elements in it and each chart's size; settled() waits until it stops changing.
SETTLED = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  if (document.querySelector('[data-testid=stStatusWidget], [data-stale=true], [data-testid=stSkeleton]')) return null;
  const sizes = [];
  for (const plot of app.querySelectorAll('.js-plotly-plot')) {
    const box = plot.getBoundingClientRect();
    if (!box.width) continue;  // in a closed expander or tab
    const svg = plot.querySelector('.main-svg');
    if (!svg || Math.abs(svg.getBoundingClientRect().width - box.width) > 1) return null;
    sizes.push(Math.round(box.width) + 'x' + Math.round(box.height));
  }
  return [app.querySelectorAll('*').length, sizes.join(','), app.innerText].join('|');
}"""


def settled(page, timeout: float = 300, quiet: float = 0.5) -> None:
    """Wait until the page has settled (``SETTLED``) and its content has stayed the same for ``quiet`` seconds:
    a condition, not a time, so a slow machine makes the wait longer, never too short. ``timeout``: the most it
    waits (then TimeoutError)."""
    deadline = time.monotonic() + timeout
    last, since = None, None
    while True:
        state, now = page.evaluate(SETTLED), time.monotonic()
        if state is None or state != last:
            last, since = state, (None if state is None else now)
        elif now - since >= quiet:
            return
        if now > deadline:
            raise TimeoutError(f"the page did not settle in {timeout} s")
        page.wait_for_timeout(100)


def open_tab(page, tab, timeout: float = 300) -> None:
    """Click the section tab ``tab`` (a locator) and wait until the run it starts has drawn the section and the page
    has settled. A click empties the tab's panel at once; only the new run fills it, so its first element proves the
    run has begun (however long the server takes to start it), and ``settled`` that it is over. An open tab is
    not clicked: it starts no run."""
    if tab.get_attribute("aria-selected") != "true":
        tab.click()
        panel = page.locator(f'[role=tabpanel][aria-labelledby="{tab.get_attribute("id")}"]')
        panel.locator("[data-testid=stElementContainer]").first.wait_for(timeout=timeout * 1000)
    settled(page, timeout)


def click_away(page, button, timeout: float = 300) -> None:
    """Click ``button`` (a locator), one the run it starts replaces (a prediction's *Show ... without predicting*),
    and wait until it is gone and the page has settled: what the run drew, not what was there before the click."""
    name = button.inner_text().strip()
    button.click()
    gone = page.get_by_role("button", name=name, exact=True)
    deadline = time.monotonic() + timeout
    while gone.count():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{name!r} still there after {timeout} s")
        page.wait_for_timeout(100)
    settled(page, timeout)


def revealed_metric(page, label: str, timeout: float = 180) -> str:
    """On lesson 3: reveal the result on screen (skipping the prediction) and read the metric ``label``. A reload
    may find it revealed already: the learner's browser keeps the skip (ui/browser_store.py) and hands it back in a
    rerun, which can replace the button before it is clicked."""
    metric = page.locator("[data-testid=stMetric]", has_text=label)
    skip = page.get_by_role("button", name="Show the result without predicting")
    deadline = time.monotonic() + timeout
    while not metric.count():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {label!r} metric and no way to reveal it in {timeout} s")
        if skip.count():
            try:
                skip.first.click(timeout=5_000)
            except Exception:  # replaced by the rerun that restored the skip: the metric comes with it
                pass
        page.wait_for_timeout(200)
    return metric.first.inner_text()


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
