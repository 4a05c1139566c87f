"""End-to-end: a real ``streamlit run app.py`` in headless Chromium (Debian's), driven by Playwright.

Skipped when Playwright or Chromium is missing, unless VITLAB_REQUIRE_BROWSER=1 (as in .ci/run),
where a missing browser is a failure. Screenshots of every page go to artifacts/screenshots/.
"""

from __future__ import annotations

import re
import time

import pytest

from support.browser import (
    PAGES,
    ROOT,
    click_away,
    open_tab,
    require_browser,
    revealed_metric,
    settled,
    streamlit_server,
    wait_for_charts,
)
from ui.figures.plots import MIN_FONT
from ui.lesson_list import PAGES as LAB_PAGES
from ui.lesson_list import nav_label

pytestmark = pytest.mark.e2e

require_browser()  # skips the module (or fails it, under VITLAB_REQUIRE_BROWSER=1) without a browser
from playwright.sync_api import expect  # noqa: E402  (after the skip above: Playwright may be missing)

# Every wait is on a condition, never on a time (a loaded machine makes a test slower, never red): Playwright's
# expect(locator).to_have_count(n) and locator.wait_for, support.browser.wait_for_charts, and settled() (the
# script's run over and the page's content still). Their limits are minutes, far above any real wait.
SLOW = 300_000  # ms

SHOTS = ROOT / "artifacts" / "screenshots"


# ``browser``: tests/conftest.py's, one headless Chromium per module


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


def open_page(browser, url, width: int = 1400, height: int = 1000, init_script: str | None = None):
    """A fresh context on ``url``, ``init_script`` run before the page's own scripts: (page, its errors)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(SLOW)  # a click or a wait_for without its own limit waits on a slow machine too
    page = context.new_page()
    errors = BrowserErrors(page)
    if init_script:
        page.add_init_script(init_script)
    page.goto(url)
    return page, errors


NAV_LABELS = [nav_label(p) for p in LAB_PAGES]


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_opens_by_its_own_url_on_a_fresh_server_on_a_desktop_and_a_phone(browser, path):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/{path}")
        title, min_charts = PAGES[path]
        page.get_by_role("heading", name=title).first.wait_for(timeout=SLOW)
        n = wait_for_charts(page, min_charts, timeout=300)
        assert n >= min_charts
        settled(page)
        # the navigation is app.py's, from the one list of pages, even for the first visitor coming by a page's link
        links = page.locator("[data-testid=stSidebarNav] a")
        assert [links.nth(i).inner_text().split("\n")[-1] for i in range(links.count())] == NAV_LABELS
        opens_on_a_figure_and_its_control(page, path, 900)  # a 1400 x 900 screen
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []
        for _ in each_section(page, min_charts):
            assert page.evaluate(CLIPPED) == []
            assert page.evaluate(OVERLAPS) == []
            assert page.evaluate(CUT) == []
            assert page.evaluate(STRUCK) == []
            assert serious_accessibility_violations(page) == []
            assert errors.real() == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1400, "height": 4000})
        settled(page)  # the charts redrawn at the new size
        page.screenshot(path=SHOTS / f"{path or 'home'}.png")
        page.context.close()
        reads_on_a_phone(browser, url, path)


# What the first screen (the top ``h`` px of the page) holds: charts with at least 120 px in view, controls
# in view, and anything that gives a result (metrics, tables)
FIRST_SCREEN = """(h) => {
  const main = document.querySelector('[data-testid=stMain]');
  const seen = (el, px) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top < h - px; };
  const controls = '[data-testid=stSlider], [data-testid=stSelectbox], [data-testid=stRadio], '
                 + '[data-testid=stMultiSelect], [data-testid=stPageLink], [data-testid=stForm]';
  return {charts: [...main.querySelectorAll('.js-plotly-plot')].filter(c => seen(c, 120)).length,
          controls: [...main.querySelectorAll(controls)].filter(c => seen(c, 0)).length,
          results: main.querySelectorAll('[data-testid=stMetric], [data-testid=stTable], [data-testid=stDataFrame], table.lab-table').length};
}"""
PREDICT_FIRST = ("ViT_vs_CNN", "Fixing_the_ViT")  # pages whose results wait for the learner's prediction


def opens_on_a_figure_and_its_control(page, path, height):
    first = page.evaluate(FIRST_SCREEN, height)
    assert first["charts"] >= 1 and first["controls"] >= 1, (path, height, first)
    if path in PREDICT_FIRST:
        assert first["results"] == 0, (path, first)  # nothing that answers the prediction before it


def each_section(page, first_charts: int):
    """Open each section tab of the page in turn (the first one last, as the page opened, with its
    ``first_charts`` charts), waiting until it is drawn; a page without sections yields once. Lesson 4 shows
    its sections after the prediction: they are revealed first (after the page as it opened has been seen)."""
    reveal = page.get_by_role("button", name="Show the result without predicting")
    if reveal.count():
        yield None
        click_away(page, reveal)
        wait_for_charts(page, 1, timeout=300)
        first_charts = max(first_charts, 1)
    tabs = page.get_by_role("tab")
    n = tabs.count()
    for i in [*range(1, n), 0] if n else [None]:
        if i is not None:
            open_tab(page, tabs.nth(i))  # the run the click started is over, its output still
            wait_for_charts(page, 1 if i else first_charts, timeout=300)
            reveal_inner_parts(page)
            settled(page)  # Plotly resizes its charts to the column after drawing them
        yield i


# A section's own predictions (What broke the ViT?'s parts 4 and 5): each part is shown by its button, one after
# another, so that the checks see every chart and table of the section
INNER_REVEAL = re.compile(r"^Show .+ without predicting$")


def reveal_inner_parts(page) -> None:
    buttons = page.locator("[role=tabpanel]").get_by_role("button", name=INNER_REVEAL)
    for _ in range(10):
        if not buttons.count():
            return
        click_away(page, buttons.first)
    raise AssertionError("a section's parts kept asking for predictions")


def serious_accessibility_violations(page) -> list[str]:
    """axe-core's scan of the page as drawn: every serious or critical violation, as "rule: where"."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [f"{v['id']}: {v['nodes'][0]['target']} {v['nodes'][0].get('failureSummary', '')[:300]}"
            for v in violations if v["impact"] in ("serious", "critical")]


