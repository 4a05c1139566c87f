"""Figures built once per server and reused: Plotly checks every property of a figure as it is built (milliseconds
a figure: docs/performance.md), and a page rerun builds the same
figures again for every learner and every click. A figure made from the same inputs is the same figure, so its
plain spec is kept (a bounded LRU, shared by every session: specs are plain data, never handed out) and each
use gets a new ``go.Figure`` made from a copy without Plotly's checks, far cheaper. Plotly only: no Streamlit.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable

import plotly.graph_objects as go

MAX_SPECS = 512  # figure specs kept per cache: a spec is a few KB to a few hundred KB (a digit mosaic)
MAX_BYTES = 24 * 2**20  # and at most this much of them: the server's memory is a Cloud app's scarcest part


def properties(fig: go.Figure) -> bytes:
    """A copy of the checked properties as Plotly holds them (NumPy arrays stay arrays: to_plotly_json would encode
    them for the browser), pickled, so later changes to ``fig`` do not reach it."""
    return pickle.dumps({"data": fig._data, "layout": fig._layout}, protocol=5)


class SpecCache:
    """key -> a figure's plain spec (pickled by ``pack``; each use gets ``unpack`` of it), the least recently used
    dropped beyond ``size`` specs or ``max_bytes``; thread-safe."""

    def __init__(self, size: int = MAX_SPECS, max_bytes: int = MAX_BYTES,
                 pack: Callable[[go.Figure], bytes] = properties,
                 unpack: Callable[[bytes, bytes], go.Figure] | None = None):
        self.size, self.max_bytes, self._specs, self._lock = size, max_bytes, OrderedDict(), threading.Lock()
        self.pack, self.unpack = pack, unpack or (lambda spec, key: unchecked(spec))
        self.bytes = self.hits = self.misses = 0

    def get(self, key: bytes) -> go.Figure | None:
        with self._lock:
            spec = self._specs.get(key)
            if spec is None:
                self.misses += 1
                return None
            self._specs.move_to_end(key)
            self.hits += 1
        return self.unpack(spec, key)

    def put(self, key: bytes, fig: go.Figure) -> None:
        spec = self.pack(fig)  # a copy: unpacked per use
        with self._lock:
            self.bytes += len(spec) - len(self._specs.get(key, b""))
            self._specs[key] = spec
            self._specs.move_to_end(key)
            while len(self._specs) > self.size or (self.bytes > self.max_bytes and len(self._specs) > 1):
                self.bytes -= len(self._specs.popitem(last=False)[1])


def unchecked(pickled: bytes) -> go.Figure:
    """A new figure from its own copy of a pickled spec, without Plotly's property checks (the spec came from a
    checked figure). Unpickling copies a nested spec several times faster than ``copy.deepcopy``."""
    spec = pickle.loads(pickled)
    fig = go.Figure(spec, _validate=False)
    if "template" not in spec["layout"]:  # a new figure takes Plotly's default template: none, as in the spec
        fig._layout.pop("template", None)
    return fig


def digest(*parts) -> bytes | None:
    """A key for ``parts`` (NumPy arrays, numbers, strings, lists, dicts), or None when they cannot be pickled."""
    try:
        return hashlib.blake2b(pickle.dumps(parts, protocol=5), digest_size=16).digest()
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


class Built(go.Figure):
    """A figure from the cache that becomes a ``go.Figure`` only when something reads or changes it. Building one
    from its spec is most of what a cached figure still costs on a rerun (a bench's maps, tens of traces); a figure
    sent as it came (``widgets.plot``: its title and ``finished``'s key read without building) never pays it. On its
    first use it builds itself and is a plain ``go.Figure`` from then on (its class changed), so what reads it after
    pays nothing more."""

    def __init__(self, pickled: bytes, key: bytes):  # no Figure.__init__ yet: see _build
        object.__getattribute__(self, "__dict__").update(_lazy_spec=pickled, _lazy_key=key)

    def __getattribute__(self, name: str):
        state = object.__getattribute__(self, "__dict__")
        if name in state and name.startswith("_lazy_"):
            return state[name]
        if "_lazy_spec" in state:  # anything else: built now
            spec = pickle.loads(state.pop("_lazy_spec"))
            del state["_lazy_key"]
            object.__setattr__(self, "__class__", go.Figure)
            go.Figure.__init__(self, spec, _validate=False)
            if "template" not in spec["layout"]:  # as ``unchecked``
                self._layout.pop("template", None)
        return object.__getattribute__(self, name)


def untouched_key(fig: go.Figure) -> bytes | None:
    """The cache key of a figure that came from ``reused`` and was not read or changed since, else None."""
    return fig._lazy_key if type(fig) is Built else None


def title(fig: go.Figure) -> str | None:
    """The figure's title, without building an untouched one."""
    if type(fig) is Built:
        return (pickle.loads(fig._lazy_spec)["layout"].get("title") or {}).get("text")
    return fig.layout.title.text


BUILT = SpecCache(unpack=Built)


def reused(make: Callable[..., go.Figure]) -> Callable[..., go.Figure]:
    """``make`` (a pure figure function of plain data) built once per distinct arguments; each call gets its own
    figure to change (``Built``: made a ``go.Figure`` when first read)."""
    name = f"{make.__module__}.{make.__qualname__}"

    @functools.wraps(make)
    def build(*args, **kwargs) -> go.Figure:
        key = digest(name, args, sorted(kwargs.items()))
        if key is None:
            return make(*args, **kwargs)
        fig = BUILT.get(key)
        if fig is None:
            BUILT.put(key, make(*args, **kwargs))
            fig = BUILT.get(key)  # as every later use gets it, so its JSON (and data revision) is the same
        return fig

    return build


class Finished(go.Figure):
    """A finished figure as Streamlit reads it: Streamlit's ``st.plotly_chart`` asks a figure for ``to_dict()``
    (``plotly.tools.return_figure_from_figure_or_data``) and sends that. This gives it its own copy of the finished
    spec, without building a ``go.Figure`` from it again: the larger part of a chart's cost on every rerun
    (docs/performance.md). Nothing else of a figure is read (tests/ui/figures/test_reuse.py checks both)."""

    def __init__(self, pickled: bytes):  # no Figure.__init__: there is nothing to build
        self._pickled = pickled

    def to_dict(self) -> dict:
        return pickle.loads(self._pickled)


SENT = SpecCache(pack=lambda fig: pickle.dumps(fig.to_dict(), protocol=5), unpack=lambda spec, key: Finished(spec))


def finished(fig: go.Figure, finish: Callable[[go.Figure], None], *settings) -> go.Figure:
    """``fig`` after ``finish(fig)`` (in place: the lab's look), done once per distinct figure and ``settings``,
    for ``st.plotly_chart``: a figure equal to one finished before gets that one's spec (``Finished``). Equal: the same properties as Plotly holds them
    (pickled, arrays included: far cheaper than its JSON)."""
    built = untouched_key(fig)
    key = digest(built, settings) if built is not None else digest(fig._data, fig._layout, settings)
    done = None if key is None else SENT.get(key)
    if done is None:
        finish(fig)
        if key is None:
            return fig
        SENT.put(key, fig)
        done = SENT.get(key)  # as every later use gets it
    return done
