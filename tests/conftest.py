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


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium, driven by Playwright, for a module of browser tests (skipped without it,
    unless VITLAB_REQUIRE_BROWSER=1)."""
    from support.browser import CHROMIUM, CHROMIUM_ARGS, require_browser

    with require_browser()() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


# Every process a test starts inherits this: at the end, any still running is a service a test left behind
SESSION = os.environ.setdefault("VITLAB_TEST_SESSION", uuid.uuid4().hex)


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
