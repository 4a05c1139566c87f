"""The server's finished runs and trainings in flight, made once per server process and shared by every
session.

Alone (the default): the store holds the shipped presets, recent runs in memory and the run archive on disk
(``core.engine.archive``), and ``core.engine.flights`` trains each distinct setting once, in this process's
pool. With a Redis (``VITLAB_REDIS_URL`` in the environment or in Streamlit's secrets): finished runs are
shared through it (``redis_archive.RedisArchive``) and trainings go to ``python -m core worker`` processes
(``queue_flights.QueueFlights``), one job per distinct setting across every replica. The URL is never shown.
"""

from __future__ import annotations

import os

import streamlit as st

from core.engine.archive import open_archive
from core.engine.fingerprint import code_fingerprint
from core.engine.flights import Flights
from core.engine.results import RunResult
from core.engine.store import ResultStore
from core.lessons.shipped import load_fresh_shipped

URL_VARIABLE = "VITLAB_REDIS_URL"  # core.engine.queue_redis.URL_VARIABLE: named here so that redis is imported only with it


def run_id(result: RunResult) -> tuple:
    """What tells two runs of one config apart, for a cache keyed by the config: a cached function takes it with
    the run itself as an unhashed argument (hashing a run's weights on every call would cost more than most)."""
    return result.origin, result.seconds, len(result.rows)


def _secrets() -> dict:
    """Streamlit's secrets, or nothing where the app has no secrets file."""
    try:
        return {URL_VARIABLE: st.secrets.get(URL_VARIABLE)} if URL_VARIABLE in st.secrets else {}
    except (FileNotFoundError, st.errors.StreamlitSecretNotFoundError):  # no secrets file: run alone
        return {}


@st.cache_resource
def _redis():
    from core.engine.queue_redis import connect, redis_url  # redis and rq: imported only with a Redis

    url = redis_url(None if os.environ.get(URL_VARIABLE) else _secrets())
    return None if url is None else connect(url)


@st.cache_resource
def result_store() -> ResultStore:
    if _redis() is not None:
        from core.engine.redis_archive import RedisArchive

        archive = RedisArchive(_redis(), code_fingerprint())
    else:
        archive = open_archive(code_fingerprint())
    return ResultStore(pinned=load_fresh_shipped(), archive=archive)


@st.cache_resource
def run_flights():
    if _redis() is not None:
        from core.engine.queue_flights import QueueFlights

        return QueueFlights(_redis(), result_store())
    return Flights(result_store())


def trains_on_workers() -> bool:
    """Whether this server's trainings go to ``python -m core worker`` processes (a class's Redis)."""
    return _redis() is not None
