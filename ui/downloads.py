"""What the result pages offer to download, as text. The pages hand these to ``st.download_button`` as
callables, so a file is built when a learner clicks, not on every run of the page: building the run's JSON
and CSV on every run of the page (every probe move included) is a large share of the page's own script
time (docs/performance.md), and would keep both files in the server's memory."""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd

from core.engine.results.run_result import RunResult, summary
from core.engine.results.verdict import verdicts
from core.engine.setting.run_config import GeneralizationConfig


def results_csv(result: RunResult, link: str) -> str:
    """One row per model and seed (its accuracies and the run's settings), each with the link to the run."""
    return pd.DataFrame([asdict(r) for r in result.rows]).assign(link=link).to_csv(index=False)


def run_json(result: RunResult, link: str) -> str:
    """The whole run: the link, each model's summary and verdict, then the config, rows, curves and
    predictions (``RunResult.to_json``). Strict JSON: a NaN would raise here rather than be written."""
    full = {"link": link, "summary": {m: asdict(s) for m, s in summary(result).items()},
            "verdicts": {m: {"measure": "test set", "band": x.band, "text": x.text, "detail": x.detail,
                             **asdict(x.interval)} for m, x in verdicts(result).items()},
            **result.to_json()}
    return json.dumps(full, indent=1, allow_nan=False)


def notebook_ipynb(cfg: GeneralizationConfig) -> str:
    """The run's setting as a Jupyter notebook that retrains it with the lab's own code and prints the same
    accuracies (``core.export.notebook``). nbformat and the export are imported on the click, not with the page."""
    import nbformat

    from core.export.notebook import notebook_for

    return nbformat.writes(notebook_for(cfg))


def rows_csv(rows: list[dict]) -> str:
    """Any list of flat dicts (a sweep's rows) as CSV."""
    return pd.DataFrame(rows).to_csv(index=False)
