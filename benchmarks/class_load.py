"""A class on the server, with real Streamlit sessions over the websocket (no browser): what 30, 100 and 300
learners do to one replica, or to two replicas with two training workers on one Redis.

    python -m benchmarks.class_load                          # one replica: 30, 100, 300 sessions
    python -m benchmarks.class_load --replicas 2             # two replicas, two workers, one Redis
    python -m benchmarks.class_load --sessions 30 --seconds 20 --only browse

Each session is what a browser's tab sends: it opens ``/_stcore/stream``, asks for a page with its query
string (``BackMsg.rerun_script``), and moves a control by sending the widget states again with one changed;
each rerun is timed until the server's ``script_finished``. Sessions are spread over the replicas in turn (as
sticky sessions spread real learners). Three parts:

- browse: every session opens Patchify and moves its weight seed every 2 to 6 s (its own random pace) for
  ``--seconds``; p50/p95 of the reruns, and every shown ``max |linear - conv|`` checked against ``core`` for
  that session's own seed.
- same run: 30 sessions have lesson 3 open, then all press Run on one setting nobody has run (the lesson at
  100 epochs): seconds until all 30 have their result, against ``python -m core generalization`` for it.
- different runs: the same with 30 settings (110 to 400 epochs): seconds until all are done.

The load generator runs on the same cores as the servers, so its own CPU is part of the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from tempfile import mkdtemp

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.class_same_setting import command_line_seconds
from core.lessons.lesson1_patchify import PatchifyConfig, run_patchify
from support.browser import streamlit_server
from support.services import class_env, nginx_proxy, redis_server, start_worker, stop

READING = 8.0  # seconds the learners read the page before pressing Run (its workers start after WARM_DELAY, 5 s)

# lesson 3's Run, as a browser submits its form: the epochs slider (steps of 10) and the Run button together
RUN_EPOCHS = range(110, 410, 10)  # 30 settings: the lesson at other epochs, none shipped
OPEN_SECONDS = 120.0  # for a session to connect, and for its page to finish its first drawing


class Session:
    """One learner's tab: a websocket session of its own."""

    def __init__(self, base: str, page: str, query: str, source: str | None = None):
        self.url = base.replace("http", "ws", 1) + "/_stcore/stream"
        self.page, self.query = page, query
        # the address it connects from: behind nginx's ip_hash (its first three octets), a learner of its own
        self.source = source
        # user key (or a button's label) -> (type, proto, the id of the section it is in: "" for none)
        self.widgets: dict[str, tuple[str, object, str]] = {}
        self.tabs: dict[str, list[str]] = {}  # a tab widget's key -> its labels
        self.drawn = 0  # elements the last rerun sent
        self.sent: Counter = Counter()  # (element kind, "count" or "bytes") -> the last rerun's
        self.metrics: dict[str, str] = {}
        self.exceptions: list[str] = []
        self.ws = None

    async def open(self, *keys: str, timeout: float = OPEN_SECONDS) -> float:
        """Connect and run the page until it has drawn; ``keys``: the widgets this learner will move, which
        the page must have drawn (else an error that names them, not a failure at the first move)."""
        extra = {"local_addr": (self.source, 0)} if self.source else {}
        self.ws = await websockets.connect(self.url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout,
                                           ping_interval=None, **extra)
        try:
            async with asyncio.timeout(timeout):
                seconds = await self.rerun()
        except TimeoutError:
            raise TimeoutError(f"{self.page} did not finish drawing within {timeout:.0f} s") from None
        self.check(*keys)
        return seconds

    def check(self, *keys: str) -> None:
        """Fail, naming them, if the page has not drawn the widgets ``keys`` (rather than a bare KeyError)."""
        missing = [key for key in keys if key not in self.widgets]
        if missing:
            raise LookupError(f"{self.page} drew no widget {', '.join(map(repr, missing))} "
                              f"(it drew: {', '.join(sorted(self.widgets)) or 'none'})")

    def request(self, changes: dict) -> BackMsg:
        """The page's rerun with the widget states of ``changes``, as the browser sends it: a widget inside a section
        (``st.fragment``) re-runs that section alone, as the browser asks by naming the section."""
        self.check(*changes)
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_name = self.query, self.page
        sections = {self.widgets[key][2] for key in changes}
        if len(sections) == 1 and "" not in sections:
            state.fragment_id = sections.pop()
        for key, value in changes.items():
            kind, proto, _ = self.widgets[key]
            widget = state.widget_states.widgets.add()
            widget.id = proto.id
            if kind == "button":
                widget.trigger_value = True
            elif kind == "tabs":  # the open tab's label, or its index
                widget.string_value = self.tabs[key][value] if isinstance(value, int) else value
            elif kind == "checkbox":
                widget.bool_value = value
            elif kind in ("radio", "selectbox"):  # the option as shown, or its index
                widget.string_value = proto.options[value] if isinstance(value, int) else value
            elif kind == "slider":
                widget.double_array_value.data[:] = [value]
            else:
                widget.int_value = value
        return msg

    async def rerun(self, **changes) -> float:
        """Run the page again (the first time: open it) with ``changes`` (user key -> value) to the widgets;
        the seconds until the script finished. A run that ends early for a rerun the server starts itself
        (``st.rerun``: a fresh server's first run of a page opened by name hands over to app.py once, see
        ui/widgets.navigation_first) is not the end: the page draws in that next run."""
        msg = self.request(changes)
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        self.metrics, self.exceptions, self.drawn, self.sent = {}, [], 0, Counter()
        self._tabs = None
        while True:
            fm, raw = ForwardMsg(), await self.ws.recv()
            fm.ParseFromString(raw)
            kind = fm.WhichOneof("type")
            if kind == "new_session":  # a script run starts: what counts is what the last one shows
                self.metrics, self.exceptions, self.drawn, self.sent = {}, [], 0, Counter()
            elif kind == "delta":
                self.read(fm.delta, len(raw))
            elif kind == "page_info_changed":  # the address's new query string, which a browser sends back
                self.query = fm.page_info_changed.query_string
            elif kind == "script_finished" and fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - start

    def read(self, delta, size: int) -> None:
        """What one delta of the page shows (``size`` bytes on the wire): a metric, an exception, a widget (by its
        key), a section's tabs; and what kind of element it is (``sent``: kind -> [count, bytes])."""
        if delta.WhichOneof("type") == "new_element":
            self.drawn += 1
            element = delta.new_element
            name = element.WhichOneof("type")
            proto = getattr(element, name)
            self.sent[name, "count"] += 1
            self.sent[name, "bytes"] += size
            if name == "metric":
                self.metrics[proto.label] = proto.body
            elif name == "exception":
                self.exceptions.append(proto.message)
            elif getattr(proto, "id", ""):
                key = proto.label if name == "button" else proto.id.split("-", 2)[-1]  # $$ID-<hash>-<key>
                self.widgets[key] = (name, proto, delta.fragment_id)
        elif delta.WhichOneof("type") == "add_block":
            block = delta.add_block
            if block.WhichOneof("type") == "tab_container" and block.tab_container.id:  # a section's tabs
                self._tabs = block.tab_container.id.split("-", 2)[-1]
                self.widgets[self._tabs], self.tabs[self._tabs] = ("tabs", block.tab_container, delta.fragment_id), []
            elif block.WhichOneof("type") == "tab" and self._tabs is not None:  # its tabs follow it
                self.tabs[self._tabs].append(block.tab.label)

    async def close(self) -> None:
        await self.ws.close()


