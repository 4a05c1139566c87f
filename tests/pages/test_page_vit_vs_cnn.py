from dataclasses import replace

import numpy as np
import pytest

from core.engine.results.units import units_of
from core.engine.setting.run_config import NOTEBOOK_SETUP, TrainConfig
from core.inspect.trained_model import run_data
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.shipped import load_fresh_shipped
from tests.apptest_helpers import PER_SEED, all_charts, assert_clean, open_section, page, tables
from ui.lesson_list import page_of
from ui.look_inside import VIEWS

EXERCISES_KEY = page_of("pages/3_ViT_vs_CNN.py").progress_key  # the exercise widgets' keys start with it

DRAWN = "Every model's answer to your drawing, every seed"  # ui.draw_your_own's table
PAGE = "pages/3_ViT_vs_CNN.py"
DISTANCE, POSITIONS = VIEWS[1], VIEWS[2]


def run_tiny(at):
    at.button(key="preset_tiny").click().run()
    at.radio(key="predict").set_value("clearly above chance, clearly below 100 %")
    next(b for b in at.button if b.label == "Run").click().run()
    return at


def reveal(at, prediction: str | None = None):
    """Predict (or skip) for the setting on screen: its results appear only then."""
    if prediction is None:
        at.button(key="predict_skip").click().run()
    else:
        at.radio(key="predict").set_value(prediction).run()
        at.button(key="predict_check").click().run()
    return at



def shipped_vit_mean(preset: str) -> str:
    """The lesson's ViT's mean test accuracy over the shipped preset's units, as the page's metric shows it."""
    from core.engine.results.verdict import verdicts

    return f"{verdicts(load_fresh_shipped()[PRESETS[preset]])['vit'].interval.mean:.1%}"

def test_opens_without_error_and_presets_fill_the_form():
    at = page(PAGE, timeout=60)
    assert_clean(at)
    assert at.session_state["n_train"] == 300
    at.button(key="preset_exercise-1").click().run()
    assert at.session_state["n_train"] == 3000
    at.button(key="preset_exercise-2").click().run()
    assert at.session_state["patch_size"] == 2 and at.session_state["n_train"] == 300
    at.button(key="preset_exercise-3").click().run()
    assert "hybrid" in at.session_state["models"]


def test_tiny_preset_through_the_form_shows_results():
    at = run_tiny(page(PAGE, timeout=120))
    assert_clean(at)
    assert any("Your prediction:** clearly above chance, clearly below 100 %" in md.value for md in at.markdown)
    labels = [m.label for m in at.metric]
    assert "CNN · test set" in labels and "ViT (lesson) · test set" in labels
    # the first section: the per-seed table, no chart but the picture of the split above
    assert len(at.get("plotly_chart")) == 1 and tables(at)
    assert "seed 0" in tables(at, PER_SEED)[0].index and "mean" in tables(at, PER_SEED)[0].index
    open_section(at, "Accuracy and curves")
    assert len(at.get("plotly_chart")) >= 2  # bars, loss (and the test curve)
    assert len(all_charts(at)) >= 7  # and the 4 position maps, the gallery
    assert len(at.get("download_button")) == 3  # CSV, JSON, and the run as a notebook (ui.experiment_page)
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("The CNN was right" in n and "its training positions" in n for n in notes)
    # the prediction is judged against the ViT's interval, not just echoed
    verdict = next(md.value for md in at.markdown if md.value.startswith("**Your prediction:** clearly above chance"))
    assert any(word in verdict for word in ("right", "not ruled out", "not what happened"))
    # the gallery shows the seed the learner picks, and says how many it got wrong for that seed
    at.session_state["results_view"] = "Misclassified test images"
    at.run()
    at.selectbox(key="mis_model").set_value("vit")
    at.selectbox(key="mis_seed").set_value(2).run()
    assert any(md.value.startswith("**ViT (lesson), seed 2:") for md in at.markdown)


