"""The replica image carries everything the app imports or reads, and nothing needs shared state."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_dockerfile_copies_every_runtime_package_the_pages_import():
    docker = (ROOT / "Dockerfile").read_text()
    copied = {line.split()[1].rstrip("/") for line in docker.splitlines() if line.startswith("COPY ")}
    needed = {"app.py", ".streamlit", "results", "pages", "requirements.txt"}
    for path in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py"),
                 *(ROOT / "core").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("core", "ui"):
                needed.add(node.module.split(".")[0])
    assert needed <= copied, needed - copied
    assert "tests" not in copied and "support" not in copied  # the runtime never needs them


def test_proxy_keeps_each_learner_on_one_replica():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "ip_hash;" in conf and "Upgrade $http_upgrade" in conf


def test_the_proxy_file_is_a_valid_include_as_shipped(tmp_path):
    """``nginx -t`` on a main file that includes deploy/nginx.conf unchanged, as conf.d would (its replica
    names resolved to this machine, since nginx checks that they resolve)."""
    import shutil
    import subprocess

    from support.services import NGINX, require

    require(NGINX)
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for name in sorted(set(__import__("re").findall(r"server (\w+):\d+;", conf))):
        conf = conf.replace(f"server {name}:", "server 127.0.0.1:")  # resolvable here; the file itself unchanged
    (tmp_path / "vitlab.conf").write_text(conf)
    temp = "".join(f"{k}_temp_path {tmp_path / k}; " for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(f"pid {tmp_path / 'nginx.pid'}; error_log {tmp_path / 'error.log'}; "
                                         f"events {{}} http {{ {temp} access_log off; include {tmp_path / 'vitlab.conf'}; }}")
    out = subprocess.run([shutil.which("nginx") or NGINX, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


def test_the_server_runs_on_httptools_and_uvloop():
    """requirements.txt installs httptools and uvloop; uvicorn (Streamlit's server) picks them over its
    pure-Python HTTP parser and event loop when they are importable. A first visit fetches ~100 static
    files from the server, so this is part of every page's first draw (README, "What the learner waits for")."""
    import sys

    import uvicorn

    config = uvicorn.Config(app=lambda scope, receive, send: None, http="auto", loop="auto", log_config=None)
    config.load()
    assert config.http_protocol_class.__module__ == "uvicorn.protocols.http.httptools_impl"
    if sys.platform != "win32":
        loop = config.get_loop_factory()()
        try:
            assert type(loop).__module__.startswith("uvloop")
        finally:
            loop.close()
    runtime = (ROOT / "requirements.txt").read_text()
    assert "\nhttptools" in runtime and "\nuvloop" in runtime
