"""Training inside a page: the result to show (stored, or trained now with the progress bar, the live curve and
Cancel; a learner's own live run kept on screen), and sweeps. Shared by the pages that train (lessons 3 to 5)."""

from __future__ import annotations

import time
from dataclasses import asdict

import streamlit as st

from core.engine.results.run_result import RunResult
from core.engine.running.flights import TrainingStopped, check_sweep_cost, sweep_through
from core.engine.setting.planning import check_cost
from core.engine.setting.run_config import GeneralizationConfig, Sweep
from ui.figures import model_figures
from ui.prediction_gate import judge
from ui.server_runs import run_flights
from ui.widgets import URL, as_text, plot

LIVE_POINTS = 25  # test-accuracy points per model and seed on the live curve
BAR_INTERVAL = 1.0  # seconds between two updates of the bar: enough for the eye, cheap for a browser on the same cores
CURVE_INTERVAL = 2.0  # seconds between two drawings of the live curve: a chart costs the browser more than the bar
# No curve is drawn when the run should end sooner than this (seconds): the results replace it then, and its
# drawing would only take the browser's time from the last seconds of training
CURVE_LAST = 1.0
# Seconds after a page opens before it starts the training workers (each imports torch), so that they do not
# compete with the page's first draw on a small machine (measured: docs/performance.md)
WARM_DELAY = 5.0


def live_curve_toggle() -> bool:
    """The learner's choice (in the link): draw the test-accuracy curve while training, or only the bar."""
    return st.toggle("Draw the test-accuracy curve while training", value=True, key="live_curve", bind=URL,
                     help="Off: only the progress bar is shown, and training skips the test evaluations the curve "
                          "needs: the same accuracies, but the results then have no per-epoch test accuracy. The "
                          "curve costs the training a little time, mostly when the browser shares the server's "
                          "cores (a laptop running the app itself).")


class LiveProgress:
    """What a page shows while a run trains: Cancel, the bar, a note when the training is shared, the live
    curve; each in a placeholder that ``clear`` empties, so no control of a finished run stays on screen."""

    def __init__(self, cfg: GeneralizationConfig, curve: bool):
        self.cfg, self.curve = cfg, curve
        self.cancel = st.empty()
        self.cancel.button("Cancel", key="cancel_run", help="Stop watching this run (nothing is kept; the training "
                                                            "stops unless other learners are watching it too)")
        self.bar = st.progress(0.0, text="Starting…")
        self.shared = st.empty()
        self.live = st.empty()
        self.start, self.last_chart, self.drawn = time.perf_counter(), 0.0, 0
        self.first: tuple[float, int] | None = None  # (elapsed, epochs done) at the first epoch seen: the pace

    def joined(self, ticket) -> None:
        """This learner attached to a training another one started."""
        self.shared.info("Another learner started this same setting a moment ago: you are watching that training, "
                         "so its result arrives for both of you at once." + (
                             "" if ticket.eval_every or not self.curve else " It was started without the live "
                             "curve, so only the bar is shown."))

    def show(self, s) -> None:
        """Draw one snapshot of the training (``core.engine.running.flights.Snapshot``)."""
        elapsed = time.perf_counter() - self.start
        if s.waiting is not None:
            ahead = "you are next" if s.waiting == 0 else f"{s.waiting} run(s) ahead of you"
            self.bar.progress(0.0, text=f"Waiting: {s.note}" if s.note else
                              f"Waiting for the server (other learners are training): {ahead}…")
            return
        if s.step is None:
            self.bar.progress(0.0, text=f"Starting… {elapsed:.0f} s")
            return
        step = s.step
        self.first = self.first or (elapsed, step.done)
        # The last epoch draws nothing: the results replace the bar and the curve at once. (Each other pass
        # draws, so a stale run stops here; docs/performance.md has the training's time in the
        # page with the curve and without it.)
        if step.done == step.total:
            return
        # The time left at the pace since the first epoch seen: the time before it (waiting in line, workers
        # starting) says nothing of the training's own pace
        pace = (elapsed - self.first[0]) / (step.done - self.first[1]) if step.done > self.first[1] else float("inf")
        eta = pace * (step.total - step.done)
        self.bar.progress(step.done / step.total,
                          text=f"{model_figures.label(step.model)}, seed {step.seed}: epoch {step.epoch}/"
                               f"{self.cfg.train.epochs} · loss {step.loss:.3f} · {elapsed:.0f} s elapsed"
                               + (f", about {eta:.0f} s left" if eta < float("inf") else ""))
        # Redraw only when new points arrived (the same figure twice in one run is a duplicate element)
        if (self.curve and len(s.curve) > self.drawn and elapsed - self.last_chart >= CURVE_INTERVAL
                and CURVE_LAST <= eta < float("inf")):
            self.drawn, self.last_chart = len(s.curve), elapsed
            with self.live.container():  # the title as text above the chart: it wraps on a phone instead of being cut
                fig = model_figures.curves_figure(s.curve, "test_acc", "Notebook's test accuracy, live")
                plot(fig, st)

    def clear(self) -> None:
        for placeholder in (self.cancel, self.bar, self.shared, self.live):
            placeholder.empty()


