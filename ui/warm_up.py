"""Imports, one thread at a time: a page's modules before the page runs, and torch in the background after the
first page is drawn (app.py).

Python imports each module under a lock of its own, and when two threads would wait on each other's module locks it
breaks the cycle by handing one of them a half-imported module. A fresh server's first visitors run their pages'
scripts at once, each importing the lab's modules and the packages under them in its own order: the class-load
benchmark saw pages fail with "partially initialized module 'pandas' has no attribute 'Series'" and "cannot import
name 'after_page' from 'ui.browser_store'". So every first import goes through one lock (``IMPORTING``): before a page
runs, app.py imports what it imports (``import_for``), pyarrow and pandas first for a lesson (they import each other:
a thread that starts with one and a thread that starts with the other would each hold what the other needs);
once imported, a page's modules cost a dictionary lookup.

A sleeping app's wake draws its home page without torch (docs/performance.md); the learner's next click, most likely
to a lesson, then finds torch loaded: ``warm_up`` imports it in a daemon thread, under the same lock, 2 s after the
first page.
"""

from __future__ import annotations

import ast
import functools
import importlib
import logging
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREAD_NAME = "vitlab-warm-up"
WARMED = ("torch",)
FIRST = ("pyarrow", "pandas")  # a lesson page's first imports, in this order: see above
# Seconds the thread waits before it starts: the first page's last messages and the browser's chart code (Plotly,
# megabytes, served by this process) go out first, not beside an import that holds the CPU for a second
START_AFTER_S = 2.0

IMPORTING = threading.RLock()  # one thread at a time imports (re-entrant: an import may run a page's code)
_lock = threading.Lock()
_thread: threading.Thread | None = None
log = logging.getLogger(__name__)


@functools.cache
def page_imports(page: str, lesson: bool) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(module, the names the page takes from it) for every import statement of the page file ``page`` (relative to
    the app's root), in order; ``FIRST`` before them for a lesson."""
    out: dict[str, tuple[str, ...]] = {m: () for m in FIRST} if lesson else {}
    for node in ast.parse((ROOT / page).read_text()).body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.setdefault(alias.name, ())
        elif isinstance(node, ast.ImportFrom) and node.module not in (None, "__future__") and not node.level:
            out[node.module] = tuple(dict.fromkeys((*out.get(node.module, ()), *(a.name for a in node.names))))
    return tuple(out.items())


def _import(modules) -> None:
    for module, names in modules:
        try:
            imported = importlib.import_module(module)
            for name in names:  # ``from ui.figures import model_figures``: a submodule taken by name
                if not hasattr(imported, name):
                    importlib.import_module(f"{module}.{name}")
        except Exception:  # the page that needs it imports it again and shows the error where it belongs
            log.debug("importing %s failed", module, exc_info=True)


def import_for(page: str, lesson: bool) -> None:
    """Import what the page file ``page`` imports, under ``IMPORTING``; nothing to do (no lock taken) once done."""
    modules = page_imports(page, lesson)
    if all(module in sys.modules for module, _ in modules):
        return
    with IMPORTING:
        _import(modules)


def import_all(wait: float = 0.0) -> None:
    """After ``wait`` seconds, import each of ``WARMED``, under ``IMPORTING``."""
    time.sleep(wait)
    with IMPORTING:
        _import((module, ()) for module in WARMED)


def warm_up() -> None:
    """Start the imports in a daemon thread, once per server process; later calls do nothing."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=import_all, args=(START_AFTER_S,), name=THREAD_NAME, daemon=True)
            _thread.start()
