import functools
import json
import logging
import sqlite3

import pytest

from core.engine.results.run_result import RunResult
from core.engine.running.run import run
from core.engine.setting.run_config import TrainConfig, with_value
from core.engine.storage.archive import FILE_NAME, RunArchive, archive_bytes, config_key, open_archive
from core.engine.storage.run_signature import KEY_FILE, SECRET_VARIABLE, signature
from core.engine.storage.store import ResultStore
from core.engine.storage.stored_run import UnusableRun
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from support.hostile_runs import hostile_rows
from support.memory import peak_bytes

SECRET = b"an-archive-secret-for-tests"
TINY = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=5, seeds=(0,))), "models", ("cnn",))


@functools.cache
def _result(cfg, n=1):
    """A real run of ``cfg`` with ``n`` seeds (an archive shows nothing less: core.engine.storage.stored_run)."""
    return run(with_value(cfg, "train.seeds", tuple(range(n))), workers=0)


def test_a_run_survives_a_new_archive_on_the_same_file_with_its_weights(tmp_path):
    cfg = with_value(TINY, "train.seeds", (0, 1))
    open_archive("code-a", tmp_path).put(cfg, _result(cfg, n=2))
    again = open_archive("code-a", tmp_path)  # a restarted server
    result = again.get(cfg)
    assert result is not None and result.config == cfg and result.rows == _result(cfg, n=2).rows
    assert result.weights == _result(cfg, n=2).weights and set(result.weights) == {"cnn/0", "cnn/1"}
    assert again.get(with_value(cfg, "train.epochs", 8)) is None


def test_other_training_code_is_never_served(tmp_path):
    open_archive("code-a", tmp_path).put(TINY, _result(TINY))
    assert open_archive("code-b", tmp_path).get(TINY) is None
    assert open_archive("code-a", tmp_path).get(TINY) is not None


def test_equal_configs_are_one_key():
    assert config_key(with_value(TINY, "train", TrainConfig(epochs=5, seeds=(0, 0)))) == config_key(TINY)


def test_bounded_in_bytes_least_recently_used_out(tmp_path):
    configs = [with_value(TINY, "train.lr", lr) for lr in (1e-3, 2e-3, 3e-3, 4e-3)]  # runs of one size, or nearly
    too_small = open_archive("code", tmp_path, max_bytes=1)
    too_small.put(configs[0], _result(configs[0]))
    assert len(too_small) == 0  # a run alone larger than the bound is not kept
    archive = RunArchive(tmp_path / "b.sqlite3", "code", SECRET, max_bytes=10**9)
    for cfg in configs:
        archive.put(cfg, _result(cfg))
    one = archive.nbytes // 4 + 64  # the mean run, and room for the few bytes a run's numbers differ by
    archive = RunArchive(tmp_path / "c.sqlite3", "code", SECRET, max_bytes=3 * one)
    archive.put(configs[0], _result(configs[0]))
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


def _spoil(path, text: str, weights: dict, secret: bytes | None = None) -> None:
    """Another writer of the shared file replaces the stored run's result and weights (signed with ``secret``
    where given: one who holds the secret, or a bug in the lab's own writing)."""
    signed = None if secret is None else signature(secret, "code", config_key(TINY), text, weights)
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE runs SET result = ?, sig = ?", (text, signed))
        db.execute("DELETE FROM weights")
        db.executemany("INSERT INTO weights VALUES (?, ?, ?, ?)",
                       [(config_key(TINY), "code", name, data) for name, data in weights.items()])
    db.close()


@pytest.mark.parametrize("case", list(hostile_rows(_result(TINY))))
def test_a_row_that_is_not_usable_is_logged_deleted_and_read_as_a_miss(tmp_path, caplog, case, capsys):
    """Each case signed with the archive's own secret: what is checked beyond the signature holds too."""
    archive = open_archive("code", tmp_path)
    text, weights = hostile_rows(_result(TINY))[case]
    archive.put(TINY, _result(TINY))
    _spoil(tmp_path / FILE_NAME, text, weights, archive.secret)
    with pytest.raises(UnusableRun):
        archive.get(TINY)
    assert len(archive) == 0 and "code ran" not in capsys.readouterr().out  # deleted, and no pickle ran
    archive.put(TINY, _result(TINY))
    _spoil(tmp_path / FILE_NAME, text, weights, archive.secret)
    store = ResultStore(archive=archive)
    with caplog.at_level(logging.WARNING):
        assert store.get(TINY) is None  # the store: a log line and a miss, the reason kept for the page
    assert "not usable" in caplog.text and (store.unusable(TINY) or "") != "" and len(archive) == 0


