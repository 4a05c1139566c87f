"""What the learner waits for in the browser, measured: first draw, a control change, Run → results.

    python -m benchmarks.browser_latency              # 5 tries of everything (about 10 minutes here)
    python -m benchmarks.browser_latency --tries 7 --only first_draw control

One freshly started ``streamlit run app.py``, headless Chromium (Debian's), each figure the median of
``--tries`` tries, the machine's load and speed (``harness.machine_now``) printed beside it. A wait ends when the page is *done*:
Streamlit's run is over and nothing in the page's main area has changed for ``QUIET`` seconds; the time
reported is up to the **last change**, found by a MutationObserver over the main area (every chart's SVG,
every number and text), so "every affected chart redrawn" is measured, not guessed.

- first draw: a fresh browser context opens the page by its own URL: from the navigation's start to the
  last change in the main area, the observer installed before the page's own scripts run (so none of the
  harness's own polling is counted).
- first draw from home: the home page opened and read for ``READ`` seconds, then a lesson's link in the
  sidebar clicked: from the click's input event to the lesson drawn (the usual way in; Streamlit switches
  pages inside the same document, so the home page's preloaded Plotly module is already there).
- first charts: a section whose charts a page keeps out of its first view (ViT vs CNN's results open on
  their table), clicked in a freshly opened page after ``READ`` seconds: from the click's input event to its
  charts drawn. A page's first chart needs Plotly's 4.7 MB module, which the pages load once drawn
  (``ui.widgets.preload_plotly``); a learner who clicks sooner waits for it.
- control change: three typical controls per page, each moved once from the keyboard or by a click: from
  the input event the page receives to the last change on the page. The section tab showing what the
  control changes is opened first, and a select box's menu is opened before the clock starts (the wait
  begins when the learner picks an option).
- Run → results: the tiny preset through the form, and the lesson preset re-run live, each in a page opened
  afresh and read for ``READ`` seconds (so are the live curve's re-runs below): from the click's
  input event to the results drawn; beside them the engine time of the same config from the command line (``python -m core generalization
  --json``, the ``seconds`` it reports), and the difference; and the engine's own time in the page (the
  "in N s" it prints, measured while the page drew live curves) over the command line's: what the whole page
  in a browser on the same cores costs the training.
- the live curve's own cost: the same setting re-run in the page with the live curve and without it (the
  learner's switch: only the progress bar, no test evaluations during training), the two in alternating
  order, the browser drawing the page both times; their engine times and the ratio.

``--only fresh`` measures a section's first click on a server started afresh for each try (the click that
finds nothing of the run rebuilt yet), after the results are revealed and read.

``--only curve --tries 12`` measures the live curve's cost alone, for the lesson (many pairs: one pair
swings by ±30 % on this machine).

``--baseline DIR`` runs a second server from another checkout (say, ``git worktree add /tmp/before
<commit>``) and alternates every try between the two, so both see the same machine load; it prints both
medians and their ratio. ``--json FILE`` writes the medians (tests/test_browser_latency.py reads them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from benchmarks.harness import machine_now
from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, streamlit_server
from ui.lesson_list import LESSONS

QUIET = 0.6  # seconds without any change in the page's main area: the page is done
# Installed before any of the page's own scripts run, so the last change is timed wherever it falls: the
# time of the latest mutation inside the main area (milliseconds since the navigation started). One observer
# watches the main area alone and only stamps the time; a second one, on the document's element tree (no
# attributes), finds the main area when it appears (and again, were it replaced). Watching every attribute
# of the whole document would cost the page's main thread time of its own: the harness's, not the page's.
WATCH = """
window.__last = 0;
(() => {
  const stamp = () => { window.__last = performance.now(); };
  let main = null;
  new MutationObserver(() => {
    if (main !== null && main.isConnected) return;
    main = document.querySelector('[data-testid=stMain]');
    if (main === null) return;
    new MutationObserver(stamp).observe(main, {subtree: true, childList: true, attributes: true, characterData: true});
    stamp();
  }).observe(document, {subtree: true, childList: true});
})();
"""
# The page has drawn its title and its first view's charts, and no element still waits for its module (a
# skeleton: an older checkout measured with --baseline may draw more charts than this one's count). One cheap
# query, polled from here, rather than Playwright's role selector, which computes accessible names over the
# whole page on its main thread.
DRAWN = """([title, charts]) => [...document.querySelectorAll('h1')].some(h => h.textContent.includes(title))
  && [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.querySelector('.main-svg')).length >= charts
  && !document.querySelector('[data-testid=stSkeleton]')"""


def settle(page, t0: float, timeout: float = 300) -> float:
    """Seconds from ``t0`` (the page's performance.now(), ms) to the last change, once the page is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # a skeleton stands in for an element whose module is still loading (Plotly's, say): not done
        running = page.locator("[data-testid=stStatusWidget], [data-testid=stSkeleton]").count()
        changed, quiet = page.evaluate(f"() => [window.__last > {t0}, performance.now() - window.__last]")
        if changed and not running and quiet > QUIET * 1000:
            return (page.evaluate("() => window.__last") - t0) / 1000
        page.wait_for_timeout(50)
    raise TimeoutError("the page never settled")


# The clock starts at the learner's input event (the first pointerdown or keydown the page receives), not
# when Playwright is asked to act: a Playwright click first scrolls, waits for the element to hold still
# over two animation frames and hit-tests it, 20-70 ms here that no learner waits for.
ARM_INPUT = """() => {
  window.__input = null;
  const mark = () => { if (window.__input === null) window.__input = performance.now(); };
  for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, mark, {capture: true, once: true});
  return performance.now();
}"""


def after_input(page, act) -> float:
    """Do ``act(page)`` and return the seconds from its input event to the page's last change, once done."""
    t0 = page.evaluate(ARM_INPUT)
    act(page)
    seconds = settle(page, t0)
    return seconds - (page.evaluate("() => window.__input") - t0) / 1000


def open_done(browser, url: str, path: str, query: str = "") -> tuple[object, float]:
    """A fresh context on ``url/path?query``: (page, seconds from the navigation's start to the page done)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(WATCH)
    page.goto(f"{url}/{path}" + (f"?{query}" if query else ""), wait_until="commit")
    deadline = time.monotonic() + 300
    while True:
        try:
            if page.evaluate(DRAWN, list(PAGES[path])):
                break
        except PlaywrightError:  # the document was still being replaced
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"/{path} never drew its title and charts")
        time.sleep(0.1)
    return page, settle(page, 0.0)


def report(what: str, times: dict[str, list[float]], out: dict[str, dict[str, float]]) -> None:
    """Print one line per measurement: each side's median (and tries), and now/before when both ran."""
    medians = {side: statistics.median(t) for side, t in times.items()}
    for side, m in medians.items():
        out.setdefault(side, {})[what] = m
    unit = "x" if " / " in what else "s"  # a ratio, or seconds
    line = "   ".join(f"{side} {m:5.2f} {unit} ({', '.join(f'{t:.2f}' for t in times[side])})"
                      for side, m in medians.items())
    ratio = ""
    if len(medians) == 2:  # a zero: the baseline had nothing to wait for (first_charts: drawn with its page)
        ratio = f"   now/before {medians['now'] / medians['before']:.2f}" if medians["before"] else "   now/before —"
    print(f"{what:<48} {line}{ratio}   [{machine_now()}]", flush=True)


def first_draw(browser, sides, tries: int, out) -> None:
    for path in PAGES:
        times: dict[str, list[float]] = {side: [] for side, _, _ in sides}
        for _ in range(tries):
            for side, url, _ in sides:
                page, seconds = open_done(browser, url, path)
                times[side].append(seconds)
                page.context.close()
        report(f"first draw /{path}", times, out)
    from_home(browser, sides, tries, out)
    first_charts(browser, sides, tries, out)


# Sections whose charts a page keeps out of its first view (ViT vs CNN's results open on their table): the
# learner's first click on one makes the browser load Plotly's module, which the first draw no longer did
CHART_SECTIONS = {"ViT_vs_CNN": ("Accuracy and curves", 2)}


# A learner reads a page before pressing a button on it: the benchmark waits this long after the page is done
# before the first click of a Run or of a section (the pages load Plotly's module in that time, ui.widgets.
# preload_plotly, as they start the training workers). Controls are timed on pages already open longer.
READ = 3.0


def read(page) -> None:
    page.wait_for_timeout(READ * 1000)


def open_and_read(browser, url: str, path: str):
    """A page opened afresh, its prediction skipped (lessons 3 and 4, untimed), read for ``READ`` seconds."""
    page, _ = open_done(browser, url, path)
    reveal(page)
    read(page)
    return page


def first_charts(browser, sides, tries: int, out) -> None:
    """A freshly opened page, read, its chart section clicked: seconds from the click to its charts drawn."""
    for path, (label, charts) in CHART_SECTIONS.items():
        times: dict[str, list[float]] = {side: [] for side, _, _ in sides}
        for _ in range(tries):
            for side, url, _ in sides:
                page = open_and_read(browser, url, path)
                tab = page.get_by_role("tab", name=label)
                if tab.get_attribute("aria-selected") == "true":  # a checkout that draws it on the first view
                    times[side].append(0.0)
                else:
                    def act(page, tab=tab, charts=charts):
                        tab.click()
                        page.wait_for_function(f"() => document.querySelectorAll("
                                               f"'[role=tabpanel] .js-plotly-plot .main-svg').length >= {charts}")
                    times[side].append(after_input(page, act))
                page.context.close()
        report(f"first charts /{path} · {label}", times, out)


def from_home(browser, sides, tries: int, out) -> None:
    """The learner's usual way in: the home page opened and read, then a lesson's link in the sidebar clicked.
    Seconds from the click to the lesson drawn (its title, its first view's charts, then still): Streamlit
    switches pages inside the same document, so what the home page loaded (Plotly's module) stays loaded."""
    for number, lesson in enumerate(LESSONS, start=1):
        title, charts = PAGES[lesson.url_path]
        times: dict[str, list[float]] = {side: [] for side, _, _ in sides}
        for _ in range(tries):
            for side, url, _ in sides:
                page, _ = open_done(browser, url, "")
                read(page)
                link = page.locator("[data-testid=stSidebar]").get_by_role("link", name=f"{number} · {lesson.title}")

                def act(page, link=link, title=title, charts=charts):
                    link.click()
                    page.wait_for_function(DRAWN, arg=[title, charts])
                times[side].append(after_input(page, act))
                page.context.close()
        report(f"first draw from home /{lesson.url_path}", times, out)


def _slider(label: str, key: str):
    def act(page):
        s = page.get_by_role("slider", name=label)
        s.focus()
        s.press(key)
    return act


def _radio(label: str):
    return lambda page: page.get_by_text(label, exact=True).first.click()


def _step(label: str, direction: str):
    """A number box's + or − button (the value is committed at once, as a learner's tap does)."""
    test_id = "stNumberInputStepUp" if direction == "up" else "stNumberInputStepDown"
    return lambda page: (page.locator("[data-testid=stNumberInput]", has=page.get_by_label(label))
                         .locator(f"[data-testid={test_id}]").click())


def _select(label: str, option: str):
    """Choosing an option: the menu is opened first, untimed (the learner's wait starts at their choice)."""
    def act(page):
        page.get_by_role("option", name=option, exact=True).click()
    act.prepare = lambda page: page.get_by_role("combobox", name=label).click()
    return act


def _pixel(x: int, y: int, size: int = 16):
    """A click on pixel (x, y) of the *Draw your own* canvas (the chart with a marker on every pixel): ink on, and
    the same click again takes it off. The pointer is moved there first, untimed (Plotly picks a point on hover)."""
    def point(page) -> tuple[float, float]:
        canvas = page.locator(".js-plotly-plot").filter(has=page.locator(".scatterlayer .point")).first
        box = canvas.locator(".scatterlayer .point").nth(y * size + x).bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def act(page):
        page.mouse.click(*point(page))

    def prepare(page):
        page.mouse.move(*point(page))
        page.wait_for_timeout(300)

    act.prepare = prepare
    return act


# Three typical controls per page: the section tab that shows what they change (opened first, untimed),
# and a pair of actions (there, and back again: every try is a change)
CONTROLS = {
    "Patchify": {
        "embedding width": ("3 · Two embeddings with the same weights",
                            _slider("Embedding width D", "ArrowRight"), _slider("Embedding width D", "ArrowLeft")),
        "precision": ("3 · Two embeddings with the same weights", _radio("float32"), _radio("float64")),
        "patch to follow": ("1 · The image and its patch grid",
                            _slider("Patch to follow", "ArrowRight"), _slider("Patch to follow", "ArrowLeft")),
        # heavy: a new image size changes every chart and the patch sliders' ranges
        "image size": ("1 · The image and its patch grid", _slider("Image size (H = W, pixels)", "ArrowRight"),
                       _slider("Image size (H = W, pixels)", "ArrowLeft")),
    },
    "Permutation_symmetry": {
        "positional encoding": ("1 · Shuffle the patches", _select("Positional encoding", "sincos"),
                                _select("Positional encoding", "learned")),
        "patch to brighten": ("2 · Change one patch",
                              _slider("Patch to brighten (+3 on every pixel)", "ArrowRight"),
                              _slider("Patch to brighten (+3 on every pixel)", "ArrowLeft")),
        "bright patch case": ("3 · Where does the class token look?", _radio("Bright patch near the middle"),
                              _radio("Bright patch at top left")),
        # heavy: a new model (every number and chart of the section, 100 random permutations), a seed never
        # drawn before at each try (nothing cached); then a new random permutation at each try
        "weight seed": ("1 · Shuffle the patches", _step("Weight seed (13 = the reference ViT's)", "up"),
                        _step("Weight seed (13 = the reference ViT's)", "up")),
        "random permutation": ("1 · Shuffle the patches", _step("Permutation seed", "up"), _step("Permutation seed", "up")),
    },
    "ViT_vs_CNN": {  # the probe inside the shipped lesson's trained models
        "probe centre": ("Look inside the models", _slider("Centre cx", "ArrowRight"), _slider("Centre cx", "ArrowLeft")),
        # a learner's own input: one pixel, then every model's answer, the logit lens and the maps redrawn
        "draw a pixel": ("Draw your own", _pixel(15, 15), _pixel(15, 15)),
    },
}
# Pages whose results wait for the learner's prediction: the benchmark skips it (the button), untimed
REVEAL = re.compile("^Show (them|the result) without predicting$")


def reveal(page) -> None:
    button = page.get_by_role("button", name=REVEAL)
    if button.count():
        t0 = page.evaluate("() => performance.now()")
        button.click()
        settle(page, t0)


def open_section(page, label: str) -> None:
    """Click the section's tab, if the page has one (a checkout from before the sections draws them all)."""
    tab = page.get_by_role("tab", name=label)
    if tab.count():
        t0 = page.evaluate("() => performance.now()")
        tab.click()
        settle(page, t0)


# Query strings the pages are opened with for their controls: the random permutation's seed is on screen
QUERY = {"Permutation_symmetry": "perm_kind=random"}


ONLY_PAGES: list[str] = []  # --page: measure controls and tabs on these pages only


def control_change(browser, sides, tries: int, out) -> None:
    for path, controls in CONTROLS.items():
        if ONLY_PAGES and path not in ONLY_PAGES:
            continue
        pages = {side: open_done(browser, url, path, QUERY.get(path, ""))[0] for side, url, _ in sides}
        for page in pages.values():
            reveal(page)
        for name, (section, there, back) in controls.items():
            for page in pages.values():
                open_section(page, section)
            times: dict[str, list[float]] = {side: [] for side in pages}
            for i in range(tries):
                for side, page in pages.items():
                    action = there if i % 2 == 0 else back
                    if hasattr(action, "prepare"):
                        action.prepare(page)
                    times[side].append(after_input(page, action))
            report(f"control /{path} · {name}", times, out)
        for page in pages.values():
            page.context.close()


def tab_switch(browser, sides, tries: int, out) -> None:
    """Each section tab's first open, in a page opened afresh and read: from the click to the section drawn.
    The sections of lessons 3 and 4 after skipping the prediction (untimed)."""
    for path in PAGES:
        if ONLY_PAGES and path not in ONLY_PAGES:
            continue
        page, _ = open_done(browser, sides[0][1], path)
        reveal(page)
        names = page.get_by_role("tab").all_inner_texts()
        page.context.close()
        for name in names[1:]:
            times: dict[str, list[float]] = {side: [] for side, _, _ in sides}
            for _ in range(tries):
                for side, url, _ in sides:
                    page = open_and_read(browser, url, path)
                    times[side].append(after_input(page, lambda page, name=name: page.get_by_role("tab", name=name).click()))
                    page.context.close()
            report(f"tab /{path} · {name}", times, out)


