"""Refresh README's screenshots from the end-to-end run.

    python -m scripts.update_screenshots

Runs the browser tests that open every page by its URL (they save full-page shots to
artifacts/screenshots/), then keeps the top of each page, at half size, in docs/screenshots/.
"""

from __future__ import annotations

import subprocess
import sys

from PIL import Image

from support.browser import PAGES, ROOT

OUT = ROOT / "docs" / "screenshots"


def main() -> None:
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "e2e", "-k", "own_url", "tests/test_e2e_browser.py"],
                   cwd=ROOT, check=True)
    OUT.mkdir(parents=True, exist_ok=True)
    for path in PAGES:
        name = path or "home"
        image = Image.open(ROOT / "artifacts" / "screenshots" / f"{name}.png").convert("RGB")
        top = image.crop((0, 0, image.width, min(image.height, 2400)))
        top.resize((top.width // 2, top.height // 2), Image.LANCZOS).save(OUT / f"{name}.png", optimize=True)
        print(f"docs/screenshots/{name}.png")


if __name__ == "__main__":
    main()
