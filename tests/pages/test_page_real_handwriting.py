"""Lesson 5's page: real digits, predict first, the shipped runs at once, a small setting trained live, links."""

from tests.apptest_helpers import PER_SEED, assert_clean, open_section, page, tables
from ui.result_sections import RANKING

PAGE = "pages/5_Real_handwriting.py"


def skip(at):
    next(b for b in at.button if b.label == "Show the result without predicting").click().run()
    return at


def test_opens_on_real_digits_and_shows_nothing_before_a_prediction():
    at = page(PAGE, timeout=60)
    assert_clean(at)
    # the first screen: real digits at a seen and an unseen centre, and the question; no metric or table
    split = at.get("plotly_chart")
    assert len(split) == 1 and "handwritten digits" in split[0].proto.spec and not at.metric and not tables(at)
    assert any("prediction" in i.value for i in at.info)
    at.radio(key="digits_predict").set_value("At chance, or below it").run()
    next(b for b in at.button if b.label == "Check it against the result").click().run()
    assert_clean(at)
    assert any("shipped with the app" in c.value for c in at.caption)  # instant: the shipped run, 7 models
    assert len(at.metric) == 7 and len(tables(at, RANKING)[0]) == 7
    judged = next(md.value for md in at.markdown if md.value.startswith("**Your prediction:**"))
    assert "ViT (lesson)" in judged
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any(n.startswith("- Chance is 10 % (10 classes)") for n in notes)
    assert any("training** centres against the **test** centres" in n for n in notes)
    assert any("Against the toy, on the unseen map: lesson 3's ViT" in n for n in notes)


def test_the_per_seed_results_are_a_static_table_with_a_row_per_model():
    at = skip(page(PAGE, timeout=60))
    open_section(at, "Per-seed results")
    assert_clean(at)
    assert not at.dataframe  # no data grid to load: a real table
    table = tables(at, PER_SEED)[0]
    assert len(table) == 7 and table.index[0] == "ViT (lesson)"
    for column in ("test set, each seed", "notebook's test, each seed"):  # the 5 seeds of the run, on either measure
        assert all(len(seeds.split(", ")) == 5 for seeds in table[column])
    assert table["train (mean)"].iloc[0].endswith("%")


def test_every_section_draws_real_digits_and_the_probe_works_unchanged():
    at = skip(page(PAGE, timeout=60))
    open_section(at, "Generalization maps")
    assert_clean(at)
    maps = [c.proto.spec for c in at.get("plotly_chart")[1:]]
    assert sum(spec.count('"coloraxis":"coloraxis"') for spec in maps) == 7  # every model, one colour scale
    open_section(at, "Misclassified test digits")
    assert_clean(at)
    assert "said" in at.get("plotly_chart")[1].proto.spec  # the real test digits, with what the model said
    open_section(at, "Look inside the models")
    assert_clean(at)
    assert at.radio(key="digits_probe_shape").options == [str(d) for d in range(10)]
    at.radio(key="digits_probe_shape").set_value("7").run()
    assert_clean(at)
    assert any(md.value.startswith("**digit 7 at") or md.value.startswith("**7 at") for md in at.markdown)


def test_the_two_class_preset_is_shipped_and_judged_against_chance_50():
    at = page(PAGE, timeout=60)
    next(b for b in at.button if b.label == "0 vs 1").click().run()
    next(b for b in at.button if b.label == "Run").click().run()
    skip(at)
    assert_clean(at)
    assert not at.get("progress") and any("shipped with the app" in c.value for c in at.caption)
    assert any(md.value.startswith("- Chance is 50 % (2 classes)") for md in at.markdown)


def test_a_small_setting_trains_live_and_a_too_big_one_is_refused():
    at = page(PAGE, timeout=240)
    at.radio(key="digits_task").set_value("digits-0-1")
    at.multiselect(key="digits_models").set_value(["vit", "cnn"])
    at.slider(key="digits_n_train").set_value(100)
    at.slider(key="digits_epochs").set_value(50)
    at.slider(key="digits_seeds").set_value(1)
    at.toggle(key="live_curve").set_value(False)
    next(b for b in at.button if b.label == "Run").click().run()
    skip(at)
    assert_clean(at)
    assert any("trained on this server" in c.value for c in at.caption) and len(at.metric) == 2
    at.multiselect(key="digits_models").set_value(["vit", "cnn", "vit-shift", "vit-relpos"])
    at.slider(key="digits_n_train").set_value(3000)
    at.slider(key="digits_seeds").set_value(10)
    next(b for b in at.button if b.label == "Run").click().run()
    assert any("Cannot run this setting" in e.value and "the lesson's training work" in e.value for e in at.error)


def test_a_link_opens_its_setting():
    # a bound radio with a format holds the shown label in the URL (Streamlit's query-params binding)
    at = skip(page(PAGE, timeout=60, query={"digits_task": "two digits (0 vs 1)", "digits_n_train": "300",
                                             "digits_n_test": "150"}))
    assert_clean(at)
    assert any("2 classes" in md.value for md in at.markdown)  # the shipped 0-vs-1 run, opened from the link


def test_draw_your_own_on_real_digits():
    at = skip(page(PAGE, timeout=60, query={"digits_view": "Draw your own"}))
    assert_clean(at)
    table = tables(at, "Every model's answer to your drawing, every seed")[0]
    assert len(table) == 7 and list(table.columns) == [f"seed {s}" for s in range(5)]
    assert at.radio(key="digits_draw_class").options == [str(d) for d in range(10)]


def test_draw_your_own_shows_training_digits_and_starts_from_one():
    import numpy as np

    from core.data import drawing
    from core.data.training_examples import training_examples
    from core.lessons.lesson5_real_handwriting import DIGITS

    at = skip(page(PAGE, timeout=60, query={"digits_view": "Draw your own"}))
    # beside the canvas: a training digit of each class, and what is true of them (grey, 8x8, centres 6..12)
    assert any("What the models were trained on" in c.proto.spec for c in at.get("plotly_chart"))
    assert any(c.value.startswith("**Trained on** 1000 images of handwritten digits on a 16×16 canvas, grey ink")
               and "centred at cx and cy in 6..12, each within 8×8 pixels" in c.value for c in at.caption)
    assert [at.button(key=f"digits_draw_train_{k}").label for k in range(10)] == [str(k) for k in range(10)]
    at.button(key="digits_draw_train_7").click().run()
    assert_clean(at)
    seven = training_examples(DIGITS.data)[7]
    assert np.array_equal(at.session_state["digits_drawing"], seven.image)  # that training 7, at its training centre
    assert np.array_equal(drawing.decode(at.query_params["digits_drawing"], 16), seven.image)
    assert at.radio(key="digits_draw_class").value == "7"
    table = tables(at, "Every model's answer to your drawing, every seed")[0]
    assert all(table.loc["CNN", f"seed {s}"].startswith("7 ") for s in range(5))  # a digit it trained on, where it trained
