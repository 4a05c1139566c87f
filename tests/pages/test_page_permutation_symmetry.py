import pytest

from tests.apptest_helpers import all_charts, assert_change_shows, assert_clean, link_notes, open_section, page
from ui.lesson_list import page_of

EXERCISES_KEY = page_of("pages/2_Permutation_symmetry.py").progress_key  # the exercise widgets' keys start with it

ATTENTION, CHANGE = "3 · Where does the class token look?", "2 · Change one patch"

PAGE = "pages/2_Permutation_symmetry.py"


def test_default_view_passes_all_claims():
    at = page(PAGE)
    assert_clean(at)
    claims = [line for md in at.markdown if "PASS" in md.value or "FAIL" in md.value for line in md.value.split("\n\n")]
    assert len(claims) == 4 and all(c.startswith("✅ **PASS**") for c in claims)
    assert len(at.get("plotly_chart")) == 5  # the open section only: two pictures, two bar charts, the strip
    assert len(all_charts(at)) >= 12
    open_section(at, ATTENTION)
    assert any("untrained" in i.value for i in at.info)


def set_kind(at, kind):
    at.selectbox(key="perm_kind").set_value(kind).run()


@pytest.mark.parametrize(
    "change",
    [
        lambda at: at.selectbox(key="preset").set_value("two blocks, 4 heads, width 32"),
        lambda at: at.number_input(key="model_seed").set_value(1),
        lambda at: at.selectbox(key="positions").set_value("sincos2d"),
        lambda at: at.selectbox(key="perm_kind").set_value("random"),
        lambda at: (set_kind(at, "random"), at.number_input(key="perm_seed").set_value(7)),
        lambda at: (set_kind(at, "swap"), at.number_input(key="swap_j").set_value(9)),
        lambda at: (set_kind(at, "swap"), at.number_input(key="swap_i").set_value(3)),
        lambda at: (set_kind(at, "shift"), at.slider(key="shift_r").set_value(2)),
        lambda at: (set_kind(at, "shift"), at.slider(key="shift_c").set_value(-1)),
        lambda at: open_section(at, CHANGE).slider(key="change_patch").set_value(10),
        lambda at: open_section(at, ATTENTION).radio(key="att_case").set_value("Bright patch at bottom right"),
        lambda at: (open_section(at, ATTENTION).radio(key="att_case").set_value("Any position").run(),
                    at.slider(key="att_row").set_value(3)),
        lambda at: (open_section(at, ATTENTION).radio(key="att_case").set_value("Any position").run(),
                    at.slider(key="att_col").set_value(3)),
    ],
)
def test_every_control_changes_what_is_shown(change):
    assert_change_shows(PAGE, change)


def test_no_positions_says_so_and_keeps_claims():
    at = page(PAGE)
    at.selectbox(key="positions").set_value("none").run()
    assert_clean(at)
    assert sum(md.value.count("✅ **PASS**") for md in at.markdown) == 4
    assert any("no position table" in md.value for md in at.markdown)


def test_identity_permutation_warns():
    at = page(PAGE)
    set_kind(at, "shift")
    at.slider(key="shift_c").set_value(0).run()
    assert any("leaves every patch" in w.value for w in at.warning)


def test_a_link_reproduces_the_settings():
    at = page(PAGE, query={"positions": "none", "perm_kind": "shift", "shift_c": "2"})
    assert_clean(at)
    assert at.selectbox(key="positions").value == "none" and at.slider(key="shift_c").value == 2
    labels = [m.label for m in at.metric]
    assert "|Δ class logits| with no positions either (none chosen)" in labels  # never "with none positions"


def test_link_values_the_page_cannot_use_are_said_and_the_claims_still_measured():
    at = page(PAGE, query={"positions": "foo", "model_seed": "-3"})
    assert_clean(at)
    assert link_notes(at) == ["positions=foo in the link is not one of none, learned, sincos, sincos2d: the default "
                              "(learned) is used.",
                              "model_seed=-3 in the link is not between 0 and 10000: the default (13) is used."]
    assert sum(md.value.count("✅ **PASS**") for md in at.markdown) == 4


def test_exercise_is_checked_with_the_numbers_of_this_model():
    at = page(PAGE)
    at.radio(key=f"answer_{EXERCISES_KEY}_one-patch").set_value("One embedding, every output").run()
    at.button(key=f"check_{EXERCISES_KEY}_one-patch").click().run()
    assert any("Right" in s.value and "**1 of 16**" in s.value for s in at.success)
    at.button(key="do_sincos").click().run()
    assert at.selectbox(key="positions").value == "sincos" and at.selectbox(key="perm_kind").value == "random"
