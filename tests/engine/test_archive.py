import logging
import sqlite3

import pytest

from core.engine.archive import FILE_NAME, RunArchive, archive_bytes, config_key, open_archive
from core.engine.results import RunResult, SeedResult
from core.engine.run_config import TrainConfig, with_value
from core.engine.store import ResultStore
from core.lessons.lesson3_vit_vs_cnn import PRESETS

TINY = PRESETS["tiny"]


def _result(cfg, n=1, weight_bytes=10):
    result = RunResult(cfg, rows=[SeedResult("cnn", s, 1.0, 0.5, 0.1) for s in range(n)], seconds=1.5)
    result.weights = {f"cnn/{s}": bytes([s]) * weight_bytes for s in range(n)}
    return result


def test_a_run_survives_a_new_archive_on_the_same_file_with_its_weights(tmp_path):
    cfg = with_value(TINY, "train.epochs", 7)
    open_archive("code-a", tmp_path).put(cfg, _result(cfg, n=2))
    again = open_archive("code-a", tmp_path)  # a restarted server
    result = again.get(cfg)
    assert result is not None and result.config == cfg and result.rows == _result(cfg, n=2).rows
    assert result.weights == {"cnn/0": bytes(10), "cnn/1": bytes([1]) * 10}
    assert again.get(with_value(cfg, "train.epochs", 8)) is None


def test_other_training_code_is_never_served(tmp_path):
    open_archive("code-a", tmp_path).put(TINY, _result(TINY))
    assert open_archive("code-b", tmp_path).get(TINY) is None
    assert open_archive("code-a", tmp_path).get(TINY) is not None


def test_equal_configs_are_one_key():
    assert config_key(with_value(TINY, "train", TrainConfig(epochs=150, seeds=(2, 0, 1)))) == config_key(TINY)


def test_bounded_in_bytes_least_recently_used_out(tmp_path):
    configs = [with_value(TINY, "train.epochs", e) for e in range(10, 60, 10)]
    too_small = open_archive("code", tmp_path, max_bytes=1)
    too_small.put(configs[0], _result(configs[0]))
    assert len(too_small) == 0  # a run alone larger than the bound is not kept
    archive = RunArchive(tmp_path / "b.sqlite3", "code", max_bytes=10**9)
    archive.put(configs[0], _result(configs[0]))
    one = archive.nbytes
    archive.max_bytes = 3 * one
    for cfg in configs[1:3]:
        archive.put(cfg, _result(cfg))
    assert archive.get(configs[0]) is not None  # now the most recently used
    archive.put(configs[3], _result(configs[3]))
    assert len(archive) == 3 and archive.nbytes <= 3 * one
    assert archive.get(configs[1]) is None and archive.get(configs[0]) is not None


def test_incomplete_runs_are_not_kept(tmp_path):
    archive = open_archive("code", tmp_path)
    archive.put(TINY, RunResult(TINY, complete=False))
    assert archive.get(TINY) is None and len(archive) == 0


def test_a_corrupt_entry_is_skipped_with_a_log_line_and_removed(tmp_path, caplog):
    archive = open_archive("code", tmp_path)
    archive.put(TINY, _result(TINY))
    db = sqlite3.connect(tmp_path / FILE_NAME)
    with db:
        db.execute("UPDATE runs SET result = substr(result, 1, 40)")  # truncated
    db.close()
    with caplog.at_level(logging.WARNING):
        assert archive.get(TINY) is None
    assert "does not decode" in caplog.text and len(archive) == 0


def test_a_file_that_is_not_a_database_is_moved_aside(tmp_path, caplog):
    (tmp_path / FILE_NAME).write_bytes(b"this is not SQLite" * 100)
    with caplog.at_level(logging.WARNING):
        archive = open_archive("code", tmp_path)
    assert archive is not None and "not a database" in caplog.text
    archive.put(TINY, _result(TINY))
    assert archive.get(TINY) is not None
    assert len(list(tmp_path.glob(f"{FILE_NAME}.corrupt-*"))) == 1


def test_where_nothing_can_be_written_the_server_keeps_runs_in_memory(tmp_path, caplog):
    blocked = tmp_path / "a-file"
    blocked.write_text("a file where the folder should be")
    with caplog.at_level(logging.WARNING):
        archive = open_archive("code", blocked / "data")
    assert archive is None and caplog.text.count("in memory only") == 1
    store = ResultStore(archive=archive)
    store.put(TINY, _result(TINY))
    assert store.get(TINY) is not None


def test_the_store_reads_the_archive_on_a_miss_and_survives_a_failing_one(tmp_path, caplog):
    archive = open_archive("code", tmp_path)
    ResultStore(archive=archive).put(TINY, _result(TINY))
    restarted = ResultStore(archive=open_archive("code", tmp_path))
    assert restarted.get(TINY) is not None and len(restarted) == 1  # now in memory too
    failing = ResultStore(archive=open_archive("code", tmp_path / "other"))
    failing.archive.close()  # every call on it now raises sqlite3.ProgrammingError
    with caplog.at_level(logging.WARNING):
        failing.put(TINY, _result(TINY))
        assert failing.get(TINY) is not None  # from memory
        assert failing.get(with_value(TINY, "train.epochs", 9)) is None
    assert "not archived" in caplog.text and "could not be read" in caplog.text


def test_the_bound_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("VITLAB_ARCHIVE_BYTES", "1000")
    assert archive_bytes() == 1000
    monkeypatch.setenv("VITLAB_ARCHIVE_BYTES", "lots")
    with pytest.raises(ValueError, match="VITLAB_ARCHIVE_BYTES.*'lots'"):
        archive_bytes()
