"""The server's finished runs and trainings in flight, made once per server process and shared by every
session.

Alone (the default): the store holds the shipped presets, recent runs in memory and the run archive on disk
(``core.engine.archive``), and ``core.engine.flights`` trains each distinct setting once, in this process's
pool. With a Redis for a class (``VITLAB_REDIS_URL`` in the environment or in Streamlit's secrets): finished
runs are shared through it (``redis_archive.RedisArchive``) and trainings go to ``python -m core worker``
processes (``queue_flights.QueueFlights``), one job per distinct setting across every replica.

With a Redis as the archive only (``VITLAB_ARCHIVE_URL``: a Community Cloud app, whose disk is lost at every
reboot, deploy or wake and which cannot run workers): finished runs go to that Redis, in the same checked format,
and training stays in this process. A Redis that cannot be reached, or refuses the password, costs one warning
in the log: runs are then kept in memory and the pages work. A URL is never shown.
"""

from __future__ import annotations

import logging
import os

import streamlit as st

from core.engine.archive import open_archive
from core.engine.fingerprint import code_fingerprint
from core.engine.flights import Flights
from core.engine.run_result import RunResult
from core.engine.store import ResultStore
from core.lessons.shipped import load_fresh_shipped

URL_VARIABLE = "VITLAB_REDIS_URL"  # core.engine.queue_redis.URL_VARIABLE: named here so that redis is imported only with it
ARCHIVE_VARIABLE = "VITLAB_ARCHIVE_URL"  # a Redis holding finished runs only: training stays in this process


def run_id(result: RunResult) -> tuple:
    """What tells two runs of one config apart, for a cache keyed by the config: a cached function takes it with
    the run itself as an unhashed argument (hashing a run's weights on every call would cost more than most)."""
    return result.origin, result.seconds, len(result.rows)


def setting(name: str) -> str | None:
    """A setting from the environment, else from Streamlit's secrets, else None (never shown: it may hold a
    password)."""
    if os.environ.get(name):
        return os.environ[name]
    try:
        return st.secrets.get(name) or None
    except (FileNotFoundError, st.errors.StreamlitSecretNotFoundError):  # no secrets file
        return None


@st.cache_resource
def _redis():
    url = setting(URL_VARIABLE)
    if url is None:
        return None
    from core.engine.queue_redis import connect  # redis and rq: imported only with a Redis

    return connect(url)


@st.cache_resource
def _archive_redis():
    """The Redis of ``VITLAB_ARCHIVE_URL``, once it answered; None (with one warning) where it cannot be used."""
    url = setting(ARCHIVE_VARIABLE)
    if url is None:
        return None
    from redis.exceptions import RedisError

    from core.engine.queue_redis import QueueUnreachable, connect

    redis = connect(url)
    try:
        redis.ping()
    except RedisError as exc:  # its text names host and port, never the password
        logging.getLogger(__name__).warning("finished runs are kept in memory only (lost at a restart): %s",
                                            QueueUnreachable(exc, "the run archive", ARCHIVE_VARIABLE))
        return None
    return redis


@st.cache_resource
def result_store() -> ResultStore:
    from_redis = _redis() if _redis() is not None else _archive_redis()
    if from_redis is not None:
        from core.engine.redis_archive import RedisArchive

        archive = RedisArchive(from_redis, code_fingerprint())
    elif setting(ARCHIVE_VARIABLE) is not None:
        archive = None  # an archive was asked for and cannot be used: memory only, said once in the log
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
