"""core/lessons/what_broke.py: every sentence of "What broke the ViT?" is written from the shipped numbers."""

from core.engine.results.verdict import verdicts
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.inspect.equivariance import shift_responses
from core.lessons.lesson3_vit_vs_cnn import POS_SCALE_SEEDS, POS_SCALE_SWEEP, PRESETS, SPLIT_MODELS
from core.lessons.lesson4_fixing_the_vit import BENCH
from core.lessons.shipped import load_fresh_shipped
from core.lessons.what_broke import scale_notes, scale_points, shift_notes


def test_the_alpha_sweep_is_shipped_and_read_over_its_seeds():
    points = scale_points()
    assert points is not None and [p.alpha for p in points] == list(POS_SCALE_SWEEP.values)
    assert all(len(p.seeds) == p.interval.units == POS_SCALE_SEEDS for p in points)
    notebook = next(p for p in points if p.alpha == 1)
    assert notebook.interval.contains(0.5)


def test_the_alpha_notes_say_what_the_sweep_shows_and_no_more():
    points = scale_points()
    learned = verdicts(load_fresh_shipped()[BENCH])["vit-learned"].interval
    said = scale_notes(points, learned)
    small = [p for p in points if p.alpha < 1 and p.interval.lo > 0.5]
    assert said[0].startswith(f"The lesson's ViT, {POS_SCALE_SEEDS} seeds at each scale") and "α = 1 (the notebook)" in said[0]
    assert any("this ViT, with this table at this size, does not" in n for n in said) == bool(small)
    assert f"{learned}" in said[-1]
    assert not any("cannot" in n and "not what these runs show" not in n for n in said)


def test_the_shift_notes_follow_the_measurements():
    lesson = load_fresh_shipped()[PRESETS["lesson"]]
    responses = shift_responses(lesson, 0)
    said = shift_notes(responses, NOTEBOOK_SETUP.model.patch_size)
    cnn = next(r for r in responses if r.model == "cnn" and r.trained and r.axis == "x" and r.pixels == 1)
    assert any(n.startswith("**CNN**: a 1-pixel move to the right changes its answer for "
                            + f"{cnn.answer_changed:.0%} of the {cnn.images} map images that still fit") for n in said)
    # the figure's bars and the notes' numbers are one measurement: moves to the right only
    from core.lessons.what_broke import answers_changed

    P = NOTEBOOK_SETUP.model.patch_size
    for model, (one, patch) in answers_changed(responses, P).items():
        x = {r.pixels: r.answer_changed for r in responses if r.model == model and r.trained and r.axis == "x"}
        assert (one, patch) == (x[1], x[P])
        assert any(f"changes its answer for {one:.0%} of the" in n and f"a {P}-pixel move for {patch:.0%} of" in n
                   for n in said)
    assert any("reordered (they change by less than 1e-5, the size of rounding)" in n for n in said)


def test_both_splits_are_shipped_for_the_split_models_and_compared_by_the_differences_interval():
    from core.engine.results.verdict import difference
    from core.lessons.what_broke import split_notes, split_rows

    shipped = load_fresh_shipped()
    notebook, phase = shipped[PRESETS["splits-notebook"]], shipped[PRESETS["splits-phase"]]
    assert notebook.config.models == phase.config.models and len(phase.config.models) == len(SPLIT_MODELS)
    assert len(phase.config.train.seeds) == 5 and phase.config.data.phases == (0, 1, 2)
    rows = split_rows(notebook, phase)
    said = split_notes(rows, notebook.config.data, phase.config.data)
    for r in rows:
        note = next(n for n in said if n.startswith(f"**{__import__('core.lessons.model_cards', fromlist=['label']).label(r.model)}**"))
        _, lo, hi = difference(r.part, r.whole)
        assert ("lower at new offsets" in note) == (hi < 0) and f"{r.part}" in note
    assert "where and how many the training positions are" in said[-1]  # what else the two splits change


