"""The free Streamlit Community Cloud tier, emulated: one app process under a CPU quota well under one core and a
~1 GB memory limit, and a class of 30 on it. Needs root (it makes cgroups) and Linux.

    python -m benchmarks.cloud_tier                     # 0.5 of a core, 1 GiB, 30 learners
    python -m benchmarks.cloud_tier --cpu 0.25 --memory-mib 1024 --seconds 60
    python -m benchmarks.cloud_tier --only cpu --baseline /tmp/before   # CPU per rerun beside another checkout

The tier as emulated here: the server (``streamlit run app.py``, the app's runtime dependencies only: nothing of
requirements-dev.txt is imported by it) and every training worker it starts run in one cgroup with a CFS quota
of ``--cpu`` cores (cgroup v1 ``cpu.cfs_quota_us``, the v1 form of v2's ``cpu.max``; v2 where the host has it)
and a memory limit of ``--memory-mib`` (``memory.limit_in_bytes`` / ``memory.max``), which the app reads as its
budget (``core.engine.setting.machine``). Cloud guarantees a fraction of a core and lets an app burst to about two; the
quota emulates the guaranteed part, the worse case. The load generator runs outside the cgroup, on the other
core, so it takes nothing from the server. No persistent disk: the data dir is a fresh temporary folder.

Printed, in one run:
- **CPU per rerun**: one session reruns each page ``--reruns`` times (as a click on a tab or a toggle does:
  the whole script again) and Patchify with a new weight seed each time (a control moved: new numbers); the
  server process's own CPU time (user + system, every thread) per rerun, beside the same figure for a minimal
  one-widget Streamlit page served the same way (``benchmarks/floor_app.py``): Streamlit's own floor. With
  ``--baseline``, the same for another checkout (``git worktree add``) served the same way, page by page in turn.
- **30 learners browsing every page**: each opens the pages in turn from its own starting page, reruns each
  once or twice, at its own pace (2 to 6 s between actions) for ``--seconds``; p50/p95 per page, from the
  message sent to the server's ``script_finished``.
- **30 learners press Run on one new setting** (the lesson at 100 epochs, not shipped): seconds until all have
  their result, against ``python -m core generalization --epochs 100`` run in the same cgroup.
The targets (#43): browsing p95 <= 1 s; each page's rerun within 3x the floor; the 30 within the command line
+ 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from tempfile import mkdtemp

from benchmarks.class_load import Session, runs
from core.engine.setting.machine import tree_rss
from support.browser import ROOT, streamlit_server

PAGES = ["", "Patchify", "Permutation_symmetry", "ViT_vs_CNN", "Fixing_the_ViT", "Real_handwriting", "Glossary"]
FLOOR = "benchmarks/floor_app.py"
CHART_FLOOR = "benchmarks/floor_chart_app.py"


@contextmanager
def cgroup(cpu: float, memory: int):
    """A fresh cgroup with ``cpu`` cores of CFS quota and ``memory`` bytes; yields a function that moves a pid
    into it (v2 where the host has it, else v1's cpu and memory controllers)."""
    name = f"vitlab-cloud-{os.getpid()}"
    period = 100_000
    if Path("/sys/fs/cgroup/cgroup.controllers").exists():  # v2
        group = Path("/sys/fs/cgroup") / name
        group.mkdir()
        (group / "cpu.max").write_text(f"{int(cpu * period)} {period}")
        (group / "memory.max").write_text(str(memory))
        dirs = [group]
    else:
        cpu_dir, mem_dir = Path("/sys/fs/cgroup/cpu") / name, Path("/sys/fs/cgroup/memory") / name
        cpu_dir.mkdir()
        mem_dir.mkdir()
        (cpu_dir / "cpu.cfs_period_us").write_text(str(period))
        (cpu_dir / "cpu.cfs_quota_us").write_text(str(int(cpu * period)))
        (mem_dir / "memory.limit_in_bytes").write_text(str(memory))
        dirs = [cpu_dir, mem_dir]

    def enter(pid: int) -> None:
        for d in dirs:
            (d / "cgroup.procs").write_text(str(pid))

    try:
        yield enter
    finally:
        for d in dirs:
            for pid in (d / "cgroup.procs").read_text().split():
                try:
                    os.kill(int(pid), 9)
                except ProcessLookupError:
                    pass
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    """The process's own CPU time so far (user + system, all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def cpu_per_rerun(base: str, pid: int, page: str, reruns: int, move=None, setup: dict | None = None,
                        warm: bool = True) -> float:
    """Milliseconds of the server's CPU per rerun of ``page`` (after one opening rerun, untimed); ``move(i)``: the
    widget changes of rerun i (none: the same script again); a widget inside a section re-runs that section alone,
    as a browser asks. ``setup``: widget changes made once first (untimed), such as revealing the results. ``warm``:
    the same moves made once before, untimed (the figures and numbers they need are in the server's caches, as for
    every learner after the first who makes them); else each move is new to the server."""
    s = Session(base, page, "")
    await s.open()
    await asyncio.sleep(1.0)
    if setup:
        await s.rerun(**setup)
    await s.rerun()  # warm: the page's caches filled, as for the second learner on it
    for i in range(reruns if warm else 0):  # the same moves once untimed: a class's later learners make them again
        await s.rerun(**(move(i) if move else {}))
    await idle(pid)  # not the server's background work (the warm-up's imports, models loaded ahead)
    start = cpu_seconds(pid)
    for i in range(reruns):
        await s.rerun(**(move(i) if move else {}))
        if s.exceptions:
            raise RuntimeError(f"{page}: {s.exceptions[0][:300]}")
    used = cpu_seconds(pid) - start
    await s.close()
    return 1000 * used / reruns


async def idle(pid: int, quiet: float = 1.0, timeout: float = 120.0) -> None:
    """Wait until the process has used (almost) no CPU for ``quiet`` seconds: a condition, not a time."""
    deadline = time.monotonic() + timeout
    last, since = cpu_seconds(pid), time.monotonic()
    while time.monotonic() - since < quiet:
        await asyncio.sleep(0.25)
        now = cpu_seconds(pid)
        if now - last > 0.01:
            since = time.monotonic()
        last = now
        if time.monotonic() > deadline:
            raise TimeoutError(f"the server kept busy for {timeout:.0f} s")


REVEAL = {"Show the result without predicting": True}  # lessons 3-5 show their results once predicted or skipped
# What a learner clicks inside a page's sections (``st.fragment``: each re-runs its section alone): (label, page,
# setup, the widget changes of rerun i). A tab by its index; every other widget by its value.
SECTION_MOVES = [
    ("Patchify: tab", "Patchify", None, lambda i: {"patchify_view": i % 2}),
    ("Patchify: patch to follow", "Patchify", None, lambda i: {"chosen_16": i % 16}),
    ("Patchify: exercise answer", "Patchify", None, lambda i: {"answer_Patchify_tokens": i % 2}),
    ("Patchify: code switch", "Patchify", None, lambda i: {"show_code": i % 2 == 0}),
    ("symmetry: tab", "Permutation_symmetry", None, lambda i: {"symmetry_view": i % 2}),
    ("symmetry: permutation", "Permutation_symmetry", None, lambda i: {"perm_kind": i % 2}),
    ("symmetry: patch to brighten", "Permutation_symmetry", {"symmetry_view": 1}, lambda i: {"change_patch": i % 16}),
    ("ViT vs CNN: tab", "ViT_vs_CNN", REVEAL, lambda i: {"results_view": i % 2}),
    ("ViT vs CNN: sweep picked", "ViT_vs_CNN", REVEAL, lambda i: {"sweep_name": i % 2}),
    ("ViT vs CNN: exercise answer", "ViT_vs_CNN", None, lambda i: {"answer_ViT_vs_CNN_more-data": i % 2}),
    ("Fixing the ViT: tab", "Fixing_the_ViT", {"Show the result without predicting": True},
     lambda i: {"bench_view": i % 2}),
    ("Real handwriting: tab", "Real_handwriting", REVEAL, lambda i: {"digits_view": i % 2}),
]


async def browse_every_page(base: str, learners: int, seconds: float) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {p: [] for p in PAGES}
    errors: list[str] = []

    async def learner(i: int) -> None:
        rng = random.Random(i)
        at = i % len(PAGES)
        end = time.perf_counter() + seconds
        await asyncio.sleep(rng.uniform(0, 3))  # a class does not arrive in one millisecond
        while time.perf_counter() < end:
            page = PAGES[at % len(PAGES)]
            s = Session(base, page, "")
            try:
                times[page].append(await s.open())  # opening the page: a page switch
                for _ in range(rng.choice((1, 2))):
                    await asyncio.sleep(rng.uniform(2, 6))
                    times[page].append(await s.rerun())
                    errors.extend(s.exceptions)
                await s.close()
            except (TimeoutError, OSError) as exc:
                errors.append(repr(exc))
            at += 1
            await asyncio.sleep(rng.uniform(2, 6))

    await asyncio.gather(*(learner(i) for i in range(learners)))
    times["errors"] = errors  # type: ignore[assignment]
    return times


def quantiles(xs: list[float]) -> tuple[float, float]:
    if len(xs) < 2:
        return (xs[0] if xs else float("nan")), float("nan")
    return statistics.median(xs), statistics.quantiles(xs, n=20)[18]


def command_line_seconds(enter, epochs: int) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "core", "generalization", "--epochs", str(epochs), "--json"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, preexec_fn=lambda: enter(os.getpid()))
    if proc.wait() != 0:
        raise RuntimeError("the command line failed")
    return time.perf_counter() - start


async def sent_per_rerun(base: str, page: str, setup: dict | None = None):
    """What one whole rerun of ``page`` sends (after one opening rerun): ``Session.sent``, by element kind."""
    s = Session(base, page, "")
    await s.open()
    if setup:
        await s.rerun(**setup)
    await s.rerun()
    await s.close()
    return s.sent


def elements_table(base: str) -> None:
    """Every page's whole rerun, element by element: how many of each kind and their bytes on the wire."""
    print("\nWhat a whole rerun sends, per page: elements (count, KB on the wire), the largest kinds first")
    for label, page, setup in [(p or "home", p, None) for p in PAGES] + [("ViT vs CNN, results shown", "ViT_vs_CNN",
                                                                          REVEAL)]:
        sent = asyncio.run(sent_per_rerun(base, page, setup))
        kinds = sorted({k for k, _ in sent}, key=lambda k: -sent[k, "bytes"])
        total_n, total_b = sum(sent[k, "count"] for k in kinds), sum(sent[k, "bytes"] for k in kinds)
        print(f"{label:<28} {total_n:4d} elements, {total_b / 1024:6.1f} KB: "
              + ", ".join(f"{k} {sent[k, 'count']} ({sent[k, 'bytes'] / 1024:.1f} KB)" for k in kinds[:6]))


def cpu_table(stack, args, env, enter, base, server, floor_ms) -> None:
    """The CPU per rerun of every page (and Patchify with its seed moved), here and in ``--baseline``."""
    servers = {"this checkout": (base, server.pid)}
    if args.baseline:
        other, _, proc = stack.enter_context(streamlit_server(root=args.baseline, env=env, on_start=enter,
                                                              timeout=180))
        servers = {"baseline": (other, proc.pid), **servers}
    print(f"CPU ms per rerun ({args.reruns} reruns each, after one untimed), x the floor:")
    print(f"{'whole page':<30}" + "".join(f" {name:>20}" for name in servers))
    pages = [(page, page, None, None) for page in PAGES] + [
        ("Patchify, seed moved", "Patchify", None, lambda i: {"weight_seed": 1000 + i}),
        ("ViT vs CNN, results shown", "ViT_vs_CNN", REVEAL, None)]
    cold = {"Patchify, a new seed each": ("Patchify", None, lambda i: {"weight_seed": 5000 + i})}
    pages += [(label, page, setup, move) for label, (page, setup, move) in cold.items()]
    for heading, moves in (("", pages), ("a section's control or tab", SECTION_MOVES)):
        if heading:
            print(heading)
        for label, page, setup, move in moves:
            cells = []
            for url, pid in servers.values():
                ms = asyncio.run(cpu_per_rerun(url, pid, page, args.reruns, move, setup, warm=label not in cold))
                cells.append(f"{ms:8.1f} ms ({ms / floor_ms:4.1f}x)")
            print(f"{label or 'home':<30}" + "".join(f" {c:>20}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=float, default=0.5, help="cores of CPU quota (default 0.5)")
    parser.add_argument("--memory-mib", type=int, default=1024)
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the class browses")
    parser.add_argument("--reruns", type=int, default=30, help="reruns per page for the CPU figure")
    parser.add_argument("--only", choices=("cpu", "elements", "browse", "run"))
    parser.add_argument("--baseline", type=Path, help="another checkout whose CPU per rerun to show beside")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("error: needs root to make a cgroup")
    tmp = Path(mkdtemp(prefix="vitlab-cloud-"))
    print(f"# emulated tier: {args.cpu:g} core(s) of CFS quota, {args.memory_mib} MiB, one process (+ its training "
          f"workers) in one cgroup; fresh data dir; load generator outside the cgroup")
    with ExitStack() as stack:
        enter = stack.enter_context(cgroup(args.cpu, args.memory_mib * 2**20))
        env = {"VITLAB_DATA_DIR": str(tmp / "data")}
        if args.only in (None, "cpu"):
            floor_base, _, floor = stack.enter_context(streamlit_server(script=FLOOR, env=env, on_start=enter))
            floor_ms = asyncio.run(cpu_per_rerun(floor_base, floor.pid, "", args.reruns, lambda i: {"value": i % 100}))
            print(f"floor (a one-widget page, its slider moved): {floor_ms:.1f} ms CPU per rerun")
            chart_base, _, chart = stack.enter_context(streamlit_server(script=CHART_FLOOR, env=env, on_start=enter))
            chart_ms = asyncio.run(cpu_per_rerun(chart_base, chart.pid, "", args.reruns, lambda i: {"value": i % 100}))
            print(f"the same with one small Plotly chart: {chart_ms:.1f} ms CPU per rerun ({chart_ms / floor_ms:.1f}x)")
        base, startup, server = stack.enter_context(streamlit_server(env=env, on_start=enter, timeout=180))
        print(f"server healthy after {startup:.1f} s")
        if args.only in (None, "cpu"):
            cpu_table(stack, args, env, enter, base, server, floor_ms)
        if args.only in (None, "elements"):
            elements_table(base)
        if args.only in (None, "browse"):
            times = asyncio.run(browse_every_page(base, args.learners, args.seconds))
            errors = times.pop("errors")
            every = [t for ts in times.values() for t in ts]
            print(f"\n{args.learners} learners browsing every page for {args.seconds:.0f} s: {len(every)} reruns, "
                  f"errors {len(errors)}{': ' + errors[0][:200] if errors else ''}")
            print(f"{'page':<22} {'reruns':>7} {'p50 s':>7} {'p95 s':>7}")
            for page, ts in times.items():
                p50, p95 = quantiles(ts)
                print(f"{page or 'home':<22} {len(ts):7d} {p50:7.2f} {p95:7.2f}")
            p50, p95 = quantiles(every)
            print(f"{'all':<22} {len(every):7d} {p50:7.2f} {p95:7.2f}   (target: p95 <= 1 s: "
                  f"{'met' if p95 <= 1 else 'NOT met'})")
        if args.only in (None, "run"):
            epochs = 100
            cli = command_line_seconds(enter, epochs)
            r = asyncio.run(runs([base], [epochs] * args.learners))
            print(f"\n{args.learners} learners press Run on one new setting (the lesson at {epochs} epochs): all done "
                  f"{r['all_done']:.1f} s after (median {r['median']:.1f} s), failed {r['failed']}; the command line "
                  f"in the same cgroup: {cli:.1f} s (target: <= {cli + 5:.1f} s: "
                  f"{'met' if r['all_done'] <= cli + 5 else 'NOT met'})")
        print(f"server + workers resident at the end: {tree_rss(server.pid) / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