def test_a_config_already_run_returns_from_the_store():
    at = run_tiny(page(PAGE, timeout=120))
    first = [m.value for m in at.metric]
    # a second session: same config, results come from the per-process store without training
    at2 = page(PAGE, timeout=120)
    at2.button(key="preset_tiny").click().run()
    at2.radio(key="predict").set_value("clearly above chance, clearly below 100 %")
    next(b for b in at2.button if b.label == "Run").click().run()
    assert [m.value for m in at2.metric] == first
    assert not at2.get("progress")


def test_bad_setting_is_refused_with_a_message():
    at = page(PAGE, timeout=60)
    at.multiselect(key="models").set_value([])
    next(b for b in at.button if b.label == "Run").click().run()
    assert any("Cannot run this setting" in e.value for e in at.error)


def test_overlapping_train_and_test_centres_are_refused():
    at = page(PAGE, timeout=60)
    at.slider(key="test_range").set_value((4, 6))
    next(b for b in at.button if b.label == "Run").click().run()
    assert any("overlap training centres 5..10" in e.value for e in at.error)


def test_a_link_opens_its_experiment_on_a_fresh_server():
    """A teacher's link (exercise 1: n_train=3000) shows that experiment's numbers, with no training: the
    shipped result; the link shown on the page is the same query."""
    at = page(PAGE, timeout=60, query={"n_train": "3000"})
    assert_clean(at)
    assert not at.metric  # nothing answers the prediction before it is made (or skipped)
    reveal(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ViT (lesson) · test set"] == shipped_vit_mean("exercise-1") and not at.get("progress")
    assert at.session_state["n_train"] == 3000
    assert at.get("code")[-1].proto.code_text == "?n_train=3000"


def test_a_link_to_a_setting_not_yet_run_trains_it():
    query = {"models": "CNN", "n_train": "120", "n_test": "100", "epochs": "10", "seeds": "1"}  # values as labels
    at = page(PAGE, timeout=120, query=query)
    assert_clean(at)
    assert not at.metric and not at.get("progress")  # trained, kept behind the prediction; its bar gone
    assert not [b for b in at.button if b.label == "Cancel"]  # a finished run's Cancel goes with it
    reveal(at)
    assert any("trained on this server" in c.value for c in at.caption)
    assert [m.label for m in at.metric] == ["CNN · test set"]


def test_exercises_are_checked_against_the_run_and_counted():
    """As a learner does them: each exercise's preset run and its result seen, then answered; the answer's numbers
    are the ones the page shows for that run (its notes' intervals over the unseen centres)."""
    from core.engine.results.verdict import verdicts

    at = reveal(page(PAGE, timeout=120))  # the lesson's run, seen: the exercises compare with it
    at.button(key="do_more-data").click().run()
    assert at.session_state["n_train"] == 3000  # the exercise's button set the form up
    at.radio(key=f"answer_{EXERCISES_KEY}_more-data").set_value("Partially: better than the lesson's ViT, still "
                                                                 "below the CNN").run()
    at.button(key=f"check_{EXERCISES_KEY}_more-data").click().run()
    assert any("make your prediction" in i.value for i in at.info)  # its run not seen yet: no answer, no numbers
    next(b for b in at.button if b.label == "Run").click().run()
    reveal(at)
    at.button(key=f"check_{EXERCISES_KEY}_more-data").click().run()
    said = next(e.value for e in at.error if "The answer is" in e.value)
    assert "Not quite" in said and "**Not at all: not shown better than the lesson's ViT (a small gain" in said
    shown = " ".join([m.value for m in at.markdown] + [h.proto.body for h in at.get("html")])  # tables are html
    unseen = verdicts(load_fresh_shipped()[PRESETS["exercise-1"]], measure="unseen map")["vit"].interval
    assert f"{unseen}" in said and f"{unseen}" in shown  # the number it was decided by is on the page
    assert at.session_state["progress"] == {f"{EXERCISES_KEY}/more-data": False}
    at.radio(key=f"answer_{EXERCISES_KEY}_more-data").set_value("Not at all: not shown better than the lesson's "
                                                                 "ViT (a small gain is not ruled out)").run()
    at.button(key=f"check_{EXERCISES_KEY}_more-data").click().run()
    assert any("Right" in x.value and "72 distinct" in x.value for x in at.success)
    assert at.session_state["progress"] == {f"{EXERCISES_KEY}/more-data": True}


def test_first_view_is_the_shipped_lesson_result_without_training():
    at = page(PAGE, timeout=30)
    assert_clean(at)
    # the first screen: the picture of the split and the prediction, nothing that answers it
    assert len(at.get("plotly_chart")) == 1 and not at.metric and not tables(at)
    vit = shipped_vit_mean("lesson")
    assert not any(vit.removesuffix("%") in m.value for m in at.markdown) and at.button(key="predict_check").disabled
    reveal(at, "≈50 % (chance) or worse")
    # over 10 training draws the shipped ViT is above chance and below the CNN: the prediction is refuted
    assert any(md.value.startswith("**Your prediction:** ≈50 % (chance) or worse → ❌") for md in at.markdown)
    plain = next(md.value for md in at.markdown if md.value.startswith("The ViT (lesson) was right on"))
    assert "better than guessing (guessing scores 50 %), and behind the CNN" in plain and plain.endswith("in all 30 runs: the best here.")
    said = tables(at, "Each model: its test set, its unseen map, and what it answers")[0]
    assert "seeds 0, 1: circle for every test image" in said.loc[
        "ViT (lesson)", "what it answers on the notebook's test images"]
    assert said.columns[0] == "test set" and said.loc["CNN", "test set"].startswith("mean 100.0%")
    labels = {m.label: m.value for m in at.metric}
    assert labels["CNN · test set"] == "100.0%" and labels["ViT (lesson) · test set"] == vit
    assert any("precomputed with this code" in c.value for c in at.caption)
    assert at.button(key="rerun").label == "Re-run this setting live"
    assert at.toggle(key="live_curve").value  # the live curve is drawn unless the learner switches it off
    assert len(at.get("plotly_chart")) == 1  # the first section is the table: the split is the only chart
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("300 training images hold only **70 distinct** ones" in n and "allow 72" in n
               and "3000 images, 72 distinct" in n for n in notes)
    open_section(at, "Accuracy and curves")
    assert len(at.get("plotly_chart")) == 3  # the split, bars and loss; the shipped run measured no test curve, and says so
    assert any("No test accuracy per epoch for this run" in c.value for c in at.caption)


def test_a_sweep_runs_from_the_page_and_plots():
    at = page(PAGE, timeout=300)
    at.button(key="preset_tiny").click().run()
    at.multiselect(key="models").set_value(["cnn"])
    at.slider(key="epochs").set_value(10)
    next(b for b in at.button if b.label == "Run").click().run()
    assert at.button(key="sweep_run").disabled  # the sweep answers the prediction too: it waits for it
    reveal(at)
    charts_before = len(at.get("plotly_chart"))
    at.selectbox(key="sweep_name").set_value("patch size")
    at.button(key="sweep_run").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == charts_before + 1
    assert any(b.label == "Sweep results (CSV)" for b in at.get("download_button"))


def test_look_inside_the_shipped_lesson_without_training():
    at = reveal(page(PAGE, timeout=60))
    open_section(at, "Look inside the models")
    assert_clean(at)
    assert not at.get("progress")
    labels = [m.label for m in at.metric]
    assert "ViT (lesson) · p(right answer)" in labels and "CNN" in tables(at)[-1].index
    # unseen (3, 3) beside the nearest training centre (5, 5)
    assert any(md.value.startswith("**plus at (3, 3)**") for md in at.markdown)
    assert any(md.value.startswith("**plus at (5, 5)**: seen in training") for md in at.markdown)
    charts = len(at.get("plotly_chart"))
    at.toggle(key="vc_probe_layers").set_value(True).run()  # every layer's attention, both inputs: two charts more
    assert len(at.get("plotly_chart")) == charts + 2 and any("layer 0, head 0" in c.proto.spec for c in at.get("plotly_chart"))
    before = [m.value for m in at.metric]
    at.select_slider(key="vc_probe_cx").set_value(12).run()
    assert_clean(at)
    assert [m.value for m in at.metric] != before
    at.radio(key="vc_probe_view").set_value(DISTANCE).run()
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("mean attention distance most in layer" in n for n in notes)
    at.radio(key="vc_probe_view").set_value(POSITIONS).run()
    at.toggle(key="vc_probe_shuffle").set_value(True).run()
    assert_clean(at)
    assert any(m.label == "Test accuracy (unseen centres)" for m in at.metric)
    at.selectbox(key="vc_probe_model").set_value("cnn").run()
    assert_clean(at)
    assert any("has no position table" in i.value for i in at.info)


def test_look_inside_a_run_just_trained_from_the_form():
    at = run_tiny(page(PAGE, timeout=180))
    open_section(at, "Look inside the models")
    assert_clean(at)
    assert any(c.value.startswith("The trained models themselves") for c in at.caption)
    # the tiny preset's one-layer ViT: one layer of attention maps, its distances, both models' probabilities
    labels = [m.label for m in at.metric]
    assert "ViT (lesson) · p(right answer)" in labels and "CNN" in tables(at)[-1].index
    at.radio(key="vc_probe_view").set_value(DISTANCE).run()
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("mean attention distance most in layer 0" in n for n in notes)


def test_a_run_whose_every_seed_diverged_says_so_in_both_result_sections():
    from dataclasses import replace

    from core.engine.running.run import run
    from ui.server_runs import result_store

    query = {"models": "ViT (lesson)", "n_train": "120", "n_test": "100", "epochs": "10", "seeds": "1"}
    at = page(PAGE, timeout=120, query=query)
    cfg = at.session_state["active"]
    diverged = run(replace(cfg, train=replace(cfg.train, epochs=30, lr=10.0)))  # beyond the form's rates
    assert all(r.diverged_at is not None for r in diverged.rows)
    result_store().put(cfg, diverged)  # the page's store: this link now shows a run that diverged
    at.session_state["live_runs"] = {}  # (the run the link trained would stay on screen for this learner)
    reveal(at)
    assert not at.exception
    (error,) = at.error  # the run's one seed, and nothing else
    assert error.value.startswith("ViT (lesson), seed 0: training **diverged at epoch")
    assert any("Every seed diverged" in i.value for i in at.info) and not tables(at)
    open_section(at, "Accuracy and curves")
    assert any("Every seed diverged" in i.value for i in at.info) and len(at.get("plotly_chart")) == 1  # the split


def test_results_not_matching_the_form_are_labelled_and_every_run_judges_the_prediction_before_it():
    at = reveal(page(PAGE, timeout=60), "clearly above chance, clearly below 100 %")
    assert not at.warning
    at.button(key="preset_exercise-1").click().run()  # the form changes; the lesson's results stay on screen
    (stale,) = at.warning
    assert "These results are for the setting last run" in stale.value and "Training images" in stale.value
    at.radio(key="predict").set_value("≈100 %: near perfect").run()
    next(b for b in at.button if b.label == "Run").click().run()  # judged against the pick made before it
    assert not at.warning
    assert any(md.value.startswith("**Your prediction:** ≈100 %: near perfect → ❌") for md in at.markdown)
    assert {m.label: m.value for m in at.metric}["ViT (lesson) · test set"] == shipped_vit_mean("exercise-1")
    fresh = page(PAGE, timeout=60)
    fresh.button(key="preset_exercise-1").click().run()
    next(b for b in fresh.button if b.label == "Run").click().run()  # no pick: the result waits for one
    assert not fresh.metric and fresh.button(key="predict_skip")


@pytest.fixture
def new_server(tmp_path, monkeypatch):
    """A server of its own: nothing stored or in flight, its archive in ``tmp_path``. ``restart()`` ends it
    and starts another on the same archive, as a deploy or a woken app does."""
    from ui.server_runs import result_store, run_flights

    def restart():
        result_store.clear()
        run_flights.clear()
        return run_flights()

    monkeypatch.setenv("VITLAB_DATA_DIR", str(tmp_path))
    yield restart
    restart()


LINK = {"models": "CNN", "n_train": "120", "n_test": "100", "epochs": "12", "seeds": "1"}


def test_a_link_run_before_a_restart_opens_at_once_after_it(new_server):
    flights = new_server()
    at = reveal(page(PAGE, timeout=120, query=LINK))
    before = [m.value for m in at.metric]
    assert flights.started == 1 and before
    flights = new_server()  # the server restarts: its memory is gone, its archive is not
    at = page(PAGE, timeout=120, query=LINK)
    assert_clean(at)
    assert not at.get("progress") and not any("training it now" in i.value for i in at.info)
    assert [m.value for m in reveal(at).metric] == before and flights.started == 0


def test_a_learner_opening_a_setting_another_is_training_watches_that_training(new_server, monkeypatch):
    import threading

    import core.engine.running.flights
    from core.engine.running.run import run

    flights = new_server()
    release = threading.Event()
    monkeypatch.setattr(core.engine.running.flights, "run", lambda *a, **k: release.wait(60) and run(*a, **k))
    cfg = replace(NOTEBOOK_SETUP, models=("cnn",), data=replace(NOTEBOOK_SETUP.data, n_train=120, n_test=100),
                  train=TrainConfig(epochs=12, seeds=(0,)))  # what LINK names
    first = flights.attach(cfg, eval_every=1)  # another learner pressed Run on it a moment ago
    threading.Timer(3.0, release.set).start()
    at = page(PAGE, timeout=120, query=LINK)
    assert_clean(at)
    assert at.session_state.active == cfg
    assert not at.get("progress") and flights.started == 1  # watched that training to its end; trained once
    assert first.wait(60).result is flights.store.get(cfg)
    first.detach()
    test_set = units_of(flights.store.get(cfg))[0].test  # the metric is the test set's, from that training
    assert [m.value for m in reveal(at).metric] == [f"{test_set:.1%}"]


def test_draw_your_own_moves_a_drawing_every_model_answers_and_the_link_keeps_it():
    from core.data import drawing
    from core.data.shapes import make_image

    plus = make_image("plus", 3, 4)
    at = page(PAGE, timeout=60, query={"vc_drawing": drawing.encode(plus), "results_view": "Draw your own"})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert_clean(at)
    assert any("**Centre of mass:** (3, 4); **unseen: test**" in md.value for md in at.markdown)  # the link's drawing
    table = tables(at, DRAWN)[0]
    assert list(table.index) == ["ViT (lesson)", "CNN"] and list(table.columns) == ["seed 0", "seed 1", "seed 2"]
    # at the unseen centre the CNN still sees a plus; the lesson's ViT, not
    assert table.loc["CNN", "seed 0"].startswith("plus") and table.loc["ViT (lesson)", "seed 0"].startswith("circle")
    for _ in range(4):
        at.button(key="vc_draw_right").click().run()
        at.button(key="vc_draw_down").click().run()
    assert_clean(at)
    assert any("**Centre of mass:** (7, 8); **seen**" in md.value for md in at.markdown)
    assert tables(at, DRAWN)[0].loc["ViT (lesson)", "seed 0"].startswith("plus")  # where it was trained, it is right
    assert any(md.value.startswith("**The path through ViT (lesson):** the 16×16 drawing is cut into 4×4 = 16")
               for md in at.markdown)
    assert np.array_equal(drawing.decode(at.query_params["vc_drawing"], 16), make_image("plus", 7, 8))
    lens = [c.proto.spec for c in at.get("plotly_chart") if "after layer" in c.proto.spec]
    assert len(lens) == 1  # the logit lens of the followed model (the lesson's ViT)
    at.toggle(key="vc_draw_sweep").set_value(True).run()
    assert_clean(at)
    assert sum(c.proto.spec.count('"coloraxis":"coloraxis"') for c in at.get("plotly_chart")) == 2  # both models
    at.button(key="vc_draw_clear").click().run()
    assert_clean(at)
    # a blank canvas is a new drawing: what it shows is asked again, not kept from the plus
    assert any("no ink" in md.value for md in at.markdown) and at.radio(key="vc_draw_class").value is None
    assert any(i.value.startswith("Say what you drew") for i in at.info) and not tables(at, DRAWN)
    at.radio(key="vc_draw_class").set_value("circle").run()
    assert_clean(at)
    assert any("Draw something first" in i.value for i in at.info)


def test_draw_your_own_shows_what_the_models_trained_on_and_starts_from_a_training_plus():
    from core.data import drawing
    from core.data.training_examples import training_examples

    at = page(PAGE, timeout=60, query={"results_view": "Draw your own"})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert_clean(at)
    # beside the canvas: a training plus and circle on the whole canvas, and what they are, from the run's DataConfig
    assert any("What the models were trained on" in c.proto.spec for c in at.get("plotly_chart"))
    assert any(c.value.startswith("**Trained on** 300 images of shapes (plus vs circle) on a 16×16 canvas")
               and "plus: 7×7 pixels, strokes 3 pixels thick" in c.value and "centred at cx and cy in 5..10" in c.value
               for c in at.caption)
    at.number_input(key="vc_draw_start").set_value(3).run()  # a test image first: the button replaces it
    at.button(key="vc_draw_train_0").click().run()
    assert_clean(at)
    plus = next(e for e in training_examples(NOTEBOOK_SETUP.data) if e.label == 0)
    assert np.array_equal(at.session_state["vc_drawing"], plus.image)  # the training plus, at its training centre
    assert np.array_equal(drawing.decode(at.query_params["vc_drawing"], 16), plus.image)  # and in the link
    assert at.radio(key="vc_draw_class").value == "plus" and at.number_input(key="vc_draw_start").value is None
    assert any(f"**Centre of mass:** {plus.centre}; **seen**" in md.value for md in at.markdown)
    table = tables(at, DRAWN)[0]
    assert all(table.loc[m, f"seed {s}"].startswith("plus") for m in ("CNN", "ViT (lesson)") for s in (0, 1, 2))
    at.button(key="vc_draw_train_1").click().run()
    assert at.radio(key="vc_draw_class").value == "circle"
    assert tables(at, DRAWN)[0].loc["CNN", "seed 0"].startswith("circle")


def test_draw_your_own_follows_a_cnn_through_both_of_its_layers():
    at = page(PAGE, timeout=60, query={"results_view": "Draw your own", "vc_draw_model": "CNN",
                                       "vc_draw_layers": "true"})
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    assert_clean(at)
    titles = [md.value for md in at.markdown]
    assert any(t.startswith("**Layer 1's feature maps") for t in titles)  # 8 maps of the first convolution
    assert any(t.startswith("**The last feature maps") for t in titles)  # and the last, with the max pool's picks
    start = at.number_input(key="vc_draw_start")  # any test image, by its number (a blank canvas: the ✕)
    assert start.value is None and start.max == NOTEBOOK_SETUP.data.n_test - 1
    start.set_value(3).run()
    assert_clean(at)
    data = run_data(NOTEBOOK_SETUP.data)
    assert (at.session_state["vc_drawing"] == data.Xte[3, 0].numpy()).all()
    assert any(c.value.startswith("Test image 3: ") for c in at.caption)
    assert at.radio(key="vc_draw_class").value == NOTEBOOK_SETUP.data.kind.classes[int(data.yte[3])]


def test_what_broke_the_vit_asks_a_prediction_before_the_alpha_sweep_then_shows_it_and_the_shift_test():
    at = reveal(page(PAGE, timeout=60))
    open_section(at, "What broke the ViT?")
    assert_clean(at)
    said = " ".join(md.value for md in at.markdown)
    assert "moved by a whole number of 4-pixel patches" in said  # what the notebook's test asks
    charts = len(at.get("plotly_chart"))
    assert "by the scale α of its table" not in said  # nothing answers the prediction yet (chart titles are text)
    assert "Answers changed by a move to the right" in said  # the shift test: forward passes
    at.radio(key="predict_alpha").set_value("Clearly above chance").run()
    assert_clean(at)
    assert "by the scale α of its table" in " ".join(md.value for md in at.markdown)
    assert len(at.get("plotly_chart")) == charts + 2  # the sweep, and which shape against where
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("this ViT, with this table at this size, does not" in n for n in notes)
    assert tables(at, "Patch tokens against the position table")[0].loc["ViT (lesson)", "table row"].iloc[0] == "4.00"


def test_a_live_run_stays_on_screen_beside_the_shipped_one_until_the_form_changes():
    at = reveal(page(PAGE, timeout=120))
    shipped = {m.label: m.value for m in at.metric}
    at.button(key="rerun").click().run()
    reveal(at)  # a re-run judges the prediction made before it: skipped here, so skip again
    assert_clean(at)
    live = {m.label: m.value for m in at.metric}
    assert set(live) == set(shipped) and shipped
    for view in ("Accuracy and curves", "Per-seed results"):  # clicking around keeps the learner's run
        open_section(at, view)
        assert_clean(at)
        assert {m.label: m.value for m in at.metric} == live
        said = [i.value for i in at.info if i.value.startswith("Shown: **your live run**")]
        assert said and ("differs from the run shipped" in said[0]) != ("Every seed's test accuracy equals" in said[0])
        assert "the shipped run's over 10 training draws" in said[0]  # why the means differ even where every seed is equal
        assert not any("precomputed with this code" in c.value for c in at.caption)


def test_the_two_splits_are_shown_side_by_side_after_a_prediction():
    at = reveal(page(PAGE, timeout=60))
    open_section(at, "What broke the ViT?")
    at.button(key="predict_alpha_skip").click().run()
    assert not any("at whole-patch moves and at new offsets" in md.value for md in at.markdown)
    at.radio(key="predict_split").set_value("The CNN holds, the ViT drops").run()
    assert_clean(at)
    assert any("at whole-patch moves and at new offsets" in md.value for md in at.markdown)
    notes = [md.value for md in at.markdown if md.value.startswith("- **")]
    assert any("**CNN**: whole-patch moves" in n for n in notes)


def test_new_for_whom_shows_the_odd_split_by_region_and_says_the_parity_cue_as_consistent_not_as_the_cause():
    at = reveal(page(PAGE, timeout=60))
    open_section(at, "What broke the ViT?")
    for gate in ("predict_alpha_skip", "predict_split_skip", "predict_stride_skip"):
        if any(b.key == gate for b in at.button):
            at.button(key=gate).click().run()
    assert_clean(at)
    regions = tables(at, "Accuracy on the odd split by region of the held-out centres")[0]
    assert list(regions.columns) == ["only x new", "only y new", "both new"]
    assert regions.loc["CNN", "only x new"] == "100–100 %" and regions.loc["CNN", "both new"] == "0–10 %"
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    cue = next(n for n in notes if "pixel-parity classes" in n)
    assert "consistent with each model's stride and with this cue" in cue and "would decide" in cue