# The sections whose first click needs the run's trained models rebuilt (ui.look_inside.load_models_ahead), on
# the page with the most of them (lesson 4's bench: 80)
FRESH_TABS = {"Fixing_the_ViT": ("Look inside the models", "Draw your own")}


def fresh_server(browser, sides, tries: int, out) -> None:
    """On a server started afresh for every try: the results revealed (the prediction skipped: from the click to
    the results drawn), read for ``READ`` seconds, then a section's first click ever on that server (nothing of
    the run rebuilt yet, unless the page did it while the learner read)."""
    for path, tabs in FRESH_TABS.items():
        for name in tabs:
            shown: dict[str, list[float]] = {side: [] for side, _, _ in sides}
            times: dict[str, list[float]] = {side: [] for side, _, _ in sides}
            for _ in range(tries):
                for side, _, root in sides:
                    with streamlit_server(root=root) as (url, _, _):
                        page, _ = open_done(browser, url, path)
                        read(page)
                        shown[side].append(after_input(page, lambda page: page.get_by_role("button", name=REVEAL).click()))
                        read(page)
                        times[side].append(after_input(page, lambda page, name=name: page.get_by_role("tab", name=name).click()))
                        page.context.close()
            report(f"fresh server /{path} · results shown", shown, out)
            report(f"fresh server /{path} · {name}", times, out)


