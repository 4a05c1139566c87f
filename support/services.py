"""Real services for the tests and benchmarks that need them, started on free local ports: Debian's
``redis-server`` and ``python -m core worker`` processes on it.

Without ``redis-server`` the tests that need it are skipped, unless ``VITLAB_REQUIRE_SERVICES=1`` (as
``.ci/run`` sets, after installing it): there a missing service is a failure, never a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from support.browser import ROOT, free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def require(program: str) -> None:
    """Skip the calling test when ``program`` is missing (fail instead under VITLAB_REQUIRE_SERVICES=1)."""
    import pytest

    if not Path(program).exists() and shutil.which(program) is None:
        if os.environ.get("VITLAB_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{program} is missing (VITLAB_REQUIRE_SERVICES=1): apt-get install it")
        pytest.skip(f"{program} is not installed")


@contextmanager
def redis_server(directory: Path, password: str | None = None, maxmemory: str = "256mb"):
    """A Redis on a free port, its files in ``directory``; yields its URL. ``maxmemory`` with ``allkeys-lru``:
    as a class's Redis should be set (README, *Hosting for a class*)."""
    port = free_port()
    args = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory), "--save", "",
            "--appendonly", "no", "--maxmemory", maxmemory, "--maxmemory-policy", "allkeys-lru"]
    if password:
        args += ["--requirepass", password]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"redis://{':' + password + '@' if password else ''}127.0.0.1:{port}/0"
    try:
        import redis

        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start (exit status {proc.poll()})") from None
                time.sleep(0.05)
        yield url
    finally:
        proc.kill()
        proc.wait()


def start_worker(url: str, log: Path, *extra: str, env: dict | None = None) -> subprocess.Popen:
    """``python -m core worker`` on ``url``, its output in ``log``."""
    environment = {**os.environ, "VITLAB_REDIS_URL": url, "PYTHONPATH": str(ROOT), **(env or {})}
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "core", "worker", *extra], cwd=ROOT, env=environment,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    """End a process and everything it started (its session)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
    proc.wait()
