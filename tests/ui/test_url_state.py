"""ui/url_state.py: a choice shown by its label is linked by its name; links saved with labels (as they were
before) still open the same setting, even after a label is renamed."""

import dataclasses

import pytest

from core.lessons import model_cards
from tests.apptest_helpers import link_notes, open_section, page

PAGE = "pages/3_ViT_vs_CNN.py"


def linked(at, key: str) -> list[str]:
    """What the address holds for ``key``, as a list (one value or several)."""
    value = at.query_params.get(key, [])
    return value if isinstance(value, list) else [value]


def opened(query: dict):
    at = page(PAGE, timeout=60, query=query)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_link_names_options_by_name_and_an_old_link_by_label_opens_the_same_setting():
    by_name = opened({"models": ["cnn", "mlp"], "pos_scale": "0.02", "global_pool": "avg"})
    by_label = opened({"models": ["CNN", "MLP (flatten + hidden layer)"], "pos_scale": "0.02",
                       "global_pool": "mean of patches"})
    for at in (by_name, by_label):
        assert at.multiselect(key="models").value == ["cnn", "mlp"]
        assert at.select_slider(key="pos_scale").value == 0.02 and at.radio(key="global_pool").value == "avg"
        assert linked(at, "models") == ["cnn", "mlp"] and linked(at, "global_pool") == ["avg"]
        assert linked(at, "pos_scale") == ["0.02"]


def test_a_renamed_label_still_opens_old_and_new_links(monkeypatch):
    monkeypatch.setitem(model_cards.CARDS, "cnn", dataclasses.replace(model_cards.CARDS["cnn"], label="ConvNet"))
    for query in ({"models": "CNN"}, {"models": "cnn"}):  # a link saved with the old label; one by name
        at = opened(query)
        assert at.multiselect(key="models").value == ["cnn"]
        assert "ConvNet" in at.multiselect(key="models").options


@pytest.mark.parametrize("value", ["no-such-model", "ViT (lessons)"])
def test_a_value_that_names_no_option_leaves_the_default(value):
    at = opened({"models": value})
    assert at.multiselect(key="models").value == ["vit", "cnn"] and "models" not in at.query_params


def test_the_default_is_left_out_of_the_link_and_a_change_goes_in_by_name():
    from core.lessons.lesson3_vit_vs_cnn import SWEEPS

    at = opened({})
    assert "models" not in at.query_params and "sweep_name" not in at.query_params
    second = list(SWEEPS)[1]
    at.selectbox(key="sweep_name").set_value(second).run()
    assert linked(at, "sweep_name") == [second]
    at.selectbox(key="sweep_name").set_value(list(SWEEPS)[0]).run()
    assert "sweep_name" not in at.query_params


def test_the_address_holds_the_setting_last_submitted_never_a_form_edit_before_run():
    """A form's widget bound by Streamlit went into the address at once, before Run, while a choice linked by
    name went in at Run: the address was then a mix of the run shown and the form's edits."""
    at = opened({})
    at.slider(key="epochs").set_value(10).run()
    at.multiselect(key="models").set_value(["cnn"]).run()
    assert "epochs" not in at.query_params and "models" not in at.query_params


def test_sliders_open_from_links_as_streamlit_wrote_them_and_refuse_what_is_not_theirs():
    at = opened({"train_range": ["6", "10"], "n_train": "120"})
    assert at.slider(key="train_range").value == (6, 10) and at.slider(key="n_train").value == 120
    at = opened({"train_range": ["10", "6"], "n_train": "abc"})
    assert at.slider(key="train_range").value == (5, 10) and at.slider(key="n_train").value == 300


@pytest.mark.parametrize("value", ["inside", "Look inside the models"])  # by name; by the label old links carried
def test_a_tab_opens_from_its_name_or_an_old_label_and_goes_in_the_link_by_name(value):
    at = opened({"results_view": value})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert at.session_state["results_view"] == "Look inside the models" and linked(at, "results_view") == ["inside"]


@pytest.mark.parametrize("query, said", [
    ({"n_train": "abc", "patch_size": "7"},
     ["n_train=abc in the link is not a number: the default (300) is used.",
      "patch_size=7 in the link is not one of 2, 4, 8, 16: the default (4) is used."]),
    ({"epochs": "-5", "seeds": "99", "train_range": ["10", "6"], "models": ["vit", "no-such-model"]},
     ["models=no-such-model in the link is not one of its 22 choices (vit, cnn, hybrid, vit-prenorm, mlp, linear, "
      "…): the default (vit, cnn) is used.",
      "train_range=10&train_range=6 in the link is not two numbers, the lower first: the default (5, 10) is used.",
      "epochs=-5 in the link is not between 10 and 400: the default (200) is used.",
      "seeds=99 in the link is not between 1 and 5: the default (3) is used."]),
])
def test_a_link_value_the_page_cannot_use_is_said_in_one_sentence_and_the_page_draws_as_usual(query, said):
    at = opened(query)
    assert link_notes(at) == said
    assert not at.error and at.slider(key="n_train").value == 300  # the form, at the lesson's values
    assert any(b.label == "Show the result without predicting" for b in at.button)  # the experiment below it
    assert not set(query) & set(at.query_params)  # the address no longer holds what was not used