def engine_seconds(root, preset: str, *options: str) -> float:
    """The command line's engine time for a config (what ``run`` reports), trained afresh."""
    p = subprocess.run([sys.executable, "-m", "core", "generalization", "--preset", preset, *options, "--json"],
                       cwd=root, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["seconds"]


def run_once(browser, url: str, name: str, i: int) -> tuple[float, float, str]:
    """(seconds from the click to the results drawn, the engine's own seconds as the page reports them: the
    training time while the page drew its live curves, the page's query string: its setting)."""
    page, _ = open_done(browser, url, "ViT_vs_CNN")
    read(page)
    if name == "tiny":
        # the tiny preset with 10 more epochs each try: a config the server has not run (no store hit)
        page.get_by_role("button", name="tiny", exact=True).click()
        settle(page, page.evaluate("() => performance.now()"))
        slider = page.get_by_role("slider", name="Epochs (full-batch Adam steps)")
        slider.focus()
        for _ in range(i + 1):
            slider.press("ArrowRight")
        button = page.get_by_role("button", name="Run", exact=True)
    else:
        button = page.get_by_role("button", name="Re-run this setting live")

    def run_and_wait(page) -> None:
        button.click()
        page.get_by_text("trained on this server").first.wait_for(timeout=300_000)

    seconds = after_input(page, run_and_wait)
    engine, query = engine_in_page(page), urlsplit(page.url).query
    page.context.close()
    return seconds, engine, query


def engine_in_page(page) -> float:
    """The engine's own seconds, as the page reports them under its results."""
    caption = page.get_by_text("trained on this server").first.inner_text()
    return float(re.search(r"trained on this server, in ([\d.]+) s", caption).group(1))


def rerun_engine(browser, url: str, query: str, curve: bool) -> float:
    """Open the page with ``query`` (a setting this server has run) and the live curve on or off, press
    "Re-run this setting live", and return the engine's seconds the page reports."""
    query = query if curve else "&".join(filter(None, (query, "live_curve=false")))
    page, _ = open_done(browser, url, "ViT_vs_CNN", query)
    read(page)
    page.get_by_role("button", name="Re-run this setting live").click()
    page.get_by_text("trained on this server").first.wait_for(timeout=300_000)
    settle(page, 0.0)
    engine = engine_in_page(page)
    page.context.close()
    return engine


def run_to_results(browser, sides, tries: int, out) -> None:
    for name in ("tiny", "lesson"):
        times: dict[str, list[float]] = {side: [] for side, _, _ in sides}
        engine: dict[str, list[float]] = {side: [] for side, _, _ in sides}
        in_page: dict[str, list[float]] = {side: [] for side, _, _ in sides}
        curve = curve_pairs(sides)
        for i in range(tries):
            for side, url, root in sides:
                seconds, live, query = run_once(browser, url, name, i)
                times[side].append(seconds)
                in_page[side].append(live)
                options = ("--epochs", str(150 + 10 * (i + 1))) if name == "tiny" else ()
                engine[side].append(engine_seconds(root, name, *options))
                rerun_pair(browser, url, query, i, curve[side])
        report(f"Run → results · {name}", times, out)
        report(f"engine (CLI) · {name}", engine, out)
        extra = {side: [t - e for t, e in zip(times[side], engine[side], strict=True)] for side in times}
        report(f"Run → results over the engine · {name}", extra, out)
        # What the whole page in a browser on the same cores costs the training: its engine time / the CLI's
        report(f"engine in the page, live curves · {name}", in_page, out)
        slowdown = {side: [p / e for p, e in zip(in_page[side], engine[side], strict=True)] for side in times}
        report(f"engine in the page / engine (CLI) · {name}", slowdown, out)
        report_curve(curve, name, out)


def curve_pairs(sides) -> dict[str, dict[bool, list[float]]]:
    """Per side, the engine times of re-runs with the live curve (True) and without it (False)."""
    return {side: {True: [], False: []} for side, _, _ in sides}


def rerun_pair(browser, url: str, query: str, i: int, pairs: dict[bool, list[float]]) -> None:
    """The live curve's own cost, one pair: the same setting re-run in the page with the curve and without it
    (only the bar), in an order that alternates with the try ``i``, the browser drawing the page both times."""
    for on in (True, False) if i % 2 == 0 else (False, True):
        pairs[on].append(rerun_engine(browser, url, query, on))


def report_curve(curve: dict[str, dict[bool, list[float]]], name: str, out) -> None:
    report(f"re-run in the page with the live curve · {name}", {side: c[True] for side, c in curve.items()}, out)
    report(f"re-run in the page without it (bar only) · {name}", {side: c[False] for side, c in curve.items()}, out)
    cost = {side: [a / b for a, b in zip(c[True], c[False], strict=True)] for side, c in curve.items()}
    report(f"live curve: with / without · {name}", cost, out)


def live_curve_cost(browser, sides, tries: int, out) -> None:
    """Only the live curve's own cost, for the lesson preset: ``tries`` pairs of re-runs with the curve and
    without it (``--only curve --tries 12``: this machine's noise needs many pairs)."""
    curve = curve_pairs(sides)
    for i in range(tries):
        for side, url, _ in sides:
            rerun_pair(browser, url, "", i, curve[side])
    report_curve(curve, "lesson, curve alone", out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=5)
    ap.add_argument("--only", nargs="*", choices=["first_draw", "control", "tabs", "fresh", "run", "curve"],
                    default=["first_draw", "control", "tabs", "run"],
                    help="curve: only the live curve's cost, the lesson re-run with it and without; fresh: a "
                         "section's first click on a freshly started server (neither by default)")
    ap.add_argument("--page", nargs="*", default=[], help="controls and tabs of these pages only (their URL paths)")
    ap.add_argument("--json", help="write the medians to this file")
    ap.add_argument("--baseline", type=Path, help="another checkout to measure alongside, try for try")
    args = ap.parse_args()
    ONLY_PAGES[:] = args.page
    out: dict[str, dict[str, float]] = {}
    with ExitStack() as stack:
        sides = []
        for side, root in (("before", args.baseline), ("now", ROOT)) if args.baseline else (("now", ROOT),):
            url, startup, _ = stack.enter_context(streamlit_server(root=root))
            sides.append((side, url, root))
            print(f"{side}: {root}, server healthy after {startup:.1f} s")
        print(f"{os.cpu_count()} CPUs; {machine_now()}")
        p = stack.enter_context(sync_playwright())
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for part, measure in (("first_draw", first_draw), ("control", control_change), ("tabs", tab_switch),
                              ("fresh", fresh_server),
                              ("run", run_to_results),
                              ("curve", live_curve_cost)):
            if part in args.only:
                measure(browser, sides, args.tries, out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load": os.getloadavg(), "medians": out["now"], **({"before": out["before"]} if args.baseline
                                                                           else {})}, f, indent=1)


if __name__ == "__main__":
    main()
