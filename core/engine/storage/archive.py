"""Finished runs kept on disk, so that a restart (a deploy, an app woken from sleep) serves them at once.

One SQLite file, ``runs.sqlite3`` in ``data_dir()`` (``VITLAB_DATA_DIR``). A run is one row of ``runs``, keyed
by its canonical config (``GeneralizationConfig.to_json``, keys sorted) *and* the code fingerprint: a run
made by other training code is never served, and since it is never read again, it is the first to go when
the archive is over its bytes (least recently used out). Its trained weights are rows of ``weights``.

Stored as data, never as pickles: the result is JSON, the weights are ``torch.save`` bytes of a state dict
that ``core.inspect.trained_model`` loads with ``weights_only=True``. A run and its weights are written in one
transaction: a reader sees all of it or none, with its signature (``run_signature``: an HMAC by the server's
archive secret, kept beside the file). Whoever else writes the file, every read measures each value's length
before reading it and checks what it read in full (the signature, then ``stored_run``: every field's type and
range, a complete run, weights that load into the setting's own model), so a file shared between machines is
no way to run code on them, to crash a page or to show a number the lab did not compute: a row that is not
usable (truncated, hand-edited, forged, unsigned) is logged, deleted and read as a miss. A file that is not a database is
logged and moved aside (``.corrupt``) and a new one begun; an empty one is logged and begun anew. Where nothing can be
written (a read-only disk) ``open_archive`` returns None with one warning: the server keeps runs in memory.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

from core.engine.results.run_result import RunResult
from core.engine.setting.run_config import GeneralizationConfig
from core.engine.setting.typed_json import plain
from core.engine.storage.run_signature import check_signature, local_secret, signature
from core.engine.storage.stored_run import UnusableRun, decode_run, max_result_bytes, max_weights_bytes

log = logging.getLogger(__name__)

DATA_DIR_VARIABLE = "VITLAB_DATA_DIR"
BYTES_VARIABLE = "VITLAB_ARCHIVE_BYTES"
DEFAULT_BYTES = 512 * 2**20  # a lesson run with its weights is about 1 MB: hundreds of settings
FILE_NAME = "runs.sqlite3"

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    config TEXT NOT NULL,          -- the canonical config as JSON (sorted keys)
    fingerprint TEXT NOT NULL,     -- the training code that made it
    result TEXT NOT NULL,          -- RunResult.to_json()
    nbytes INTEGER NOT NULL,       -- result and weights, the unit of the bound
    used REAL NOT NULL,            -- last read or written (unix seconds): least recently used out
    sig TEXT,                      -- run_signature.signature of the run: a row without a valid one is not used
    PRIMARY KEY (config, fingerprint)
);
CREATE TABLE IF NOT EXISTS weights (
    config TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    name TEXT NOT NULL,            -- "model/seed"
    data BLOB NOT NULL,            -- torch.save bytes of the model's state dict
    PRIMARY KEY (config, fingerprint, name)
);
"""


def data_dir() -> Path:
    """Where the server keeps what outlives it: ``VITLAB_DATA_DIR``, else ``~/.cache/vitlab``."""
    return Path(os.environ.get(DATA_DIR_VARIABLE) or Path.home() / ".cache" / "vitlab")


def archive_bytes() -> int:
    """The archive's bound in bytes: ``VITLAB_ARCHIVE_BYTES``, else ``DEFAULT_BYTES``."""
    value = os.environ.get(BYTES_VARIABLE)
    if not value:
        return DEFAULT_BYTES
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{BYTES_VARIABLE} must be a positive number of bytes, got {value!r}")
    return int(value)


def config_key(cfg: GeneralizationConfig) -> str:
    return json.dumps(cfg.to_json(), sort_keys=True, separators=(",", ":"))


