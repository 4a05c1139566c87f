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
from ui.lesson_list import LESSONS

pytestmark = [pytest.mark.bench, pytest.mark.skipif(os.environ.get("VITLAB_BENCH") != "1",
                                                    reason="the browser benchmark runs only with VITLAB_BENCH=1")]

MARGIN = 1.3  # this machine's run-to-run noise on a quiet machine
CLI_MARGIN = 1.1  # the whole-process ratio's noise here (runs of 5 alternating tries: 4.66x to 5.15x)
THRESHOLDS = {  # seconds (medians measured alone on the machine; see README, "What the learner waits for")
    # by its link and from home (measured by link 0.90-3.04 s at full speed, up to 4.15 s at half speed; from
    # home 0.70-1.66 s; ViT vs CNN by its link 1.85-2.42 s since it opens on its table)
    "first draw": 3.3,
    "first charts": 1.0,  # ViT vs CNN's chart section, first click after reading the page: 0.74-1.17 s
    "control": 1.0,  # measured 0.19-0.50 s, the probe's centre 0.67-1.15 s (docs/performance.md)
    "tab": 1.0,  # a section tab's first open: measured 0.25-0.92 s (Look inside and the maps the slowest)
    "Run → results over the engine": 1.5,  # the target (measured: +0.95 s to +1.25 s)
    # the engine in the page while a browser on the same two cores draws its live curves, over the command
    # line's engine (measured 1.29, 1.15, then 1.33, 1.18; without the browser 1.04-1.05: benchmarks/live_curves_cost.py)
    "engine in the page / engine (CLI)": 1.4,
}
# Ratios of two sides measured alternately in one run, so a slow hour of the machine moves both: held to the
# issue's target itself with the whole-process ratio's margin. The live curve's own cost: the same setting
# re-run in the page with the curve and without it (runs of 5-12 pairs measured 0.92x-1.19x: README).
ALTERNATING = {"live curve: with / without": 1.1}


def test_the_pages_are_no_slower_than_measured(tmp_path):
    out = tmp_path / "latency.json"
    subprocess.run([sys.executable, "-m", "benchmarks.browser_latency", "--tries", "5", "--json", str(out)],
                   cwd=ROOT, check=True)
    medians = json.loads(out.read_text())["medians"]
    # every page by its link and each lesson from home, one chart section, eleven controls, nineteen section tabs
    # (every tab but the first of each page), two presets x eight
    assert len(medians) == len(PAGES) + len(LESSONS) + 1 + 11 + 19 + 16
    slow = [(name, seconds) for name, seconds in medians.items()
            for kind, limit in THRESHOLDS.items() if name.startswith(kind) and seconds > limit * MARGIN]
    slow += [(name, ratio) for name, ratio in medians.items()
             for kind, limit in ALTERNATING.items() if name.startswith(kind) and ratio > limit * CLI_MARGIN]
    assert not slow, slow


def test_the_command_line_as_a_whole_process_stays_5x_faster_than_the_notebooks_loop():
    out = subprocess.run([sys.executable, "-m", "benchmarks.cli_whole_process", "--tries", "5"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    speedup = float(re.search(r"whole process: ([0-9.]+)x", out).group(1))
    # identical, or differing only where a collapsed ViT's chance-level accuracy is float rounding (an AVX-512
    # host: the notebook's own loop gives seed 2's ViT 26.0 % on one thread, 43.3 % on two; README)
    assert ("identical per-seed accuracies: yes" in out
            or "the rows that differ are all a collapsed ViT at chance on both sides: yes" in out), out
    assert speedup >= 5.0 / CLI_MARGIN, out  # measured 4.66x, 4.87x, 4.94x, 5.24x (README); the target is 5x
