"""Your own experiment's declaration: its presets and form, the draft's refusal, the exercises' checks and notes."""

from dataclasses import replace

import pytest

from core.data.own_classes import decode_classes
from core.data.own_split import decode_split
from core.engine.results.verdict import unit_interval
from core.engine.running.run import run
from core.engine.setting.planning import check_cost
from core.engine.setting.run_config import TrainConfig
from core.lessons import lesson6_own_experiment as own
from core.lessons.controls import config_from


def test_every_preset_is_a_valid_setting_within_a_clicks_cost_and_the_form_reads_it_back():
    for name, cfg in own.PRESETS.items():
        check_cost(cfg)
        values = {c.key: c.value(cfg) for c in own.CONTROLS}
        assert config_from(own.BASE, own.CONTROLS, values) == cfg, name
    assert decode_classes(own.PRESETS["3 vs 8, phase split"].data.own_classes)[1].digit == 8


def test_the_default_is_the_lessons_setting_drawn_as_your_own_classes():
    d = own.BASE.data
    assert d.kind.classes == ("plus", "circle") and d.train_range == (5, 10) and d.test_range == (3, 4)
    assert len(d.train_positions) == 36 and set(d.test_positions) == {(3, 3), (4, 3), (3, 4), (4, 4)}


def test_a_draft_that_is_no_setting_refuses_the_form_with_its_own_sentence():
    values = {"own_classes": own.DRAFT + "these two classes are the same image: nothing to learn"}
    with pytest.raises(ValueError, match="^these two classes are the same image: nothing to learn$"):
        config_from(own.BASE, own.CONTROLS, values)
    with pytest.raises(ValueError, match="no test centre"):
        config_from(own.BASE, own.CONTROLS, {"own_split": own.DRAFT + "this split has no test centre"})
    with pytest.raises(ValueError, match="link text"):
        config_from(own.BASE, own.CONTROLS, {"own_split": "s1.AAAA"})  # cut short


def test_a_split_preset_keeps_to_the_centres_where_the_classes_fit():
    digits = own.CLASS_PRESETS["3 vs 8"]  # 8x8 scans fit centres 4..12 of 16
    split = decode_split(own.preset_split("notebook", digits))
    assert all(4 <= v <= 12 for c in split.train + split.test for v in c)
    assert split.test == ((4, 4),)


class _Verdict:
    def __init__(self, model, band, mean=0.5):
        self.model, self.band, self.text = model, band, f"{model} {band}"
        self.interval = unit_interval([mean] * 5)


class _Result:
    config = own.BASE


def _with(monkeypatch, bands: dict, ink: float = 0.5):
    """A run whose verdicts have these bands (model -> band) and whose ink count scores ``ink``."""
    monkeypatch.setattr(own, "verdicts", lambda result, labels=None: {m: _Verdict(m, b) for m, b in bands.items()})
    monkeypatch.setattr(own, "_ink", lambda result: type("Ink", (), {"accuracy": ink})())
    monkeypatch.setattr(own, "_commonest_share", lambda result: 0.5)
    return lambda: _Result()


@pytest.mark.parametrize(("cnn", "vit", "correct"), [("top", "chance", 0), ("top", "unclear", 0), ("top", "between", None),
                                                    ("above", "top", None), ("below", "chance", None),
                                                    ("unclear", "unclear", None), ("chance", "top", None)])
def test_the_cnn_not_vit_check_reads_the_two_verdicts(monkeypatch, cnn, vit, correct):
    assert own.cnn_not_vit(_with(monkeypatch, {"vit": vit, "cnn": cnn})).correct == correct


def test_the_cnn_not_vit_check_waits_for_a_run_and_both_models(monkeypatch):
    assert own.cnn_not_vit(lambda: None).correct is None
    assert "add both" in own.cnn_not_vit(_with(monkeypatch, {"vit": "top"})).explanation


@pytest.fixture(scope="module")
def mirrored_run():
    """The mirrored Ls on the checkerboard, small: two models, two seeds, 60 epochs."""
    cfg = own.PRESETS["mirrored Ls, checkerboard"]
    return run(replace(cfg, data=replace(cfg.data, n_train=200, n_test=100), train=TrainConfig(60, 1e-3, (0, 1))))


def test_the_mirrored_ls_hold_the_same_ink_so_the_ink_count_is_at_chance(mirrored_run):
    ink = own._ink(mirrored_run)
    assert ink is not None and ink.accuracy <= 0.5 + 0.1


@pytest.mark.parametrize(("ink", "band", "correct"), [(0.5, "top", 0), (0.6, "above", 0), (0.55, "chance", None),
                                                      (0.5, "unclear", None), (0.9, "below", None), (1.0, "between", None)])
def test_the_ink_check_reads_the_ink_count_against_chance_and_the_best_models_verdict(monkeypatch, ink, band, correct):
    assert own.ink_cannot(_with(monkeypatch, {"cnn": band}, ink)).correct == correct


def test_notes_say_each_verdict_what_the_split_asks_of_each_model_and_the_ink_count(mirrored_run):
    text = "\n".join(own.notes(mirrored_run))
    assert text.startswith("Chance is 50 % (2 classes). The verdicts' test set is every class at each of your 72 test "
                           "centres once; the run's own test draw, 100 images, holds 50 of your 72 test centres (fewer "
                           "images than centres × classes), the classes balanced. The ViT (lesson) was right on")
    assert "cannot hold every class" not in text  # 200 training images over 72 centres × 2 classes
    assert "ViT (lesson) samples every 4 pixels" in text and "CNN samples every 2 pixels" in text
    assert "The total ink of an image alone" in text


def test_the_pages_command_line_is_the_forms_setting_exactly():
    from core.cli import build_parser, form_config

    for cfg in own.PRESETS.values():
        words = own.command_words(replace(cfg, models=("vit", "cnn", "mlp")))
        assert words[:4] == ["python", "-m", "core", "generalization"]
        assert form_config(build_parser().parse_args(words[3:])) == replace(cfg, models=("vit", "cnn", "mlp"))


def test_the_ink_check_measures_the_ink_count_against_the_commonest_class_of_the_test_set(monkeypatch):
    """A test set of 14 of one class and 6 of the other: an ink count that answers one class scores 70 %, and that is
    no better than answering the commonest class."""
    run = _with(monkeypatch, {"cnn": "top"}, 0.7)
    monkeypatch.setattr(own, "_commonest_share", lambda result: 0.7)
    answer = own.ink_cannot(run)
    assert answer.correct == 0 and "the commonest class alone: 70%" in answer.explanation
