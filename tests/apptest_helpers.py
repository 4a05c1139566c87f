"""Helpers for AppTest: run a page, read what its charts show."""

import hashlib
import html
import os
from html.parser import HTMLParser

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

# The least time an AppTest run may take before AppTest gives up on it (s). A limit, not a wait: a run that ends
# sooner returns at once. A page that trains a small setting takes seconds alone, minutes on a loaded 2-core machine
# (a run of the suite beside other work); a limit near the usual time made a slow machine fail the test.
RUN_LIMIT = 600


def page(path: str, timeout: float = 30, query: dict | None = None) -> AppTest:
    """Open a page as a visitor does: the app's entry point first (the pages' navigation links point to it),
    then the page, with ``query`` as the URL's query parameters (a link a teacher sent). ``timeout``: how long a
    run of the page may take, never less than ``RUN_LIMIT`` (the callers' numbers say what they expect)."""
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=max(timeout, RUN_LIMIT))
    if path == "app.py":
        return at.run()
    at.switch_page(path)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


class _Table(HTMLParser):
    """The rows of an HTML table, each a list of its cells' text (header cells included)."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def tables(at: AppTest, label: str | None = None) -> list[pd.DataFrame]:
    """The page's static tables (``ui.widgets.static_table``), read back: the first column the index (its name
    in the corner cell), the first row the header. ``label``: only the tables of that name."""
    out = []
    for element in at.get("html"):
        if 'class="dataframe lab-table"' not in element.proto.body:
            continue
        if label is not None and f'aria-label="{html.escape(label)}"' not in element.proto.body:
            continue
        parser = _Table()
        parser.feed(element.proto.body)
        header, *rows = parser.rows
        index = pd.Index([r[0] for r in rows], name=header[0] or None)
        out.append(pd.DataFrame([r[1:] for r in rows], index=index, columns=header[1:]))
    return out


PER_SEED = "Train and test accuracy of every model and seed"  # ui.result_sections.per_seed_table's table


# The keys of the pages' section tabs (ui.widgets.sections): only the open section is drawn
SECTION_KEYS = ("patchify_view", "symmetry_view", "results_view", "bench_view", "digits_view", "own_view")


def every_section(at: AppTest):
    """Open each section of the page in turn (the page as it is, when it has none), yielding the AppTest
    after each run; the section that was open is open again at the end."""
    key = next((k for k in SECTION_KEYS if k in at.session_state), None)
    if key is None:
        yield at
        return
    was = at.session_state[key]
    for label in [t.label for t in at.tabs]:
        at.session_state[key] = label
        at.run()
        yield at
    at.session_state[key] = was
    at.run()


def open_section(at: AppTest, label: str) -> AppTest:
    """Open the page's section tab called ``label`` (the page is re-run)."""
    key = next(k for k in SECTION_KEYS if k in at.session_state)
    at.session_state[key] = label
    return at.run()


def all_charts(at: AppTest) -> list:
    """Every Plotly chart of every section of the page."""
    return [el for _ in every_section(at) for el in at.get("plotly_chart")]


def charts_digest(at: AppTest) -> str:
    """A fingerprint of every Plotly figure on the page, in every section: changes when any chart shows
    something else."""
    specs = [el.proto.spec for el in all_charts(at)]
    return hashlib.sha256("".join(specs).encode()).hexdigest()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def link_notes(at: AppTest) -> list[str]:
    """What the page said of its link's values it could not use (``ui.widgets.show_link_notes``), a sentence
    each, as the learner reads them (the element holds them escaped for Markdown)."""
    return [s.replace("\\", "") for w in at.warning if w.proto.icon == "🔗" for s in w.value.split("\n\n")]


def assert_change_shows(path: str, change) -> None:
    """Open the page, apply ``change`` (a function of the AppTest), re-run: no error, and some chart differs."""
    at = page(path)
    before = charts_digest(at)
    change(at)
    at.run()
    assert_clean(at)
    assert charts_digest(at) != before