OVERLAPS = """() => {
  // Any two pieces of text inside one Plotly chart that overlap (cell numbers, patch numbers, subplot titles,
  // bar labels, ticks, legends), any chart text smaller than the lab's minimum (ui.figures.plots.MIN_FONT), and
  // any chart that sticks out of the viewport
  const bad = [];
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const shown = t => {
    if (!t.textContent.trim() || t.closest('.hoverlayer')) return false;
    for (let el = t; el && el.tagName !== 'svg'; el = el.parentElement) {
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') return false;
    }
    const r = t.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const r = plot.getBoundingClientRect();
    if (r.left < -1 || r.right > window.innerWidth + 1) bad.push('chart outside the viewport: ' + r.left + '..' + r.right);
    const labels = [...plot.querySelectorAll('svg text')].filter(shown).map(t => [t.textContent, t.getBoundingClientRect(), t]);
    for (const [text, , t] of labels) {
      const size = parseFloat(getComputedStyle(t).fontSize);
      if (size < MIN_FONT) bad.push(`text too small: "${text}" at ${size}px`);
    }
    for (let i = 0; i < labels.length; i++)
      for (let j = i + 1; j < labels.length; j++)
        if (!labels[i][2].contains(labels[j][2]) && !labels[j][2].contains(labels[i][2]) && hit(labels[i][1], labels[j][1]))
          bad.push('overlap: "' + labels[i][0] + '" / "' + labels[j][0] + '"');
  }
  return bad;
}""".replace("MIN_FONT", str(MIN_FONT))


# Every axis label and title and legend entry of every chart lies inside its chart: the margins are set on
# the server (ui.figures.margins.margin_settings), not grown by Plotly in the browser, so a margin too small would cut
# them off
CLIPPED = """() => {
  const bad = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const box = plot.querySelector('.main-svg')?.getBoundingClientRect();
    if (!box) continue;
    for (const t of plot.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .legendtext')) {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1))
        bad.push(`"${t.textContent}" cut off: ${Math.round(r.left - box.left)},${Math.round(r.top - box.top)} `
                 + `${Math.round(r.width)}x${Math.round(r.height)} in ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
  }
  return bad;
}"""


# No text cut off: a button's, a metric's, a tab's or a widget's label shortened with "…" (Streamlit cuts what does
# not fit its box), no chart text that Plotly clips at its plot area (a mosaic's caption above its tile), and no
# table that hides a row or a column. The tables' rule: every static table (ui.widgets.static_table), st.table and
# st.dataframe shows all of itself in the box that holds it. A box (or anything in it) whose content is wider or taller
# than the box and that clips or scrolls it counts as cut, scroll hint or not (a phone's scroll bars, and headless
# Chromium's, show only while scrolling: a learner sees a table end where the box ends); so does a table that
# sticks out of the page's column.
CUT = """() => {
  const bad = [];
  const column = document.querySelector('[data-testid=stMainBlockContainer]')?.getBoundingClientRect();
  for (const table of document.querySelectorAll('.lab-table-box, [data-testid=stTable], [data-testid=stDataFrame]')) {
    const r = table.getBoundingClientRect();
    if (!r.width) continue;  // in a closed expander or tab
    const name = (table.getAttribute('aria-label') || table.textContent).trim().slice(0, 50);
    if (column && (r.left < column.left - 1 || r.right > column.right + 1))
      bad.push(`table outside the page's column: "${name}" ${Math.round(r.left)}..${Math.round(r.right)}`);
    for (const el of [table, ...table.querySelectorAll('*')]) {
      const cs = getComputedStyle(el);
      const hides = v => ['auto', 'scroll', 'hidden', 'clip'].includes(v);
      if (hides(cs.overflowX) && el.scrollWidth > el.clientWidth + 1)
        bad.push(`table cut: "${name}" shows ${el.clientWidth} of ${el.scrollWidth} px across`);
      if (hides(cs.overflowY) && el.scrollHeight > el.clientHeight + 1)
        bad.push(`table cut: "${name}" shows ${el.clientHeight} of ${el.scrollHeight} px down`);
    }
  }
  const sel = 'button, button *, [data-testid=stMetric] *, [data-testid=stCaptionContainer], [data-testid=stCaptionContainer] *, '
            + '[data-testid=stPageLink] *, [data-testid=stWidgetLabel] *, [role=tab] *, [data-testid=stExpander] summary *';
  for (const el of document.querySelectorAll(sel)) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || !el.textContent.trim()) continue;
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    const clips = ['hidden', 'clip'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis';
    if (clips && el.scrollWidth > el.clientWidth + 1)
      bad.push(`cut: "${el.textContent.trim().slice(0, 50)}" ${el.scrollWidth}>${el.clientWidth}`);
  }
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    for (const sub of plot.querySelectorAll('.nsewdrag')) {
      const box = sub.getBoundingClientRect();
      for (const t of plot.querySelectorAll('.textpoint text')) {
        const r = t.getBoundingClientRect();
        if (!r.width || !t.closest('[clip-path]')) continue;  // only text Plotly clips to the plot area
        if (r.left >= box.left - 1 && r.right <= box.right + 1 && (r.top < box.top - 1 || r.bottom > box.bottom + 1)
            && r.bottom > box.top && r.top < box.bottom)
          bad.push(`chart text clipped: "${t.textContent.slice(0, 40)}" ${Math.round(r.top - box.top)}`);
      }
    }
  }
  return bad;
}"""