def expected_difference(seed: int) -> str:
    return f"{run_patchify(PatchifyConfig(seed=seed)).max_abs_diff:.2e}"


PATCHIFY_TABS = 3
RERUN_LIMIT = 120.0  # seconds: a rerun not finished by then counts as a failed session, not a hung benchmark


async def browse(bases: list[str], n: int, seconds: float, action: str = "seed", spread: bool = False) -> dict:
    """``n`` learners on Patchify for ``seconds``, each acting every 2 to 6 s (its own pace). ``action``: "seed" moves
    the weight seed (a control of the page: the whole page re-runs, with new numbers, each checked against ``core``);
    "section" opens another tab or follows another patch (inside the page's section: that section re-runs alone).
    ``spread``: each learner connects from an address of its own (nginx's ip_hash keys on the first three octets:
    from one address every learner would reach one replica)."""
    times, wrong, errors = [], [], 0
    expected: dict[int, str] = {}

    async def learner(i: int) -> None:
        nonlocal errors
        rng = random.Random(i)
        source = f"127.{1 + i // 250}.{1 + i % 250}.1" if spread else None
        s = Session(bases[i % len(bases)], "Patchify", "", source)
        try:
            await s.open("weight_seed", "patchify_view", "chosen_16")
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                await asyncio.sleep(rng.uniform(2, 6))
                if action == "seed":
                    seed = rng.randrange(10_000)
                    times.append(await asyncio.wait_for(s.rerun(weight_seed=seed), RERUN_LIMIT))
                    if seed not in expected:
                        expected[seed] = expected_difference(seed)
                    shown = s.metrics.get("max |linear − conv|")
                    if shown != expected[seed] or s.exceptions:
                        wrong.append(f"seed {seed}: shown {shown}, expected {expected[seed]}; {s.exceptions[:1]}")
                else:
                    change = ({"patchify_view": rng.randrange(PATCHIFY_TABS)} if rng.random() < 0.5 else
                              {"chosen_16": rng.randrange(16)})
                    times.append(await asyncio.wait_for(s.rerun(**change), RERUN_LIMIT))
                    if s.exceptions or not s.drawn:
                        wrong.append(f"{change}: {s.drawn} elements; {s.exceptions[:1]}")
            await s.close()
        except (TimeoutError, OSError, websockets.WebSocketException):
            errors += 1

    await asyncio.gather(*(learner(i) for i in range(n)))
    q = statistics.quantiles(times, n=20) if len(times) > 1 else [float("nan")] * 19
    return {"reruns": len(times), "p50": statistics.median(times) if times else float("nan"), "p95": q[18],
            "wrong": wrong, "errors": errors}


