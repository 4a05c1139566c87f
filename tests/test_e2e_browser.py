"""End-to-end: a real ``streamlit run app.py`` in headless Chromium (Debian's), driven by Playwright.

Skipped when Playwright or Chromium is missing, unless VITLAB_REQUIRE_BROWSER=1 (as in .ci/run),
where a missing browser is a failure. Screenshots of every page go to artifacts/screenshots/.
"""

from __future__ import annotations

import re
import time

import pytest

from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, require_browser, streamlit_server, wait_for_charts

pytestmark = pytest.mark.e2e

sync_playwright = require_browser()

SHOTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


# Opened at /<page>, Streamlit's frontend first probes /<page>/_stcore/health and /host-config, gets 404,
# then finds the server at the root (streamlit/streamlit#7074, open). Those probes are Streamlit's own.
KNOWN_PROBE = re.compile(r"/[A-Za-z_]+/_stcore/(health|host-config)$")


class BrowserErrors(list):
    """Console errors and failed responses, less the known base-path probes."""

    def __init__(self, page):
        super().__init__()
        self.probes = 0
        page.on("console", lambda m: self.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.append(f"page error: {e}"))
        page.on("response", self._response)

    def _response(self, response):
        if response.status >= 400:
            if KNOWN_PROBE.search(response.url):
                self.probes += 1
            else:
                self.append(f"HTTP {response.status} {response.url}")

    def real(self) -> list[str]:
        failed_loads = [e for e in self if e.startswith("Failed to load resource")]
        others = [e for e in self if not e.startswith("Failed to load resource")]
        return others + failed_loads[self.probes:]


def open_page(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = BrowserErrors(page)
    page.goto(url)
    return page, errors


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_opens_by_its_own_url_on_a_fresh_server(browser, path):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/{path}")
        title, min_charts = PAGES[path]
        page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
        n = wait_for_charts(page, min_charts, timeout=120)
        assert n >= min_charts
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1400, "height": 4000})
        page.wait_for_timeout(500)
        page.screenshot(path=SHOTS / f"{path or 'home'}.png")
        page.context.close()


def test_a_slider_moved_with_the_keyboard_changes_a_chart(browser):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/Patchify")
        wait_for_charts(page, 7)
        title = page.locator(".js-plotly-plot .gtitle", has_text=re.compile(r"Flatten \+ Linear"))
        assert "16×16" in title.first.text_content()
        slider = page.get_by_role("slider", name="Embedding width D")
        slider.focus()
        slider.press("ArrowRight")
        page.wait_for_function("() => [...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('16×17'))",
                               timeout=30_000)
        assert errors.real() == []


def test_generalization_live_rerun_shows_progress_then_results(browser):
    # The lesson preset re-run live: long enough (seconds, 6 jobs) for the progress bar to be seen. The
    # wait is on progress, not on wall time: it fails only if the bar stops moving for a minute, so a busy
    # machine makes the test slower, not red.
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/ViT_vs_CNN")
        wait_for_charts(page, 7, timeout=300)
        page.get_by_role("button", name="Re-run this setting live").click()
        bar = page.locator("[data-testid=stProgress]").first
        bar.wait_for(timeout=300_000)
        done = page.get_by_text("trained on this server")
        last, moved, epochs_seen = None, time.monotonic(), False
        while not done.count():
            text = page.locator("[data-testid=stProgress]").all_inner_texts()
            if text != last:
                last, moved = text, time.monotonic()
                epochs_seen |= any("epoch" in t for t in text)
            assert time.monotonic() - moved < 60, f"no progress for 60 s: {last}"
            page.wait_for_timeout(250)
        assert epochs_seen, "the progress bar never showed an epoch"
        wait_for_charts(page, 7, timeout=300)
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []
