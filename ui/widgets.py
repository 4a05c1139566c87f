"""Small Streamlit pieces every page uses: the header and navigation, charts with their numbers, the link
to the page's settings, the "What to notice" list and the code that ran."""

from __future__ import annotations

import functools
import html
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import plotly.graph_objects as go
import streamlit as st

from ui.figures import figure_tables, margins, reuse, theme
from ui.lesson_list import Lesson
from ui.page_rerun import fragment, page_run_started
from ui.url_state import (
    keep_closed_sections,
    leave_other_pages,
    link_notes,
    section_controls,
    tab_from_link,
    tab_to_link,
)

if TYPE_CHECKING:  # pandas only names a type here: the home page draws without importing it (docs/performance.md)
    import pandas as pd

# Every control that sets an experiment is bound to the URL: the key is the query parameter, values equal
# to the widget's default are left out. Exercise answers and predictions are not: a shared link should not
# carry somebody's answers.
URL = "query-params"
# No Plotly toolbar: it covered the titles of small maps inside a figure (layer and head names), and on a
# phone it appears on every tap. The figure's title is drawn by Streamlit above it (see chart); Streamlit's
# own element toolbar still offers full screen.
PLOTLY_CONFIG = {"displaylogo": False, "displayModeBar": False}
# A chart whose tools are shown (``plot(tools=True)``) keeps only its selection tools: box and lasso
NOT_TOOLS = ("zoom2d", "pan2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d", "toImage")


def as_text(text: object) -> str:
    """``text`` for a markdown element, shown as written: every ASCII punctuation mark escaped, so that text from
    outside (a reason read from Redis or a shared file) makes no link, no emphasis, no autolink, no directive."""
    return "".join("\\" + c if c.isascii() and not c.isalnum() and not c.isspace() else c for c in str(text))


@fragment
def show_source(*objects, label: str = "Show the code that ran (the lab's own source, read from the running program)") -> None:
    """Show the real source of what the page just ran: never a pasted copy that could drift. Drawn only when
    asked for: highlighting it is a visible part of a page's first draw (docs/performance.md). A fragment: its
    switch re-runs it alone."""
    if st.toggle(label, key="show_code", bind=URL):
        for obj in objects:
            module = inspect.getmodule(obj)
            st.caption(f"`{module.__name__}.{obj.__qualname__}`" if module else obj.__qualname__)
            st.code(inspect.getsource(obj), language="python")


