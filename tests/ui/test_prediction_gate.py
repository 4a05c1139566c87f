"""The predict-first gate: nothing is shown before a pick is checked or skipped; a pick is judged per setting."""

from streamlit.testing.v1 import AppTest


def gate_script(kind: str):
    """A page with the gate: ``kind`` "one" (a radio) or "some" (a multiselect); the setting from the session."""
    import streamlit as st

    from core.lessons.lesson3_vit_vs_cnn import PRESETS
    from ui.prediction_gate import judged, one_of, predict_first, some_of

    cfg = PRESETS[st.session_state.get("setting", "lesson")]
    ask = one_of(["low", "high"]) if kind == "one" else some_of(["a", "b", "c"], "Which")
    if predict_first(cfg, object(), "Guess", ask, "guess", describe=lambda p: "+".join(p) if kind == "some" else p):
        st.write(f"shown, judged {judged()[cfg]!r}")


def test_one_of_shows_only_after_a_checked_pick_and_asks_again_for_another_setting():
    at = AppTest.from_function(gate_script, args=("one",)).run()
    check = next(b for b in at.button if b.label == "Check it against the result")
    assert check.disabled
    assert not [m for m in at.markdown if m.value.startswith("shown")]
    at.radio(key="guess").set_value("high").run()
    next(b for b in at.button if b.label == "Check it against the result").click().run()
    assert [m.value for m in at.markdown if m.value.startswith("shown")] == ["shown, judged 'high'"]
    assert any("Your prediction for the setting shown: **high**" in c.value for c in at.caption)
    at.session_state["setting"] = "exercise-1"
    at.run()
    assert not [m for m in at.markdown if m.value.startswith("shown")]  # a new setting: predict again


def test_some_of_is_a_set_and_skipping_is_said():
    at = AppTest.from_function(gate_script, args=("some",)).run()
    at.multiselect(key="guess").set_value(["a", "c"]).run()
    next(b for b in at.button if b.label == "Check it against the result").click().run()
    assert [m.value for m in at.markdown if m.value.startswith("shown")] == ["shown, judged ('a', 'c')"]
    assert any("**a+c**" in c.value for c in at.caption)
    at.session_state["setting"] = "exercise-1"
    at.run()
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert [m.value for m in at.markdown if m.value.startswith("shown")] == ["shown, judged None"]
    assert any("**skipped**" in c.value for c in at.caption)


# --------------------------------------------------------------- every button of an experiment page, before predicting
import pytest  # noqa: E402

from tests.apptest_helpers import all_charts, page, tables  # noqa: E402

GATES = ("Check it against the result", "Show the result without predicting")  # the gate's own: they reveal


# The buttons that train what the form holds: pressed on the form's smallest setting (one seed, the fewest epochs and
# training images), which reveals no more than a larger one would and trains in seconds, not a minute
TRAINS = ("Run", "Re-run this setting live")
SMALLEST = ("seeds", "epochs", "n_train")


def _smallest_setting(at) -> None:
    for control in [*at.number_input, *at.slider]:
        if (control.key or "").endswith(SMALLEST) and control.value != int(control.min):
            control.set_value(int(control.min))


def _shows_a_result(at) -> list[str]:
    """What on the page would answer the prediction: a metric, a results table, a chart beyond the split's
    picture, or an exercise's checked explanation quoting the run."""
    found = [f"metric {m.label}" for m in at.metric]
    found += [f"table {list(t.columns)[:3]}" for t in tables(at)] + [f"dataframe {i}" for i, _ in enumerate(at.dataframe)]
    found += [f"chart {i}" for i, _ in enumerate(all_charts(at)[1:])]  # the first: the picture of the split
    found += [f"feedback {x.value[:60]}" for x in [*at.success, *at.error] if "The answer is" in x.value]
    return found


@pytest.mark.parametrize("path", ["pages/3_ViT_vs_CNN.py", "pages/4_Fixing_the_ViT.py", "pages/5_Real_handwriting.py"])
def test_no_button_shows_a_result_before_the_prediction(path):
    """A learner who has not predicted presses every button of the page in turn (every exercise answered and
    checked too): nothing that answers the prediction appears, and every exercise's check asks for it."""
    at = page(path, timeout=120)
    assert _shows_a_result(at) == [], path
    pressed = set()
    for _ in range(60):  # a button may draw others (a preset, an exercise's check): walk until none is left
        todo = [b for b in at.button if b.key not in pressed and b.label not in GATES
                and (not b.disabled or (b.key or "").startswith("check_"))]  # a check waits for its answer
        if not todo:
            break
        button = todo[0]
        pressed.add(button.key)
        if button.label in TRAINS:
            _smallest_setting(at)  # inside the form: taken by its Run
        if button.key and button.key.startswith("check_"):  # an exercise: answer it first, then check
            at.radio(key=button.key.replace("check_", "answer_", 1)).set_value(
                at.radio(key=button.key.replace("check_", "answer_", 1)).options[0]).run()
            button = next(b for b in at.button if b.key == button.key)
        button.click().run()
        assert not at.exception, (button.label, [e.value for e in at.exception])
        assert _shows_a_result(at) == [], (path, button.label)
    checks = [k for k in pressed if k and k.startswith("check_")]
    assert len(checks) >= 2 and len(pressed) >= 4, pressed  # the walk reached the exercises and the presets
    assert all("prediction" in i.value for i in at.info if "The answer is read" in i.value)
