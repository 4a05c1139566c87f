import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tempfile  # noqa: E402

# Finished runs are archived on disk (core.engine.storage.archive): the tests' servers and pages keep theirs in a folder
# of this test session, never in the user's ~/.cache/vitlab
os.environ["VITLAB_DATA_DIR"] = tempfile.mkdtemp(prefix="vitlab-test-data-")


import time  # noqa: E402
import uuid  # noqa: E402

import pytest  # noqa: E402

# The fast tier, ``python -m pytest -m fast``: the pure unit tests, in these folders and files, with no server, browser,
# subprocess or training beyond a tiny preset (tests/test_architecture.py checks their imports); every other test is
# the full tier. A test marked slow, e2e, cloud or bench is never fast.
FAST = ("tests/nn/", "tests/data/", "tests/models/", "tests/inspect/", "tests/engine/results/", "tests/lessons/",
        "tests/engine/setting/test_fingerprint.py", "tests/engine/setting/test_planning.py",
        "tests/engine/setting/test_run_config.py", "tests/engine/storage/test_run_signature.py",
        "tests/engine/storage/test_stored_run.py", "tests/ui/figures/test_figures.py", "tests/ui/figures/test_margins.py",
        "tests/ui/figures/test_theme.py", "tests/ui/test_glossary.py", "tests/test_architecture.py")
HEAVY = ("slow", "e2e", "cloud", "bench")
# In those folders, but no unit test: threads racing, worker processes, every shipped run read or judged whole, the
# command line end to end (each over a second: python -m pytest -m fast --durations=40, docs/tests.md)
NOT_FAST = ("tests/lessons/test_claims.py", "test_claim_checks.py::test_the_claims_document_has_checks",
            "test_seeded.py::test_concurrent_seeded_calls", "test_shipped.py::test_the_shipped_results_are_read_one_at",
            "test_shipped.py::test_every_preset_through_the_form", "test_lesson4_fixing_the_vit.py::test_cli_prints",
            "test_glossary.py::test_every_verdict_opens", "test_trained_model.py::test_weights_come_back_from_worker")


def pytest_collection_modifyitems(config, items):
    """Mark the fast tier; ``config.vitlab_tiers``: each collected test's tier, "fast" or "full", read by
    tests/test_architecture.py's budget test (tests/fast_durations.json)."""
    config.vitlab_tiers = {}
    for item in items:
        path = os.path.relpath(str(item.fspath), ROOT).replace(os.sep, "/")
        if (path.startswith(FAST) and not any(item.get_closest_marker(m) for m in HEAVY)
                and not any(x in item.nodeid for x in NOT_FAST)):
            item.add_marker(pytest.mark.fast)
        config.vitlab_tiers[item.nodeid] = "fast" if item.get_closest_marker("fast") else "full"
    # The longest first, each module's tests still together: under ``-n 2`` the two workers end near the same time
    # rather than one finishing a minute-long browser walk alone (the tests with a browser, then the rest of the
    # full tier, then the fast tier)
    items.sort(key=lambda i: 0 if "browser" in getattr(i, "fixturenames", ()) or i.get_closest_marker("e2e")
               or i.get_closest_marker("cloud") else 2 if i.get_closest_marker("fast") else 1)


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium, driven by Playwright, for a module of browser tests (skipped without it,
    unless VITLAB_REQUIRE_BROWSER=1)."""
    from support.browser import CHROMIUM, CHROMIUM_ARGS, require_browser

    with require_browser()() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


# Every process a test starts inherits this: at the end, any still running is a service a test left behind. Under
# pytest-xdist each worker process is a session of its own (the other worker's services are not yet done at its end).
SESSION = os.environ.setdefault("VITLAB_TEST_SESSION", uuid.uuid4().hex)
if os.environ.get("PYTEST_XDIST_WORKER"):
    SESSION = os.environ["VITLAB_TEST_SESSION"] = f"{SESSION}-{os.environ['PYTEST_XDIST_WORKER']}"


def pytest_sessionfinish(session, exitstatus):
    """Every process a test started (redis-server, nginx and its workers, ``python -m core worker``, a Streamlit
    server, a pool's training worker) ends with its test: one still running now fails the suite, named, and is
    ended."""
    from support.services import leftover_services

    deadline = time.monotonic() + 10  # a process being stopped gets a moment to go
    while (left := leftover_services(SESSION)) and time.monotonic() < deadline:
        time.sleep(0.5)
    if left:
        for line in left:
            try:
                os.kill(int(line.split()[0]), 9)
            except OSError:
                pass
        print("\nservices still running after the suite (ended now):\n  " + "\n  ".join(left), file=sys.stderr)
        session.exitstatus = 1
