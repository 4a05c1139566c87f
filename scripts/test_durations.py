"""Where the suite's time goes, measured: ``python -m scripts.test_durations [fast|full|report FILE]``.

``fast`` (the default) runs the fast tier (``python -m pytest -m fast``) and writes every test's time to
``tests/fast_durations.json``, the budget ``tests/test_architecture.py`` holds the tier to (90 s in all, none over
``SLOWEST_FAST`` s, every fast test measured). ``full`` runs the whole suite as CI does (``-n 2``) and prints the time
per directory and the 20 slowest tests, the tables of docs/tests.md; ``report FILE`` prints them from a run's
report (``.ci/run`` writes ``artifacts/junit.xml``). All read pytest's JUnit report, whose time per
test is its setup, call and teardown together.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_FILE = ROOT / "tests" / "fast_durations.json"
COMMANDS = {"fast": ["-m", "fast"], "full": ["-n", "2"]}
# The budget's own test reads the file this writes: left out of the run that writes it (it takes milliseconds)
BUDGET_TEST = "tests/test_architecture.py::test_the_fast_tier_keeps_to_its_measured_budget_and_every_fast_test_is_measured"


def measure(tier: str) -> tuple[dict[str, float], float, str]:
    """Run the tier: ({test id: seconds}, wall seconds, pytest's last line)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *COMMANDS[tier],
                               "--deselect", BUDGET_TEST, f"--junitxml={report}"], cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - start
        times = read_report(report)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    if done.returncode != 0:
        raise SystemExit(f"the {tier} tier failed: {last}")
    return times, wall, last


def read_report(report: Path) -> dict[str, float]:
    """{test id: seconds} from pytest's JUnit report."""
    times = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname").replace(".", "/")
        times[f"{module}.py::{case.get('name')}"] = round(float(case.get("time")), 3)
    return times


def by_directory(times: dict[str, float]) -> list[tuple[str, int, float]]:
    """(directory or top-level file, tests, seconds), the most time first."""
    seconds, count = Counter(), Counter()
    for test_id, t in times.items():
        parts = test_id.split("::")[0].split("/")
        where = "/".join(parts[:2]) + ("/" if len(parts) > 2 else "")
        seconds[where] += t
        count[where] += 1
    return [(where, count[where], s) for where, s in seconds.most_common()]


def main(argv: list[str]) -> int:
    tier = argv[0] if argv else "fast"
    if tier == "report" and len(argv) == 2:  # a run's report, as .ci/run writes it (artifacts/junit.xml)
        times = read_report(Path(argv[1]))
    elif tier in COMMANDS:
        times, wall, last = measure(tier)
        print(f"python -m pytest {' '.join(COMMANDS[tier])}: {last}; {wall:.0f} s wall")
    else:
        print(f"error: give fast, full, or report FILE, not {' '.join(argv)!r}", file=sys.stderr)
        return 2
    if tier == "fast":
        command = f"python -m pytest {' '.join(COMMANDS[tier])}"
        BUDGET_FILE.write_text(json.dumps({"command": command, "seconds": round(sum(times.values()), 1),
                                           "wall_seconds": round(wall, 1), "tests": dict(sorted(times.items()))},
                                          indent=1) + "\n")
        print(f"wrote {BUDGET_FILE.relative_to(ROOT)}")
    print("\n| where | tests | seconds |\n|---|---:|---:|")
    for where, n, s in by_directory(times):
        print(f"| `{where}` | {n} | {s:.1f} |")
    print(f"| all | {len(times)} | {sum(times.values()):.1f} |")
    print("\n| seconds | slowest tests |\n|---:|---|")
    for test_id, t in sorted(times.items(), key=lambda kv: -kv[1])[:20]:
        print(f"| {t:.1f} | `{test_id}` |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
