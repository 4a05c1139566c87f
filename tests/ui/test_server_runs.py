"""ui/server_runs.py: alone, runs are archived on disk and trained in this process's pool; with a Redis
(VITLAB_REDIS_URL) the pages train on ``python -m core worker`` through it and replicas share the results."""

import json
import pickle
import sqlite3

import pytest

from core.engine.queue.queue_flights import QueueFlights
from core.engine.queue.queue_redis import connect
from core.engine.queue.redis_archive import RedisArchive
from core.engine.running.flights import Flights
from core.engine.storage.archive import FILE_NAME, RunArchive
from support.services import ARCHIVE_SECRET, REDIS_SERVER, redis_server, require, start_worker, stop
from tests.apptest_helpers import assert_clean, page
from ui.server_runs import result_store, run_flights

PAGE = "pages/3_ViT_vs_CNN.py"
LINK = {"models": "CNN", "n_train": "120", "n_test": "100", "epochs": "14", "seeds": "1"}


@pytest.fixture
def restart(tmp_path, monkeypatch):
    """``restart()``: a new server process (its caches gone), on an archive of this test's own."""
    monkeypatch.setenv("VITLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VITLAB_ARCHIVE_SECRET", ARCHIVE_SECRET)  # a class's replicas all have it

    def restart():
        result_store.clear()
        run_flights.clear()
        from ui import server_runs

        server_runs._redis.clear()
        server_runs._archive_redis.clear()

    restart()
    yield restart
    monkeypatch.delenv("VITLAB_REDIS_URL", raising=False)
    monkeypatch.delenv("VITLAB_ARCHIVE_URL", raising=False)
    restart()


def test_alone_runs_are_archived_on_disk_and_trained_here(restart, monkeypatch):
    monkeypatch.delenv("VITLAB_REDIS_URL", raising=False)
    assert isinstance(run_flights(), Flights) and isinstance(result_store().archive, RunArchive)


def test_with_a_redis_a_link_trains_on_a_worker_and_another_replica_shows_it_without_training(restart, monkeypatch,
                                                                                             tmp_path):
    require(REDIS_SERVER)
    with redis_server(tmp_path) as url:
        monkeypatch.setenv("VITLAB_REDIS_URL", url)
        restart()
        worker = start_worker(url, tmp_path / "worker.log")
        try:
            at = page(PAGE, timeout=180, query=LINK)
            assert_clean(at)
            flights = run_flights()
            assert isinstance(flights, QueueFlights) and flights.started == 1
            assert isinstance(result_store().archive, RedisArchive)
            assert "finished job" in (tmp_path / "worker.log").read_text() and connect(url).keys("vitlab:run:*")
            restart()  # the other replica: nothing in its memory
            at = page(PAGE, timeout=60, query=LINK)
            assert_clean(at)
            assert run_flights().started == 0 and not at.get("progress")
            at.button(key="predict_skip").click().run()
            assert [m.label for m in at.metric] == ["CNN · test set"]
            assert url not in str(at) and "redis://" not in "".join(m.value for m in at.markdown)
        finally:
            stop(worker)


def test_a_redis_that_cannot_be_reached_is_a_message_on_the_page_never_the_url(restart, monkeypatch):
    url = "redis://:do-not-show-me@127.0.0.1:1/0"  # nothing listens on port 1
    monkeypatch.setenv("VITLAB_REDIS_URL", url)
    restart()
    at = page(PAGE, timeout=60, query=LINK)
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert "Cannot train now: the training queue (Redis) cannot be reached" in error.replace("\\", "")
    assert "do-not-show-me" not in error


def _hacked_result(text: str) -> str:
    plain = json.loads(text)
    plain["rows"][0]["test_acc"] = "hacked"
    return json.dumps(plain)


@pytest.mark.parametrize("spoil", [
    lambda db: db.execute("UPDATE runs SET result = ?", (_hacked_result(db.execute("SELECT result FROM runs")
                                                                           .fetchone()[0]),)),
    lambda db: db.execute("UPDATE weights SET data = ?", (pickle.dumps({"evil": print}),)),
    lambda db: db.execute("UPDATE runs SET result = ?", ("{" * 10,)),
], ids=["a wrong type", "pickled weights", "truncated"])
def test_a_stored_run_that_is_not_usable_is_said_and_trained_again_never_a_traceback(restart, monkeypatch, tmp_path,
                                                                                       spoil):
    monkeypatch.delenv("VITLAB_REDIS_URL", raising=False)
    restart()
    assert_clean(page(PAGE, timeout=180, query=LINK))  # trained and archived
    db = sqlite3.connect(tmp_path / "data" / FILE_NAME)
    with db:
        spoil(db)  # another writer of the shared file
    db.close()
    restart()
    at = page(PAGE, timeout=180, query=LINK)
    assert_clean(at)
    assert any("could not be used, so it was deleted" in w.value for w in at.warning), [w.value for w in at.warning]
    at.button(key="predict_skip").click().run()
    assert_clean(at)
    assert [m.label for m in at.metric] == ["CNN · test set"]


