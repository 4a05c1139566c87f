"""core/lessons/prediction.py: a lesson's prediction judged against the run: right, possible (the interval
still reaches the predicted band) or wrong."""

from dataclasses import replace

import pytest

from core.engine.results.verdict import unit_interval, verdicts
from core.lessons.lesson3_vit_vs_cnn import PREDICTION
from core.lessons.lesson5_real_handwriting import PREDICTION as DIGITS_PREDICTION
from core.lessons.prediction import Prediction, judged_model
from core.lessons.shipped import load_shipped


def test_prediction_is_right_possible_or_wrong():
    lesson, _ = load_shipped("lesson")
    vit = verdicts(lesson)["vit"]  # over 10 training draws: decided, above chance and below the CNN
    assert [PREDICTION.judge(p, vit) for p in PREDICTION.names] == ["wrong", "right", "wrong"]
    unsure = replace(vit, band="unclear", interval=unit_interval([0.3, 0.9, 0.5, 0.8, 0.2]))  # a wide interval
    assert [PREDICTION.judge(p, unsure) for p in PREDICTION.names] == ["possible", "possible", "possible"]
    assert PREDICTION.judge("≈100 %: near perfect", verdicts(lesson)["cnn"]) == "right"
    with pytest.raises(ValueError, match="prediction must be one of"):
        PREDICTION.judge("50/50", vit)


@pytest.mark.parametrize("prediction", [PREDICTION, DIGITS_PREDICTION])
def test_no_prediction_names_another_models_result(prediction):
    assert not any("CNN" in p or "cnn" in p for p in prediction.names)
    assert {b for _, bands in prediction.options for b in bands} <= {"top", "between", "chance", "below"}


def test_a_prediction_is_about_the_first_transformer_with_a_verdict():
    lesson, _ = load_shipped("lesson")
    assert judged_model(lesson.config.models, verdicts(lesson)) == "vit"
    assert judged_model(("cnn",), verdicts(lesson)) is None


def test_options_are_distinct():
    with pytest.raises(ValueError, match="distinct options"):
        Prediction((("a", ("top",)), ("a", ("below",))))
