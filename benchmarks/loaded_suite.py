"""The README's test command on a loaded machine: a training runs beside the suite the whole time, restarted as
soon as it ends, so the suite never has the cores to itself. A test that passes only on an idle machine fails
here. Run on request (it takes as long as the suite, or longer, per run):

    python -m benchmarks.loaded_suite --runs 2            # from a fresh clone, as CI does
    python -m benchmarks.loaded_suite --runs 1 -- -x tests/pages   # extra pytest arguments after --

Prints one line per run: passed or failed, pytest's own summary line, and the wall time; exits 1 if any run
failed. The training beside it is the lesson's ViT and CNN at five seeds and 400 epochs (``python -m core
generalization``), one process, as a learner's Run would be.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time

TRAINING = [sys.executable, "-m", "core", "generalization", "--models", "vit", "cnn", "--epochs", "400",
            "--seeds", "0", "1", "2", "3", "4"]
SUITE = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


def _keep_training(stop: threading.Event, count: list[int]) -> None:
    """Run the training again and again until ``stop`` is set; ``count[0]``: trainings finished."""
    while not stop.is_set():
        proc = subprocess.Popen(TRAINING, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            if stop.wait(1.0):
                proc.terminate()
                proc.wait()
                return
        count[0] += 1


def loaded_run(extra: list[str]) -> tuple[bool, str, float, int]:
    """One run of the suite with a training beside it: (passed, pytest's summary line, seconds, trainings)."""
    stop, count = threading.Event(), [0]
    beside = threading.Thread(target=_keep_training, args=(stop, count), daemon=True)
    beside.start()
    start = time.perf_counter()
    try:
        done = subprocess.run(SUITE + extra, capture_output=True, text=True)
    finally:
        stop.set()
        beside.join()
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    summary = next((line for line in reversed(lines) if " in " in line and ("passed" in line or "failed" in line)),
                   lines[-1] if lines else "(no output)")
    if done.returncode:
        failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
        summary += "".join(f"\n    {line}" for line in failed)
    return done.returncode == 0, summary.strip("= "), time.perf_counter() - start, count[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="how many times to run the suite (default 2)")
    args, extra = parser.parse_known_args(argv)
    extra = [a for a in extra if a != "--"]
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    ok = True
    for i in range(1, args.runs + 1):
        passed, summary, seconds, trainings = loaded_run(extra)
        ok &= passed
        print(f"run {i}: {'passed' if passed else 'FAILED'} ({summary}); {seconds:.0f} s with {trainings} "
              "trainings finished beside it", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
