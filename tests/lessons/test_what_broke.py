"""core/lessons/what_broke.py: every sentence of "What broke the ViT?" is written from the shipped numbers."""

from core.engine.results.verdict import verdicts
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.inspect.equivariance import shift_responses
from core.lessons.lesson3_vit_vs_cnn import POS_SCALE_SWEEP, PRESETS
from core.lessons.lesson4_fixing_the_vit import BENCH
from core.lessons.shipped import load_fresh_shipped
from core.lessons.what_broke import scale_notes, scale_points, shift_notes


def test_the_alpha_sweep_is_shipped_and_read_with_distinct_image_intervals():
    points = scale_points()
    assert points is not None and [p.alpha for p in points] == list(POS_SCALE_SWEEP.values)
    assert all(len(p.seeds) == 5 and p.interval.images == 8 for p in points)
    notebook = next(p for p in points if p.alpha == 1)
    assert notebook.interval.contains(0.5)


def test_the_alpha_notes_say_what_the_sweep_shows_and_no_more():
    points = scale_points()
    learned = verdicts(load_fresh_shipped()[BENCH])["vit-learned"].interval
    said = scale_notes(points, learned)
    small = [p for p in points if p.alpha < 1 and p.interval.lo > 0.5]
    assert said[0].startswith("The lesson's ViT, five seeds at each scale") and "α = 1 (the notebook)" in said[0]
    assert any("this ViT, with this table at this size, does not" in n for n in said) == bool(small)
    assert f"{learned}" in said[-1]
    assert not any("cannot" in n and "not what these runs show" not in n for n in said)


def test_the_shift_notes_follow_the_measurements():
    lesson = load_fresh_shipped()[PRESETS["lesson"]]
    responses = shift_responses(lesson, 0)
    said = shift_notes(responses, NOTEBOOK_SETUP.model.patch_size)
    cnn = next(r for r in responses if r.model == "cnn" and r.trained and r.axis == "x" and r.pixels == 1)
    assert any(n.startswith("**CNN**: a 1-pixel move changes its answer for " + f"{cnn.answer_changed:.0%}")
               for n in said)
    assert any("reordered (a change of 0 to float precision)" in n for n in said)


def test_both_splits_are_shipped_for_the_seven_models_and_compared_by_the_differences_interval():
    from core.engine.results.verdict import difference
    from core.lessons.what_broke import split_notes, split_rows

    shipped = load_fresh_shipped()
    notebook, phase = shipped[PRESETS["splits-notebook"]], shipped[PRESETS["splits-phase"]]
    assert notebook.config.models == phase.config.models and len(phase.config.models) == 7
    assert len(phase.config.train.seeds) == 5 and phase.config.data.phases == (0, 1, 2)
    rows = split_rows(notebook, phase)
    said = split_notes(rows, notebook.config.data, phase.config.data)
    for r in rows:
        note = next(n for n in said if n.startswith(f"**{__import__('core.lessons.model_cards', fromlist=['label']).label(r.model)}**"))
        _, lo, hi = difference(r.part, r.whole)
        assert ("lower at new offsets" in note) == (hi < 0) and f"{r.part}" in note
    assert "where and how many the training positions are" in said[-1]  # what else the two splits change
