"""What the machine gives this app: CPUs and memory as the container's limits say, and what processes hold.

Plain file reads, no torch: the command line asks before its own imports how many workers to start.
Containers are cgroup v2 (``memory.max``, ``cpu.max``) on most hosts and v1
(``memory/memory.limit_in_bytes``, ``cpu/cpu.cfs_quota_us``) on others: both are read.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

MiB = 2**20
WORKER_BASE = 320 * MiB  # resident memory of an idle worker: Python with torch imported
DEFAULT_BUDGET = int(1.5 * 2**30)


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def cpu_count() -> float:
    """CPUs this process may use: the cgroup quota (v2 ``cpu.max`` or v1 ``cfs_quota_us``) if one is set,
    else the affinity mask."""
    v2 = _read("/sys/fs/cgroup/cpu.max")
    if v2 and not v2.startswith("max"):
        quota, period = v2.split()[:2]
        return float(quota) / float(period)
    quota, period = _read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), _read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
    if quota and period and int(quota) > 0:
        return int(quota) / int(period)
    try:
        return float(len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return float(os.cpu_count() or 1)


def memory_limit() -> float:
    """Bytes the container may hold: cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``, else the
    machine's memory (inf if unknown)."""
    v2 = _read("/sys/fs/cgroup/memory.max")
    if v2 and v2 != "max":
        return float(v2)
    v1 = _read("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    if v1 and int(v1) < 2**60:  # v1 writes a huge number for "no limit"
        return float(v1)
    meminfo = _read("/proc/meminfo") or ""
    for line in meminfo.splitlines():
        if line.startswith("MemTotal:"):
            return float(line.split()[1]) * 1024
    return math.inf


def rss(pid: int | str = "self") -> int:
    """Resident memory of one process in bytes (0 where /proc is missing or the process is gone)."""
    for line in (_read(f"/proc/{pid}/status") or "").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in (Path(f"/proc/{pid}/task").glob("*") if Path(f"/proc/{pid}/task").exists() else []):
        out += [int(c) for c in (_read(str(task / "children")) or "").split()]
    return out


def tree_rss(pid: int | None = None) -> int:
    """Resident memory of a process and all its descendants (the app and its workers), in bytes."""
    pid = os.getpid() if pid is None else pid
    return rss(pid) + sum(tree_rss(c) for c in children(pid))


def total_budget() -> int:
    """The memory the whole app may use: ``VITLAB_MEMORY_BUDGET`` or the container's limit, the lower."""
    configured = int(float(os.environ.get("VITLAB_MEMORY_BUDGET", DEFAULT_BUDGET)))
    return int(min(configured, 0.95 * memory_limit()))
