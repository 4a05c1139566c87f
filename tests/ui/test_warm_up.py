"""Imports one thread at a time: a page's modules before it runs (pyarrow and pandas first for a lesson), torch in
the background after the first page."""

import sys
import threading

import ui.warm_up
from ui.lesson_list import PAGES
from ui.warm_up import FIRST, IMPORTING, THREAD_NAME, WARMED, import_for, page_imports, warm_up


def test_a_pages_imports_are_its_own_statements_with_pyarrow_then_pandas_first_for_a_lesson():
    lesson = dict(page_imports("pages/3_ViT_vs_CNN.py", lesson=True))
    assert list(lesson)[:2] == list(FIRST) == ["pyarrow", "pandas"]
    assert {"ui.experiment_page", "ui.result_sections", "core.engine.running.train"} <= set(lesson)
    assert "model_figures" in lesson["ui.figures"]  # a submodule taken by name is imported too
    home = next(p for p in PAGES if p.home)
    assert not {"pandas", "pyarrow", "torch"} & set(dict(page_imports(home.page, lesson=False)))  # the wake's page


def test_a_page_imported_once_takes_no_lock_again():
    page = next(p for p in PAGES if p.module)
    import_for(page.page, lesson=True)
    assert all(module in sys.modules for module, _ in page_imports(page.page, True))
    held, done = threading.Event(), threading.Event()

    def hold():  # another thread importing for a long time
        with IMPORTING:
            held.set()
            done.wait(60)

    other = threading.Thread(target=hold)
    other.start()
    held.wait(60)
    finished = threading.Thread(target=import_for, args=(page.page, True))
    finished.start()
    finished.join(30)
    assert not finished.is_alive()  # it did not wait for the lock
    done.set()
    other.join(60)


def test_the_warm_up_starts_one_thread_per_process_and_imports_torch_alone():
    assert WARMED == ("torch",)  # nothing of the lab's, nothing a page imports first (ui/warm_up.py)
    warm_up()
    thread = ui.warm_up._thread
    warm_up()  # a later page, another session: nothing more
    assert ui.warm_up._thread is thread and thread.name == THREAD_NAME and thread.daemon
    thread.join(300)
    assert not thread.is_alive() and "torch" in sys.modules