def test_an_archive_redis_alone_keeps_runs_for_a_fresh_server_and_no_worker_trains(restart, monkeypatch, tmp_path):
    """A Community Cloud app: no persistent disk, no worker processes. With VITLAB_ARCHIVE_URL only, the page trains
    in its own process and the run goes to the Redis; a fresh server (another data folder) shows it without
    training."""
    from core.engine.queue.queue_redis import connect as connect_redis

    require(REDIS_SERVER)
    monkeypatch.delenv("VITLAB_REDIS_URL", raising=False)
    with redis_server(tmp_path, password="cloud-secret") as url:
        monkeypatch.setenv("VITLAB_ARCHIVE_URL", url)
        monkeypatch.setenv("VITLAB_DATA_DIR", str(tmp_path / "first"))
        restart()
        at = page(PAGE, timeout=180, query=LINK)
        assert_clean(at)
        assert isinstance(run_flights(), Flights) and run_flights().started == 1  # trained here, no queue
        assert isinstance(result_store().archive, RedisArchive) and connect_redis(url).keys("vitlab:run:*")
        assert not connect_redis(url).keys("vitlab:job:*")  # nothing was queued for a worker
        monkeypatch.setenv("VITLAB_DATA_DIR", str(tmp_path / "second"))  # a woken app: its disk is new
        restart()
        at = page(PAGE, timeout=60, query=LINK)
        assert_clean(at)
        assert run_flights().started == 0 and not at.get("progress")
        at.button(key="predict_skip").click().run()
        assert [m.label for m in at.metric] == ["CNN · test set"]
        assert "cloud-secret" not in str(at)


def test_an_archive_redis_that_refuses_the_password_costs_one_warning_and_the_page_works(restart, monkeypatch,
                                                                                       tmp_path, caplog):
    import logging

    require(REDIS_SERVER)
    monkeypatch.delenv("VITLAB_REDIS_URL", raising=False)
    with redis_server(tmp_path, password="right-one") as url:
        monkeypatch.setenv("VITLAB_ARCHIVE_URL", url.replace("right-one", "wrong-one"))
        restart()
        with caplog.at_level(logging.WARNING):
            at = page(PAGE, timeout=60)
            at.button(key="predict_skip").click().run()
        assert_clean(at)
        warned = [r.getMessage() for r in caplog.records if "kept in memory only" in r.getMessage()]
        assert len(warned) == 1 and "refused the password in VITLAB_ARCHIVE_URL" in warned[0]
        assert "wrong-one" not in caplog.text and "right-one" not in caplog.text
        assert result_store().archive is None and isinstance(run_flights(), Flights)


@pytest.mark.parametrize("variable", ["VITLAB_REDIS_URL", "VITLAB_ARCHIVE_URL"])
def test_a_malformed_redis_url_costs_one_warning_and_the_pages_work(restart, monkeypatch, caplog, variable):
    """Reproduction 10: a bad port in the URL gave a traceback with server paths on every page."""
    import logging

    monkeypatch.setenv(variable, "redis://:do-not-show-me@127.0.0.1:notaport/0")
    restart()
    with caplog.at_level(logging.WARNING):
        at = page(PAGE, timeout=60)
        at.button(key="predict_skip").click().run()
        assert_clean(at)
        assert_clean(page("pages/1_Patchify.py", timeout=60))
    warned = [r.getMessage() for r in caplog.records if "is not a Redis URL" in r.getMessage()]
    assert len(warned) == 1 and variable in warned[0] and "do-not-show-me" not in caplog.text
    assert result_store().archive is None and isinstance(run_flights(), Flights)


def test_a_class_redis_without_the_archive_secret_says_what_to_set(restart, monkeypatch, caplog, tmp_path):
    import logging

    require(REDIS_SERVER)
    monkeypatch.delenv("VITLAB_ARCHIVE_SECRET")
    with redis_server(tmp_path) as url:
        monkeypatch.setenv("VITLAB_REDIS_URL", url)
        restart()
        with caplog.at_level(logging.WARNING):
            assert_clean(page(PAGE, timeout=60))
    (warned,) = [r.getMessage() for r in caplog.records if "VITLAB_ARCHIVE_SECRET" in r.getMessage()]
    assert "is not set" in warned and "the same on every replica and worker" in warned
    assert isinstance(run_flights(), Flights) and result_store().archive is None


