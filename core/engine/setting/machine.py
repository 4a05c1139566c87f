"""What the machine gives this app: CPUs and memory as the container's limits say, and what processes hold.

Plain file reads, no torch: the command line asks before its own imports how many workers to start.
Containers are cgroup v2 (``memory.max``, ``cpu.max``) on most hosts and v1
(``memory/…/memory.limit_in_bytes``, ``cpu/…/cpu.cfs_quota_us``) on others: both are read, in this process's own
cgroup (``/proc/self/cgroup``) and every cgroup above it, since a limit anywhere on the way applies.
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


CGROUPS = "/sys/fs/cgroup"  # where the cgroup hierarchies are mounted
SELF_CGROUP = "/proc/self/cgroup"  # this process's cgroup in each hierarchy


def _own_groups(controller: str) -> list[Path]:
    """This process's cgroup folders for ``controller`` ("" for v2's one hierarchy), its own first, then each one
    above it up to the mount: those that exist (in a container the mount is often its own cgroup already)."""
    mount = Path(CGROUPS, controller) if controller else Path(CGROUPS)
    path = None
    for line in (_read(SELF_CGROUP) or "").splitlines():
        _, controllers, where = line.split(":", 2)
        if controller in controllers.split(",") or (not controller and controllers == ""):
            path = where
    parts = [p for p in (path or "/").split("/") if p]
    folders = [mount.joinpath(*parts[:i]) for i in range(len(parts), -1, -1)]
    return [f for f in folders if f.is_dir()]


def _tightest(values: list[float]) -> float | None:
    return min(values) if values else None


def cpu_count() -> float:
    """CPUs this process may use: the tightest cgroup quota on its way (v2 ``cpu.max`` or v1 ``cfs_quota_us``)
    if one is set, else the affinity mask."""
    quotas = []
    for group in _own_groups(""):
        v2 = _read(f"{group}/cpu.max")
        if v2 and not v2.startswith("max"):
            quota, period = v2.split()[:2]
            quotas.append(float(quota) / float(period))
    for group in _own_groups("cpu"):
        quota, period = _read(f"{group}/cpu.cfs_quota_us"), _read(f"{group}/cpu.cfs_period_us")
        if quota and period and int(quota) > 0:
            quotas.append(int(quota) / int(period))
    if (tightest := _tightest(quotas)) is not None:
        return tightest
    try:
        return float(len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return float(os.cpu_count() or 1)


def memory_limit() -> float:
    """Bytes the container may hold: the tightest cgroup limit on this process's way (v2 ``memory.max``, v1
    ``memory.limit_in_bytes``), else the machine's memory (inf if unknown)."""
    limits = [float(v2) for group in _own_groups("") if (v2 := _read(f"{group}/memory.max")) and v2 != "max"]
    limits += [float(v1) for group in _own_groups("memory")
               if (v1 := _read(f"{group}/memory.limit_in_bytes")) and int(v1) < 2**60]  # v1: huge means no limit
    if (tightest := _tightest(limits)) is not None:
        return tightest
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
