"""Each control of every lesson is declared once and reaches all four places: the page's widget (under its URL
key), the config field it sets, and the command line's flag, which sets the same field."""

import pytest

from core.cli import build_parser
from core.lessons import lesson1_patchify as lesson1
from core.lessons import lesson2_symmetry as lesson2
from core.lessons import lesson4_fixing_the_vit as lesson4
from core.lessons import lesson5_real_handwriting as lesson5
from core.lessons.controls import config_from, config_from_args
from core.lessons.lesson3_vit_vs_cnn import CONTROLS, NOTEBOOK_SETUP
from core.models.registry import REGISTRY
from tests.apptest_helpers import page

EVERY_TRANSFORMER = {"models": ["vit", "cnn", "hybrid", "vit-prenorm"]}  # so that no setting is left unread
# The values another control's value is valid only beside: the position task needs the phase split (with the
# notebook's split every test centre is in the left half, and the config refuses it)
NEEDS = {"task": {"phases": [0, 1, 2]}}


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
    beside = NEEDS.get(c.key, {})
    from_form = config_from(NOTEBOOK_SETUP, CONTROLS, {**base, **beside, c.key: value})
    assert field(from_form, c.field) != field(NOTEBOOK_SETUP, c.field), f"{c.key} did not reach {c.field}"
    assert c.value(from_form) == (sorted(value, key=list(REGISTRY).index) if c.key == "models" else value)
    needed = [w for key, v in beside.items() for w in cli_words(next(o for o in CONTROLS if o.key == key), v)]
    words = ["generalization", *(["--models", *base["models"]] if base else []), *needed, *cli_words(c, value)]
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


def test_the_position_task_is_refused_where_its_test_would_hold_one_label_from_the_form_and_the_command_line():
    with pytest.raises(ValueError, match=r"every test centre \(cx 3..4, cy 3..4\) gives left.*use the phase split") as err:
        config_from(NOTEBOOK_SETUP, CONTROLS, {"task": "where"})
    assert "\n" not in str(err.value)
    args = build_parser().parse_args(["generalization", "--task", "where"])
    with pytest.raises(ValueError, match="gives left"):
        config_from_args(NOTEBOOK_SETUP, CONTROLS, args)
    args = build_parser().parse_args(["generalization", "--task", "where", "--phases", "0", "1", "2"])
    assert config_from_args(NOTEBOOK_SETUP, CONTROLS, args).data.dataset == "where"


def test_the_bench_controls_keep_the_benchs_rules():
    with pytest.raises(ValueError, match="seeds must be in 1..10, got 11"):
        config_from(lesson4.BENCH, lesson4.CONTROLS, {"bench_seeds": 11})
    with pytest.raises(ValueError, match="not on the bench"):
        config_from(lesson4.BENCH, lesson4.CONTROLS, {"bench_models": ["vit-prenorm"]})


# A value other than the lesson's for each control of lessons 1 and 2 (every one the config accepts with the others
# at the lesson's values)
LIVE_VALUES = {"size": 32, "patch": 8, "kind": "noise", "channels": 1, "width": 7, "weight_seed": 5,
               "dtype": "float32", "wrong_order": True, "stride": 2,
               "positions": "sincos2d", "preset": "two blocks, 4 heads, width 32", "model_seed": 4}


def live_words(c, value) -> list[str]:
    return [c.flag] if c.widget == "toggle" else [c.flag, str(value)]


@pytest.mark.parametrize(("command", "lesson", "base", "c"),
                         [("patchify", lesson1, lesson1.PatchifyConfig(), c) for c in lesson1.CONTROLS]
                         + [(command, lesson2, lesson2.SymmetryConfig(), c) for command in ("verify", "attention")
                            for c in lesson2.CONTROLS],
                         ids=lambda v: v if isinstance(v, str) else getattr(v, "key", None))
def test_a_live_control_sets_its_field_from_the_page_and_from_the_command_line(command, lesson, base, c):
    value = LIVE_VALUES[c.key]
    from_page = config_from(base, lesson.CONTROLS, {c.key: value})
    assert getattr(from_page, c.field) != getattr(base, c.field), f"{c.key} did not reach {c.field}"
    assert c.value(from_page) == value
    args = build_parser().parse_args([command, *live_words(c, value)])
    assert config_from_args(base, lesson.CONTROLS, args) == from_page
    untouched = build_parser().parse_args([command])  # no flag: the lesson's value
    assert config_from_args(base, lesson.CONTROLS, untouched) == base


def test_a_choice_that_depends_on_another_is_drawn_under_a_key_holding_it_and_refused_where_it_does_not_fit():
    patch = next(c for c in lesson1.CONTROLS if c.key == "patch")
    assert patch.widget_key({"size": 32}) == "patch_32" and patch.options_for({"size": 12}) == (1, 2, 3, 4, 6, 12)
    args = build_parser().parse_args(["patchify", "--image-size", "12", "--patch-size", "8"])
    with pytest.raises(ValueError, match="patch_size=8 does not divide img_size=12"):
        config_from_args(lesson1.PatchifyConfig(), lesson1.CONTROLS, args)


@pytest.mark.parametrize("controls", [lesson1.CONTROLS, lesson2.CONTROLS, CONTROLS, lesson4.CONTROLS, lesson5.CONTROLS],
                         ids=["lesson1", "lesson2", "lesson3", "lesson4", "lesson5"])
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


@pytest.mark.parametrize(("path", "controls", "base", "query"),
                         [("pages/1_Patchify.py", lesson1.CONTROLS, lesson1.PatchifyConfig(), {"overlap": "true"}),
                          ("pages/2_Permutation_symmetry.py", lesson2.CONTROLS, lesson2.SymmetryConfig(), {})],
                         ids=["lesson1", "lesson2"])
def test_a_live_page_draws_every_declared_control_under_its_key_at_the_lessons_value(path, controls, base, query):
    at = page(path, timeout=60, query=query)  # lesson 1's stride shows once its overlap switch is on
    values = {"size": base.img_size, "patch": base.patch_size} if path.startswith("pages/1") else {}
    for c in controls:
        key = c.widget_key(values)
        found = [w for kind in ("slider", "select_slider", "selectbox", "radio", "toggle", "number_input")
                 for w in at.get(kind) if w.key == key]
        assert found, f"no widget with key {key!r} on the page"
        if c.key != "stride":  # the lesson's stride is the patch size itself; the switch offers the overlapping ones
            assert found[0].value == c.value(base), c.key