def test_new_for_whom_names_each_models_stride_and_the_blurs_gain_by_the_differences_interval():
    from core.engine.results.verdict import difference
    from core.lessons.what_broke import stride_notes, stride_rows

    shipped = load_fresh_shipped()
    phase, odd = (stride_rows(shipped[PRESETS[p]]) for p in ("splits-phase", "splits-odd"))
    by = [{r.model: r for r in rows} for rows in (phase, odd)]
    assert by[0]["vit"].new and not by[0]["cnn"].new  # offset 3: new for the patch, not for the pool
    assert by[1]["vit"].new and by[1]["cnn"].new and by[1]["mlp"].new  # the odd offsets: new for every stride
    assert (by[0]["vit"].stride, by[0]["cnn"].stride, by[0]["mlp"].stride) == (4, 2, 16)
    said = stride_notes([phase, odd])
    assert any(n.startswith("**CNN**: offset 3 held out (not new for its stride 2)") for n in said)
    for rows in (phase, odd):
        r = {x.model: x for x in rows}
        d, lo, hi = difference(r["vit-blur"].accuracy, r["vit"].accuracy)
        note = next(n for n in said if "with " + ("offset 3" if rows is phase else "offsets 1 and 3") in n
                    and n.startswith("The blur alone, ViT, blurred"))
        assert f"{d * 100:+.0f} points" in note and ("higher" in note) == (lo > 0)


def test_the_tradeoff_notes_name_the_scales_that_do_both_from_their_intervals():
    from core.lessons.what_broke import tradeoff_notes

    what, where = scale_points(), scale_points("where")
    assert where is not None and [p.alpha for p in where] == list(POS_SCALE_SWEEP.values)
    said = tradeoff_notes(what, where)
    both = [a.alpha for a, b in zip(what, where, strict=True) if a.interval.lo > 0.5 and b.interval.lo > 0.5]
    assert said[0].endswith(", ".join(f"{a:g}" for a in both) + ".") and both
    small = [b for b in where if b.alpha < 0.05]
    assert any("not shown to tell where" in n for n in said) == all(b.interval.lo <= 0.5 for b in small)
    # what a small table cannot do is said within the sweeps' training budget, never as a property of the table
    budgeted = tradeoff_notes(what, where, epochs=200)
    assert [n for n in budgeted if "not shown to tell where" in n] == [
        n for n in budgeted if "where a shape is in 200 epochs:" in n and "trained longer" in n]


def test_models_that_answer_alike_are_named_as_one_behaviour():
    from core.lessons.what_broke import alike_notes

    phase = load_fresh_shipped()[PRESETS["splits-phase"]]
    said = alike_notes(phase, "phase split")
    assert any("**ViT, no positions**" in n and "**ViT, learned positions**" in n for n in said)


def test_the_odd_splits_regions_name_who_fails_where_and_the_parity_cue_from_the_shipped_run():
    from core.lessons.what_broke import by_region, parity_ink, region_notes

    odd = load_fresh_shipped()[PRESETS["splits-odd"]]
    table = by_region(odd)
    assert set(table["cnn"]) == {"only x new", "only y new", "both new"}
    said = region_notes(odd)
    cnn = next(n for n in said if n.startswith("**CNN**"))
    both = table["cnn"]["both new"]
    assert f"{round(100 * min(both))}–{round(100 * max(both))} % over its seeds" in cnn  # the shipped seeds' range
    backwards = next(n for n in said if n.startswith("At the centres with both coordinates odd"))
    assert "**MLP (flatten + hidden layer)**" in backwards and "blur" not in backwards  # stride or none, no blur
    assert "/".join(map(str, parity_ink("plus", 4, 4))) in backwards and "consistent with" in backwards
    assert "images with the cue removed would decide" in backwards  # a mechanism not shown is not claimed
    assert parity_ink("plus", 5, 5) == tuple(reversed(parity_ink("plus", 4, 4)))  # the counts swap ends
