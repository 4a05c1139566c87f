"""ui.downloads: the files the result pages offer, built from a shipped run (the pages hand these functions
to st.download_button as callables, so AppTest never builds them)."""

import io
import json
import math

import pandas as pd

from core.engine.results.run_result import summary
from core.lessons.shipped import load_fresh_shipped
from ui.downloads import notebook_ipynb, results_csv, rows_csv, run_json

LINK = "http://localhost:8501/ViT_vs_CNN?seeds=0-2"


def a_run():
    return next(iter(load_fresh_shipped().values()))


def test_the_csv_has_a_row_per_model_and_seed_each_with_the_link():
    result = a_run()
    table = pd.read_csv(io.StringIO(results_csv(result, LINK)))
    assert len(table) == len(result.rows) and set(table["link"]) == {LINK}
    assert list(table["test_acc"]) == [r.test_acc for r in result.rows]


def test_the_json_is_strict_and_carries_the_link_summary_verdicts_and_the_run():
    result = a_run()
    full = json.loads(run_json(result, LINK), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert full["link"] == LINK
    assert set(full["summary"]) == set(full["verdicts"]) == set(summary(result))
    for key in result.to_json():
        assert key in full
    assert all(math.isfinite(v) for s in full["summary"].values() for v in s.values() if isinstance(v, float))


def test_rows_become_a_table():
    assert rows_csv([{"value": 1, "test_acc": 0.5}, {"value": 2, "test_acc": 0.75}]).splitlines() == [
        "value,test_acc", "1,0.5", "2,0.75"]


def test_the_notebook_is_the_runs_setting_as_a_valid_notebook():
    import nbformat

    result = a_run()
    nb = nbformat.reads(notebook_ipynb(result.config), as_version=4)
    nbformat.validate(nb)
    assert f"SEEDS = {result.config.train.seeds!r}" in nb.cells[2].source  # its run: tests/export/test_notebook.py