def train_live(cfg: GeneralizationConfig, curve: bool = True, again: bool = False) -> RunResult:
    """Train with live progress: the bar, and the test-accuracy curve if ``curve`` (else no test evaluations
    during training: the same accuracies, no per-epoch test points in the result). A setting another learner
    is training now is not trained twice: this page attaches to that training (``core.engine.running.flights``) and
    shows the same progress and result. The page draws at least once a second, so a stale run (the visitor
    moved on, or pressed Cancel) stops waiting within a second and detaches; the training itself stops when
    nobody is left attached. A complete result is already in the store when it arrives; ``again``: train even
    a stored setting (*Re-run live*)."""
    view = LiveProgress(cfg, curve)
    # LIVE_POINTS per curve: each a pass over the distinct test images (core/engine/running/train.py), cheap since they are few
    eval_every = max(1, cfg.train.epochs // LIVE_POINTS) if curve else 0
    try:
        with run_flights().attach(cfg, eval_every, again) as ticket:
            if not ticket.started:
                view.joined(ticket)
            while not (s := ticket.wait(max(BAR_INTERVAL, 0.02))).finished:
                view.show(s)
    except OSError as exc:  # the training queue cannot be reached (core.engine.queue.queue_redis.QueueUnreachable)
        view.clear()
        st.error(cannot_train(exc))
        return RunResult(cfg, complete=False)
    view.clear()
    if isinstance(s.error, TrainingStopped):  # a worker gone, the queue emptied: the reason, in one line
        st.error(f"The run stopped before its result: {as_text(s.error)}")  # the reason may quote Redis
        return RunResult(cfg, complete=False)
    if s.error is not None:
        raise s.error
    return s.result


def cannot_train(exc: OSError) -> str:
    """Why training cannot start, and whether trying again can help (a wrong password never will)."""
    again = " Nothing was lost: press Run again in a minute." if getattr(exc, "retry", True) else ""
    return f"Cannot train now: {as_text(exc)}.{again}"


def sweep_live(base: GeneralizationConfig, s: Sweep, refused: str) -> list[dict] | None:
    """Run ``base`` at each of the sweep's values with a progress bar: its rows as dicts, or None when it was
    refused (``refused``, with the reason, is shown) or stopped."""
    try:
        check_sweep_cost(base, s)
    except ValueError as exc:
        st.error(refused.format(reason=exc))
        return None
    bar = st.progress(0.0, text="Starting…")
    # each point through the flights: a point someone is training (or trained) is not trained again
    try:
        rows = sweep_through(run_flights(), base, s,
                             progress=lambda frac, value, model, seed: bar.progress(
                                 frac, text=f"Training {s.axis_title} = {value}: {model_figures.label(model)}, seed "
                                            f"{seed}…"),
                             on_wait=lambda pos: bar.progress(0.0, text=f"Waiting for the server: {pos} run(s) ahead…"))
    except (OSError, TrainingStopped) as exc:
        bar.empty()
        st.error(cannot_train(exc) if isinstance(exc, OSError) else f"The sweep stopped before its result: {as_text(exc)}")
        return None
    bar.empty()
    return None if rows is None else [asdict(r) for r in rows]


def _opened_from_link(chosen: bool, done: bool, link_keys, prefix: str) -> bool:
    """Whether the setting on screen came from a link and has no result yet: set in the page's first run (no setting
    ``chosen`` yet, one of ``link_keys`` in the URL), kept until ``done`` (a Run, or a result). Kept, not read once:
    a first run cut short by a rerun (seen on a loaded machine) left the next run with no note and nothing to watch."""
    key = f"{prefix}opened_from_link"
    if done:
        st.session_state.pop(key, None)
    elif not chosen and any(k in st.query_params for k in link_keys):
        st.session_state[key] = True
    return st.session_state.get(key, False)


def stored_or_trained(store, form_cfg: GeneralizationConfig | None, submitted: bool, prediction: str | None,
                      curve: bool, default: GeneralizationConfig, link_keys, lookup=None,
                      prefix: str = "") -> tuple[GeneralizationConfig, RunResult | None]:
    """(config, result or None) to show. A Run shows the form's setting; a link opened anywhere shows the
    setting it names (any of ``link_keys`` in the URL), training it first if this server has not run it yet.
    Run and *Re-run live* judge the prediction made before them (``judged``). ``lookup``: how a config's
    stored result is found (default ``store.get``); ``prefix``: the page's own session keys."""
    active = f"{prefix}active"
    lookup = lookup or store.get
    if submitted:
        st.session_state[active] = form_cfg
        judge(form_cfg, prediction)
    opened_from_link = _opened_from_link(active in st.session_state, submitted, link_keys, prefix)
    if active not in st.session_state and form_cfg is not None:
        st.session_state[active] = form_cfg
    cfg: GeneralizationConfig = st.session_state.get(active, default)
    result = lookup(cfg)
    if result is None and (why := store.unusable(cfg)):
        # the reason quotes what the store held: shown as text, never as markdown (no links, no formatting)
        st.warning("The stored run of this setting could not be used, so it was deleted. **Run** trains it again.")
        st.text(f"Why: {why}")
    rerun = result is not None and st.button("Re-run this setting live", key=f"{prefix}rerun",
                                             disabled=(too_big := _over_limit(cfg)) is not None,
                                             help=too_big or "Train again now, with live progress, instead of the "
                                                             "stored result; your prediction above is judged against it")
    if rerun:
        judge(cfg, prediction)
    live = st.session_state.setdefault(f"{prefix}live_runs", {})  # config -> the run this learner watched train
    if (result is None and (submitted or opened_from_link)) or rerun:
        if opened_from_link:
            st.info("This link names a setting this server has not run yet: training it now.")
        trained = train_live(cfg, curve, again=rerun)  # a complete result is in the store already (core.engine.running.flights)
        result = keep_live(live, cfg, trained) or result
    _opened_from_link(True, result is not None, (), prefix)  # a result: the link's setting is no longer waited for
    if cfg in live:  # a run the learner made stays on screen until they change the form or pick another run
        stored, (result, when) = result, live[cfg]
        if stored is not None and stored is not result and stored.origin == "shipped":
            differs_from_shipped(result, stored, when)
    return cfg, result


def _over_limit(cfg: GeneralizationConfig) -> str | None:
    """Why ``cfg`` may not be trained live here (a shipped run can be larger than one click may train), or None."""
    try:
        check_cost(cfg)
    except ValueError as exc:
        return f"Re-running this setting is over this server's limit for one click: {exc}. Its stored result is shown."
    return None


LIVE_RUNS_KEPT = 3  # a learner's live runs kept in their session (a run with its weights is about 1 MB)


def keep_live(live: dict, cfg: GeneralizationConfig, trained: RunResult) -> RunResult | None:
    """Keep a complete live run in the learner's session (the last LIVE_RUNS_KEPT); None for an incomplete one."""
    if not trained.complete:
        return None
    live.pop(cfg, None)
    live[cfg] = (trained, time.strftime("%H:%M"))
    while len(live) > LIVE_RUNS_KEPT:
        live.pop(next(iter(live)))
    return trained


def differs_from_shipped(live: RunResult, shipped: RunResult, when: str) -> None:
    """Say which run is shown (the learner's, made at ``when``) and, seed by seed, where it differs from the
    shipped run of the same setting, with the reason: both are shown, neither replaces the other silently."""
    old = {(r.model, r.seed): r.test_acc for r in shipped.rows}
    changed = [(r, old.get((r.model, r.seed))) for r in live.rows if old.get((r.model, r.seed)) != r.test_acc]
    text = f"Shown: **your live run** of this setting, trained at {when}."
    if changed:
        text += (" It differs from the run shipped with the app: " + "; ".join(
            f"{model_figures.label(r.model)} seed {r.seed}: {_pct(r.test_acc)} here, {_pct(was)} shipped"
            for r, was in changed) + ". Same code, same seeds: some seeds are on a knife's edge, where a difference in the "
            "last digit of a sum (another computer adds in another order) sends the training elsewhere.")
    else:
        text += " Every seed's test accuracy equals the shipped run's."
    if shipped.replicates and not live.replicates:
        draws = len({u.data_seed for u in shipped.replicates})
        text += (f" Its figures are over its own {len(live.config.train.seeds)} seed(s) and one training draw; the "
                 f"shipped run's over {draws} training draws.")
    st.info(text)


def _pct(acc: float | None) -> str:
    return "diverged" if acc is None else f"{acc:.1%}"
