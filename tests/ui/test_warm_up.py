"""The background import after the first page: torch and scipy.stats, in one thread per process."""

import subprocess
import sys

import ui.warm_up
from ui.warm_up import THREAD_NAME, WARMED, warm_up


def test_the_warm_up_imports_no_module_of_the_lab():
    """A thread importing the lab's modules beside a page's script can be handed a half-imported module
    (ui/warm_up.py): it imports torch and scipy.stats (the verdicts' statistics), which import none of them.
    tests/test_class_load.py's fresh server is where such a failure shows, as a page's exception."""
    assert WARMED == ("torch", "scipy.stats")
    code = "import sys; import torch, scipy.stats; print(sorted(m for m in sys.modules if m.split('.')[0] in ('core', 'ui')))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "[]"


def test_the_warm_up_starts_one_thread_per_process_and_imports_torch():
    warm_up()
    thread = ui.warm_up._thread
    warm_up()  # a later page, another session: nothing more
    assert ui.warm_up._thread is thread and thread.name == THREAD_NAME and thread.daemon
    thread.join(300)
    assert not thread.is_alive() and "torch" in sys.modules
