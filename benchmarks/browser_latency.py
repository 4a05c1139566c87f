"""What the learner waits for in the browser, measured: first draw, a control change, Run → results.

    python -m benchmarks.browser_latency              # 5 tries of everything (about 10 minutes here)
    python -m benchmarks.browser_latency --tries 7 --only first_draw control

One freshly started ``streamlit run app.py``, headless Chromium (Debian's), each figure the median of
``--tries`` tries, the machine's load average printed beside it. A wait ends when the page is *done*:
Streamlit's run is over and nothing in the page's main area has changed for ``QUIET`` seconds; the time
reported is up to the **last change**, found by a MutationObserver over the main area (every chart's SVG,
every number and text), so "every affected chart redrawn" is measured, not guessed.

- first draw: a fresh browser context opens the page by its own URL → the page is done.
- control change: three typical controls per page, each moved once from the keyboard or by a click →
  the last change on the page.
- Run → results: the tiny preset through the form, and the lesson preset re-run live → results drawn;
  beside them the engine time of the same config from the command line (``python -m core generalization
  --json``, the ``seconds`` it reports), and the difference.

``--json FILE`` also writes the medians (tests/test_browser_latency.py reads them to guard the targets).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from playwright.sync_api import sync_playwright

from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, streamlit_server, wait_for_charts

QUIET = 0.6  # seconds without any change in the page's main area: the page is done
OBSERVE = """() => {
  window.__last = performance.now();
  const main = document.querySelector('[data-testid=stMain]');
  new MutationObserver(() => { window.__last = performance.now(); })
    .observe(main, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def settle(page, t0: float, timeout: float = 300) -> float:
    """Seconds from ``t0`` (the page's performance.now(), ms) to the last change, once the page is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = page.locator("[data-testid=stStatusWidget]").count()
        quiet = page.evaluate("() => performance.now() - window.__last")
        if not running and quiet > QUIET * 1000:
            return (page.evaluate("() => window.__last") - t0) / 1000
        page.wait_for_timeout(50)
    raise TimeoutError("the page never settled")


def open_done(browser, url: str, path: str) -> tuple[object, float]:
    """A fresh context on ``url/path``: (page, seconds to done)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script("window.__t0 = performance.now();")
    page.goto(f"{url}/{path}", wait_until="commit")
    title, charts = PAGES[path]
    page.get_by_role("heading", name=title).first.wait_for(timeout=120_000)
    wait_for_charts(page, charts, timeout=300)
    page.evaluate(OBSERVE)
    return page, settle(page, page.evaluate("() => window.__t0"))


def first_draw(browser, url: str, tries: int) -> dict[str, float]:
    out = {}
    for path in PAGES:
        times = []
        for _ in range(tries):
            page, seconds = open_done(browser, url, path)
            times.append(seconds)
            page.context.close()
        out[f"/{path}"] = statistics.median(times)
        print(f"first draw  /{path:<22} {out[f'/{path}']:5.2f} s   (tries {', '.join(f'{t:.2f}' for t in times)}; {load()})")
    return out


def _slider(label: str, key: str):
    def act(page):
        s = page.get_by_role("slider", name=label)
        s.focus()
        s.press(key)
    return act


def _radio(label: str):
    return lambda page: page.get_by_text(label, exact=True).first.click()


def _select(label: str, option: str):
    def act(page):
        page.get_by_role("combobox", name=label).click()
        page.get_by_role("option", name=option).click()
    return act


# Three typical controls per page, each a pair of actions (there, and back again: every try is a change)
CONTROLS = {
    "Patchify": {
        "embedding width": (_slider("Embedding width D", "ArrowRight"), _slider("Embedding width D", "ArrowLeft")),
        "precision": (_radio("float32"), _radio("float64")),
        "patch to follow": (_slider("Patch to follow", "ArrowRight"), _slider("Patch to follow", "ArrowLeft")),
    },
    "Permutation_symmetry": {
        "positional encoding": (_select("Positional encoding", "sincos"), _select("Positional encoding", "learned")),
        "patch to brighten": (_slider("Patch to brighten (+3 on every pixel, as the seed)", "ArrowRight"),
                              _slider("Patch to brighten (+3 on every pixel, as the seed)", "ArrowLeft")),
        "bright patch case": (_radio("Bright patch at top left"), _radio("Bright patch near the middle")),
    },
}


def control_change(browser, url: str, tries: int) -> dict[str, float]:
    out = {}
    for path, controls in CONTROLS.items():
        page, _ = open_done(browser, url, path)
        for name, (there, back) in controls.items():
            times = []
            for i in range(tries):
                t0 = page.evaluate("() => performance.now()")
                (there if i % 2 == 0 else back)(page)
                times.append(settle(page, t0))
            out[f"/{path} · {name}"] = statistics.median(times)
            print(f"control     /{path} · {name:<20} {out[f'/{path} · {name}']:5.2f} s   "
                  f"(tries {', '.join(f'{t:.2f}' for t in times)}; {load()})")
        page.context.close()
    return out


def engine_seconds(preset: str) -> float:
    """The command line's engine time for a preset (what ``run`` reports), trained afresh."""
    p = subprocess.run([sys.executable, "-m", "core", "generalization", "--preset", preset, "--json"], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["seconds"]


def run_to_results(browser, url: str, tries: int) -> dict[str, float]:
    out = {}
    for name in ("tiny", "lesson"):
        times, engine = [], []
        for i in range(tries):
            page, _ = open_done(browser, url, "ViT_vs_CNN")
            if name == "tiny":
                # a new seed count each try, so the store never has it: the tiny preset, seeds 1 + (i % 5)
                page.get_by_role("button", name="tiny", exact=True).click()
                settle(page, page.evaluate("() => performance.now()"))
                slider = page.get_by_role("slider", name="Seeds (0, 1, …)")
                slider.focus()
                for _ in range(3):
                    slider.press("ArrowLeft" if i % 2 else "ArrowRight")
                button = page.get_by_role("button", name="Run", exact=True)
            else:
                button = page.get_by_role("button", name="Re-run this setting live")
            t0 = page.evaluate("() => performance.now()")
            button.click()
            page.get_by_text("trained on this server").first.wait_for(timeout=300_000)
            times.append(settle(page, t0))
            page.context.close()
        for _ in range(tries):
            engine.append(engine_seconds(name))
        out[f"Run → results · {name}"] = statistics.median(times)
        out[f"engine (CLI) · {name}"] = statistics.median(engine)
        print(f"Run → results · {name:<7} {out[f'Run → results · {name}']:5.2f} s, engine {statistics.median(engine):.2f} s: "
              f"+{out[f'Run → results · {name}'] - statistics.median(engine):.2f} s   "
              f"(tries {', '.join(f'{t:.2f}' for t in times)}; {load()})")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=5)
    ap.add_argument("--only", nargs="*", choices=["first_draw", "control", "run"], default=["first_draw", "control", "run"])
    ap.add_argument("--json", help="write the medians to this file")
    args = ap.parse_args()
    results: dict[str, float] = {}
    with streamlit_server() as (url, startup, _), sync_playwright() as p:
        print(f"server healthy after {startup:.1f} s; {os.cpu_count()} CPUs; {load()}")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        if "first_draw" in args.only:
            results |= first_draw(browser, url, args.tries)
        if "control" in args.only:
            results |= control_change(browser, url, args.tries)
        if "run" in args.only:
            results |= run_to_results(browser, url, args.tries)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load": os.getloadavg(), "medians": results}, f, indent=1)


if __name__ == "__main__":
    main()
