"""Does the exported notebook print the lab's numbers on this machine? Export a setting as a notebook, run it in a
fresh kernel that cannot import the lab, train the same setting with the lab's command line, and compare each
(model, seed)'s accuracies, bit for bit (docs/notebook.md).

    python -m scripts.check_notebook --preset lesson                 # any options of python -m core generalization
    python -m scripts.check_notebook --preset tiny --phases 0 1 2 --train-range 3 12 --workers 0

Prints one line per (model, seed): the lab's train and test accuracy, the notebook's, and whether they are equal;
exits 1 if any is not. ``--workers`` goes to the lab's run only (the notebook trains on one thread).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from core.cli import build_parser, form_config
from core.export.notebook import notebook_for
from support.notebook_run import accuracies, execute, lab_accuracies

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--workers")
    ours, options = own.parse_known_args(argv)
    try:  # bad options: the command line's own one-line errors
        cfg = form_config(build_parser().parse_args(["notebook", *options]))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    lab_command = [sys.executable, "-m", "core", "generalization", *options, "--json"]
    lab_command += ["--workers", ours.workers] if ours.workers is not None else []
    start = time.perf_counter()
    lab = subprocess.run(lab_command, cwd=ROOT, capture_output=True, text=True, check=True)
    lab_seconds, start = time.perf_counter() - start, time.perf_counter()
    ran = execute(notebook_for(cfg, " ".join(["python -m core generalization", *options, "--json"])))
    notebook_seconds = time.perf_counter() - start
    expected, printed = lab_accuracies(json.loads(lab.stdout)), accuracies(ran)
    print(f"{'model':<16}{'seed':>5}  {'lab train, test':<44}{'notebook train, test':<44}equal")
    for key in expected:
        same = printed.get(key) == expected[key]
        print(f"{key[0]:<16}{key[1]:>5}  {str(expected[key]):<44}{str(printed.get(key)):<44}{'yes' if same else 'NO'}")
    equal = printed == expected
    print(f"\n{'every accuracy equal, bit for bit' if equal else 'NOT EQUAL'}: the lab in {lab_seconds:.1f} s, the "
          f"notebook (a fresh kernel, one thread) in {notebook_seconds:.1f} s")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
