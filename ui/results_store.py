"""The server's finished runs and trainings in flight, made once per server process and shared by every
session.

Alone (the default): the store holds the shipped presets, recent runs in memory and the run archive on disk
(``core.engine.archive``), and ``core.engine.flights`` trains each distinct setting once, in this process's
pool. With a Redis (``VITLAB_REDIS_URL`` in the environment or in Streamlit's secrets): finished runs are
shared through it (``job_queue.RedisArchive``) and trainings go to ``python -m core worker`` processes
(``job_queue.QueueFlights``), one job per distinct setting across every replica. The URL is never shown.
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

URL_SETTING = "VITLAB_REDIS_URL"


def run_id(result: RunResult) -> tuple:
    """What tells two runs of one config apart, for a cache keyed by the config: a cached function takes it with
    the run itself as an unhashed argument (hashing a run's weights on every call would cost more than most)."""
    return result.origin, result.seconds, len(result.rows)


def redis_url() -> str | None:
    """The Redis the replicas share: the environment's, else Streamlit's secrets', else None (run alone)."""
    if os.environ.get(URL_SETTING):
        return os.environ[URL_SETTING]
    try:
        return st.secrets.get(URL_SETTING) or None
    except (FileNotFoundError, st.errors.StreamlitSecretNotFoundError):  # no secrets file: run alone
        return None


@st.cache_resource
def _redis():
    from core.engine.job_queue import connect  # redis and rq: only with a Redis

    url = redis_url()
    return None if url is None else connect(url)


@st.cache_resource
def result_store() -> ResultStore:
    if _redis() is not None:
        from core.engine.job_queue import RedisArchive

        archive = RedisArchive(_redis(), code_fingerprint())
    else:
        archive = open_archive(code_fingerprint())
    return ResultStore(pinned=load_fresh_shipped(), archive=archive)


@st.cache_resource
def run_flights():
    if _redis() is not None:
        from core.engine.job_queue import QueueFlights

        return QueueFlights(_redis(), result_store())
    return Flights(result_store())
