"""Peak resident memory of the app process at the largest setting the ViT-vs-CNN sliders allow.

    python -m benchmarks.peak_memory

Runs the real page in AppTest (the same script runner a server uses), fills the form with the largest
value of every control that sets memory (3000 training and 600 test images, the widest training range
that leaves the test centres 3..4 unseen, 5..12 (a training step computes each distinct image once, and
that range has the most: 128), patch size 2, width 64, 8 heads, 4 layers, all four models, hybrid stem 16), and samples the resident memory of this process
and its training workers every 20 ms. Epochs and seeds do not change the peak (each worker trains
one pair at a time and the batch is the same every epoch), so they are kept at 10 and 1 to finish in
minutes rather than hours.
"""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from benchmarks.harness import PeakRss
from support.browser import ROOT


def main() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=3600)  # as a visitor: home, then the page
    at.switch_page("pages/3_ViT_vs_CNN.py")
    at.run()
    largest = {"n_train": 3000, "n_test": 600, "embed_dim": 64, "num_heads": 8, "depth": 4, "stem_channels": 16}
    for key, value in largest.items():
        (at.slider(key=key) if key in ("n_train", "n_test", "depth") else at.select_slider(key=key)).set_value(value)
    at.slider(key="train_range").set_value((5, 12))  # the widest that leaves the test centres 3..4 unseen
    at.select_slider(key="patch_size").set_value(2)
    at.multiselect(key="models").set_value(["vit", "cnn", "hybrid", "vit-prenorm"])
    at.slider(key="epochs").set_value(10)
    at.slider(key="seeds").set_value(1)
    with PeakRss() as peak:
        start = time.perf_counter()
        next(b for b in at.button if b.label == "Run").click().run()
        seconds = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    print(f"largest setting, 10 epochs, 1 seed: {seconds:.0f} s; peak resident memory of the app process "
          f"and its workers: {peak.peak / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
