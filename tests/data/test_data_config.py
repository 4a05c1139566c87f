"""core/data/data_config.py: the phase split (training only at some offsets within a patch, the test at
every other centre) beside the notebook's split by ranges."""

from dataclasses import replace

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



def test_a_split_of_ones_own_is_kept_once_in_row_order_and_its_ranges_are_what_it_spans():
    train, test = [(6, 5), (5, 5), (5, 6), (5, 5)], [[4, 9], [3, 9]]
    d = DataConfig(split=(train, test))
    assert d.split == (((5, 5), (6, 5), (5, 6)), ((3, 9), (4, 9)))
    assert d == DataConfig(split=(list(reversed(train)), test[::-1]), train_range=(3, 4))  # one run, one key
    assert d.train_positions == d.split[0] and d.train_range == (5, 6) and d.test_range == (3, 9)
    assert d.drawn_at == d.split and d.trains_at(6) and not d.trains_at(3)
    data = make_data(replace(d, n_test=40))
    assert {tuple(c) for c in data.test_centres.tolist()} == {(3, 9), (4, 9)}
    assert max_distinct_training_images(d) == 2 * 3
    assert DataConfig(split=()) == DataConfig() == DataConfig(split="")


@pytest.mark.parametrize(("kw", "message"), [
    ({"split": (((5, 5),), ((2, 7),))}, r"test centre \(2, 7\) does not fit a 16x16 image: a plus or circle reaches "
                                        r"3 pixels from its centre, so centres must be in 3..12"),
    ({"split": (((5, 5),), ())}, "this split has no test centre"),
    ({"split": (((5, 5),),)}, "a split of your own is two sets of centres"),
    ({"split": (((5, 5),), ((3, 3),)), "phases": (0, 1)}, "a split of your own and the phase split both choose"),
    ({"split": (((3, 3),), ((12, 3),)), "dataset": "where"}, "every training centre .* gives left, none right"),
])
def test_a_bad_split_of_ones_own_is_refused_in_one_line(kw, message):
    with pytest.raises(ValueError, match=message):
        DataConfig(**kw)


def test_the_learners_classes_are_kept_as_their_one_text_and_only_where_the_dataset_is_theirs():
    from core.data.link_text import sealed
    from core.data.own_classes import DEFAULT_CLASSES, encode_classes

    default = encode_classes(DEFAULT_CLASSES)
    assert DataConfig(dataset="own").own_classes == default == DataConfig(dataset="own", own_classes=default).own_classes
    assert DataConfig(own_classes=default).own_classes == ""  # the shapes do not read it: one run, one key
    one_pixel = bytes([1, 0, 0x80])  # one drawing of 1×1 pixels, inked
    twice = sealed("c1", bytes([2, 1]) + b"a" + one_pixel + bytes([1]) + b"b" + one_pixel)  # made by hand, not the lab
    with pytest.raises(ValueError, match="drawing 1 of class 'a' is drawing 1 of class 'b': these two classes are the "
                                         "same image: nothing to learn"):
        DataConfig(dataset="own", own_classes=twice)
