"""The background import after the first page: torch alone, in one thread per process."""

import sys

import ui.warm_up
from ui.warm_up import THREAD_NAME, WARMED, warm_up


def test_the_warm_up_imports_no_module_of_the_lab():
    """A thread importing the lab's modules beside a page's script can be handed a half-imported module
    (ui/warm_up.py): it imports torch alone, which imports none of them. tests/test_class_load.py's fresh server
    is where such a failure shows, as a page's exception."""
    assert WARMED == ("torch",)


def test_the_warm_up_starts_one_thread_per_process_and_imports_torch():
    warm_up()
    thread = ui.warm_up._thread
    warm_up()  # a later page, another session: nothing more
    assert ui.warm_up._thread is thread and thread.name == THREAD_NAME and thread.daemon
    thread.join(300)
    assert not thread.is_alive() and "torch" in sys.modules