# No line through a label inside a chart: an error bar, a trace's line or a line shape (a chance line, a frame)
# crossing a bar's value, an annotation, a cell's or a patch's number strikes it through. Each such path is
# sampled every 2 px along its length, on screen; a sample inside a label's glyphs (its box less a fifth of its
# height above and below, the font's ascent and descent, and 1 px at each side) is a crossing.
STRUCK = """() => {
  const bad = [];
  const drawn = el => {
    for (let e = el; e && e.tagName !== 'svg'; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') return false;
    }
    return true;
  };
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const labels = [];
    for (const t of plot.querySelectorAll('svg text')) {
      if (!t.textContent.trim() || t.closest('.hoverlayer, .legend') || !drawn(t)) continue;
      const r = t.getBoundingClientRect();
      if (!r.width) continue;
      const dy = r.height / 5;
      labels.push([t.textContent.trim(), r.left + 1, r.right - 1, r.top + dy, r.bottom - dy]);
    }
    if (!labels.length) continue;
    const marks = [...plot.querySelectorAll('.errorbar path, .scatterlayer .js-line, .shapelayer path')].filter(m => {
      if (m.closest('.legend') || !drawn(m)) return false;
      const cs = getComputedStyle(m);
      return cs.stroke !== 'none' && parseFloat(cs.strokeWidth) > 0 && parseFloat(cs.strokeOpacity) > 0;
    });
    for (const m of marks) {
      const ctm = m.getScreenCTM(), length = m.getTotalLength();
      if (!ctm || !length) continue;
      const hit = new Set();
      for (let at = 0; at <= length; at += 2) {
        const p = m.getPointAtLength(at).matrixTransform(ctm);
        for (const [text, l, r, t, b] of labels)
          if (p.x > l && p.x < r && p.y > t && p.y < b) hit.add(text);
      }
      const kind = m.closest('.errorbar') ? 'error bar' : m.closest('.shapelayer') ? 'shape' : 'line';
      for (const text of hit) bad.push(`${kind} through "${text.slice(0, 30)}"`);
    }
  }
  return bad;
}"""


def reads_on_a_phone(browser, url, path):
    """A 390 px phone: the sidebar starts closed (it would cover the page), nothing is wider than the screen,
    no chart's labels overlap, and the accessibility scan passes at this size too."""
    page, errors = open_page(browser, f"{url}/{path}", width=390, height=844)
    title, min_charts = PAGES[path]
    page.get_by_role("heading", name=title).first.wait_for(timeout=SLOW)
    wait_for_charts(page, min_charts, timeout=300)
    settled(page)
    opens_on_a_figure_and_its_control(page, path, 844)  # the key controls are in the page, not the closed sidebar
    sidebar = page.locator("[data-testid=stSidebar]")
    assert sidebar.get_attribute("data-collapsed") == "true" and sidebar.bounding_box()["width"] == 0
    widths = page.evaluate("() => [document.documentElement.scrollWidth, "
                           "document.querySelector('[data-testid=stMainBlockContainer]').scrollWidth]")
    assert max(widths) <= 390, widths
    for _ in each_section(page, min_charts):
        widths = page.evaluate("() => [document.documentElement.scrollWidth, "
                               "document.querySelector('[data-testid=stMainBlockContainer]').scrollWidth]")
        assert max(widths) <= 390, widths
        assert page.evaluate(OVERLAPS) == []
        assert page.evaluate(CLIPPED) == []
        assert page.evaluate(CUT) == []
        assert page.evaluate(STRUCK) == []
        assert serious_accessibility_violations(page) == []
        assert errors.real() == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 390, "height": 6000})
    settled(page)
    page.screenshot(path=SHOTS / f"phone_{path or 'home'}.png")
    page.context.close()