def test_an_empty_file_is_logged_and_begun_anew(tmp_path, caplog):
    (tmp_path / FILE_NAME).write_bytes(b"")
    with caplog.at_level(logging.WARNING):
        archive = open_archive("code", tmp_path)
    assert archive is not None and "empty file" in caplog.text
    archive.put(TINY, _result(TINY))
    assert archive.get(TINY) is not None


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
        assert failing.get(with_value(TINY, "train.epochs", 6)) is None
    assert "not archived" in caplog.text and "could not be read" in caplog.text


def test_the_bound_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("VITLAB_ARCHIVE_BYTES", "1000")
    assert archive_bytes() == 1000
    monkeypatch.setenv("VITLAB_ARCHIVE_BYTES", "lots")
    with pytest.raises(ValueError, match="VITLAB_ARCHIVE_BYTES.*'lots'"):
        archive_bytes()


def _forged(result: RunResult) -> str:
    """The run's JSON with the first row's test accuracy set to 12.5 %: well formed, and false."""
    plain = json.loads(json.dumps(result.to_json()))
    plain["rows"][0]["test_acc"] = 0.125
    return json.dumps(plain)


def test_a_forged_or_unsigned_row_is_never_served(tmp_path, monkeypatch):
    """Reproduction 8 on SQLite: a well-formed run with a false accuracy was shown as computed."""
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    archive = open_archive("code", tmp_path)
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o077 == 0  # the secret a server alone made, for its user only
    good = _result(TINY)
    for secret, why in ((None, "not signed"), (b"someone-else's secret", "signature does not match")):
        archive.put(TINY, good)
        _spoil(tmp_path / FILE_NAME, _forged(good), good.weights, secret)
        with pytest.raises(UnusableRun, match=why):
            archive.get(TINY)
        assert len(archive) == 0
    archive.put(TINY, good)  # the server's own run, after a restart: the same secret, kept beside the file
    assert open_archive("code", tmp_path).get(TINY).rows == good.rows


def test_a_forged_row_signed_with_the_secret_still_fails_the_completeness_check(tmp_path):
    archive = open_archive("code", tmp_path)
    good = _result(TINY)
    archive.put(TINY, good)
    _spoil(tmp_path / FILE_NAME, _forged(good), good.weights, archive.secret)
    with pytest.raises(UnusableRun, match="not the share of its test predictions"):
        archive.get(TINY)


def test_a_huge_weights_value_is_measured_not_read(tmp_path):
    """Reproduction 7 on SQLite: every value's length is measured before it is read."""
    archive = open_archive("code", tmp_path)
    archive.put(TINY, _result(TINY))
    db = sqlite3.connect(tmp_path / FILE_NAME)
    with db:
        db.execute("UPDATE weights SET data = zeroblob(64 * 1024 * 1024)")
    db.close()
    peak = peak_bytes(lambda: pytest.raises(UnusableRun, archive.get, TINY).match("bytes, over the"))
    assert peak < 8 * 2**20, peak


def test_an_archive_file_from_before_signing_is_upgraded_and_its_runs_trained_again(tmp_path):
    db = sqlite3.connect(tmp_path / FILE_NAME)
    db.executescript("CREATE TABLE runs (config TEXT NOT NULL, fingerprint TEXT NOT NULL, result TEXT NOT NULL, "
                     "nbytes INTEGER NOT NULL, used REAL NOT NULL, PRIMARY KEY (config, fingerprint));")
    db.execute("INSERT INTO runs VALUES (?, 'code', ?, 1, 0)", (config_key(TINY), json.dumps(_result(TINY).to_json())))
    db.commit()
    db.close()
    archive = open_archive("code", tmp_path)
    with pytest.raises(UnusableRun, match="not signed"):
        archive.get(TINY)
    archive.put(TINY, _result(TINY))
    assert archive.get(TINY) is not None
