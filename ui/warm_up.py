"""torch and what the lesson pages import, imported in a background thread soon after a page is drawn (app.py).

A sleeping app's wake draws its home page without importing torch (docs/performance.md); the learner's next click,
most likely to a lesson, then finds torch and the lesson's modules loaded instead of waiting seconds for them at a
fraction of a core. The list is read from the lesson pages' own import statements: nothing to keep in step.

Safe beside the sessions: Python imports each module under a lock of its own, so a page that asks for a module this
thread is importing waits for it, and finds one imported already at no cost.
"""

from __future__ import annotations

import ast
import importlib
import logging
import threading
import time
from pathlib import Path

from ui.lesson_list import LESSONS

ROOT = Path(__file__).resolve().parent.parent
THREAD_NAME = "vitlab-warm-up"
# Seconds the thread waits before it starts: the first page's last messages and the browser's chart code (Plotly,
# megabytes, served by this process) go out first, not beside an import that holds the CPU for seconds
START_AFTER_S = 2.0

_lock = threading.Lock()
_thread: threading.Thread | None = None
log = logging.getLogger(__name__)


def page_imports() -> dict[str, tuple[str, ...]]:
    """module -> the names each lesson page imports from it (``import m``: none), in the pages' order, torch first
    and each lesson's core module after its page's imports."""
    out: dict[str, tuple[str, ...]] = {"torch": ()}
    for lesson in LESSONS:
        for node in ast.parse((ROOT / lesson.page).read_text()).body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    out.setdefault(alias.name, ())
            elif isinstance(node, ast.ImportFrom) and node.module not in (None, "__future__") and not node.level:
                names = (*out.get(node.module, ()), *(alias.name for alias in node.names))
                out[node.module] = tuple(dict.fromkeys(names))
        out.setdefault(lesson.module, ())
    return out


def import_all(wait: float = 0.0) -> None:
    """After ``wait`` seconds, import each of ``page_imports`` and, of the names taken from it, those that are
    submodules (``from ui.figures import model_figures``), as the pages' own import statements would."""
    time.sleep(wait)
    for module, names in page_imports().items():
        try:
            imported = importlib.import_module(module)
            for name in names:
                if not hasattr(imported, name):
                    importlib.import_module(f"{module}.{name}")
        except Exception:  # the page that needs it imports it again and shows the error where it belongs
            log.debug("warm-up: importing %s failed", module, exc_info=True)


def warm_up() -> None:
    """Start the imports in a daemon thread, once per server process; later calls do nothing."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=import_all, args=(START_AFTER_S,), name=THREAD_NAME, daemon=True)
            _thread.start()