def test_a_control_changed_in_the_browser_gives_a_link_that_reopens_it_on_a_fresh_server(browser):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/Patchify")
        wait_for_charts(page, 2)
        page.get_by_role("tab", name="3 · Two embeddings with the same weights").click()
        expect(page.get_by_text("Flatten + Linear: 16×16")).to_have_count(1, timeout=SLOW)
        slider = page.get_by_role("slider", name="Embedding width D")  # moved with the keyboard
        slider.focus()
        slider.press("ArrowRight")
        page.get_by_text("Flatten + Linear: 16×17").wait_for(timeout=SLOW)
        wait_for_charts(page, 3)
        page.wait_for_function("() => location.search.includes('width=17')", timeout=SLOW)  # the link follows
        page.get_by_role("button", name="Link to these settings").click()  # the link box is in a popover
        page.mouse.move(1, 1)  # no hover: a touch screen has none
        # shown without a hover once the popover has opened (a button shown only on hover never is: it times out)
        page.wait_for_function(COPY_BUTTON_SHOWN, timeout=SLOW)
        shown = page.locator("[data-testid=stPopoverBody] [data-testid=stCode]").last.inner_text().strip()
        # the link carries the setting and the open section
        assert "width=17" in shown and "patchify_view=embeddings" in shown and shown.startswith("http"), shown
        assert errors.real() == []
        page.context.close()
    with streamlit_server() as (url, _, _):  # another server, started afresh
        page, errors = open_page(browser, url + "/Patchify" + shown.split("/Patchify", 1)[1])
        wait_for_charts(page, 3)
        expect(page.get_by_text("Flatten + Linear: 16×17")).to_have_count(1, timeout=SLOW)
        assert errors.real() == []


COPY_BUTTON_SHOWN = """() => {
  let el = document.querySelector('[data-testid=stPopoverBody] [data-testid=stCode] button[aria-label="Copy to clipboard"]');
  if (!el) return false;
  for (; el && el.getAttribute('data-testid') !== 'stCode'; el = el.parentElement) {
    const cs = getComputedStyle(el);
    if (cs.opacity === '0' || cs.visibility === 'hidden' || cs.display === 'none') return false;
  }
  return true;
}"""


def test_a_teachers_link_opens_that_experiment_on_a_fresh_server(browser):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/ViT_vs_CNN?n_train=3000")
        page.get_by_role("button", name="Show the result without predicting").click(timeout=300_000)
        metric = page.locator("[data-testid=stMetric]", has_text="ViT (lesson) · test set")
        metric.wait_for(timeout=SLOW)  # exercise 1's setting: shipped with the app
        settled(page)
        from core.engine.results.verdict import verdicts
        from core.lessons.lesson3_vit_vs_cnn import PRESETS
        from core.lessons.shipped import load_fresh_shipped

        shipped = verdicts(load_fresh_shipped()[PRESETS["exercise-1"]])["vit"].interval.mean
        assert f"{shipped:.1%}" in metric.inner_text()
        expect(page.get_by_text("3000 training images at centres 5..10")).to_have_count(1, timeout=SLOW)
        assert errors.real() == []


def test_a_link_run_before_a_restart_opens_at_once_after_it(browser, tmp_path):
    """The run archive (core.engine.storage.archive) across a real restart: the same data folder, a new process."""
    link = "/ViT_vs_CNN?models=CNN&n_train=120&n_test=100&epochs=20&seeds=1"  # a setting nobody has run
    training = "This link names a setting this server has not run yet: training it now."
    env = {"VITLAB_DATA_DIR": str(tmp_path)}
    with streamlit_server(env=env) as (url, _, _):
        page, _ = open_page(browser, url + link)
        page.get_by_role("button", name="Show the result without predicting").wait_for(timeout=SLOW)
        expect(page.get_by_text(training)).to_have_count(1, timeout=SLOW)  # this one trained (the note stays until the next rerun)
        before = revealed_metric(page, "CNN · test set")
    with streamlit_server(env=env) as (url, _, _):  # the server restarted: its memory is gone
        page, errors = open_page(browser, url + link)
        page.get_by_role("button", name="Show the result without predicting").wait_for(timeout=SLOW)
        settled(page)  # the run that opened the page is over: a note it would show is there
        assert page.get_by_text(training).count() == 0
        assert revealed_metric(page, "CNN · test set") == before and errors.real() == []


