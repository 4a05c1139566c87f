import pytest

from tests.apptest_helpers import all_charts, assert_change_shows, assert_clean, link_notes, page
from ui.lesson_list import page_of

EXERCISES_KEY = page_of("pages/1_Patchify.py").progress_key  # the exercise widgets' keys start with it

PAGE = "pages/1_Patchify.py"


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_default_view_shows_equivalence():
    at = page(PAGE)
    assert_clean(at)
    assert metric(at, "Patches N") == "16" and metric(at, "Values per patch") == "48"
    assert float(metric(at, "max |linear − conv|")) <= 1e-12
    assert len(at.get("plotly_chart")) == 2  # the open section only
    assert len(all_charts(at)) == 7


@pytest.mark.parametrize(
    "change",
    [
        lambda at: at.selectbox(key="kind").set_value("checkerboard"),
        lambda at: at.select_slider(key="size").set_value(32),
        lambda at: at.radio(key="channels").set_value(1),
        lambda at: at.select_slider(key="patch_16").set_value(8),
        lambda at: at.slider(key="width").set_value(8),
        lambda at: at.number_input(key="weight_seed").set_value(3),
        lambda at: at.radio(key="dtype").set_value("float32"),
        lambda at: at.toggle(key="wrong_order").set_value(True),
        lambda at: at.toggle(key="overlap").set_value(True),
        lambda at: at.slider(key="chosen_16").set_value(0),
    ],
)
def test_every_control_changes_what_is_shown(change):
    assert_change_shows(PAGE, change)


def test_breaking_reports_a_large_difference_and_why():
    at = page(PAGE)
    at.toggle(key="wrong_order").set_value(True).run()
    assert float(metric(at, "max |linear − conv|")) > 1e-3
    assert any("Wrong flatten order" in md.value for md in at.markdown)
    at.toggle(key="wrong_order").set_value(False)
    at.toggle(key="overlap").set_value(True).run()
    assert_clean(at)
    assert any("overlap" in md.value for md in at.markdown)
    assert at.slider(key="stride_4").value == 2


def test_source_shown_is_the_real_core_source():
    import inspect

    from core.nn.patchify import patchify

    at = page(PAGE)
    assert inspect.getsource(patchify).strip() not in [c.value.strip() for c in at.code]  # drawn when asked for
    at.toggle(key="show_code").set_value(True).run()
    assert inspect.getsource(patchify).strip() in [c.value.strip() for c in at.code]


def test_upload_without_file_falls_back_to_synthetic():
    at = page(PAGE)
    at.radio(key="source").set_value("Upload").run()
    assert_clean(at)
    assert any("Upload an image" in i.value for i in at.info)


def test_an_unreadable_upload_is_one_sentence_and_the_synthetic_image_is_shown():
    at = page(PAGE)
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader[0].set_value(("notes.png", b"a text file, renamed", "image/png")).run()
    assert_clean(at)
    assert [w.value.replace("\\", "") for w in at.warning] == [
        "That file cannot be shown (not a PNG, JPEG, GIF, BMP, TIFF or WebP image, whatever its name says): the "
        "synthetic image is used instead."]
    assert metric(at, "Patches N") == "16" and len(at.get("plotly_chart")) == 2  # the page, as usual
    assert not any("Your image" in c.value for c in at.caption)  # no notes of an upload that was not used


