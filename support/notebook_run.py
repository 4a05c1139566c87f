"""An exported notebook run as a learner runs it, and its accuracies read back (``tests/export/test_notebook.py``,
``scripts/check_notebook.py``).

``execute`` runs every cell in a fresh Python kernel (nbclient, ipykernel) whose working folder is an empty
temporary one and whose ``PYTHONPATH`` holds only a ``core`` package that fails on import: a notebook that reached
for the lab's code, from the repository or from an installed copy, stops there instead of passing.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import nbclient
import nbformat

from core.export.notebook import ACCURACY_CELL

ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)$")  # model, seed, train accuracy, test accuracy
DIVERGED = re.compile(r"^(\S+)\s+(\d+)\s+diverged at epoch \d+$")

Accuracies = dict[tuple[str, int], tuple[float | None, float | None]]  # (model, seed) -> (train, test)


def execute(nb: nbformat.NotebookNode, timeout: int = 600) -> nbformat.NotebookNode:
    """``nb`` with every cell run, top to bottom, in a kernel that cannot import ``core``; a cell's error raises
    (nbclient's ``CellExecutionError``, with the cell and its traceback)."""
    with tempfile.TemporaryDirectory(prefix="vitlab-notebook-") as work:
        blocked = Path(work) / "blocked" / "core"
        blocked.mkdir(parents=True)
        (blocked / "__init__.py").write_text("raise ImportError('the notebook imported the lab: it must not')\n")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(blocked.parent)}
        client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=timeout,
                                         resources={"metadata": {"path": work}})
        client.execute(env=env)
    return nb


def printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def accuracies(nb: nbformat.NotebookNode) -> Accuracies:
    """Each (model, seed)'s accuracies as the executed notebook printed them (None, None: diverged)."""
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.rstrip() == ACCURACY_CELL.rstrip())
    found: Accuracies = {}
    for line in printed(cell).splitlines():
        if m := DIVERGED.match(line):
            found[m[1], int(m[2])] = (None, None)
        elif (m := ROW.match(line)) and m[2].isdigit():
            found[m[1], int(m[2])] = (float(m[3]), float(m[4]))
    return found


def lab_accuracies(out: dict) -> Accuracies:
    """The same, from ``python -m core generalization --json`` (or ``digits --json``) output."""
    return {(r["model"], r["seed"]): (r["train_acc"], r["test_acc"]) for r in out["results"]}
