"""The ui package sets the server's torch thread count before a page computes anything."""

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_importing_the_pages_helpers_leaves_torch_one_thread():
    code = "import torch; before = torch.get_num_threads(); import ui; print(before, torch.get_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "OMP_NUM_THREADS": "2"}).stdout.split()
    assert out == ["2", "1"]


def test_importing_the_pages_helpers_first_leaves_torch_one_thread_when_it_comes():
    code = "import sys, ui; print('torch' in sys.modules); import torch; print(torch.get_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "OMP_NUM_THREADS": "2"}).stdout.split()
    assert out == ["False", "1"]