async def runs(bases: list[str], epochs: list[int]) -> dict:
    """A session per value opens lesson 3 and reads it for ``READING`` seconds (the page starts its training
    workers meanwhile, as for a learner); then all press Run at once, each with its epochs: seconds from
    that moment until the last one's script finished (its result stored and drawn)."""
    sessions = [Session(bases[i % len(bases)], "ViT_vs_CNN", "") for i in range(len(epochs))]
    await asyncio.gather(*(s.open("epochs", "Run") for s in sessions))
    await asyncio.sleep(READING)
    start = time.perf_counter()
    done = await asyncio.gather(*(s.rerun(epochs=e, Run=True) for s, e in zip(sessions, epochs, strict=True)))
    failed = sum(bool(s.exceptions) for s in sessions)
    await asyncio.gather(*(s.close() for s in sessions))
    return {"all_done": time.perf_counter() - start, "median": statistics.median(done), "failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=1, choices=(1, 2))
    parser.add_argument("--sessions", type=int, nargs="+", default=[30, 100, 300])
    parser.add_argument("--actions", nargs="+", choices=("seed", "section"), default=["seed", "section"],
                        help="what the browsing learners do (browse)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the browsing lasts at each size")
    parser.add_argument("--only", choices=("browse", "runs"))
    args = parser.parse_args()
    tmp = Path(mkdtemp(prefix="vitlab-class-load-"))
    with ExitStack() as stack:
        env = {"VITLAB_DATA_DIR": str(tmp / "data")}
        if args.replicas > 1:
            url = stack.enter_context(redis_server(tmp))
            env.update(class_env(url))
            for i in range(2):
                stack.callback(stop, start_worker(url, tmp / f"worker{i}.log"))
        bases = []
        for i in range(args.replicas):
            base, _, _ = stack.enter_context(streamlit_server(env={**env, "VITLAB_DATA_DIR": str(tmp / f"data{i}")}))
            bases.append(base)
        setup = f"{args.replicas} replica(s)" + (", 2 workers, one Redis, behind nginx (deploy/nginx.conf)"
                                                 if args.replicas > 1 else "")
        if args.replicas > 1:  # as a class reaches them: one address, nginx's sticky sessions
            proxy, _ = stack.enter_context(nginx_proxy([b.removeprefix("http://") for b in bases], tmp))
            bases = [proxy]
        print(f"# {setup}; the load generator on the same machine")
        if args.only != "runs":
            for action in args.actions:
                knee = None
                for n in args.sessions:
                    r = asyncio.run(browse(bases, n, args.seconds, action, spread=args.replicas > 1))
                    print(f"browse ({action}), {n} sessions, {args.seconds:.0f} s: {r['reruns']} reruns, p50 "
                          f"{r['p50']:.2f} s, p95 {r['p95']:.2f} s; wrong {len(r['wrong'])}, sessions failed {r['errors']}"
                          + "".join(f"\n  wrong: {w}" for w in r["wrong"][:3]),
                          flush=True)
                    if knee is None and r["p95"] > 1:
                        knee = n
                print(f"browse ({action}): p95 passes 1 s at {knee} sessions" if knee else
                      f"browse ({action}): p95 within 1 s up to {max(args.sessions)} sessions")
        if args.only != "browse":
            epochs = 100  # the lesson at 100 epochs: not shipped, and not among RUN_EPOCHS
            cli = command_line_seconds(epochs)
            r = asyncio.run(runs(bases, [epochs] * 30))
            print(f"same run, 30 sessions press Run (the lesson at {epochs} epochs): all done {r['all_done']:.1f} s "
                  f"after (median {r['median']:.1f} s); the command line for it: {cli:.1f} s; failed {r['failed']}")
            r = asyncio.run(runs(bases, list(RUN_EPOCHS)))
            print(f"different runs, 30 sessions: all done in {r['all_done']:.1f} s (median {r['median']:.1f} s); "
                  f"failed {r['failed']}")


if __name__ == "__main__":
    main()