def test_a_good_link_says_nothing_and_a_tab_the_page_has_not_is_said_once_drawn():
    assert link_notes(opened({"n_train": "120", "models": ["cnn", "mlp"]})) == []
    at = opened({"results_view": "nope"})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert link_notes(at) == ["results_view=nope in the link is not one of seeds, curves, map, misclassified, inside, "
                              "draw, what-broke: the first section is shown."]
    assert at.session_state["results_view"] == "Per-seed results"


def test_numbers_from_a_link_are_refused_with_the_reason():
    from ui.url_state import _numbers

    assert _numbers(["3", "4.0"], 1, 5, int) == ([3, 4], [])
    assert _numbers(["x", "2.5", "9", "2"], 1, 5, int) == ([2], [
        ("x", "is not a number"), ("2.5", "is not a whole number"), ("9", "is not between 1 and 5")])
    assert _numbers(["2.5", ""], 0.0, 3.0, float) == ([2.5], [("", "is not a number")])


SYMMETRY = "pages/2_Permutation_symmetry.py"
SHUFFLE, CHANGE = "1 · Shuffle the patches", "2 · Change one patch"


def test_a_closed_sections_controls_stay_in_the_link_and_its_widgets_open_at_them():
    """Only the open section is drawn, and Streamlit drops the parameter of a bound widget a run does not draw: the
    link lost the first section's settings the moment another opened (ui.url_state.keep_closed_sections)."""
    at = page(SYMMETRY, query={"perm_kind": "shift", "shift_c": "2"})
    assert linked(at, "perm_kind") == ["shift"] and linked(at, "shift_c") == ["2"]
    open_section(at, CHANGE)
    assert linked(at, "perm_kind") == ["shift"] and linked(at, "shift_c") == ["2"]
    assert linked(at, "symmetry_view") == ["change"]
    at.selectbox(key="positions").set_value("learned").run()  # the whole page runs again: still there
    assert linked(at, "perm_kind") == ["shift"] and linked(at, "shift_c") == ["2"]
    open_section(at, SHUFFLE)
    assert at.selectbox(key="perm_kind").value == "shift" and at.slider(key="shift_c").value == 2
    assert linked(at, "perm_kind") == ["shift"] and "symmetry_view" not in at.query_params
    # a control shown for one choice of another leaves the link with it, as Streamlit's binding does
    at.selectbox(key="perm_kind").set_value("random")
    at.query_params["perm_kind"] = "random"  # the browser writes a bound widget's change into the address itself
    at.run()
    assert linked(at, "perm_kind") == ["random"] and "shift_c" not in at.query_params


def test_a_link_naming_a_closed_sections_control_keeps_it_until_it_is_drawn_there():
    at = page(SYMMETRY, query={"perm_kind": "shift", "symmetry_view": "change"})
    at.slider(key="change_patch").set_value(4).run()
    assert linked(at, "perm_kind") == ["shift"]
    open_section(at, SHUFFLE)
    assert at.selectbox(key="perm_kind").value == "shift" and linked(at, "perm_kind") == ["shift"]


def test_a_closed_sections_controls_at_their_defaults_stay_out_of_the_link():
    at = page(SYMMETRY)
    open_section(at, CHANGE)
    assert dict(at.query_params) == {"symmetry_view": "change"}


def test_a_closed_sections_controls_come_back_into_the_link_when_the_learner_comes_back_to_the_page():
    """The browser's address holds another page's settings there: back on this one, it holds this one's again."""
    at = page(SYMMETRY, query={"perm_kind": "shift"})
    open_section(at, CHANGE)
    at.switch_page("pages/1_Patchify.py")
    at.query_params.clear()
    at.run()
    at.switch_page(SYMMETRY).run()
    assert linked(at, "perm_kind") == ["shift"] and linked(at, "symmetry_view") == ["change"]


def test_look_inside_keeps_its_probe_in_the_link_while_another_section_is_open():
    at = opened({"results_view": "inside", "vc_probe_cx": "12", "vc_probe_model": "cnn"})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert at.select_slider(key="vc_probe_cx").value == 12 and at.selectbox(key="vc_probe_model").value == "cnn"
    open_section(at, "Per-seed results")
    assert linked(at, "vc_probe_cx") == ["12"] and linked(at, "vc_probe_model") == ["cnn"]
    open_section(at, "Look inside the models")
    assert at.select_slider(key="vc_probe_cx").value == 12 and at.selectbox(key="vc_probe_model").value == "cnn"


def test_a_bad_value_for_a_closed_sections_control_is_said_when_its_section_is_drawn():
    at = opened({"results_view": "seeds", "vc_probe_model": "no-such-model"})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    open_section(at, "Look inside the models")
    assert [n for n in link_notes(at) if n.startswith("vc_probe_model=")] == [
        "vc_probe_model=no-such-model in the link is not one of vit, cnn: the default (vit) is used."]