LURE = "[Your lab needs an update: click here](https://example.com/update)"


def test_text_from_a_shared_archive_is_shown_as_text_never_as_markdown(restart, monkeypatch, tmp_path):
    """Reproduction 9: a weights entry named as a markdown link became a clickable link in the page's warning."""
    monkeypatch.delenv("VITLAB_REDIS_URL", raising=False)
    restart()
    assert_clean(page(PAGE, timeout=180, query=LINK))  # trained and archived
    db = sqlite3.connect(tmp_path / "data" / FILE_NAME)
    with db:
        db.execute("UPDATE weights SET name = ?", (LURE + "/0",))  # another writer of the shared file
    db.close()
    restart()
    at = page(PAGE, timeout=60, query=LINK)
    assert_clean(at)
    assert any("could not be used, so it was deleted" in w.value for w in at.warning)
    shown_as_markdown = [m.value for m in [*at.warning, *at.markdown, *at.caption, *at.info, *at.error]]
    assert not any("example.com" in v for v in shown_as_markdown), shown_as_markdown
    assert any(LURE[:40] in t.value for t in at.text), [t.value for t in at.text]


def test_a_job_s_reason_from_redis_is_shown_as_text_never_as_markdown(restart, monkeypatch, tmp_path):
    """A failed job's reason is read from the shared Redis: on the page it makes no link."""
    import threading
    import time

    from core.engine.queue.queue_job import enqueue, new_job_id, update
    from core.engine.queue.queue_redis import setting_id
    from core.engine.setting.fingerprint import code_fingerprint
    from core.lessons.controls import config_from
    from core.lessons.lesson3_vit_vs_cnn import CONTROLS, PRESETS

    require(REDIS_SERVER)
    cfg = config_from(PRESETS["lesson"], CONTROLS, {"models": ["cnn"], "n_train": 120, "n_test": 100, "epochs": 14,
                                                    "seeds": 1})
    with redis_server(tmp_path) as url:
        monkeypatch.setenv("VITLAB_REDIS_URL", url)
        restart()
        redis = connect(url)
        setting = setting_id(cfg, code_fingerprint())
        job = new_job_id(setting, "0000abcd")
        enqueue(redis, job, setting, cfg.to_json(), 0, code_fingerprint())  # as if queued by another replica
        redis.set(f"vitlab:current:{setting}", job)

        def fail_once_watched() -> None:
            deadline = time.monotonic() + 300  # a condition: a loaded machine's page takes longer to watch
            while not redis.zcard(f"vitlab:watchers:{job}") and time.monotonic() < deadline:
                time.sleep(0.05)
            update(redis, job, status="failed", error=LURE + " **now**")

        hostile = threading.Thread(target=fail_once_watched)
        hostile.start()
        at = page(PAGE, timeout=120, query=LINK)
        hostile.join()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert "The run stopped before its result" in error and "](https" not in error and "**now" not in error
    assert "Your lab needs an update" in error


def test_a_hand_made_job_for_the_setting_is_passed_over_never_a_traceback(restart, monkeypatch, tmp_path):
    """Reproduction 5: a hand-made job hash named as the setting's current job crashed the page with a traceback
    and server paths."""
    from core.engine.queue.queue_redis import setting_id
    from core.engine.setting.fingerprint import code_fingerprint

    require(REDIS_SERVER)
    with redis_server(tmp_path) as url:
        monkeypatch.setenv("VITLAB_REDIS_URL", url)
        restart()
        worker = start_worker(url, tmp_path / "worker.log")
        try:
            assert_clean(page(PAGE, timeout=180, query=LINK))
            (cfg,) = list(result_store()._lru)
            redis = connect(url)
            setting = setting_id(cfg, code_fingerprint())
            for current, fields in (("x", {"data": "x", "status": "pwned"}),
                                    (f"vitlab-{setting}-0000beef", {"data": "x", "status": "pwned"}),
                                    (f"vitlab-{setting}-0000feed", {"status": "started", "progress": "[1, 2]"})):
                redis.delete(*redis.keys("vitlab:run:*"))
                redis.hset(f"vitlab:job:{current}", mapping=fields)
                redis.set(f"vitlab:current:{setting}", current)
                restart()
                at = page(PAGE, timeout=180, query=LINK)
                assert_clean(at)
                at.button(key="predict_skip").click().run()
                assert [m.label for m in at.metric] == ["CNN · test set"]
        finally:
            stop(worker)