@functools.cache
def plotly_module() -> str | None:
    """The file name of Streamlit's Plotly chunk (``PlotlyChart.<hash>.js``, next to its ``index.<hash>.js``), or
    None if this Streamlit has not exactly one."""
    names = [p.name for p in (Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js")]
    return names[0] if len(names) == 1 and re.fullmatch(r"PlotlyChart\.[\w-]+\.js", names[0]) else None


# Imports the chunk once the page has drawn and stayed still for QUIET ms, by the URL Streamlit's own lazy
# import resolves (relative to its index chunk), so that import finds the module already evaluated.
PRELOAD_JS = """<script>
(() => {
  if (window.__vitlabPlotly) return;
  window.__vitlabPlotly = true;
  const index = [...document.querySelectorAll('script[src]')].find(s => /\\/static\\/js\\/index\\.[^/]*\\.js$/.test(s.src));
  if (!index) return;
  let timer = null;
  const load = () => { observer.disconnect(); import(new URL('./CHUNK', index.src).href).catch(() => {}); };
  const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(load, QUIET); });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true});
  timer = setTimeout(load, QUIET);
})();
</script>"""


def preload_plotly(quiet_ms: int = 700) -> None:
    """Have the browser load Plotly's module while the learner reads, not when a chart first needs it.
    Streamlit loads its Plotly chunk (megabytes) at a page's first chart: a large part of a lesson page's
    first draw, and on a page that opens without a chart (ViT vs CNN's results, lesson 4) it would load when
    the live curve first appears, on the cores the training uses. Loaded once the page has been still for
    ``quiet_ms`` (docs/performance.md), it costs neither; in a browser tab it stays
    loaded across pages, so the home page prepares every lesson's charts. Does nothing if this Streamlit
    has no such chunk (its first chart then loads it, as before)."""
    chunk = plotly_module()
    if chunk is not None:
        st.html(PRELOAD_JS.replace("CHUNK", chunk).replace("QUIET", str(int(quiet_ms))), unsafe_allow_javascript=True)


# The copy button of a code box (the link to a page's settings) shows only while a mouse hovers the box, so a
# touch screen never shows it: always visible here.
STYLE = """<style>
[data-testid="stCode"] :has([data-testid="stElementToolbarButton"]),
[data-testid="stCode"] [data-testid="stElementToolbarButton"],
[data-testid="stCode"] [data-testid="stElementToolbarButton"] * { opacity: 1 !important; visibility: visible !important; }
.lab-table-box { overflow-x: auto; margin-bottom: 1rem; container-type: inline-size; }
.lab-table { border-collapse: collapse; font-size: 0.875rem; }
.lab-table th, .lab-table td { padding: 0.25rem 0.75rem; border-bottom: 1px solid rgba(128, 128, 128, 0.3);
  text-align: left; vertical-align: top; overflow-wrap: break-word; }
.lab-table thead th, .lab-table tbody th { font-weight: 600; }
@container (max-width: 640px) {
  .lab-stack .lab-table, .lab-stack .lab-table tbody, .lab-stack .lab-table tr, .lab-stack .lab-table th,
  .lab-stack .lab-table td { display: block; }
  .lab-stack .lab-table thead { display: none; }
  .lab-stack .lab-table tr { padding: 0.25rem 0; border-bottom: 1px solid rgba(128, 128, 128, 0.3); }
  .lab-stack .lab-table th, .lab-stack .lab-table td { padding: 0.1rem 0.25rem; border: none; overflow-wrap: anywhere; }
  .lab-stack .lab-table td::before { content: attr(data-label) ": "; font-weight: 600; }
}
</style>"""


def navigation_first() -> None:
    """Hand a page run without app.py over to it. A server's first visitor who comes by a page's own link
    gets that page run straight from the pages/ folder (Streamlit's old multipage mode, which lasts until some
    script calls ``st.navigation``), with a navigation of file names ("app", "Home"). Once per server process:
    the mode is switched off and the run starts again from app.py, whose ``st.navigation`` then opens the page
    the link names (the browser tests open every page this way, on a fresh server)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.pages_manager import PagesManager

    # a real server only (AppTest runs every page in that mode, on a stand-in Runtime of its own)
    if PagesManager.uses_pages_directory and Runtime.exists() and type(Runtime.instance()) is Runtime:
        PagesManager.uses_pages_directory = False
        st.rerun()


def sidebar() -> None:
    """The sidebar's tools under the page list (which app.py's ``st.navigation`` draws): the numbers switch. First
    on every page: the link notes of the page left are dropped here."""
    page_run_started()
    leave_other_pages()
    keep_closed_sections()
    navigation_first()
    with st.sidebar:
        st.toggle("Show numbers under every chart", key="numbers", bind=URL,
                  help="A table of each chart's values under it: for screen readers, printing, or copying numbers")
        st.divider()
        preload_plotly()
    st.html(STYLE)  # page-wide rules (no space taken: a style-only st.html goes to the event container)


def page_header(page: Lesson, question: str) -> None:
    """The page's title and its question in one line: what a learner reads before the first figure."""
    st.set_page_config(page_title=f"{page.title} · ViT Lab", page_icon=page.icon, layout="wide",
                       initial_sidebar_state="auto")
    sidebar()
    st.title(page.title)
    st.markdown(f"**{question}**")


def background(text: str, label: str = "The idea behind this page") -> None:
    """The page's longer explanation, one click away: the figure comes first."""
    with st.expander(label):
        st.markdown(text)



def layout_settings(fig: go.Figure) -> dict:
    """The layout settings that send ``fig`` without its title (drawn above it as text: text wraps on a phone; a
    Plotly title is cut off, and the toolbar can cover it) and with its margins set (``margins.margin_settings``)."""
    settings = margins.margin_settings(fig)
    if fig.layout.title.text:
        settings["title"] = None  # an update: None unsets
        # room for the top row's subplot titles (annotations at the plot's top edge), 12 px a line
        tops = [a.text or "" for a in fig.layout.annotations if a.yref == "paper" and (a.y or 0) >= 0.99]
        settings.setdefault("margin", {})["t"] = max(30, 12 + 16 * max((t.count("<br>") + 1 for t in tops), default=0))
    settings.update(margins.legend_below_axis(fig, settings))
    settings["meta"] = None  # what "Show numbers" lists (ui.figures.figure_tables) stays here: the browser draws none of it
    return settings


def plot(fig: go.Figure, where, *, key: str | None = None, on_select=None,
         selection_mode: str | tuple[str, ...] = "points", tools: bool = False) -> None:
    """Send a figure to the page: its title as text above it, the layout of ``layout_settings`` and the lab's look
    (``theme.lab_look``: drawn once in the browser, not twice) in the figure and, with ``on_select``, a click on a
    point selects it and runs ``on_select`` (``selection_mode``: also "box" and "lasso", a drag over many, picked from
    the chart's tool bar, shown with ``tools``; a drag selects only then: with the drag mode "select" Streamlit makes
    a click select nothing). The one place a chart is sent. The figure is changed in place, or, equal
    to one sent before, sent as a copy of that one (``figures.reuse``: its layout and look are worked out once per
    server, not on every rerun)."""
    _send(fig, where, reuse.title(fig), key, on_select, selection_mode, tools)


def _send(fig: go.Figure, where, title: str | None, key: str | None, on_select,
          selection_mode: str | tuple[str, ...] = "points", tools: bool = False) -> None:
    """``plot`` with the figure's title already read (reading an untouched cached figure's title unpickles its
    spec: ``chart`` reads it once for both)."""
    if title:
        where.markdown(f"**{title}**")
    selectable = on_select is not None
    fig = reuse.finished(fig, lambda f: theme.lab_look(f, selectable=selectable, settings=layout_settings(f)), selectable)
    selection = dict(on_select=on_select, selection_mode=selection_mode) if on_select is not None else {}
    config = {**PLOTLY_CONFIG, "displayModeBar": True, "modeBarButtonsToRemove": list(NOT_TOOLS)} if tools else PLOTLY_CONFIG
    where.plotly_chart(fig, theme=None, width="stretch", config=config, key=key, **selection)


def chart(fig: go.Figure, where=None, *, key: str | None = None) -> None:
    """Draw a figure (``plot``) and, when "Show numbers" is on, the figure's values as a table below it."""
    where = where or st.container()
    title = reuse.title(fig)
    tables = figure_tables.figure_tables(fig) if st.session_state.get("numbers") else []
    # Two figures can be equal once their titles are gone (a CNN's plus and circle maps): the title keys them
    _send(fig, where, title, key or (f"chart:{title}" if title else None), None)
    for caption, table in tables:
        where.caption(caption)
        where.dataframe(table, width="stretch")


def share_link(where=None) -> str:
    """The address of this page with its current settings, in a "Link to these settings" popover with a
    copy button, and returned (the downloads carry it). Built from the URL's query parameters, which the
    bound widgets keep up to date (so the address bar holds the same link). In a popover because its box
    loads the browser's code highlighter, a visible part of a page's first draw, and a popover draws its
    content only when opened (docs/performance.md)."""
    params = urlencode([(k, v) for k in st.query_params for v in st.query_params.get_all(k)])
    link = (st.context.url or "") + (f"?{params}" if params else "")
    where = where or st.sidebar
    with where.popover("🔗 Link to these settings", width="stretch"):
        st.code(link or "(this page's address)", language=None, wrap_lines=True)
        st.caption("The copy button is at the box's right; the address bar holds the same link. Opened anywhere, "
                   "even on a freshly started server, it shows this page with these settings.")
    return link


def show_link_notes(where) -> None:
    """What the page's link named and the page could not use (``ui.url_state.link_notes``), a sentence each, in
    ``where``: a placeholder near the page's top (``st.empty()``), filled once its controls have read the link, so
    the learner learns why the page is not what the link said while the page below draws as usual. Shown as
    written: the link's text is the visitor's."""
    notes = link_notes()
    if notes:
        where.warning("\n\n".join(as_text(n) for n in notes), icon="🔗")
    else:
        where.empty()


def sections(key: str, draws: dict[str, tuple[str, Callable[[], object]]], after: Callable[[object], None] | None = None):
    """The page's sections as tabs of which only the open one runs and is drawn; ``after(shown)`` is drawn below
    them with what the open section's draw function returned (a page's "What to notice" that depends on it).
    ``draws``: name -> (label, draw). Drawing every chart of every section made a page's first draw several times
    slower; a closed section costs nothing. The open tab is in the link by its name (``ui.url_state``), and a
    hidden section's controls keep their values, in the link too (``ui.url_state.keep_closed_sections``).

    A fragment (``ui.page_rerun``): opening a tab, or a control inside the open section, re-runs the tabs and
    that section alone, not the page. Whatever depends on the open section is drawn here, in ``after``, so a
    fragment's re-run leaves nothing outside it stale."""
    return _sections(key, draws, after)


@fragment
def _sections(key: str, draws: dict[str, tuple[str, Callable[[], object]]], after: Callable[[object], None] | None):
    keep_closed_sections(key)  # a fragment's run: the page's own run did it for the others
    labels = {name: label for name, (label, _) in draws.items()}
    tabs = st.tabs(list(labels.values()), key=key, default=tab_from_link(key, labels), on_change="rerun")
    shown = None
    for tab, (name, (_, draw)) in zip(tabs, draws.items(), strict=True):
        with tab:
            if tab.open:
                with section_controls(key, name):
                    shown = draw()
    tab_to_link(key, labels)
    if after is not None:
        after(shown)
    return shown


def bullets(notes: list[str]) -> None:
    """The "What to notice" list: one Markdown list, so a screen reader announces one list of N items (and
    the page sends one element, not N)."""
    if notes:
        st.markdown("\n".join(f"- {note}" for note in notes))


STACK_AT = 3  # a table of this many columns of values or more stacks its rows in a narrow box (STYLE)


def static_table(df: pd.DataFrame, label: str, where=None) -> None:
    """A table of values already written as text (``df``'s index: its row labels), sent as one HTML element: a
    real ``<table>`` with header cells, for screen readers and copying. ``st.table`` draws every cell as
    Markdown: lesson 4's 16 × 5 answers cost *Draw your own*'s first open more than its charts
    (docs/performance.md). The whole table shows in its box, never a column or row to scroll to (a phone shows
    no scroll bar, and a learner took the last column shown for the last one): its headers and cells wrap, and a
    table of ``STACK_AT`` columns of values or more, in a box narrower than 640 px (a phone, a narrow column),
    shows each row as a block, a line per value led by its column's name (``data-label``). The box can take the
    keyboard's focus (arrow keys would scroll it) and ``label`` names it for a screen reader."""
    esc = html.escape
    head = "".join(f'<th scope="col">{esc(str(c))}</th>' for c in [df.index.name or "", *df.columns])
    body = "".join(f'<tr><th scope="row">{esc(str(i))}</th>'
                   + "".join(f'<td data-label="{esc(str(c))}">{esc(str(v))}</td>' for c, v in zip(df.columns, row, strict=True))
                   + "</tr>" for i, row in zip(df.index, df.itertuples(index=False), strict=True))
    stack = " lab-stack" if len(df.columns) >= STACK_AT else ""
    (where or st).html(f'<div class="lab-table-box{stack}" tabindex="0" role="region" aria-label="{esc(label)}">'
                       f'<table class="dataframe lab-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')
