"""The server's store of finished runs: a config already run shows instantly, for every visitor.

Bounded in entries and bytes (least recently used out), so a class of thirty trying settings cannot
grow the server without limit; the presets' shipped results are pinned and never evicted. Only
complete runs are stored, so an interrupted run leaves nothing behind. Thread-safe: sessions share it.

Behind the memory, an optional ``archive`` (``archive.RunArchive``: runs on disk, surviving a restart; or
``redis_archive.RedisArchive``: runs shared by replicas) is
read on a miss and written on every put; an archive that fails (a full disk, Redis gone) costs a log line,
not the learner's result, and a stored run that is not usable (``stored_run``: hostile or broken) is a log
line and a miss, with the reason kept for the page (``unusable``).
"""

from __future__ import annotations

import logging
import pickle
import threading
from collections import OrderedDict
from collections.abc import Mapping

from core.engine.results.run_result import RunResult
from core.engine.setting.run_config import GeneralizationConfig
from core.engine.storage.stored_run import UnusableRun


class ResultStore:
    def __init__(self, pinned: Mapping[GeneralizationConfig, RunResult] | None = None, max_entries: int = 64,
                 max_bytes: int = 64 * 2**20, archive=None):
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.archive = archive
        self._pinned = {} if pinned is None else pinned  # as given: a mapping that reads its results when asked
        self._lru: OrderedDict[GeneralizationConfig, tuple[RunResult, int]] = OrderedDict()
        self._bytes = 0
        self._unusable: dict[GeneralizationConfig, str] = {}  # config -> why its stored run was deleted
        self._lock = threading.Lock()

    def get(self, cfg: GeneralizationConfig) -> RunResult | None:
        pinned = self._pinned.get(cfg)  # outside the lock: shipped results are read from disk the first time
        if pinned is not None:
            return pinned
        with self._lock:
            if cfg in self._lru:
                self._lru.move_to_end(cfg)
                return self._lru[cfg][0]
        try:
            result = self.archive.get(cfg) if self.archive is not None else None
        except UnusableRun as exc:  # deleted by the archive: the page says so, and offers to train it
            logging.getLogger(__name__).warning("a stored run was not usable and was deleted (%s)", exc)
            with self._lock:
                self._unusable[cfg] = str(exc)
                while len(self._unusable) > self.max_entries:
                    self._unusable.pop(next(iter(self._unusable)))
            result = None
        except Exception as exc:  # noqa: BLE001 (any archive's failure: SQLite, Redis, a disk)
            logging.getLogger(__name__).warning("the run archive could not be read (%s: %s): training instead", type(exc).__name__, exc)
            result = None
        if result is not None:
            self._remember(cfg, result)
        return result

    def put(self, cfg: GeneralizationConfig, result: RunResult) -> None:
        if not result.complete or cfg in self._pinned:
            return
        self._remember(cfg, result)
        if self.archive is not None:
            try:
                self.archive.put(cfg, result)
            except Exception as exc:  # noqa: BLE001 (any archive's failure: SQLite, Redis, a disk)
                logging.getLogger(__name__).warning("a finished run was not archived (kept in memory): %s: %s", type(exc).__name__, exc)

    def unusable(self, cfg: GeneralizationConfig) -> str | None:
        """Why the stored run of ``cfg`` was deleted when it was last looked up (not usable: ``stored_run``),
        or None."""
        with self._lock:
            return self._unusable.get(cfg)

    def forget(self, cfg: GeneralizationConfig) -> None:
        """Drop this process's memory of ``cfg`` (not the archive, not a pinned preset): the next ``get`` reads
        the archive, where another process may have put a newer run of it."""
        with self._lock:
            if cfg in self._lru:
                self._bytes -= self._lru.pop(cfg)[1]

    def _remember(self, cfg: GeneralizationConfig, result: RunResult) -> None:
        size = len(pickle.dumps(result))
        with self._lock:
            if cfg in self._lru:
                self._bytes -= self._lru.pop(cfg)[1]
            self._lru[cfg] = (result, size)
            self._bytes += size
            while self._lru and (len(self._lru) > self.max_entries or self._bytes > self.max_bytes):
                self._bytes -= self._lru.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self._pinned) + len(self._lru)

    @property
    def nbytes(self) -> int:
        return self._bytes
