"""One training per distinct setting, server-wide: a run already training is joined, not started again.

A class presses *Run* on the same setting within the same minute. The first learner's run starts a *flight*:
one training of that config, on a thread of the server (``run.run``, in the pool's workers as always); every
later learner who asks for the same config *attaches* to it. Every attached learner sees the same progress
(the place in line, the bar, every point of the live curve from the start) and gets the same result object
the moment it is ready; the result is put in the store before anyone is told, so a learner who arrives a
moment later finds it there. *Cancel* (or leaving the page) detaches one learner; the training stops only
when nobody is left attached.

The flight knows nothing of Streamlit: a page waits on its ``Ticket`` (``ticket.wait(timeout)``) and draws
what it gets, one Streamlit call a second, so a stale page still stops within a second and detaches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from core.engine.results.run_result import RunResult
from core.engine.running.run import OnWait, run
from core.engine.running.train import EpochStats
from core.engine.setting.planning import MAX_SWEEP_COST, check_cost, relative_cost
from core.engine.setting.run_config import GeneralizationConfig, Sweep, with_value

# train(cfg, progress, eval_every, on_wait) -> RunResult: how a flight trains (``run.run`` by default)
Train = Callable[..., RunResult]


class Detached(Exception):
    """Raised in a training's wait for the server when every learner has left: it leaves the line (here and
    in ``queue_worker``'s jobs)."""


class TrainingStopped(RuntimeError):
    """A training that ended without a result for a reason the learner should read (its worker gone, the queue
    emptied, no worker running): a page shows the message in one line, never a traceback."""


@dataclass(frozen=True)
class Step:
    """The last epoch a flight reported: what the progress bar shows."""

    model: str
    seed: int
    epoch: int
    loss: float
    done: int  # epochs done over every (seed, model) pair
    total: int


@dataclass
class Snapshot:
    """What an attached learner sees of a flight at one moment."""

    waiting: int | None = None  # place in the server's line (0: next), None once training
    step: Step | None = None
    curve: list[dict] = field(default_factory=list)  # every test-accuracy point so far: model, seed, epoch, test_acc
    result: RunResult | None = None  # set when the flight ended (complete or not)
    error: BaseException | None = None  # what stopped it, raised again in every learner's page
    eval_every: int = 0  # the flight's test evaluations (0: no live curve: another learner started it without)
    note: str = ""  # what the learner should know while waiting (no training worker is running, say)

    @property
    def finished(self) -> bool:
        return self.result is not None or self.error is not None


class Flight:
    """One config's training and the learners attached to it."""

    def __init__(self, cfg: GeneralizationConfig, eval_every: int):
        self.cfg, self.eval_every = cfg, eval_every
        self.attached = 0
        self._state = Snapshot(eval_every=eval_every)
        self._changed = threading.Condition()

    # ------------------------------------------------------------ the training side
    def _update(self, **changes) -> None:
        with self._changed:
            for name, value in changes.items():
                setattr(self._state, name, value)
            self._changed.notify_all()

    def on_wait(self, position: int) -> None:
        if self.attached == 0:
            raise Detached
        self._update(waiting=position)

    def progress(self, model: str, seed: int, stats: EpochStats, done: int, total: int) -> bool | None:
        if self.attached == 0:
            return False  # nobody is watching: stop at this epoch
        with self._changed:
            if stats.test_acc is not None:
                self._state.curve.append({"model": model, "seed": seed, "epoch": stats.epoch, "test_acc": stats.test_acc})
        self._update(waiting=None, step=Step(model, seed, stats.epoch, stats.loss, done, total))
        return None

    def finish(self, result: RunResult | None, error: BaseException | None) -> None:
        self._update(result=result, error=error)

    # ------------------------------------------------------------ the learners' side
    def snapshot(self, timeout: float) -> Snapshot:
        """The state after ``timeout`` seconds, or as soon as the flight is over."""
        with self._changed:
            self._changed.wait_for(lambda: self._state.finished, timeout)
            return replace(self._state, curve=list(self._state.curve))  # a copy: the training appends to its own


