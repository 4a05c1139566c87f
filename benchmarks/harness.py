"""What every benchmark shares: the machine's own speed beside each figure, and the peak memory of a process
tree sampled while something runs.

On a shared virtual machine the host's load moves every figure, and the load average does not see it, so
each benchmark prints ``machine_now()`` beside its figures: a reader can tell a slow hour of the machine from
slow code. Ratios from alternating tries stay comparable either way. To compare with an older version,
check it out beside this one (``git worktree add /tmp/before <commit>``) and pass it where a benchmark
takes ``--baseline``.
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from core.engine.setting.machine import tree_rss


def loop_ms(n: int = 10**6) -> float:
    """Milliseconds for ``n`` additions in a plain Python loop: the machine's speed now. Taken between
    tries, never inside a timed window."""
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i
    return (time.perf_counter() - start) * 1000


def machine_now() -> str:
    """The load average and the machine's speed now, for the line beside a figure."""
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" · loop {loop_ms():.0f} ms"


def ms(call) -> float:
    """Milliseconds ``call()`` takes, once."""
    start = time.perf_counter()
    call()
    return 1000 * (time.perf_counter() - start)


def table_arguments(doc: str, tries: int) -> argparse.Namespace:
    """The command line of a benchmark that prints a table: ``--tries`` and ``--out`` (the table's file too)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--tries", type=int, default=tries)
    ap.add_argument("--out", help="also write the table to this file")
    return ap.parse_args()


def write_table(lines: list[str], out: str | None) -> None:
    """The table's lines into ``out``, when given (they were printed as they came)."""
    if out:
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")


class PeakRss:
    """The resident memory of a process and its descendants (default: this one), sampled every ``every``
    seconds in a background thread while the ``with`` block runs: ``peak`` and the ``samples``."""

    def __init__(self, pid: int | None = None, every: float = 0.02):
        self.pid, self.every = pid or os.getpid(), every
        self.peak, self.samples = 0, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        rss = tree_rss(self.pid)
        self.peak = max(self.peak, rss)
        self.samples.append((time.perf_counter(), rss))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            time.sleep(self.every)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
