"""Real services for the tests and benchmarks that need them, started on free local ports: Debian's
``redis-server``, ``python -m core worker`` processes on it, and Debian's ``nginx`` in front of replicas
with the repository's ``deploy/nginx.conf``.

Without ``redis-server`` the tests that need it are skipped, unless ``VITLAB_REQUIRE_SERVICES=1`` (as
``.ci/run`` sets, after installing it): there a missing service is a failure, never a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from support.browser import ROOT, free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DEPLOY_CONF = ROOT / "deploy" / "nginx.conf"


def require(program: str) -> None:
    """Skip the calling test when ``program`` is missing (fail instead under VITLAB_REQUIRE_SERVICES=1)."""
    import pytest

    if not Path(program).exists() and shutil.which(program) is None:
        if os.environ.get("VITLAB_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{program} is missing (VITLAB_REQUIRE_SERVICES=1): apt-get install it")
        pytest.skip(f"{program} is not installed")


@contextmanager
def redis_server(directory: Path, password: str | None = None, maxmemory: str = "256mb", port: int | None = None):
    """A Redis on ``port`` (default: a free one), its files in ``directory``; yields its URL. ``maxmemory`` with
    ``allkeys-lru``: as a class's Redis should be set (README, *Hosting for a class*). No persistence: a Redis
    started again on the same port begins empty, as a restarted Redis without its data does."""
    port = port or free_port()
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
            try:  # this process's Redis: another one on the port (it could not bind) would answer the ping too
                if int(client.info("server")["process_id"]) != proc.pid:
                    raise RuntimeError(f"another Redis answers on port {port}")
                break
            except redis.exceptions.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start (exit status {proc.poll()})") from None
                time.sleep(0.05)
        yield url
    finally:
        proc.kill()
        proc.wait()


ARCHIVE_SECRET = "tests-archive-secret-0123456789abcdef"  # the tests' class: every replica and worker has it


def class_env(url: str) -> dict[str, str]:
    """What every replica and worker of a class on the Redis at ``url`` is given: its URL and the archive secret."""
    return {"VITLAB_REDIS_URL": url, "VITLAB_ARCHIVE_SECRET": ARCHIVE_SECRET}


def start_worker(url: str, log: Path, *extra: str, env: dict | None = None) -> subprocess.Popen:
    """``python -m core worker`` on ``url``, its output in ``log``."""
    environment = {**os.environ, **class_env(url), "PYTHONPATH": str(ROOT), **(env or {})}
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "core", "worker", *extra], cwd=ROOT, env=environment,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    """End a process and everything it started (its session: started with ``start_new_session``), even when
    the process itself has ended already and left children behind."""
    try:
        os.killpg(proc.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


SESSION_VARIABLE = "VITLAB_TEST_SESSION"  # set by tests/conftest.py; every process a test starts inherits it


def leftover_services(session: str) -> list[str]:
    """The processes still running that carry ``session`` in their environment (every process a test session
    started, and what those started): "pid command". Another session's processes are not this one's."""
    token = f"{SESSION_VARIABLE}={session}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if token not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if "-m core.engine.running.worker" in command and _descends_from(int(entry.name), os.getpid()):
            continue  # this process's own training pool: its workers end with it (core/engine/running/worker.py)
        found.append(f"{entry.name} {command[:120]}")
    return found


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return False
    return False


def nginx_config(upstreams: list[str], port: int, directory: Path) -> str:
    """``deploy/nginx.conf`` as it is, but for its replicas' and listening addresses, inside the main file
    nginx needs to run as a test's own process (its files in ``directory``; each request's upstream logged)."""
    site = DEPLOY_CONF.read_text()
    servers = "".join(f"    server {u};\n" for u in upstreams)
    site, n = re.subn(r"(?m)^\s*server [\w.-]+:\d+;\n", "", site)
    if not n:
        raise ValueError(f"{DEPLOY_CONF} names no upstream server to replace")
    site = site.replace("ip_hash;\n", "ip_hash;\n" + servers, 1)
    site, n = re.subn(r"listen \d+;", f"listen 127.0.0.1:{port};", site)
    if n != 1:
        raise ValueError(f"{DEPLOY_CONF} should have one 'listen' line, found {n}")
    temp = "".join(f"    {kind}_temp_path {directory / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                           "scgi"))
    user = "user root;\n" if hasattr(os, "geteuid") and os.geteuid() == 0 else ""
    return (f"{user}worker_processes 1;\ndaemon off;\npid {directory / 'nginx.pid'};\nerror_log {directory / 'error.log'};\n"
            f"events {{ worker_connections 1024; }}\nhttp {{\n{temp}"
            f"    log_format upstream '$upstream_addr $request_uri';\n"
            f"    access_log {directory / 'access.log'} upstream;\n{site}}}\n")


@contextmanager
def nginx_proxy(upstreams: list[str], directory: Path):
    """nginx on a free port in front of ``upstreams`` ("127.0.0.1:8501", ...); yields (its URL, the access
    log's path: one line per request, the replica that served it first)."""
    port = free_port()
    conf = directory / "nginx.conf"
    conf.write_text(nginx_config(upstreams, port, directory))
    proc = subprocess.Popen([NGINX, "-p", str(directory), "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, start_new_session=True)  # its workers in its group: stop() ends all
    url = f"http://127.0.0.1:{port}"
    try:
        import urllib.request

        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    error = (directory / "error.log").read_text() if (directory / "error.log").exists() else ""
                    raise RuntimeError(f"nginx did not start (exit status {proc.poll()}): {error[-1000:]}") from None
                time.sleep(0.1)
        yield url, directory / "access.log"
    finally:
        stop(proc)  # the master and its worker processes (a killed master leaves its workers running)