class RunArchive:
    """The runs of one SQLite file for one code fingerprint. Thread-safe (one connection behind a lock);
    several processes may share the file (SQLite's own locking; WAL lets readers go on during a write)."""

    def __init__(self, path: Path, fingerprint: str, secret: bytes, max_bytes: int = DEFAULT_BYTES):
        self.path, self.fingerprint, self.secret, self.max_bytes = Path(path), fingerprint, secret, max_bytes
        self._lock = threading.Lock()
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        if self.path.is_file() and self.path.stat().st_size == 0:  # SQLite would take it as a new, empty database
            log.warning("the run archive %s is an empty file (its runs are gone): starting a new one", self.path)
        try:
            return self._open()
        except sqlite3.DatabaseError as exc:  # not a database (truncated, overwritten): keep it aside, begin anew
            if isinstance(exc, sqlite3.OperationalError):
                raise  # cannot open or write at all: the caller falls back to memory
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            log.warning("the run archive %s is not a database (%s): moved to %s, starting a new one", self.path, exc,
                        aside.name)
            self.path.replace(aside)
            return self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            if "sig" not in {row[1] for row in db.execute("PRAGMA table_info(runs)")}:  # a file from before signing
                db.execute("ALTER TABLE runs ADD COLUMN sig TEXT")
        except sqlite3.Error:
            db.close()
            raise
        return db

    # ------------------------------------------------------------ reading
    def get(self, cfg: GeneralizationConfig) -> RunResult | None:
        """The stored run of ``cfg``, signed and checked in full (``stored_run``), or None; a row that is not usable
        is deleted and ``UnusableRun`` raised (``store.ResultStore`` logs it and reads a miss)."""
        key = (config_key(cfg), self.fingerprint)
        with self._lock:
            row = self._db.execute("SELECT length(CAST(result AS BLOB)) FROM runs WHERE config = ? AND fingerprint = ?",
                                   key).fetchone()
            if row is None:
                return None
            try:
                result = self._read(cfg, key, row[0])
            except UnusableRun:
                self._delete(key)
                raise
            self._db.execute("UPDATE runs SET used = ? WHERE config = ? AND fingerprint = ?", (time.time(), *key))
        return result

    def _read(self, cfg: GeneralizationConfig, key: tuple[str, str], size: object) -> RunResult:
        """The row of ``key``, each value's length measured before it is read (a huge row never reaches memory)."""
        if not isinstance(size, int) or size > max_result_bytes(cfg):
            raise UnusableRun(f"its result is {size} bytes, over the {max_result_bytes(cfg)} a run of this setting "
                              "can take")
        most = len(cfg.jobs)
        entries = self._db.execute("SELECT substr(name, 1, 200), length(CAST(name AS BLOB)), length(CAST(data AS BLOB)) "
                                   f"FROM weights WHERE config = ? AND fingerprint = ? LIMIT {most + 1}", key).fetchall()
        if len(entries) > most:
            raise UnusableRun(f"it has more weights than the {most} models and seeds of this setting")
        for name, name_length, length in entries:
            if not isinstance(name, str) or not isinstance(name_length, int) or name_length > 200:
                raise UnusableRun("its weights are not named as a model and seed")
            if not isinstance(length, int) or length > max_weights_bytes(cfg, name):
                raise UnusableRun(f"its weights {plain(name, 60)!r} take {length} bytes, over the "
                                  f"{max_weights_bytes(cfg, name)} the model can")
        text, signed = self._db.execute("SELECT result, sig FROM runs WHERE config = ? AND fingerprint = ?",
                                        key).fetchone()
        weights = self._db.execute("SELECT name, data FROM weights WHERE config = ? AND fingerprint = ?",
                                   key).fetchall()
        if not all(isinstance(data, bytes) for _, data in weights):
            raise UnusableRun("its weights are not byte strings")
        text = text if isinstance(text, (str, bytes)) else str(text)
        check_signature(self.secret, self.fingerprint, key[0], text, dict(weights), signed)
        return decode_run(cfg, text, dict(weights))

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COALESCE(SUM(nbytes), 0) FROM runs").fetchone()[0]

    # ------------------------------------------------------------ writing
    def put(self, cfg: GeneralizationConfig, result: RunResult) -> None:
        """Keep a complete run (an incomplete one is never kept), then drop the least recently used runs until
        the archive is within its bytes (this one too, if it alone is larger)."""
        if not result.complete:
            return
        key = (config_key(cfg), self.fingerprint)
        text = json.dumps(result.to_json(), separators=(",", ":"), allow_nan=False)
        nbytes = len(text) + sum(len(w) for w in result.weights.values())
        signed = signature(self.secret, self.fingerprint, key[0], text, result.weights)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._delete(key)
                self._db.execute("INSERT INTO runs (config, fingerprint, result, nbytes, used, sig) VALUES "
                                 "(?, ?, ?, ?, ?, ?)", (*key, text, nbytes, time.time(), signed))
                self._db.executemany("INSERT INTO weights VALUES (?, ?, ?, ?)",
                                     [(*key, name, data) for name, data in result.weights.items()])
                self._evict()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _evict(self) -> None:
        total = self._db.execute("SELECT COALESCE(SUM(nbytes), 0) FROM runs").fetchone()[0]
        for config, fingerprint, nbytes in self._db.execute(
                "SELECT config, fingerprint, nbytes FROM runs ORDER BY used").fetchall():
            if total <= self.max_bytes:
                break
            self._delete((config, fingerprint))
            total -= nbytes

    def _delete(self, key: tuple[str, str]) -> None:
        self._db.execute("DELETE FROM runs WHERE config = ? AND fingerprint = ?", key)
        self._db.execute("DELETE FROM weights WHERE config = ? AND fingerprint = ?", key)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_archive(fingerprint: str, directory: Path | None = None, max_bytes: int | None = None) -> RunArchive | None:
    """The archive in ``directory`` (default ``data_dir()``), its runs signed with ``run_signature.local_secret``,
    or None, with one warning, where it cannot be created or written: the server then keeps its runs in memory
    only."""
    directory = Path(directory or data_dir())
    try:
        directory.mkdir(parents=True, exist_ok=True)
        return RunArchive(directory / FILE_NAME, fingerprint, local_secret(directory),
                          archive_bytes() if max_bytes is None else max_bytes)
    except (OSError, sqlite3.Error, ValueError) as exc:
        log.warning("finished runs are kept in memory only (lost at a restart): cannot write %s (%s)", directory, exc)
        return None
