"""The server's finished runs and trainings in flight, made once per server process and shared by every
session.

Alone (the default): the store holds the shipped presets, recent runs in memory and the run archive on disk
(``core.engine.storage.archive``), and ``core.engine.running.flights`` trains each distinct setting once, in this process's
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

from core.engine.results.run_result import RunResult
from core.engine.running.flights import Flights
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.storage.archive import open_archive
from core.engine.storage.store import ResultStore
from core.lessons.shipped import load_fresh_shipped

URL_VARIABLE = "VITLAB_REDIS_URL"  # core.engine.queue.queue_redis.URL_VARIABLE: named here so that redis is imported only with it
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
    """(connection, archive secret) of ``VITLAB_REDIS_URL``, or None: unset, or not usable (one warning)."""
    return _class_redis(URL_VARIABLE, ping=False)  # a class's Redis may come back: the page says so when it trains


@st.cache_resource
def _archive_redis():
    """(connection, archive secret) of ``VITLAB_ARCHIVE_URL`` once it answered, or None: unset, or not usable
    (one warning)."""
    return _class_redis(ARCHIVE_VARIABLE, ping=True)


def _class_redis(variable: str, ping: bool):
    """A Redis setting made usable: its URL parsed and the archive secret (``VITLAB_ARCHIVE_SECRET``) set; else
    one warning in the log, and the server keeps its runs in memory and trains them itself."""
    url = setting(variable)
    if url is None:
        return None
    from redis.exceptions import RedisError  # redis: imported only with a Redis

    from core.engine.queue.queue_redis import QueueUnreachable, connect
    from core.engine.storage.run_signature import SECRET_VARIABLE, secret_from

    try:
        secret = secret_from(setting(SECRET_VARIABLE))
        redis = connect(url, variable)
        if ping:
            redis.ping()
    except ValueError as exc:  # a malformed URL or no secret: named, never the URL's value
        logging.getLogger(__name__).warning("%s is not used, so finished runs are kept in memory only (lost at a "
                                            "restart) and trained on this server: %s", variable, exc)
        return None
    except RedisError as exc:  # its text names host and port, never the password
        logging.getLogger(__name__).warning("finished runs are kept in memory only (lost at a restart): %s",
                                            QueueUnreachable(exc, "the run archive", variable))
        return None
    return redis, secret


@st.cache_resource
def result_store() -> ResultStore:
    shared = _redis() or _archive_redis()
    if shared is not None:
        from core.engine.queue.redis_archive import RedisArchive

        redis, secret = shared
        archive = RedisArchive(redis, code_fingerprint(), secret)
    elif setting(ARCHIVE_VARIABLE) is not None or setting(URL_VARIABLE) is not None:
        archive = None  # a shared archive was asked for and cannot be used: memory only, said once in the log
    else:
        archive = open_archive(code_fingerprint())
    return ResultStore(pinned=load_fresh_shipped(), archive=archive)


@st.cache_resource
def run_flights():
    if _redis() is not None:
        from core.engine.queue.queue_flights import QueueFlights

        return QueueFlights(_redis()[0], result_store())
    return Flights(result_store())


def trains_on_workers() -> bool:
    """Whether this server's trainings go to ``python -m core worker`` processes (a class's Redis)."""
    return _redis() is not None
