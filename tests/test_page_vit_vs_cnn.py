from tests.apptest_helpers import assert_clean, page

PAGE = "pages/3_ViT_vs_CNN.py"


def run_tiny(at):
    at.button(key="preset_tiny").click().run()
    at.radio(key="f_predict").set_value("in between")
    next(b for b in at.button if b.label == "Run").click().run()
    return at


def test_opens_without_error_and_presets_fill_the_form():
    at = page(PAGE, timeout=60)
    assert_clean(at)
    assert at.session_state["f_n_train"] == 300
    at.button(key="preset_exercise-1").click().run()
    assert at.session_state["f_n_train"] == 3000
    at.button(key="preset_exercise-2").click().run()
    assert at.session_state["f_patch"] == 2 and at.session_state["f_n_train"] == 300
    at.button(key="preset_exercise-3").click().run()
    assert "hybrid" in at.session_state["f_models"]


def test_tiny_preset_through_the_form_shows_results():
    at = run_tiny(page(PAGE, timeout=120))
    assert_clean(at)
    assert any("Your prediction:** in between" in md.value for md in at.markdown)
    labels = [m.label for m in at.metric]
    assert "CNN · test (unseen)" in labels and "ViT (lesson) · test (unseen)" in labels
    assert len(at.get("plotly_chart")) >= 7  # bars, loss, test curve, 4 position maps
    assert len(at.get("download_button")) == 2
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("The CNN scored" in n for n in notes)


def test_a_config_already_run_returns_from_the_store():
    at = run_tiny(page(PAGE, timeout=120))
    first = [m.value for m in at.metric]
    # a second session: same config, results come from the per-process store without training
    at2 = page(PAGE, timeout=120)
    at2.button(key="preset_tiny").click().run()
    next(b for b in at2.button if b.label == "Run").click().run()
    assert [m.value for m in at2.metric] == first
    assert not at2.get("progress")


def test_bad_setting_is_refused_with_a_message():
    at = page(PAGE, timeout=60)
    at.multiselect(key="f_models").set_value([])
    next(b for b in at.button if b.label == "Run").click().run()
    assert any("Cannot run this setting" in e.value for e in at.error)


def test_first_view_is_the_shipped_lesson_result_without_training():
    at = page(PAGE, timeout=30)
    assert_clean(at)
    labels = {m.label: m.value for m in at.metric}
    assert labels["CNN · test (unseen)"] == "100.0%" and labels["ViT (lesson) · test (unseen)"] == "42.4%"
    assert any("precomputed with this code" in c.value for c in at.caption)
    assert at.button(key="rerun").label == "Re-run this setting live"
    notes = [md.value for md in at.markdown if md.value.startswith("- ")]
    assert any("300 training images hold only **70 distinct** ones" in n and "allow 72" in n
               and "3000 images, 72 distinct" in n for n in notes)


def test_a_sweep_runs_from_the_page_and_plots():
    at = page(PAGE, timeout=300)
    at.button(key="preset_tiny").click().run()
    at.multiselect(key="f_models").set_value(["cnn"])
    at.slider(key="f_epochs").set_value(10)
    next(b for b in at.button if b.label == "Run").click().run()
    charts_before = len(at.get("plotly_chart"))
    at.selectbox(key="sweep_name").set_value("patch size")
    at.button(key="sweep_run").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == charts_before + 1
    assert any(b.label == "Sweep results (CSV)" for b in at.get("download_button"))