def test_generalization_live_rerun_shows_progress_then_results(browser):
    # The lesson preset re-run live: long enough (seconds, 6 jobs) for the progress bar to be seen. The
    # wait is on progress, not on wall time: it fails only if the bar stops moving for three minutes, so a busy
    # machine makes the test slower, not red; what the finished run shows is waited for, never assumed there.
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/ViT_vs_CNN")
        page.locator("[data-testid=stRadio]").get_by_text("clearly above chance, clearly below 100 %", exact=True).click(timeout=300_000)  # predicted before the run
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
            assert time.monotonic() - moved < 180, f"no progress for 180 s: {last}"
            page.wait_for_timeout(250)
        assert epochs_seen, "the progress bar never showed an epoch"
        # the Re-run judged it
        expect(page.get_by_text("Your prediction: clearly above chance, clearly below 100 % →")).to_have_count(1, timeout=SLOW)
        expect(page.get_by_role("button", name="Cancel")).to_have_count(0, timeout=SLOW)  # gone with the run it cancelled
        page.locator("table.lab-table:visible").first.wait_for(timeout=SLOW)  # the results' first section
        settled(page)
        open_tab(page, page.get_by_role("tab", name="Accuracy and curves"))
        wait_for_charts(page, 2, timeout=300)  # and their charts, one click away
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []


def test_lesson_4_deep_link_opens_the_selection_from_the_shipped_bench(browser):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/Fixing_the_ViT?bench_models=ViT+%28lesson%29&bench_models=CNN"
                                          "&bench_view=Generalization+maps")
        page.get_by_role("heading", name="Fixing the ViT").first.wait_for(timeout=SLOW)
        page.get_by_role("button", name="Show the result without predicting").click()
        wait_for_charts(page, 1, timeout=300)
        expect(page.get_by_text("2 model(s) × 5 seed(s)")).to_have_count(1, timeout=SLOW)
        expect(page.get_by_text("precomputed and shipped with the app").first).to_be_visible(timeout=SLOW)
        expect(page.get_by_text("One colour scale for every model")).to_have_count(1, timeout=SLOW)
        settled(page)
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []


def test_clicking_a_cell_of_the_map_probes_the_model_there(browser):
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/ViT_vs_CNN?results_view=Look+inside+the+models")
        page.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        page.get_by_text("plus at (3, 3)").first.wait_for(timeout=SLOW)
        wait_for_charts(page, 3, timeout=300)
        settled(page)  # the map drawn at its column's width: the cell is where the box says
        plot = page.locator("[role=tabpanel] .js-plotly-plot").first
        plot.scroll_into_view_if_needed()
        box = plot.locator(".nsewdrag").first.bounding_box()
        # centres 3..12 across the plot area; cy grows downwards: the bottom-right cell is (12, 12)
        x, y = box["x"] + box["width"] * 0.95, box["y"] + box["height"] * 0.95
        page.mouse.move(x, y)  # hover first, as a hand on a mouse does: Plotly picks the point under it
        plot.locator(".hoverlayer .hovertext").first.wait_for(timeout=SLOW)  # and shows it
        page.mouse.click(x, y)
        page.get_by_text("plus at (12, 12)").first.wait_for(timeout=SLOW)
        page.wait_for_function("() => /vc_probe_cx=12/.test(location.search) && /vc_probe_cy=12/.test(location.search)",
                               timeout=SLOW)
        settled(page)
        # another section opened: the probe stays in the link (Streamlit drops a bound widget's parameter in a run
        # that does not draw it: ui.url_state.keep_closed_sections)
        open_tab(page, page.get_by_role("tab", name="Per-seed results"))
        page.wait_for_function("() => !/results_view=/.test(location.search)", timeout=SLOW)  # the first: left out
        search = page.evaluate("location.search")
        assert "vc_probe_cx=12" in search and "vc_probe_cy=12" in search, search
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []
        link = page.evaluate("location.href")
        page.context.close()
        page, errors = open_page(browser, link)  # the link, opened by somebody else
        page.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        page.locator("table.lab-table:visible").first.wait_for(timeout=SLOW)
        settled(page)
        open_tab(page, page.get_by_role("tab", name="Look inside the models"))
        page.get_by_text("plus at (12, 12)").first.wait_for(timeout=SLOW)
        assert errors.real() == []


