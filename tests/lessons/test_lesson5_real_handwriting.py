"""Lesson 5: its presets, controls and cap, and the exercises and notes answered from the shipped runs."""

from dataclasses import replace

import pytest

from core.engine.setting.planning import MAX_RUN_COST, relative_cost
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.controls import config_from
from core.lessons.lesson5_real_handwriting import (
    CONTROLS,
    DIGITS,
    EXERCISES,
    MODELS,
    PRESETS,
    lookup_in,
    notes,
    seen_unseen,
)
from core.lessons.shipped import SHIPPED_CONFIGS, load_fresh_shipped


@pytest.fixture(scope="module")
def shipped():
    return load_fresh_shipped()


def test_the_lessons_setting_is_real_digits_at_unseen_centres_and_the_small_preset_fits_the_cap():
    assert DIGITS.data.dataset == "digits" and DIGITS.data.kind.chance == 0.1 and len(DIGITS.train.seeds) == 5
    assert set(DIGITS.models) == set(MODELS) and len(MODELS) == 7
    assert PRESETS["0 vs 1"].data.kind.classes == ("0", "1")
    assert relative_cost(PRESETS["small"]) <= MAX_RUN_COST < relative_cost(DIGITS)  # the default ships; small trains
    assert SHIPPED_CONFIGS["digits"] == DIGITS and SHIPPED_CONFIGS["digits-0-1"] == PRESETS["0 vs 1"]


def test_the_form_builds_one_config_and_refuses_a_range_that_does_not_fit():
    cfg = config_from(DIGITS, CONTROLS, {"digits_task": "digits-0-1", "digits_canvas": 24,
                                         "digits_train_range": (10, 20)})
    assert cfg.data.dataset == "digits-0-1" and cfg.data.img_size == 24 and cfg.data.train_range == (10, 20)
    with pytest.raises(ValueError, match="does not fit a 16x16 image"):
        config_from(DIGITS, CONTROLS, {"digits_train_range": (6, 20)})
    with pytest.raises(ValueError, match="not on the bench"):
        config_from(DIGITS, CONTROLS, {"digits_models": ["vit-prenorm"]})


def test_a_selection_of_the_shipped_models_needs_no_training(shipped):
    part = lookup_in(shipped.get, replace(DIGITS, models=("vit", "cnn")))
    assert part is not None and {r.model for r in part.rows} == {"vit", "cnn"} and len(part.rows) == 10
    assert lookup_in(shipped.get, replace(DIGITS, train=replace(DIGITS.train, epochs=100))) is None


def test_each_exercise_is_answered_from_the_shipped_runs(shipped):
    answers = {ex.key: ex.answer(shipped.get) for ex in EXERCISES}
    assert all(a.correct is not None for a in answers.values()), {k: a.explanation for k, a in answers.items()}
    assert all(0 <= answers[ex.key].correct < len(ex.options) for ex in EXERCISES)
    assert "Chance is 10 %" in answers["ten-digits"].explanation
    # nothing on this server: each says which run to make first
    empty = {ex.key: ex.answer(lambda cfg: None) for ex in EXERCISES}
    assert all(a.correct is None and "*Run*" in a.explanation for a in empty.values())


def test_notes_are_written_from_the_numbers(shipped):
    result = lookup_in(shipped.get, DIGITS)
    said = notes(result, shipped.get(NOTEBOOK_SETUP))
    vit = seen_unseen(result, "vit")
    assert 0 <= vit.unseen <= 1 and 0 <= vit.seen <= 1
    assert said[0].startswith("Chance is 10 % (10 classes).")
    split = next(n for n in said if "against the **test** centres" in n)
    assert f"ViT (lesson) {vit.seen:.0%} → {vit.unseen:.0%}" in split
    shift_fit = sum(r.train_acc for r in result.rows if r.model == "vit-shift") / len(result.config.train.seeds)
    unfit = next((n for n in said if n.startswith("**Did not fit")), "")
    assert ("ViT + random shifts" in unfit) == (shift_fit < 0.95)  # named when it did not fit, from the rows
    assert any(n.startswith("Against the toy") for n in said)
    assert not any("Against the toy" in n for n in notes(result))  # without lesson 3's run it says nothing of it


def test_the_ink_count_baseline_is_said_for_two_digits_and_not_for_ten():
    from core.lessons.lesson5_real_handwriting import ink_count_notes
    from core.lessons.shipped import SHIPPED_CONFIGS, load_fresh_shipped

    shipped = load_fresh_shipped()
    (two,) = ink_count_notes(shipped[SHIPPED_CONFIGS["digits-0-1"]])
    assert two.startswith("The total ink of an image alone") and "on the test images" in two
    assert ink_count_notes(shipped[SHIPPED_CONFIGS["digits"]]) == []  # one threshold splits two classes only


def test_the_exercises_accept_what_the_shipped_verdicts_decide():
    """The ten-digit ViT, 11-20 % on its five seeds against chance at 10 %: above chance, so exercise 1 accepts
    "partially"; every exercise answers from the shipped runs, none with "can't tell yet"."""
    from core.engine.results.verdict import verdicts
    from core.lessons.experiment_parts import OUTCOME
    from core.lessons.shipped import load_fresh_shipped

    shipped = load_fresh_shipped()
    answers = {ex.key: ex.answer(shipped.get) for ex in EXERCISES}
    assert all(a.correct is not None for a in answers.values()), answers
    ten = verdicts(shipped[PRESETS["ten digits"]])["vit"]
    assert ten.band == "between" and answers["ten-digits"].correct == OUTCOME[ten.band]
    assert not any("Can't tell" in ex.options[answers[ex.key].correct] for ex in EXERCISES)
