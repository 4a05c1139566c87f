"""How fast this machine runs at the moment: a fixed pure-Python loop, timed.

On a shared virtual machine the host's own load moves every figure, and the load average does not see it:
in one session a loop of 10**7 additions took 0.85-1.54 s back to back while the load average stayed
under 2. The benchmarks print this beside their figures, so a reader can tell a slow hour of the machine
from slow code (ratios from alternating tries stay comparable either way). One call costs ~35 ms of one
core, taken between tries, never inside a timed window.
"""

from __future__ import annotations

import time


def loop_ms(n: int = 10**6) -> float:
    """Milliseconds for ``n`` additions in a plain Python loop (~35 ms here at full speed)."""
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i
    return (time.perf_counter() - start) * 1000