def test_link_values_the_page_cannot_use_are_said_one_sentence_each_and_the_page_draws():
    at = page(PAGE, query={"patch_16": "abc", "channels": "2", "width": "999", "wrong_order": "yes",
                           "patchify_view": "nope"})
    assert_clean(at)
    assert link_notes(at) == [
        "patch_16=abc in the link is not one of 1, 2, 4, 8, 16: the default (4) is used.",
        "channels=2 in the link is not one of 1, 3: the default (3) is used.",
        "width=999 in the link is not between 1 and 64: the default (16) is used.",
        "wrong_order=yes in the link is not true or false: the default (false) is used.",
        "patchify_view=nope in the link is not one of grid, patch, embeddings: the first section is shown.",
    ]
    assert metric(at, "Patches N") == "16" and len(at.get("plotly_chart")) == 2
    at.slider(key="width").set_value(8).run()  # the control moved: its note has nothing more to say
    assert len(link_notes(at)) == 4 and not any(n.startswith("width=") for n in link_notes(at))
    at.switch_page("pages/9_Glossary.py").run()
    at.switch_page(PAGE).run()
    assert link_notes(at) == []  # back from another page, the link is long gone: nothing said again
    assert link_notes(page(PAGE, query={"size": "32", "patch_32": "8"})) == []


def test_single_choice_settings_are_text_not_a_slider_that_raises():
    at = page(PAGE)
    at.select_slider(key="patch_16").set_value(16).run()  # one patch: nothing to follow
    assert_clean(at)
    assert any("Patch to follow (red box): **0** (the only choice here)" in md.value for md in at.markdown)
    at.select_slider(key="patch_16").set_value(2).run()
    at.toggle(key="overlap").set_value(True).run()  # stride < 2 leaves one stride
    assert_clean(at)
    assert any("Conv stride: **1** (the only choice here)" in md.value for md in at.markdown)
    assert any("Stride 1 < kernel 2" in md.value for md in at.markdown)


def test_a_link_reproduces_the_settings_and_the_numbers():
    at = page(PAGE, query={"size": "32", "patch_32": "8", "channels": "1", "wrong_order": "true"})
    assert_clean(at)
    assert metric(at, "Patches N") == "16" and metric(at, "Values per patch") == "64"
    assert at.toggle(key="wrong_order").value is True
    assert at.get("code")[-1].proto.code_text.startswith("?")  # the link shown names the same settings
    assert {"size=32", "patch_32=8", "channels=1"} <= set(at.get("code")[-1].proto.code_text[1:].split("&"))


def test_exercise_show_me_sets_the_controls_and_check_explains():
    at = page(PAGE)
    at.button(key="do_tokens").click().run()
    assert metric(at, "Tokens with [CLS]") == "257"
    at.radio(key=f"answer_{EXERCISES_KEY}_tokens").set_value("256").run()
    at.button(key=f"check_{EXERCISES_KEY}_tokens").click().run()
    assert any("Not quite" in e.value and "**257**" in e.value for e in at.error)
    at.radio(key=f"answer_{EXERCISES_KEY}_tokens").set_value("257").run()
    at.button(key=f"check_{EXERCISES_KEY}_tokens").click().run()
    assert any("Right" in s.value for s in at.success) and at.session_state["progress"] == {f"{EXERCISES_KEY}/tokens": True}


def test_wrong_order_metric_says_not_rounding_without_an_arrow():
    at = page(PAGE)
    at.toggle(key="wrong_order").set_value(True).run()
    m = next(m for m in at.metric if m.label == "max |linear − conv|")
    assert m.proto.delta == "not rounding"  # short: a metric's delta is cut to its column on a phone
    assert any("× [epsilon](Glossary#epsilon)** of float64: far beyond rounding" in c.value for c in at.markdown)
    at.toggle(key="wrong_order").set_value(False).run()
    assert next(m for m in at.metric if m.label == "max |linear − conv|").proto.delta == "rounding only"


def test_show_numbers_puts_a_table_under_every_chart():
    at = page(PAGE)
    charts = len(at.get("plotly_chart"))
    assert not at.dataframe
    at.toggle(key="numbers").set_value(True).run()
    assert_clean(at)
    assert len(at.dataframe) >= charts  # one per trace: maps, bars and the images too (r, g, b per pixel)
    assert list(at.dataframe[1].value["label"]) == [str(i) for i in range(16)]  # the image's patch numbers
    assert at.dataframe[2].value.shape == (16, 48)  # then the token sequence, as drawn: 16 patches x 48 values
