"""Community Cloud readiness: requirements.txt alone, in a fresh virtual environment, serves every page.

Slow (installs torch into the venv from the local wheel): marked ``cloud``. Skipped without Chromium
unless VITLAB_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.browser import CHROMIUM, CHROMIUM_ARGS, PAGES, ROOT, require_browser, streamlit_server, wait_for_charts

pytestmark = pytest.mark.cloud

sync_playwright = require_browser()

DEV_ONLY = ("pytest", "hypothesis", "ruff", "playwright")


def test_runtime_requirements_alone_serve_every_page(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # --no-compile: no bytecode for the whole of torch up front (what the pages import compiles as it is imported)
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile", "-r",
                    str(ROOT / "requirements.txt")], check=True, timeout=900)
    installed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True,
                               check=True).stdout.lower()
    assert "streamlit==" in installed and "torch==" in installed
    assert "httptools==" in installed and "uvloop==" in installed  # the server's fast HTTP layer (test_deploy)
    assert not [p for p in DEV_ONLY if f"\n{p}==" in f"\n{installed}"], installed

    with streamlit_server(python=python) as (url, _, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for path, (title, min_charts) in PAGES.items():
            page = browser.new_page()
            page.goto(f"{url}/{path}")
            page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
            wait_for_charts(page, min_charts, timeout=120)  # lesson 4 draws its charts after the prediction
            assert page.locator("[data-testid=stException]").count() == 0, path
            page.close()
        browser.close()
