"""ui.page_rerun: a click inside a section re-runs that section alone, a callback that changes the rest of the page
re-runs the page, and what a section shows survives a full re-run and a link.

On a real ``streamlit run app.py``: over its websocket (``benchmarks.class_load.Session``, as a browser's tab sends)
and in Debian's headless Chromium. AppTest runs every click as a whole run, so it cannot tell a section's run
from the page's. Every wait is on something the page shows, never on time.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import parse_qs, urlparse

import pytest
from streamlit.testing.v1 import AppTest

from benchmarks.class_load import Session
from support.browser import open_tab, require_browser, settled, streamlit_server, wait_for_charts
from ui import page_rerun

SLOW = 60_000  # ms: a loaded machine makes a step slower, never a failure


def test_a_callback_asks_for_the_whole_page_and_the_pages_own_run_meets_the_request():
    def page():
        import streamlit as st

        from ui.page_rerun import fragment, page_run_started, whole_page

        page_run_started()
        st.session_state.setdefault("runs", 0)
        st.session_state.runs += 1

        @fragment
        def section():
            st.button("set", on_click=whole_page(st.session_state.update), kwargs={"value": 7}, key="set")

        section()

    at = AppTest.from_function(page).run()
    runs = at.session_state.runs
    at.button(key="set").click().run()
    # AppTest runs the whole page for the click: the request is met by that run, not by a second one
    assert at.session_state.value == 7 and at.session_state.runs == runs + 1
    assert page_rerun.ASKED not in at.session_state


def _patchify_over_the_websocket(url: str) -> dict:
    async def go() -> dict:
        s = Session(url, "Patchify", "")
        await s.open("patchify_view", "chosen_16", "weight_seed", "answer_Patchify_tokens")
        seen = {"page": (s.drawn, dict(s.metrics))}
        for name, change in (("tab", {"patchify_view": 2}), ("patch to follow", {"chosen_16": 3}),
                             ("exercise answer", {"answer_Patchify_tokens": 1}), ("seed", {"weight_seed": 7})):
            await s.rerun(**change)
            assert not s.exceptions, s.exceptions
            seen[name] = (s.drawn, dict(s.metrics))
        await s.close()
        return seen

    return asyncio.run(go())


def test_a_sections_tab_control_or_exercise_reruns_it_alone_and_a_control_outside_reruns_the_page():
    with streamlit_server() as (url, _, _):
        seen = _patchify_over_the_websocket(url)
    page, metrics = seen["page"]
    assert "max |linear − conv|" in metrics
    for section in ("tab", "patch to follow", "exercise answer"):
        drawn, shown = seen[section]
        # the section's few elements; the metrics above it are not sent again
        assert 0 < drawn < page / 3 and not shown, (section, drawn, page, shown)
    drawn, shown = seen["seed"]  # a sidebar control: the whole page, with its new numbers
    assert drawn > page / 2 and shown["max |linear − conv|"] and shown.keys() == metrics.keys()


@pytest.mark.e2e
def test_a_tab_opened_in_a_section_stays_open_through_a_full_rerun_and_a_link(browser):
    require_browser()
    from playwright.sync_api import expect

    with streamlit_server() as (url, _, _):
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{url}/Patchify")
        wait_for_charts(page, 2, timeout=300)
        tab = page.get_by_role("tab", name="3 · Two embeddings with the same weights")
        open_tab(page, tab)
        seed = page.get_by_label("Weight seed")  # in the sidebar: the whole page re-runs
        seed.fill("7")
        seed.press("Enter")
        expect(page.get_by_text("|difference| (max")).to_have_count(1, timeout=SLOW)
        page.wait_for_function("() => location.search.includes('weight_seed=7')", timeout=SLOW)
        settled(page)
        expect(tab).to_have_attribute("aria-selected", "true")
        metric = page.locator("[data-testid=stMetric]", has_text="max |linear − conv|").inner_text()
        assert parse_qs(urlparse(page.url).query)["weight_seed"] == ["7"]
        link = page.url
        assert parse_qs(urlparse(link).query)["patchify_view"] == ["embeddings"]

        again = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        again.goto(link)
        wait_for_charts(again, 3, timeout=300)
        expect(again.get_by_role("tab", name="3 · Two embeddings with the same weights")).to_have_attribute(
            "aria-selected", "true")
        shown = again.locator("[data-testid=stMetric]", has_text="max |linear − conv|")
        number = re.search(r"\d\.\d\de[-+]\d\d", metric).group(0)  # the seed's own difference, not the default's
        expect(shown).to_contain_text(number, timeout=SLOW)


@pytest.mark.e2e
def test_an_exercises_preset_fills_the_form_outside_its_section_and_run_keeps_the_open_tab(browser):
    require_browser()
    from playwright.sync_api import expect

    with streamlit_server() as (url, _, _):
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{url}/ViT_vs_CNN")
        page.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        open_tab(page, page.get_by_role("tab", name="Generalization map"))
        panel = page.locator("[data-testid=stExpander]", has_text="Exercises:")
        panel.locator("summary").first.click()
        panel.get_by_role("button", name=re.compile("^Fill the form with")).first.click()
        # the form, outside the exercises' section, shows the preset: ten times the data
        form = page.locator("[data-testid=stForm]")
        expect(form.get_by_role("slider", name="Training images")).to_have_value("3000", timeout=SLOW)
        form.get_by_role("button", name="Run").click()
        # another setting: judged by the prediction gate again, before any of its results
        page.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        setting = page.get_by_text(re.compile(r"3000 training images at centres"))
        expect(setting).to_have_count(1, timeout=SLOW)
        settled(page)
        expect(page.get_by_role("tab", name="Generalization map")).to_have_attribute("aria-selected", "true")
        link = page.url
        assert parse_qs(urlparse(link).query).get("results_view") == ["map"], link

        again = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        again.goto(link)
        again.get_by_role("button", name="Show the result without predicting").click(timeout=SLOW)
        expect(again.get_by_text(re.compile(r"3000 training images at centres"))).to_have_count(1, timeout=SLOW)
        expect(again.get_by_role("tab", name="Generalization map")).to_have_attribute("aria-selected", "true",
                                                                                     timeout=SLOW)
