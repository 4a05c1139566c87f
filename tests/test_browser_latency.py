"""Regression guard for what the learner waits for in the browser (issue: pages that feel instant).

Runs ``python -m benchmarks.browser_latency`` (minutes) and checks its medians against the thresholds
below, so a change that makes the pages slower fails. Not part of the default suite or CI: run it with
``VITLAB_BENCH=1 python -m pytest tests/test_browser_latency.py``. The thresholds are the medians this
machine (2 cores) measured after the work on latency, with a margin for its noise; README has the table
and the issue's targets, which some of them do not meet yet.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from support.browser import PAGES, ROOT

pytestmark = [pytest.mark.bench, pytest.mark.skipif(os.environ.get("VITLAB_BENCH") != "1",
                                                    reason="the browser benchmark runs only with VITLAB_BENCH=1")]

MARGIN = 1.3  # this machine's run-to-run noise on a quiet machine
CLI_MARGIN = 1.1  # the whole-process ratio's noise here (5 alternating tries: 4.9x to 5.2x)
THRESHOLDS = {  # seconds (medians measured after; see README, "What the learner waits for")
    "first draw": 5.1,
    "control": 1.1,
    "Run → results over the engine": 1.5,  # the target (measured alone: +0.23 s, +1.02 s)
    "engine in the page / engine (CLI)": 1.1,  # live curves slow training by at most 10 % (measured 0.85, 1.05)
}


def test_the_pages_are_no_slower_than_measured(tmp_path):
    out = tmp_path / "latency.json"
    subprocess.run([sys.executable, "-m", "benchmarks.browser_latency", "--tries", "5", "--json", str(out)],
                   cwd=ROOT, check=True)
    medians = json.loads(out.read_text())["medians"]
    assert len(medians) == len(PAGES) + 7 + 10  # every page, seven controls, two presets x five figures
    slow = [(name, seconds) for name, seconds in medians.items()
            for kind, limit in THRESHOLDS.items() if name.startswith(kind) and seconds > limit * MARGIN]
    assert not slow, slow


def test_the_command_line_as_a_whole_process_stays_5x_faster_than_the_notebooks_loop():
    out = subprocess.run([sys.executable, "-m", "benchmarks.cli_whole_process", "--tries", "5"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    speedup = float(re.search(r"whole process: ([0-9.]+)x", out).group(1))
    assert "identical per-seed accuracies: yes" in out, out
    assert speedup >= 5.0 / CLI_MARGIN, out  # measured 5.15x (README); the target is 5x
