"""Replicas, run for real: a real Redis (Debian's redis-server), a ``python -m core worker``, two Streamlit
replicas with the same cookie secret, and a real nginx (Debian's) with ``deploy/nginx.conf``, driven by a
real browser through the proxy.

A link to a setting nobody has run trains on the worker; a second browser on the other replica gets the same
run from the shared store without a job; the replica serving the first learner is killed and the learner's
reload (the settings are in the URL) lands on the other, with the same settings and result, still without
a job. Skipped without the services or the browser, unless .ci/run's VITLAB_REQUIRE_SERVICES=1 and
VITLAB_REQUIRE_BROWSER=1 make that a failure.
"""

import re
from contextlib import ExitStack

import pytest

from support.browser import CHROMIUM, CHROMIUM_ARGS, require_browser, revealed_metric, streamlit_server
from support.services import NGINX, REDIS_SERVER, class_env, nginx_proxy, redis_server, require, start_worker, stop

sync_playwright = require_browser()
pytestmark = pytest.mark.e2e

LINK = "/ViT_vs_CNN?models=CNN&n_train=120&n_test=100&epochs=16&seeds=1"  # a setting no one has run
SECRET = "the-same-secret-on-every-replica"


def jobs_done(log) -> int:
    return log.read_text().count("finished job")


def result_of(page) -> str:
    return revealed_metric(page, "CNN · test set")


def test_two_replicas_behind_nginx_share_one_redis_and_its_worker(tmp_path):
    require(REDIS_SERVER)
    require(NGINX)
    with ExitStack() as stack:
        url = stack.enter_context(redis_server(tmp_path))
        worker_log = tmp_path / "worker.log"
        worker = start_worker(url, worker_log)
        stack.callback(stop, worker)
        replicas = []
        for i in range(2):
            env = {**class_env(url), "VITLAB_DATA_DIR": str(tmp_path / f"data{i}"),
                   "STREAMLIT_SERVER_COOKIE_SECRET": SECRET}
            base, _, proc = stack.enter_context(streamlit_server(env=env))
            replicas.append((base, proc))
        proxy_dir = tmp_path / "nginx"
        proxy_dir.mkdir()
        proxy, access = stack.enter_context(nginx_proxy([b.removeprefix("http://") for b, _ in replicas], proxy_dir))
        p = stack.enter_context(sync_playwright())
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        stack.callback(browser.close)

        # A learner opens the link through the proxy: it trains, on the worker
        first = browser.new_page()
        first.goto(proxy + LINK)
        seen = result_of(first)
        assert jobs_done(worker_log) == 1, worker_log.read_text()[-2000:]
        # (the websocket is logged when it closes: the page's other requests name the replica, ip_hash
        # sends them all to one)
        served = re.findall(r"^(\S+) /", access.read_text(), re.M)
        assert served, access.read_text()[-2000:]
        serving = next(i for i, (b, _) in enumerate(replicas) if b.endswith(served[-1]))
        other = 1 - serving

        # Another learner on the other replica: the same run, from the shared store, no job
        second = browser.new_page()
        second.goto(replicas[other][0] + LINK)
        assert result_of(second) == seen and jobs_done(worker_log) == 1

        # The first learner's replica dies; their reload lands on the other one, same settings and result
        replicas[serving][1].kill()
        replicas[serving][1].wait()
        first.reload()
        assert result_of(first) == seen and jobs_done(worker_log) == 1
        assert "epochs=16" in first.url and "n_train=120" in first.url
        assert first.locator("[data-testid=stException]").count() == 0
        served = re.findall(r"^(\S+) /", access.read_text(), re.M)
        assert replicas[other][0].endswith(served[-1].split(", ")[-1])