def test_a_closed_sections_control_stays_in_the_link_and_opens_there_from_it(browser):
    """Page 2 opened with ?perm_kind=shift: opening its second section left the address at ?symmetry_view=change,
    and a link copied then opened with the default permutation."""
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/Permutation_symmetry?perm_kind=shift")
        page.get_by_role("slider", name="Shift right (patches)").wait_for(timeout=SLOW)  # the shift's own controls
        wait_for_charts(page, 1, timeout=300)
        settled(page)
        open_tab(page, page.get_by_role("tab", name="2 · Change one patch"))
        page.wait_for_function("() => /symmetry_view=change/.test(location.search)", timeout=SLOW)
        assert "perm_kind=shift" in page.evaluate("location.search")
        slider = page.get_by_role("slider", name="Patch to brighten (+3 on every pixel)")  # a control of the open one
        slider.focus()
        slider.press("ArrowRight")
        page.wait_for_function("() => /change_patch=1/.test(location.search)", timeout=SLOW)
        settled(page)
        search = page.evaluate("location.search")
        assert "perm_kind=shift" in search and "symmetry_view=change" in search, search
        link = page.evaluate("location.href")
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []
        page.context.close()
        page, errors = open_page(browser, link)  # the link, opened by somebody else
        wait_for_charts(page, 1, timeout=300)
        settled(page)
        assert "perm_kind=shift" in page.evaluate("location.search")
        open_tab(page, page.get_by_role("tab", name="1 · Shuffle the patches"))
        page.get_by_role("slider", name="Shift right (patches)").wait_for(timeout=SLOW)
        expect(page.get_by_role("combobox", name="Permutation")).to_have_value("shift")
        search = page.evaluate("location.search")
        assert "perm_kind=shift" in search and "change_patch=1" in search, search
        assert page.locator("[data-testid=stException]").count() == 0
        assert errors.real() == []


# The time of every change inside the page's body, from its first script on: its content changing, as ui.widgets.preload_plotly counts it: nodes added or removed, text changed. An
# attribute alone (a class or a style toggled after the draw) is not the page changing, and preload_plotly does
# not wait for it (a run of CI saw one 585 ms before the fetch, which a check counting attributes took for a fault)
CHANGES = """
window.__changes = [];
new MutationObserver(records => {
  if (records.some(r => document.body && document.body.contains(r.target))) window.__changes.push(performance.now());
}).observe(document, {subtree: true, childList: true, characterData: true});
"""
PLOTLY_FETCHES = "() => performance.getEntriesByType('resource').filter(e => e.name.includes('/PlotlyChart.'))" \
                 ".map(e => e.startTime)"


def test_a_page_without_a_chart_loads_plotly_once_drawn_and_the_next_pages_charts_use_it(browser):
    # The glossary draws no chart: Plotly's module is fetched only after the page has been still a while
    # (ui.widgets.preload_plotly), once, and the charts of the lesson opened next use that module, not a copy
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/Glossary", init_script=CHANGES)
        deadline = time.monotonic() + 300
        while not page.evaluate(PLOTLY_FETCHES):
            assert time.monotonic() < deadline, "Plotly's module was never preloaded"
            page.wait_for_timeout(100)
        fetched = page.evaluate(PLOTLY_FETCHES)[0]
        before = page.evaluate(f"() => window.__changes.filter(t => t < {fetched})")
        assert page.locator(".js-plotly-plot").count() == 0 and page.get_by_text("Epsilon").count() >= 1
        assert fetched - max(before) >= 600, (fetched, before[-5:])  # after the page stood still (700 ms)
        page.locator("[data-testid=stSidebar]").get_by_role("link", name="1 · Patchify").click()
        wait_for_charts(page, 2, timeout=300)
        assert len(page.evaluate(PLOTLY_FETCHES)) == 1
        assert errors.real() == []
        page.context.close()


