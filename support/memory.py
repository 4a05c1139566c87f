"""How much memory a call allocates in this process, for the tests that a huge stored value is measured, never read."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable


def peak_bytes(call: Callable[[], object]) -> int:
    """The most bytes Python held at once while ``call()`` ran (its exception, if any, propagates)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
