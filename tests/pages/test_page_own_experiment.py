"""Your own experiment's page (issue #53): the class editor and the split painter drive the form's two linked texts,
a draft that is no setting is refused with its own sentence, a hostile link is a note, a tiny run trains, and its
link opens the same setting and numbers in a new session."""

import pytest

from core.data.own_split import decode_split
from core.lessons.lesson6_own_experiment import CLASS_PRESETS, preset_split
from tests.apptest_helpers import assert_clean, link_notes, page

PAGE = "pages/6_Your_own_experiment.py"
CANNOT = "Cannot run this setting: "


def widget(widgets, prefix: str):
    """The one widget whose key starts with ``prefix`` (the editor's per-class keys carry a version)."""
    found = [w for w in widgets if (w.key or "").startswith(prefix)]
    assert len(found) == 1, [w.key for w in widgets]
    return found[0]


def edit_class(at):
    """The editor's "Edit class" radio (its key names the classes: a rename is a new radio)."""
    return next(r for r in at.radio if r.label == "Edit class")


def cannot(at) -> list[str]:
    return [e.value for e in at.error if e.value.startswith(CANNOT)]


def test_opens_clean_on_the_lessons_shapes_and_the_notebooks_split():
    at = page(PAGE, timeout=60)
    assert_clean(at)
    assert not at.metric and not cannot(at) and not link_notes(at)
    assert widget(at.text_input, "own_edit_name_").value == "plus"
    assert edit_class(at).options == ["plus", "circle"]
    assert any(c.value == "33 pixels of ink." for c in at.caption)
    assert dict(at.query_params) == {}  # the defaults are left out of the link
    # the painter shows the split the form will run: the notebook's 6x6 training and 2x2 test centres
    titles = [md.value for md in at.markdown if "training and" in md.value and "test centres:" in md.value]
    assert titles and titles[0].startswith("**36 training and 4 test centres"), titles


def test_adding_a_class_refuses_the_form_and_the_link_keeps_the_last_setting():
    at = page(PAGE, timeout=60)
    widget(at.text_input, "own_edit_name_").set_value("blob").run()  # a setting: in the link
    assert_clean(at)
    named = at.query_params["own_classes"]
    assert named.startswith("c1.")
    at.button(key="own_add_class").click().run()
    assert not at.exception
    assert edit_class(at).options == ["blob", "circle", "class 3"]
    said = cannot(at)
    assert len(said) == 1 and "is empty" in said[0] and "class 3" in said[0], said
    assert at.query_params["own_classes"] == named  # the unfinished draft stays out of the link
    at.button(key="own_remove_class").click().run()  # the empty class gone: a setting again
    assert_clean(at)
    assert at.query_params["own_classes"] == named and edit_class(at).options == ["blob", "circle"]


def test_renaming_a_class_puts_the_classes_in_the_link():
    at = page(PAGE, timeout=60)
    widget(at.text_input, "own_edit_name_").set_value("cross").run()
    assert_clean(at)
    assert at.query_params["own_classes"].startswith("c1.")
    assert edit_class(at).options == ["cross", "circle"]


def test_two_classes_made_of_the_same_digit_are_refused():
    at = page(PAGE, timeout=60)
    widget(at.selectbox, "own_edit_made_of_").set_value("digit 3").run()
    edit_class(at).set_value(1).run()
    widget(at.selectbox, "own_edit_made_of_").set_value("digit 3").run()
    assert not at.exception
    said = cannot(at)
    assert len(said) == 1 and said[0].endswith("these two classes are the same image: nothing to learn"), said


@pytest.mark.parametrize("query", [
    {"own_classes": "c1.garbage"},
    {"own_split": "s1.xx"},
    {"own_classes": CLASS_PRESETS["L vs mirrored L"][:20]},  # a real link text, cut short
    {"own_split": preset_split("checkerboard", CLASS_PRESETS["L vs mirrored L"])[:-6]},
], ids=["garbage-classes", "garbage-split", "truncated-classes", "truncated-split"])
def test_a_hostile_link_is_one_sentence_and_the_defaults(query):
    at = page(PAGE, timeout=60, query=query)
    assert not at.exception
    (key, text), = query.items()
    notes = link_notes(at)
    assert len(notes) == 1 and notes[0].startswith(f"{key}={text[:20]}") and "could not be read" in notes[0], notes
    assert notes[0].count(". ") == 0 and notes[0].endswith("the form's default is used.")  # one sentence
    assert not cannot(at)  # the form runs the default instead
    assert widget(at.text_input, "own_edit_name_").value == "plus"


def test_a_link_opens_its_classes_and_split_in_the_editor_and_the_painter_at_once():
    """The editor and the painter are drawn above the form, whose linked texts read the link: on the link's first
    draw they must show the link's classes and split, not the defaults (a click there would overwrite the link)."""
    classes = CLASS_PRESETS["L vs mirrored L"]
    split = preset_split("checkerboard", classes)
    at = page(PAGE, timeout=60, query={"own_classes": classes, "own_split": split})
    assert_clean(at)
    assert not link_notes(at)
    assert edit_class(at).options == ["L", "mirrored L"]
    assert any(c.value == "9 pixels of ink." for c in at.caption)
    s = decode_split(split)
    assert any(md.value.startswith(f"**{len(s.train)} training and {len(s.test)} test centres") for md in at.markdown)


def tiny(at):
    at.slider(key="own_n_train").set_value(40)
    at.slider(key="own_n_test").set_value(20)
    at.slider(key="own_epochs").set_value(10)
    at.slider(key="own_seeds").set_value(1)
    at.toggle(key="live_curve").set_value(False)
    return at


def reveal(at):
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    return at


def test_a_tiny_run_trains_and_its_link_opens_the_same_setting_and_numbers():
    at = page(PAGE, timeout=240)
    widget(at.text_input, "own_edit_name_").set_value("cross").run()
    at.button(key="own_split_quadrant").click().run()
    tiny(at)
    next(b for b in at.button if b.label == "Run").click().run()
    reveal(at)
    assert_clean(at)
    assert any("trained on this server" in c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert list(metrics) == ["ViT (lesson) · test set", "CNN · test set"], metrics
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any(n.startswith("- Chance is 50 % (2 classes)") for n in notes), notes
    link = dict(at.query_params)
    assert {"own_classes", "own_split", "own_n_train", "own_epochs", "own_seeds"} <= set(link), link

    again = reveal(page(PAGE, timeout=240, query=link))  # the link, in a new session
    assert_clean(again)
    assert not link_notes(again)
    assert dict(again.query_params) == link
    assert edit_class(again).options == ["cross", "circle"]
    assert {m.label: m.value for m in again.metric} == metrics

    # a form that cannot run (digit 3's scans do not fit the split's centres at the edge) keeps the results, labelled
    widget(again.selectbox, "own_edit_made_of_").set_value("digit 3").run()
    assert cannot(again) and "does not fit" in cannot(again)[0]
    assert any(w.value.startswith("**These results are for the setting last run**") for w in again.warning), \
        ([w.value for w in again.warning], len(again.metric))
