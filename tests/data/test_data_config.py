"""core/data/data_config.py: the phase split (training only at some offsets within a patch, the test at
every other centre) beside the notebook's split by ranges."""

import pytest

from core.data.data_config import DataConfig, make_data, max_distinct_training_images


def test_the_phase_split_trains_only_at_its_offsets_and_tests_everywhere_else():
    d = DataConfig(train_range=(3, 12), phases=(2, 0, 1))
    assert d.phases == (0, 1, 2) and d.test_range == (3, 12)  # canonical: one key per run
    train, test = set(d.train_positions), set(d.test_positions)
    assert not train & test and len(train) + len(test) == 100  # every centre of the canvas, once
    assert all(cx % 4 in (0, 1, 2) and cy % 4 in (0, 1, 2) for cx, cy in train)
    assert all(cx % 4 == 3 or cy % 4 == 3 for cx, cy in test)  # each test centre has an offset never trained
    data = make_data(d)
    assert {tuple(c) for c in data.test_centres.tolist()} <= test
    assert max_distinct_training_images(d) == 2 * len(train)


def test_the_notebooks_split_is_unchanged_by_the_phase_fields():
    assert DataConfig(phase_period=7) == DataConfig()  # read by the phase split only
    assert make_data(DataConfig()).Xtr.shape == (300, 1, 16, 16)


@pytest.mark.parametrize(("kw", "message"), [
    ({"phases": (0, 1, 2, 3)}, "some, not all, of the offsets 0..3"),
    ({"phases": (4,)}, "some, not all"),
    ({"phases": (0,), "phase_period": 1}, "phase_period must be in 2..16"),
    ({"phases": (0,), "train_range": (5, 7)}, "no training centre in 5..7 has an offset in \\[0\\]"),
])
def test_a_phase_split_that_leaves_no_training_or_no_test_centre_is_refused_in_one_line(kw, message):
    with pytest.raises(ValueError, match=message) as err:
        DataConfig(**kw)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("kw", "message"), [
    ({}, r"every test centre \(cx 3..4, cy 3..4\) gives left, none right: .*use the phase split"),
    ({"train_range": (3, 7), "test_range": (8, 12)}, r"every training centre \(cx 3..7, cy 3..7\) gives left"),
    ({"train_range": (3, 7), "phases": (0, 1, 2)}, r"every training centre \(cx 4..6.*widen the training range 3..7"),
])
def test_the_position_task_is_refused_where_a_set_would_hold_one_label_saying_how_to_get_out(kw, message):
    with pytest.raises(ValueError, match=message) as err:
        DataConfig(dataset="where", **kw)
    assert "\n" not in str(err.value) and "'where'" in str(err.value)


def test_the_position_task_is_allowed_where_training_and_test_reach_both_halves():
    for d in (DataConfig(dataset="where", phases=(0, 1, 2)), DataConfig(dataset="where", train_range=(3, 12),
                                                                          phases=(0, 1, 2))):
        assert {cx >= 8 for cx, _ in d.train_positions} == {cx >= 8 for cx, _ in d.test_positions} == {False, True}
        assert max_distinct_training_images(d) == 2 * len(d.train_positions)  # an image: its shape and centre
