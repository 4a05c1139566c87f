"""ui/training.py: live progress while a page trains, with or without the test-accuracy curve."""

import pytest
from streamlit.testing.v1 import AppTest

import core.engine.running.flights
import ui.training
from core.engine.running.run import run
from core.engine.setting.run_config import with_value
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from tests.apptest_helpers import RUN_LIMIT
from ui.server_runs import result_store, run_flights

CFG = with_value(with_value(PRESETS["tiny"], "train.epochs", 40), "models", ("cnn",))


def script():
    import streamlit as st

    from tests.ui.test_training import CFG
    from ui.training import live_curve_toggle, train_live

    result = train_live(CFG, live_curve_toggle())
    st.session_state.accuracies = [(r.model, r.seed, r.train_acc, r.test_acc) for r in result.rows]


@pytest.fixture(autouse=True)
def new_server(tmp_path, monkeypatch):
    """Each test a new server: nothing stored, nothing in flight, an archive of its own."""
    monkeypatch.setenv("VITLAB_DATA_DIR", str(tmp_path))
    result_store.clear()
    run_flights.clear()
    yield
    result_store.clear()
    run_flights.clear()


@pytest.mark.parametrize("curve", [True, False])
def test_the_curve_is_drawn_only_when_asked_and_the_accuracies_do_not_depend_on_it(monkeypatch, curve):
    # every epoch may update the bar and the curve, so a short run would draw the curve if it is on
    monkeypatch.setattr(ui.training, "BAR_INTERVAL", 0.0)
    monkeypatch.setattr(ui.training, "CURVE_INTERVAL", 0.0)
    monkeypatch.setattr(ui.training, "CURVE_LAST", 0.0)
    drawn, evaluations = [], []
    figure = ui.training.model_figures.curves_figure
    monkeypatch.setattr(ui.training.model_figures, "curves_figure", lambda *a, **k: drawn.append(1) or figure(*a, **k))
    monkeypatch.setattr(core.engine.running.flights, "run",
                        lambda *a, eval_every=0, **k: evaluations.append(eval_every) or run(*a, eval_every=eval_every, **k))
    at = AppTest.from_function(script, default_timeout=RUN_LIMIT)
    at.query_params["live_curve"] = str(curve).lower()  # as a link sets it
    at.run()
    assert not at.exception
    assert at.toggle(key="live_curve").value is curve
    assert (len(drawn) > 0) is curve
    assert (evaluations[0] > 0) is curve  # off: no test evaluations during training
    alone = run(CFG)  # the command line's way: no progress, no test evaluations
    assert at.session_state.accuracies == [(r.model, r.seed, r.train_acc, r.test_acc) for r in alone.rows]


def test_no_curve_is_drawn_in_the_runs_last_second(monkeypatch):
    # a window longer than any run: every update falls within CURVE_LAST of its end however loaded the machine is
    # (the bar still moves); the opposite case is the test above, with no window
    monkeypatch.setattr(ui.training, "BAR_INTERVAL", 0.0)
    monkeypatch.setattr(ui.training, "CURVE_INTERVAL", 0.0)
    monkeypatch.setattr(ui.training, "CURVE_LAST", 1e9)
    drawn, figure = [], ui.training.model_figures.curves_figure
    monkeypatch.setattr(ui.training.model_figures, "curves_figure", lambda *a, **k: drawn.append(1) or figure(*a, **k))
    at = AppTest.from_function(script, default_timeout=RUN_LIMIT)
    at.run()
    assert not at.exception and at.session_state.accuracies
    assert not drawn
