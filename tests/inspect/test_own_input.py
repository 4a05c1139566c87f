"""A learner's drawing through the trained models: a test image drawn gives its stored prediction, and the shift
sweep at a centre gives the probe's value there."""

import pytest

from core.data.shapes import make_image
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.inspect.own_input import answers, shift_sweep, where
from core.inspect.trained_model import probe, run_data
from core.lessons.shipped import load_fresh_shipped


@pytest.fixture(scope="module")
def result():
    return load_fresh_shipped()[NOTEBOOK_SETUP]


def test_a_drawing_equal_to_a_test_image_gives_the_stored_prediction(result):
    Xte = run_data(NOTEBOOK_SETUP.data).Xte
    got = answers(result, Xte[7, 0].numpy())
    assert set(got) == {(m, s) for m in NOTEBOOK_SETUP.models for s in NOTEBOOK_SETUP.train.seeds}
    for stored in (p for p in result.test_predictions if p.index == 7):
        assert got[stored.model, stored.seed][1] == pytest.approx(stored.p_circle, abs=1e-5)


def test_the_shift_sweep_at_a_centre_is_the_probes_value_there(result):
    plus = make_image("plus", 7, 7, 16)  # drawn at a training centre
    sweep = shift_sweep(result, 0, plus, 0)  # the probability of "plus" wherever it fits
    for cx, cy in ((3, 4), (7, 7), (12, 3)):
        probed = probe(result, "vit", 0, "plus", cx, cy)
        for m in NOTEBOOK_SETUP.models:
            assert sweep.maps[m][cy, cx] == pytest.approx(probed.p_right(m), abs=1e-5)
    assert where(result, plus) == "seen" and where(result, make_image("plus", 3, 4, 16)) == "unseen: test"
    assert where(result, make_image("plus", 12, 12, 16)) == "unseen"
    with pytest.raises(ValueError, match="empty"):
        shift_sweep(result, 0, plus * 0, 0)


def test_on_a_painted_split_seen_means_a_marked_training_centre_not_inside_its_ranges():
    from dataclasses import replace
    from types import SimpleNamespace

    data = replace(NOTEBOOK_SETUP.data, split=(((5, 5), (10, 7)), ((10, 8), (3, 3))))  # ranges 5..10: (10, 8) inside
    run = SimpleNamespace(config=replace(NOTEBOOK_SETUP, data=data))
    assert where(run, make_image("plus", 10, 7, 16)) == "seen"
    assert where(run, make_image("plus", 10, 8, 16)) == "unseen: test"
    assert where(run, make_image("plus", 7, 7, 16)) == "unseen"  # inside the training centres' span, never marked
