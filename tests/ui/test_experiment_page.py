"""ui/experiment_page.py: an experiment page is its declaration and the sections only it has. A throwaway page
built from declarations alone gets the whole flow: the picture, the form, the prediction gate, the stored result,
its results once predicted, and the form's setting refused in one line where it is not one the lab trains."""

import textwrap

from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import RUN_LIMIT

PAGE = textwrap.dedent('''
    import streamlit as st

    from core.lessons.lesson3_vit_vs_cnn import CONTROLS, PREDICTION, PRESETS
    from ui.experiment_page import Experiment, run_experiment
    from ui.prediction_gate import one_of

    EXPERIMENT = Experiment(base=PRESETS["lesson"], controls=CONTROLS, question="The ViT will score…",
                            ask=one_of(PREDICTION.names), prefix="throwaway_")


    def show(shown):
        st.metric("shown", f"{len(shown.result.rows)} rows", delta=str(shown.prediction))


    run_experiment(EXPERIMENT, show)
''')


def page(tmp_path, query=None) -> AppTest:
    path = tmp_path / "throwaway.py"
    path.write_text(PAGE)
    at = AppTest.from_file(str(path), default_timeout=RUN_LIMIT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def test_a_page_declared_alone_gets_the_gate_then_its_results(tmp_path):
    at = page(tmp_path)
    assert not at.exception and not at.metric  # the shipped lesson is there, behind the prediction
    assert at.button(key="throwaway_predict_skip") and at.radio(key="throwaway_predict")
    at.radio(key="throwaway_predict").set_value("≈50 % (chance) or worse").run()
    at.button(key="throwaway_predict_check").click().run()
    assert not at.exception
    (shown,) = at.metric
    assert shown.value == "6 rows" and "chance" in shown.delta  # the lesson: 2 models × 3 seeds, judged


def test_a_setting_the_lab_does_not_train_is_refused_in_one_line(tmp_path):
    from core.models.registry import REGISTRY

    at = page(tmp_path, {"epochs": "400", "seeds": "5", "models": list(REGISTRY)})  # 30x the lesson: over the cap
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert error.startswith("Cannot run this setting:") and "\n" not in error
