"""core/engine/results/behaviour.py: what a model answers, where on the map it is right, and what a split asks."""

from core.data.data_config import DataConfig
from core.engine.results.behaviour import (
    REGIONS,
    answer_groups,
    answers,
    map_regions,
    new_for_stride,
    region,
    split_structure,
)
from core.engine.results.run_result import PositionScore, RunResult
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.lesson5_real_handwriting import DIGITS
from core.lessons.shipped import load_shipped


def test_a_model_at_chance_can_be_one_answer_to_every_image():
    """The lesson's ViT, seeds 0 and 1: circle for every test image, with p near 1 (results/lesson.json)."""
    lesson, _ = load_shipped("lesson")
    vit = answers(lesson, "vit")
    assert vit.constant == {0: "circle", 1: "circle"} and vit.confidence > 0.9
    assert "seeds 0, 1: circle for every test image" in vit.sentence()
    assert answers(lesson, "cnn").constant == {} and abs(answers(lesson, "cnn").shares["circle"] - 0.5) < 0.05
    assert answers(lesson, "no-such-model") is None


def test_the_maps_regions_show_the_1d_tables_asymmetry():
    lesson, _ = load_shipped("lesson")
    assert [region(NOTEBOOK_SETUP.data, *c) for c in ((7, 7), (3, 7), (7, 3), (3, 3))] == list(REGIONS)
    vit, cnn = map_regions(lesson, "vit"), map_regions(lesson, "cnn")
    assert vit["only x new"] - vit["only y new"] > 0.1 and vit["seen"] > 0.95
    assert cnn == {r: 1.0 for r in REGIONS}


def test_the_lessons_and_the_digits_splits_ask_only_for_whole_patch_moves():
    for d in (NOTEBOOK_SETUP.data, DIGITS.data):
        s = split_structure(d, 4)
        assert s.whole_patch and s.train_offsets == (0, 1, 2, 3)
    narrow = split_structure(NOTEBOOK_SETUP.data.__class__(train_range=(8, 8), test_range=(3, 5)), 4)
    assert not narrow.whole_patch and narrow.train_offsets == (0,) and "part of a patch" in narrow.sentence(
        NOTEBOOK_SETUP.data.__class__(train_range=(8, 8), test_range=(3, 5)))


def test_a_held_out_centre_is_new_only_for_the_strides_that_no_training_centre_reaches():
    """The phase split holds out offset 3 of a 4-pixel patch: new for the ViT's stride 4, not for the CNN's stride 2
    (offset 3 is offset 1 moved by one pool step). Holding out the odd offsets makes them new for both. The notebook
    split's test centres are new for neither, and for a model without a sampling grid (the image's width) every
    untrained centre is new."""
    phase = DataConfig(train_range=(3, 12), phases=(0, 1, 2))
    odd = DataConfig(train_range=(3, 12), phases=(0, 2))
    assert new_for_stride(phase, 4, 7, 4) and not new_for_stride(phase, 2, 7, 4)
    assert new_for_stride(odd, 4, 5, 4) and new_for_stride(odd, 2, 5, 4) and new_for_stride(odd, 2, 4, 7)
    assert not new_for_stride(odd, 4, 4, 8) and not new_for_stride(phase, 4, 4, 5)  # trained offsets, both axes
    notebook = DataConfig()
    assert not any(new_for_stride(notebook, s, cx, cy) for s in (2, 4) for cx, cy in notebook.test_positions)
    assert all(new_for_stride(notebook, 16, cx, cy) for cx, cy in notebook.test_positions)


def test_models_that_answer_alike_on_every_map_image_and_seed_are_one_group():
    from dataclasses import replace

    cfg = replace(NOTEBOOK_SETUP, models=("vit", "cnn", "mlp", "linear"))
    right = {"vit": (1.0, 0.0), "cnn": (1.0, 1.0), "mlp": (1.0, 0.0), "linear": (1.0, 1.0)}
    cells = [PositionScore(m, seed, "plus", 3, 3, right[m][seed]) for m in cfg.models for seed in (0, 1)]
    assert answer_groups(RunResult(cfg, position_map=cells)) == [("vit", "mlp"), ("cnn", "linear")]
    cells[-2] = replace(cells[-2], correct=0.0)  # one image at one seed tells the linear model apart
    assert answer_groups(RunResult(cfg, position_map=cells)) == [("vit", "mlp")]


def test_new_for_a_stride_asks_of_a_split_of_ones_own_whether_one_training_centre_reaches_both_coordinates():
    """Pairs, not each coordinate alone: (5, 6) has an x one training centre takes and a y the other takes, but no
    training centre reaches both by whole strides. On the lab's splits (products of one axis) the two agree."""
    diagonal = DataConfig(split=(((5, 5), (6, 6)), ((5, 6), (6, 5), (7, 7), (9, 9))))
    assert new_for_stride(diagonal, 4, 5, 6) and new_for_stride(diagonal, 4, 6, 5) and new_for_stride(diagonal, 4, 7, 7)
    assert not new_for_stride(diagonal, 2, 7, 7) and not new_for_stride(diagonal, 4, 9, 9)
    assert region(diagonal, 5, 5) == REGIONS[0] and region(diagonal, 5, 6) == REGIONS[3]  # x and y seen, not together
    assert region(diagonal, 5, 9) == REGIONS[2] and region(diagonal, 9, 6) == REGIONS[1]
    for d in (DataConfig(), DataConfig(train_range=(3, 12), phases=(0, 2))):
        axis = [c for c in d.kind.centres(16) if d.trains_at(c)]
        for stride in (2, 3, 4, 16):
            for cx, cy in d.test_positions:
                each = not all(any((c - t) % stride == 0 for t in axis) for c in (cx, cy))  # the old rule, per axis
                assert new_for_stride(d, stride, cx, cy) == each
        for cx in d.kind.centres(16):
            for cy in d.kind.centres(16):
                x_in, y_in = d.trains_at(cx), d.trains_at(cy)  # the old rule, per axis
                old = REGIONS[0] if x_in and y_in else REGIONS[1] if y_in else REGIONS[2] if x_in else REGIONS[3]
                assert region(d, cx, cy) == old
