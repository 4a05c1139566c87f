"""Each control of lessons 3, 4 and 5 is declared once and reaches all four places: the form's widget (under
its URL key), the config field it sets, and the command line's flag, which sets the same field."""

import pytest

from core.cli import build_parser
from core.lessons import lesson4_fixing_the_vit as lesson4
from core.lessons import lesson5_real_handwriting as lesson5
from core.lessons.controls import config_from, config_from_args
from core.lessons.lesson3_vit_vs_cnn import CONTROLS, NOTEBOOK_SETUP
from core.models.registry import REGISTRY
from tests.apptest_helpers import page

EVERY_TRANSFORMER = {"models": ["vit", "cnn", "hybrid", "vit-prenorm"]}  # so that no setting is left unread


def other_value(c, base=NOTEBOOK_SETUP):
    """A form value that is not the lesson's."""
    lesson = c.value(base)
    if c.key == "train_range":
        return (5, 12)
    if c.key == "test_range":
        return (3, 3)
    if c.widget == "multiselect":
        others = [m for m in c.options if m not in lesson]
        return others[:2] + lesson if others else lesson[-2:]
    if c.widget == "slider":
        lo, hi, *step = c.bounds
        return hi if hi != lesson else lo
    return next(o for o in c.options if o != lesson)


def cli_words(c, value):
    """The command line's words for the form's ``value``."""
    if c.cli_to_config is not None:  # the flag names the config's value itself (the seeds, not their count)
        value = c.config_value(value)
    words = [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
    return [c.flag, *words]


def field(cfg, path):
    for name in path.split("."):
        cfg = getattr(cfg, name)
    return cfg


@pytest.mark.parametrize("c", CONTROLS, ids=lambda c: c.key)
def test_a_control_sets_its_field_from_the_form_and_from_the_command_line(c):
    value = other_value(c)
    base = {} if c.key == "models" else EVERY_TRANSFORMER
    from_form = config_from(NOTEBOOK_SETUP, CONTROLS, {**base, c.key: value})
    assert field(from_form, c.field) != field(NOTEBOOK_SETUP, c.field), f"{c.key} did not reach {c.field}"
    assert c.value(from_form) == (sorted(value, key=list(REGISTRY).index) if c.key == "models" else value)
    words = ["generalization", *(["--models", *base["models"]] if base else []), *cli_words(c, value)]
    args = build_parser().parse_args(words)
    assert config_from_args(NOTEBOOK_SETUP, CONTROLS, args) == from_form


@pytest.mark.parametrize("c", lesson4.CONTROLS, ids=lambda c: c.key)
def test_a_bench_control_sets_its_field_from_the_form_and_from_the_command_line(c):
    value = other_value(c, lesson4.BENCH)
    from_form = config_from(lesson4.BENCH, lesson4.CONTROLS, {c.key: value})
    assert field(from_form, c.field) != field(lesson4.BENCH, c.field), f"{c.key} did not reach {c.field}"
    args = build_parser().parse_args(["remedies", *cli_words(c, value)])
    assert config_from_args(lesson4.BENCH, lesson4.CONTROLS, args) == from_form


@pytest.mark.parametrize("c", lesson5.CONTROLS, ids=lambda c: c.key)
def test_a_digits_control_sets_its_field_from_the_form_and_from_the_command_line(c):
    value = other_value(c, lesson5.DIGITS)
    if c.key == "digits_train_range":
        value = (6, 11)
    if c.key == "digits_test_range":
        value = (4, 4)
    from_form = config_from(lesson5.DIGITS, lesson5.CONTROLS, {c.key: value})
    assert field(from_form, c.field) != field(lesson5.DIGITS, c.field), f"{c.key} did not reach {c.field}"
    args = build_parser().parse_args(["digits", *cli_words(c, value)])
    assert config_from_args(lesson5.DIGITS, lesson5.CONTROLS, args) == from_form


def test_the_bench_controls_keep_the_benchs_rules():
    with pytest.raises(ValueError, match="seeds must be in 1..10, got 11"):
        config_from(lesson4.BENCH, lesson4.CONTROLS, {"bench_seeds": 11})
    with pytest.raises(ValueError, match="not on the bench"):
        config_from(lesson4.BENCH, lesson4.CONTROLS, {"bench_models": ["vit-prenorm"]})


@pytest.mark.parametrize("controls", [CONTROLS, lesson4.CONTROLS, lesson5.CONTROLS], ids=["lesson3", "lesson4", "lesson5"])
def test_every_control_has_its_own_key_and_flag(controls):
    assert len({c.key for c in controls}) == len({c.flag for c in controls}) == len(controls)


@pytest.mark.parametrize(("path", "controls", "base"), [("pages/3_ViT_vs_CNN.py", CONTROLS, NOTEBOOK_SETUP),
                                                         ("pages/4_Fixing_the_ViT.py", lesson4.CONTROLS, lesson4.BENCH)],
                         ids=["lesson3", "lesson4"])
def test_the_form_draws_every_declared_control_under_its_key_at_the_lessons_value(path, controls, base):
    at = page(path, timeout=60)
    for c in controls:
        widget = at.get(c.widget)
        found = [w for w in widget if w.key == c.key]
        assert found, f"no {c.widget} with key {c.key!r} on the page"
        assert found[0].value == c.value(base) or list(found[0].value) == list(c.value(base)), c.key
