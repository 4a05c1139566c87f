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
