"""Where a section tab's first open spends its time: the server's re-run or the browser's drawing.

    python -m benchmarks.tab_anatomy Fixing_the_ViT "Draw your own"
    python -m benchmarks.tab_anatomy Fixing_the_ViT "Draw your own" --tries 5 --baseline /tmp/before

A page opened afresh and read (``browser_latency.open_and_read``), then the tab clicked. From the click's input
event: the first websocket message of the re-run, the last one (the script is done; Streamlit sends every element
as the script reaches it), and the last change in the page's main area; the messages' count and bytes, and the
elements in the page once drawn. Last message near the last change: the server's script is the wait; far
before it: the browser's drawing is. Each try's row, then the medians.
"""

from __future__ import annotations

import argparse
import statistics
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import sync_playwright

import benchmarks.browser_latency as bl
from benchmarks.harness import machine_now
from support.browser import CHROMIUM, CHROMIUM_ARGS, ROOT, streamlit_server

# Installed with the page's own scripts: each websocket message's arrival time and size
MESSAGES = """(() => {
  window.__ws = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', (e) => window.__ws.push([performance.now(), e.data.size || e.data.byteLength || 0]));
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();"""


def one_try(browser, url: str, path: str, tab: str) -> dict[str, float]:
    page = bl.open_and_read(browser, url, path)
    page.evaluate("() => { window.__ws = []; }")
    total = bl.after_input(page, lambda page: page.get_by_role("tab", name=tab).click())
    start, messages, elements = page.evaluate(
        "() => [window.__input, window.__ws, document.querySelectorAll('[data-testid=stMain] *').length]")
    page.context.close()
    arrivals = [t - start for t, _ in messages if t >= start]
    return {"first message": arrivals[0] / 1000, "last message": arrivals[-1] / 1000, "last change": total,
            "messages": len(arrivals), "kB": sum(n for t, n in messages if t >= start) / 1000,
            "elements": elements}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", help="the page's URL path, e.g. Fixing_the_ViT")
    ap.add_argument("tab", help="the section tab's label")
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="another checkout to measure alongside, try for try")
    args = ap.parse_args()
    bl.WATCH += MESSAGES  # open_done installs it before the page's scripts
    rows: dict[str, list[dict[str, float]]] = {}
    with ExitStack() as stack:
        sides = []
        for side, root in (("before", args.baseline), ("now", ROOT)) if args.baseline else (("now", ROOT),):
            url, _, _ = stack.enter_context(streamlit_server(root=root))
            sides.append((side, url))
        browser = stack.enter_context(sync_playwright()).chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(args.tries):
            for side, url in sides:
                row = one_try(browser, url, args.path, args.tab)
                rows.setdefault(side, []).append(row)
                print(f"{side:<7}" + "  ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                               for k, v in row.items()), flush=True)
    print(f"/{args.path} · {args.tab}, medians of {args.tries}; {machine_now()}")
    for side, side_rows in rows.items():
        medians = {k: statistics.median(r[k] for r in side_rows) for k in side_rows[0]}
        print(f"{side:<7}" + "  ".join(f"{k} {v:.2f}" if isinstance(side_rows[0][k], float) else f"{k} {v:g}"
                                       for k, v in medians.items()))


if __name__ == "__main__":
    main()