def test_a_click_on_the_canvas_draws_a_pixel_and_every_model_answers_it(browser):
    """Lesson 3's *Draw your own*, from a blank canvas in the link: a click on a pixel puts ink there; the
    drawing's place and the link follow at once (the answers come from the same run of the section)."""
    from urllib.parse import parse_qs, quote, urlparse

    import numpy as np

    from core.data import drawing

    blank = drawing.encode(np.zeros((16, 16), np.float32))
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/ViT_vs_CNN?results_view=Draw+your+own&vc_drawing={quote(blank)}")
        page.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        where = page.locator("p", has_text="Centre of mass:")
        where.wait_for(timeout=SLOW)
        settled(page)  # the canvas drawn at its column's width: its pixels are where their boxes say
        expect(where).to_contain_text("no ink")
        # the canvas: the chart with a clickable marker on every pixel (16 x 16), the last one bottom right
        canvas = page.locator(".js-plotly-plot").filter(has=page.locator(".scatterlayer .point")).first
        canvas.scroll_into_view_if_needed()
        box = canvas.locator(".scatterlayer .point").nth(16 * 16 - 1).bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2  # pixel (15, 15)
        page.mouse.move(x, y)  # Plotly picks the point under the pointer on hover, then the click selects it
        canvas.locator(".hoverlayer .hovertext").first.wait_for(timeout=SLOW)
        page.mouse.click(x, y)
        page.get_by_text("Centre of mass: (15, 15)").wait_for(timeout=SLOW)
        settled(page)  # the run the click started is over: the link and the answers are its own
        drawn = drawing.decode(parse_qs(urlparse(page.url).query)["vc_drawing"][0], 16)
        assert drawn[15, 15] == 1 and drawn.sum() == 1
        assert "unseen" in where.inner_text() and page.get_by_role("region", name="Every model's answer to your drawing, every seed").inner_text().count("·") == 6
        assert errors.real() == []
        page.context.close()


# Each time Plotly draws a heatmap it sets its picture's href: counted per chart, from the page's first script on
HEATMAP_DRAWS = """
window.__draws = new Map();
new MutationObserver(records => {
  for (const r of records) {
    const chart = r.target.closest && r.target.closest('.js-plotly-plot');
    if (r.attributeName === 'href' && r.target.tagName === 'image' && chart)
      window.__draws.set(chart, (window.__draws.get(chart) || 0) + 1);
  }
}).observe(document, {subtree: true, attributes: true});
"""


def test_every_chart_is_drawn_once_when_it_arrives(browser):
    """Streamlit's chart theme made Plotly draw every chart twice on arrival (ui.figures.theme): each heatmap of
    *Look inside* (the clickable map, a selectable chart, and the two rollouts over their images) is drawn once."""
    with streamlit_server() as (url, _, _):
        page, errors = open_page(browser, f"{url}/ViT_vs_CNN?results_view=Look+inside+the+models",
                                 init_script=HEATMAP_DRAWS)
        page.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        wait_for_charts(page, 4, timeout=300)  # the split's picture, the map, two rollouts
        settled(page, quiet=1.5)  # every chart drawn at its width, and nothing redrawn for 1.5 s
        draws = page.evaluate("() => [...document.querySelectorAll('[role=tabpanel] .js-plotly-plot')]"
                              ".map(c => [window.__draws.get(c) || 0, c.querySelectorAll('image').length])")
        assert len(draws) == 3 and all(n == heatmaps > 0 for n, heatmaps in draws), draws
        assert errors.real() == []
        page.context.close()
