"""torch, imported in a background thread soon after a page is drawn (app.py).

A sleeping app's wake draws its home page without importing torch (docs/performance.md); the learner's next click,
most likely to a lesson, then finds torch loaded instead of waiting about a second of CPU for it at a fraction of a
core.

torch only, never the lab's own modules or another package a page imports. Python imports each module under a lock
of its own, and when two threads would wait on each other's module locks it breaks the cycle by handing one of them
a half-imported module: a thread importing the pages' modules in its own order beside a page's script importing them
in the page's order made a fresh server's pages fail ("partially initialized module 'pandas' has no attribute
'Series'", found by ``benchmarks/class_load.py``). torch imports nothing of the lab's: a page that needs it while this
thread imports it only waits, and no cycle can form.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

THREAD_NAME = "vitlab-warm-up"
WARMED = ("torch",)  # third-party packages that import nothing of the lab's: see above
# Seconds the thread waits before it starts: the first page's last messages and the browser's chart code (Plotly,
# megabytes, served by this process) go out first, not beside an import that holds the CPU for a second
START_AFTER_S = 2.0

_lock = threading.Lock()
_thread: threading.Thread | None = None
log = logging.getLogger(__name__)


def import_all(wait: float = 0.0) -> None:
    """After ``wait`` seconds, import each of ``WARMED``."""
    time.sleep(wait)
    for module in WARMED:
        try:
            importlib.import_module(module)
        except Exception:  # the page that needs it imports it again and shows the error where it belongs
            log.debug("warm-up: importing %s failed", module, exc_info=True)


def warm_up() -> None:
    """Start the imports in a daemon thread, once per server process; later calls do nothing."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=import_all, args=(START_AFTER_S,), name=THREAD_NAME, daemon=True)
            _thread.start()
