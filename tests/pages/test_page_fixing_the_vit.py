"""Lesson 4's page: predict, reveal the shipped bench, its three views, a selection, a live run."""

from core.lessons.lesson4_fixing_the_vit import BENCH
from tests.apptest_helpers import all_charts, assert_clean, open_section, page, tables
from ui.look_inside import VIEWS
from ui.result_sections import RANKING

PAGE = "pages/4_Fixing_the_ViT.py"


def reveal(at, picks=("vit-shift", "vit-relpos", "vit-overlap")):
    """Predict ``picks`` and check them against the result; no picks: show it without predicting."""
    if picks:
        at.multiselect(key="bench_predict").set_value(list(picks)).run()
        next(b for b in at.button if b.label == "Check it against the result").click().run()
    else:
        next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    return at


def test_results_wait_for_a_prediction_then_compare_with_it():
    at = page(PAGE, timeout=60)
    assert_clean(at)
    # the first screen: the picture of the split and the prediction; nothing that answers it
    assert len(at.get("plotly_chart")) == 1 and not tables(at) and any("prediction" in i.value for i in at.info)
    reveal(at)
    assert_clean(at)
    assert any("precomputed and shipped" in c.value for c in at.caption)  # instant: the shipped bench
    verdict = next(md.value for md in at.markdown if md.value.startswith("**Your prediction against the bench**"))
    right, wrong, missed = verdict.split("\n- ")[1:]
    assert "**ViT + random shifts** (" in right and "**ViT, 2-D relative position bias** (" in right  # each name bold
    assert wrong.startswith("❌ Picked, but not shown better") and "overlapping" in wrong  # a pick can be wrong
    assert missed.startswith("🤔 Not picked, but shown better:") and "learned positions" in missed
    table = tables(at, RANKING)[0]  # every row and column in view: a static table, not a data grid's box
    assert len(table) == len(BENCH.models) and {"unseen map", "95 % interval", "parameters",
                                 "seconds per seed"} <= set(table)
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("baseline every remedy" in n for n in notes) and any("CNNs close to the best" in n for n in notes)
    assert len(all_charts(at)) >= 3 + 6  # ranking, the maps (one figure), data efficiency, and inside the models


def test_the_maps_share_one_colour_scale_and_data_efficiency_is_shipped():
    at = reveal(page(PAGE, timeout=60), ())
    open_section(at, "Generalization maps")
    maps = [c.proto.spec for c in at.get("plotly_chart")[1:]]  # after the picture of the split
    # one figure per column (a phone stacks them: each map as wide as the screen), one colour scale for every model
    assert len(maps) == 4 and sum(spec.count('"coloraxis":"coloraxis"') for spec in maps) == len(BENCH.models)
    open_section(at, "Data efficiency")
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 2 and not at.get("progress")


def test_a_selection_of_the_bench_shows_at_once_and_is_judged_against_the_pick_made_before_its_run():
    at = reveal(page(PAGE, timeout=60), ("vit-shift",))
    at.multiselect(key="bench_models").set_value(["vit", "cnn", "vit-shift"])
    next(b for b in at.button if b.label == "Run").click().run()
    assert_clean(at)
    assert not at.get("progress") and len(tables(at, RANKING)[0]) == 3
    assert any(c.value.startswith("Your prediction for the setting shown: **ViT + random shifts**") for c in at.caption)


def test_a_new_setting_waits_for_its_own_prediction():
    at = reveal(page(PAGE, timeout=60), ())
    at.multiselect(key="bench_predict").set_value([]).run()
    at.multiselect(key="bench_models").set_value(["vit", "cnn"])
    next(b for b in at.button if b.label == "Run").click().run()
    assert not tables(at) and any("make your prediction above" in i.value for i in at.info)
    reveal(at, ("vit-shift",))
    assert len(tables(at, RANKING)[0]) == 2


def test_a_new_setting_trains_live_and_a_too_big_one_is_refused():
    at = reveal(page(PAGE, timeout=240), ("vit-shift",))
    at.multiselect(key="bench_models").set_value(["cnn", "cnn-circular"])
    at.slider(key="bench_seeds").set_value(1)
    at.slider(key="bench_epochs").set_value(50)
    at.toggle(key="live_curve").set_value(False)  # the bar only: the same run, the same kind of result
    next(b for b in at.button if b.label == "Run").click().run()
    assert_clean(at)
    assert any("trained on this server" in c.value for c in at.caption) and len(tables(at, RANKING)[0]) == 2
    at.slider(key="bench_seeds").set_value(10)
    at.slider(key="bench_epochs").set_value(400)
    at.multiselect(key="bench_models").set_value(list(BENCH.models))
    next(b for b in at.button if b.label == "Run").click().run()
    assert any("Cannot run this setting" in e.value for e in at.error)


def test_a_link_opens_the_selection():
    at = page(PAGE, timeout=60, query={"bench_models": ["ViT (lesson)", "ViT, max over patches"]})
    reveal(at, ())
    assert_clean(at)
    assert list(tables(at, RANKING)[0].index) == ["ViT (lesson)", "ViT, max over patches"]


def test_look_inside_compares_attention_distance_across_the_remedies():
    at = reveal(page(PAGE, timeout=120), ())
    open_section(at, "Look inside the models")
    assert_clean(at)
    # every model of the bench: its probability of the right answer, unseen and seen
    answers = next(t for t in tables(at) if t.columns[0].startswith("at ("))
    assert len(answers) == len(BENCH.models) > 3
    assert all(0 <= float(p) <= 1 for p in answers.to_numpy().ravel())
    at.radio(key="bench_probe_view").set_value(VIEWS[1]).run()
    titles = [md.value for md in at.markdown if md.value.startswith("**Trained mean attention distance")]
    assert titles, "the distance of every transformer of the bench"
    at.radio(key="bench_probe_view").set_value(VIEWS[2]).run()
    at.selectbox(key="bench_probe_model").set_value("vit-learned").run()
    assert_clean(at)
    assert any("ViT, learned positions's table after training" in md.value for md in at.markdown)


def test_draw_your_own_starts_from_a_training_plus_and_every_remedy_answers_it():
    import numpy as np

    from core.data.training_examples import training_examples

    at = reveal(page(PAGE, timeout=120), ())
    open_section(at, "Draw your own")
    assert any(c.value.startswith("**Trained on** ") and "strokes 3 pixels thick" in c.value for c in at.caption)
    at.button(key="bench_draw_train_0").click().run()
    assert_clean(at)
    plus = training_examples(BENCH.data)[0]
    assert np.array_equal(at.session_state["bench_drawing"], plus.image) and at.radio(key="bench_draw_class").value == "plus"
    table = tables(at, "Every model's answer to your drawing, every seed")[0]
    assert len(table) == len(BENCH.models) and table.loc["CNN"].str.startswith("plus").all()