class RunTicket:
    """What a page holds while its run trains, here (``Ticket``: a thread of this server) or on a worker
    (``queue_flights.QueueTicket``: a queued job): ``started`` (this learner began it), ``eval_every`` (the
    run's), ``wait(timeout)`` for news, ``detach()`` once (Cancel, a new run, leaving); as a context, it detaches
    on the way out. One protocol, so the page (``ui.training``) cannot tell which it holds."""

    started: bool
    eval_every: int

    def wait(self, timeout: float) -> Snapshot:
        raise NotImplementedError

    def detach(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> RunTicket:
        return self

    def __exit__(self, *exc) -> None:
        self.detach()


class Ticket(RunTicket):
    """One learner attached to a flight of this server."""

    def __init__(self, flights: Flights, flight: Flight, started: bool):
        self._flights, self.flight, self.started = flights, flight, started  # started: this learner began it
        self.eval_every = flight.eval_every  # the flight's, not necessarily this learner's
        self._attached = True

    def wait(self, timeout: float) -> Snapshot:
        """The flight's state after ``timeout`` seconds, or as soon as it is over: a page that draws what it
        gets draws at most once per ``timeout``, and never waits longer for a result."""
        return self.flight.snapshot(timeout)

    def detach(self) -> None:
        if self._attached:
            self._attached = False
            self._flights._detach(self.flight)


class Flights:
    """The server's flights, one per config training now. ``store``: where finished runs go (anything with
    ``get(cfg)`` and ``put(cfg, result)``, e.g. ``store.ResultStore``); ``train``: how a flight trains."""

    def __init__(self, store, train: Train | None = None):
        self.store, self._train = store, train  # None: run.run, looked up when a flight starts
        self._flying: dict[GeneralizationConfig, Flight] = {}
        self._lock = threading.Lock()
        self.started = 0  # trainings started (what de-duplication saves is visible here)

    def attach(self, cfg: GeneralizationConfig, eval_every: int = 0, again: bool = False) -> Ticket:
        """Attach to the training of ``cfg``, starting it if none is in flight. A run finished meanwhile gives
        a flight that is already over (its result from the store), so no learner trains a stored config again
        by racing its end; ``again``: train it anyway (*Re-run live*; its result replaces the stored one).
        ``eval_every`` counts only for the learner who starts it."""
        with self._lock:
            flight = self._flying.get(cfg)
            started = flight is None
            if started:
                flight = Flight(cfg, eval_every)
            flight.attached += 1  # before its training starts: a flight nobody is attached to stops at once
            if started:
                stored = None if again else self.store.get(cfg)
                if stored is not None:
                    flight.finish(stored, None)
                else:
                    self._flying[cfg] = flight
                    self.started += 1
                    threading.Thread(target=self._fly, args=(flight,), name="vitlab-flight", daemon=True).start()
            return Ticket(self, flight, started)

    def in_flight(self) -> list[GeneralizationConfig]:
        with self._lock:
            return list(self._flying)

    def _detach(self, flight: Flight) -> None:
        with self._lock:
            flight.attached -= 1
            if flight.attached == 0 and self._flying.get(flight.cfg) is flight:
                # nobody left: the training stops at its next report; a new learner starts a new flight
                del self._flying[flight.cfg]

    def _fly(self, flight: Flight) -> None:
        result, error = None, None
        try:
            result = (self._train or run)(flight.cfg, progress=flight.progress, eval_every=flight.eval_every,
                                 on_wait=flight.on_wait)
        except Detached:
            result = RunResult(flight.cfg, complete=False)
        except Exception as exc:  # raised again in every attached learner's page
            error = exc
        with self._lock:
            if result is not None and result.complete:
                self.store.put(flight.cfg, result)  # before anyone is told, and before a newcomer can miss it
            if self._flying.get(flight.cfg) is flight:
                del self._flying[flight.cfg]
        flight.finish(result, error)


@dataclass(frozen=True)
class SweepRow:
    value: float | int | tuple
    model: str
    seed: int
    train_acc: float | None
    test_acc: float | None


def check_sweep_cost(base: GeneralizationConfig, s: Sweep, values: tuple | None = None) -> tuple:
    """The sweep's values, after checking each run and their sum are within the limits."""
    values = tuple(values or s.values)
    configs = [with_value(base, s.path, v) for v in values]
    for value, cfg in zip(values, configs, strict=True):
        check_cost(cfg, what=f"the sweep's run at {s.axis_title} = {value}")
    total = sum(relative_cost(c) for c in configs)
    if total > MAX_SWEEP_COST:
        raise ValueError(f"this sweep is {total:.1f}x the lesson's training work (limit {MAX_SWEEP_COST:g}x): "
                         f"reduce epochs ({base.train.epochs}), seeds ({len(base.train.seeds)}) or models "
                         f"({len(base.models)})")
    return values


# progress(fraction done, the sweep's value, model, seed) -> False to stop
SweepProgress = Callable[[float, object, str, int], bool | None]


def sweep_through(flights, base: GeneralizationConfig, s: Sweep, progress: SweepProgress | None = None,
                  values: tuple | None = None, on_wait: OnWait | None = None, poll: float = 0.5,
                  limit: bool = True) -> list[SweepRow] | None:
    """Re-run ``base`` at each value of one setting (``s``), each run through ``flights`` (``Flights``, or
    ``queue_flights.QueueFlights`` with a Redis): a point another learner is training, or trained, is not trained
    again. One row per (value, model, seed); None if ``progress`` returned False (that point's learner detaches).
    ``progress`` and ``on_wait`` are called at most every ``poll`` seconds. ``limit=False`` lifts the cost caps
    (the shipped sweeps, with ``Flights(store, train=partial(run, limit=False))``)."""
    values = check_sweep_cost(base, s, values) if limit else tuple(values or s.values)
    rows: list[SweepRow] = []
    for i, value in enumerate(values):
        with flights.attach(with_value(base, s.path, value)) as ticket:
            while not (now := ticket.wait(poll)).finished:
                if now.waiting is not None and on_wait is not None:
                    on_wait(now.waiting)
                elif now.step is not None and progress is not None:
                    step = now.step
                    if progress((i + step.done / step.total) / len(values), value, step.model, step.seed) is False:
                        return None
        if now.error is not None:
            raise now.error
        if not now.result.complete:
            return None
        rows += [SweepRow(value, r.model, r.seed, r.train_acc, r.test_acc) for r in now.result.rows]
    return rows
