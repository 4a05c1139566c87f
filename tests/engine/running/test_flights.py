import threading
import time

from core.engine.results.run_result import RunResult
from core.engine.running.flights import Flights, sweep_through
from core.engine.running.run import run
from core.engine.running.train import EpochStats
from core.engine.setting.run_config import Sweep, TrainConfig, with_value
from core.engine.storage.store import ResultStore
from core.lessons.lesson3_vit_vs_cnn import PRESETS

SMALL = with_value(PRESETS["tiny"], "train", TrainConfig(epochs=40, seeds=(0, 1)))


class Counting:
    """``run.run``, counting the trainings it starts."""

    def __init__(self):
        self.calls = 0

    def __call__(self, cfg, **kw):
        self.calls += 1
        return run(cfg, **kw)


class Slow:
    """A stand-in training: ``epochs`` reports ``pause`` seconds apart; stops when told (as ``run.run``)."""

    def __init__(self, epochs=100, pause=0.01):
        self.epochs, self.pause, self.calls, self.stopped = epochs, pause, 0, threading.Event()

    def __call__(self, cfg, progress, eval_every, on_wait):
        self.calls += 1
        on_wait(0)
        for epoch in range(1, self.epochs + 1):
            time.sleep(self.pause)
            if progress("vit", 0, EpochStats(epoch, 0.5, 0.5, 0.5 if epoch % 10 == 0 else None), epoch,
                        self.epochs) is False:
                self.stopped.set()
                return RunResult(cfg, complete=False)
        return RunResult(cfg)


def _wait_result(ticket, timeout=120):
    deadline = time.monotonic() + timeout
    while not (s := ticket.wait(1.0)).finished:
        assert time.monotonic() < deadline, "the flight never finished"
    return s


def test_learners_starting_the_same_setting_train_it_once_and_get_identical_results():
    train = Counting()
    flights = Flights(ResultStore(), train)
    tickets = [None] * 6

    def learner(i):
        tickets[i] = flights.attach(SMALL, eval_every=10)

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results = [_wait_result(t).result for t in tickets]
    assert train.calls == 1 and flights.started == 1 and sum(t.started for t in tickets) == 1
    first = results[0]
    assert first.complete and all(r is first for r in results)  # the same object: bit-identical by construction
    alone = run(SMALL, eval_every=10)  # and what one learner alone would have got
    assert [(r.model, r.seed, r.train_acc, r.test_acc) for r in first.rows] == \
        [(r.model, r.seed, r.train_acc, r.test_acc) for r in alone.rows]
    assert first.weights == alone.weights  # torch.save bytes of the same tensors
    for t in tickets:
        t.detach()
    assert flights.in_flight() == []
    # stored before anyone was told: the next learner gets it without a training
    again = flights.attach(SMALL)
    assert _wait_result(again).result is first and train.calls == 1


def test_every_learner_sees_the_whole_curve_even_one_who_attaches_late():
    train = Slow(epochs=60)
    flights = Flights(ResultStore(), train)
    early = flights.attach(SMALL)
    while not (s := early.wait(0.02)).curve:
        assert not s.finished, "finished without a curve"
    late = flights.attach(SMALL)
    assert not late.started and late.wait(0).curve[0] == s.curve[0]
    assert _wait_result(late).curve == _wait_result(early).curve and len(s.curve) >= 1 and train.calls == 1


def test_one_learner_cancelling_leaves_the_others_training():
    train = Slow(epochs=60)
    flights = Flights(ResultStore(), train)
    a, b, c = (flights.attach(SMALL) for _ in range(3))
    a.wait(0.05)
    a.detach()
    a.detach()  # twice is once
    assert _wait_result(b).result.complete and _wait_result(c).result.complete and not train.stopped.is_set()


def test_the_training_stops_when_nobody_is_left_and_nothing_is_kept():
    train = Slow(epochs=10_000)
    store = ResultStore()
    flights = Flights(store, train)
    a, b = flights.attach(SMALL), flights.attach(SMALL)
    a.wait(0.05)
    a.detach()
    b.detach()
    assert train.stopped.wait(10) and flights.in_flight() == []
    assert store.get(SMALL) is None
    fresh = flights.attach(SMALL)  # a new learner starts a new training
    assert fresh.started and train.calls == 2
    fresh.detach()


def test_a_failed_training_reaches_every_learner():
    def broken(cfg, **kw):
        time.sleep(0.2)
        raise RuntimeError("a worker exited unexpectedly (exit status -9)")

    flights = Flights(ResultStore(), broken)
    tickets = [flights.attach(SMALL) for _ in range(3)]
    for t in tickets:
        assert "exit status -9" in str(_wait_result(t).error)
    assert flights.in_flight() == []


def test_a_stored_setting_is_not_trained():
    store = ResultStore()
    store.put(SMALL, RunResult(SMALL))
    train = Counting()
    ticket = Flights(store, train).attach(SMALL)
    assert ticket.wait(0).result is store.get(SMALL) and train.calls == 0


def test_a_sweep_gives_each_point_s_runs_and_trains_each_point_once():
    axis = Sweep("train.epochs", (20, 30), "epochs")
    train = Counting()
    flights = Flights(ResultStore(), train)
    seen = []
    rows = sweep_through(flights, SMALL, axis, progress=lambda frac, value, model, seed: seen.append((frac, value)),
                         poll=0.01)
    assert [(r.value, r.model, r.seed, r.train_acc, r.test_acc) for r in rows] == \
        [(v, r.model, r.seed, r.train_acc, r.test_acc) for v in (20, 30)
         for r in run(with_value(SMALL, "train.epochs", v)).rows]
    assert train.calls == 2 and seen and all(0 <= f <= 1 and v in (20, 30) for f, v in seen)
    assert sweep_through(flights, SMALL, axis) == rows and train.calls == 2  # the second learner: stored points
    assert sweep_through(Flights(ResultStore(), Slow(epochs=10_000)), SMALL, axis,
                         progress=lambda *_: False, poll=0.01) is None  # stopped


def test_a_queued_ticket_and_a_flights_ticket_share_one_protocol():
    from core.engine.queue.queue_flights import QueueTicket
    from core.engine.running.flights import RunTicket, Ticket

    for kind in (Ticket, QueueTicket):
        assert issubclass(kind, RunTicket)
        assert kind.__enter__ is RunTicket.__enter__ and kind.__exit__ is RunTicket.__exit__  # detach on the way out
        assert kind.wait is not RunTicket.wait and kind.detach is not RunTicket.detach  # each says how
