"""End-to-end, *Your own experiment* (issue #53) in a real browser, on a desktop and on a 390 px phone: a learner
draws two classes by clicking the canvas's pixels, paints a split (a preset, then boxes dragged on the map), makes the form tiny, runs, predicts, and sees every model's metric and map; the page's link, opened on a
freshly started server (its own empty run archive: it trains again), shows the same classes, the same split and,
once trained there, the same numbers.

Real pointer events throughout (a hover, then a click or a drag, as a hand on a mouse does); every wait is on a
condition (``support.browser.settled``, a text, the address), never on a time.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

import pytest

from support.browser import ROOT, settled, streamlit_server
from tests.test_e2e_browser import SLOW, open_page

pytestmark = pytest.mark.e2e

from playwright.sync_api import expect  # noqa: E402  (test_e2e_browser skips the module without a browser)

from core.data.own_split import decode_split  # noqa: E402

PATH = "/Your_own_experiment"
SIDE = 16  # the canvas, and the map of centres
SHOTS = ROOT / "artifacts" / "screenshots"
METRICS = ("ViT (lesson) · test set", "CNN · test set")

# Two classes a viewport draws, pixel by pixel (x, y): a short line each, two directions (the phone's differ from
# the desktop's, so that each trains a setting of its own). Each is drawn in the middle of the canvas, where the
# editor puts a drawing made again from a link (kept cut to its ink, it is centred): drawn elsewhere, it shows
# moved on the reopened page, though the classes are the same.
DRAWINGS = {
    "desktop": [[(6, 7), (7, 7), (8, 7)], [(7, 6), (7, 7), (7, 8)]],
    "phone": [[(6, 6), (7, 7), (8, 8)], [(9, 6), (8, 7), (7, 8), (6, 9)]],
}
VIEWPORTS = {"desktop": (1400, 1000), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server():
    """The server the learner works on (the fresh one for the link is started by each test)."""
    with streamlit_server() as (url, _, _):
        yield url


# ---------------------------------------------------------------- reading the page
def keyed(page, prefix: str):
    """The chart drawn under a key starting with ``prefix`` (Streamlit marks its element ``st-key-<key>``)."""
    return page.locator(f"[class*='st-key-{prefix}'] .js-plotly-plot")


def ink(page) -> str:
    return page.locator("[data-testid=stCaptionContainer]", has_text="of ink.").inner_text().strip()


def split_title(page) -> str:
    return page.locator("p", has_text="test centres: click a cell").inner_text().strip()


def counts(page) -> tuple[int, int]:
    words = split_title(page).split()
    return int(words[0]), int(words[3])  # "N training and M test centres: ..."


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def split_in_link(page) -> tuple[set, set]:
    s = decode_split(query(page)["own_split"])
    return set(s.train), set(s.test)


def overview(page) -> str:
    """The picture of "Your classes" (the mosaic's heatmap as Plotly drew it): changes with any drawing."""
    return keyed(page, "own_overview").locator("image").first.get_attribute("href")


def wait_until(page, check, what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not seen in {timeout} s")
        page.wait_for_timeout(100)
    settled(page)


def link_moves(page, key: str, before: str | None) -> None:
    """Wait until the address holds a value of ``key`` other than ``before``."""
    wait_until(page, lambda: query(page).get(key) not in (None, before), f"a new {key} in the address")


# ---------------------------------------------------------------- acting on it, with a real pointer
def hover_click(page, plot, x: float, y: float, hover_has: str) -> None:
    """Move the pointer onto (x, y) of ``plot`` until Plotly shows the point's hover label (it picks the point under
    the pointer on hover), then click there."""
    page.mouse.move(x, y)
    expect(plot.locator(".hoverlayer .hovertext", has_text=hover_has)).to_have_count(1, timeout=SLOW)
    page.mouse.click(x, y)


def click_pixel(page, x: int, y: int, ink_after: int) -> None:
    """Toggle the canvas's pixel (x, y): its invisible marker is point y * 16 + x."""
    page.mouse.move(0, 0)  # off the previous canvas: the new one must see the pointer arrive
    canvas = keyed(page, "own_canvas_")
    canvas.scroll_into_view_if_needed()
    box = canvas.locator(".scatterlayer .point").nth(y * SIDE + x).bounding_box()
    hover_click(page, canvas, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, f"x={x}, y={y}")
    wait_until(page, lambda: ink(page) == f"{ink_after} pixel{'s' * (ink_after != 1)} of ink.", f"{ink_after} of ink")


def draw_class(page, pixels) -> None:
    page.get_by_role("button", name="Clear the canvas").click()
    wait_until(page, lambda: ink(page) == "0 pixels of ink.", "a cleared canvas")
    for n, (x, y) in enumerate(pixels, 1):
        click_pixel(page, x, y, n)


def pick(page, label: str, option: str) -> None:
    """Choose ``option`` of the radio that says ``label`` (a click on its text, as a learner does)."""
    page.locator("[data-testid=stRadio]", has_text=label).get_by_text(option, exact=True).click()
    settled(page)


def cell_point(plot, cx: float, cy: float) -> tuple[float, float]:
    """Where the map's centre (cx, cy) is on screen: the plot area spans -0.5..15.5 across and down."""
    box = plot.locator(".nsewdrag").first.bounding_box()
    return box["x"] + box["width"] * (cx + 0.5) / SIDE, box["y"] + box["height"] * (cy + 0.5) / SIDE


def split_map(page):
    plot = keyed(page, "own_split_map_")
    plot.scroll_into_view_if_needed()
    return plot


def click_cell(page, cx: int, cy: int) -> None:
    page.mouse.move(0, 0)
    plot = split_map(page)
    before = query(page).get("own_split")
    hover_click(page, plot, *cell_point(plot, cx, cy), f"cx={cx} cy={cy}:")
    link_moves(page, "own_split", before)


def drag_box(page, corner: tuple[int, int], other: tuple[int, int]) -> None:
    """Pick the map's box tool (its tool bar, top right), then drag a box over the centres from ``corner`` to
    ``other``, from just outside the one to just outside the other: a point on the box's edge may or may not be in
    it."""
    plot = split_map(page)
    before = query(page).get("own_split")
    plot.hover()
    plot.locator('[data-title="Box Select"]').click()
    plot.locator(".nsewdrag").first.scroll_into_view_if_needed()  # the map itself on screen (a phone's is below the tools)
    (x0, y0), (x1, y1) = cell_point(plot, corner[0] - 0.4, corner[1] - 0.4), cell_point(plot, other[0] + 0.4, other[1] + 0.4)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=12)
    page.mouse.up()
    link_moves(page, "own_split", before)


def slider_to_minimum(page, label: str) -> None:
    """Move the form's slider to its minimum with the keyboard (a form's slider changes nothing until Run)."""
    slider = page.get_by_role("slider", name=label)
    slider.focus()
    slider.press("Home")
    expect(slider).to_have_value(slider.get_attribute("min"), timeout=SLOW)


def metrics(page) -> dict[str, str]:
    for label in METRICS:
        page.locator("[data-testid=stMetric]", has_text=label).first.wait_for(timeout=SLOW)
    found = page.locator("[data-testid=stMetric]")
    return {label: found.filter(has_text=label).first.locator("[data-testid=stMetricValue]").inner_text()
            for label in METRICS}


def shows_every_models_map(page) -> None:
    tab = page.get_by_role("tab", name="Generalization maps")
    assert tab.get_attribute("aria-selected") == "true"  # the section the results open on
    maps = page.locator("[role=tabpanel] .js-plotly-plot:has(.main-svg)")
    expect(maps).to_have_count(2, timeout=SLOW)  # maps_grid: one chart per column, a model each here
    texts = [maps.nth(i).inner_text() for i in range(2)]
    assert any("ViT (lesson)" in t for t in texts) and any("CNN" in t for t in texts), texts
    assert all(maps.nth(i).locator(".heatmaplayer image").count() == 1 for i in range(2))


# ---------------------------------------------------------------- the test
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_learner_draws_paints_predicts_runs_and_the_link_reopens_it_on_a_fresh_server(browser, server, viewport,
                                                                                      tmp_path):
    width, height = VIEWPORTS[viewport]
    page, errors = open_page(browser, server + PATH, width, height)
    page.get_by_text("1. Your classes").wait_for(timeout=SLOW)
    settled(page)
    assert page.locator("[data-testid=stException]").count() == 0
    assert ink(page) == "33 pixels of ink."  # the lesson's plus
    assert counts(page) == (36, 4)  # the notebook's split, as the form will run it
    first_overview = overview(page)

    # 1. the classes, drawn by clicks on the canvas
    one, two = DRAWINGS[viewport]
    draw_class(page, one)
    assert overview(page) != first_overview
    pick(page, "Edit class", "circle")
    draw_class(page, two)
    drawn = overview(page)
    classes = query(page)["own_classes"]  # both classes drawn: a setting, in the link
    pick(page, "Edit class", "plus")
    assert ink(page) == f"{len(one)} pixels of ink."
    expect(page.get_by_text("Cannot run this setting")).to_have_count(0)

    # 2. the split: a preset, a cell clicked with the test brush, a box dragged with the eraser
    page.get_by_role("button", name="one quadrant").click()
    link_moves(page, "own_split", None)
    train, test = split_in_link(page)
    assert counts(page) == (len(train), len(test)) and train and test
    pick(page, "Brush", "test centre")
    cell = min(train)  # a training centre becomes a test centre, by a box dragged around it alone
    drag_box(page, cell, cell)
    assert split_in_link(page) == (train - {cell}, test | {cell})
    assert counts(page) == (len(train) - 1, len(test) + 1)
    train, test = split_in_link(page)
    pick(page, "Brush", "neither (erase)")
    lo = min(test)  # erase a 2 x 2 box of centres around a test centre
    box = {(lo[0] + i, lo[1] + j) for i in (0, 1) for j in (0, 1)}
    drag_box(page, lo, (lo[0] + 1, lo[1] + 1))
    assert split_in_link(page) == (train - box, test - box)
    train, test = split_in_link(page)
    assert counts(page) == (len(train), len(test))
    split = query(page)["own_split"]

    # 3. a tiny form, Run, predict, check: every model's metric and map
    for label in ("Training images", "Test images", "Epochs (full-batch Adam steps)", "Seeds (0, 1, …)"):
        slider_to_minimum(page, label)
    page.get_by_text("Draw the test-accuracy curve while training").click()  # the live curve off
    settled(page)
    page.get_by_role("button", name="Run", exact=True).click()
    check = page.get_by_role("button", name="Check it against the result")
    check.wait_for(timeout=SLOW)
    settled(page)
    pick(page, "Near the best model's accuracy", "At chance, or below it")  # the prediction's radio
    expect(check).to_be_enabled(timeout=SLOW)
    check.click()
    expect(page.get_by_text("Your prediction: At chance, or below it")).to_have_count(1, timeout=SLOW)
    settled(page)
    before = metrics(page)
    shows_every_models_map(page)
    expect(page.get_by_text("trained on this server").first).to_be_visible()
    link = page.url
    q = query(page)
    assert q["own_classes"] == classes and q["own_split"] == split
    assert q["own_n_train"] == "20" and q["own_epochs"] == "10" and q["own_seeds"] == "1"
    assert page.locator("[data-testid=stException]").count() == 0 and errors.real() == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": 6000})  # the whole page (it scrolls inside the app's box)
    settled(page)
    page.screenshot(path=SHOTS / f"own_experiment_{viewport}.png")
    page.context.close()

    # 4. the link, on a server started afresh with an empty run archive: the same setting, trained again
    with streamlit_server(env={"VITLAB_DATA_DIR": str(tmp_path)}) as (fresh, _, _):
        page, errors = open_page(browser, fresh + PATH + "?" + urlparse(link).query, width, height)
        page.get_by_text("1. Your classes").wait_for(timeout=SLOW)
        page.get_by_role("button", name="Show the result without predicting").wait_for(timeout=SLOW)
        settled(page)
        expect(page.get_by_text("training it now")).to_have_count(1)  # nothing stored here: it trained
        assert overview(page) == drawn
        assert ink(page) == f"{len(one)} pixels of ink."
        assert counts(page) == (len(train), len(test)) and split_in_link(page) == (train, test)
        page.get_by_role("button", name="Show the result without predicting").click()
        assert metrics(page) == before
        shows_every_models_map(page)
        assert query(page) == q
        assert page.locator("[data-testid=stException]").count() == 0 and errors.real() == []
        page.context.close()


def test_a_click_on_a_cell_of_the_split_map_paints_it(browser, server):
    page, errors = open_page(browser, server + PATH)
    page.get_by_text("1. Your classes").wait_for(timeout=SLOW)
    settled(page)
    page.get_by_role("button", name="one quadrant").click()
    link_moves(page, "own_split", None)
    train, test = split_in_link(page)
    pick(page, "Brush", "test centre")
    cell = min(train)
    plot = split_map(page)
    hover_click(page, plot, *cell_point(plot, *cell), f"cx={cell[0]} cy={cell[1]}:")
    try:
        wait_until(page, lambda: split_in_link(page) != (train, test), "the clicked cell painted", timeout=20)
    finally:
        page.context.close()
    assert split_in_link(page) == (train - {cell}, test | {cell})
