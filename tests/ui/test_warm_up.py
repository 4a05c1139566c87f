"""The background imports after the first page: what the lesson pages import, torch first, in one thread per process."""

import sys

from ui.lesson_list import LESSONS
from ui.warm_up import THREAD_NAME, page_imports, warm_up


def test_the_warm_up_imports_torch_first_then_what_every_lesson_page_imports():
    modules = page_imports()
    assert next(iter(modules)) == "torch"
    assert {lesson.module for lesson in LESSONS} <= set(modules)
    assert {"ui.experiment_page", "ui.result_sections", "core.engine.running.train"} <= set(modules)  # pages 3-5's
    assert "model_figures" in modules["ui.figures"]  # a submodule taken by name is imported too


def test_the_warm_up_starts_one_thread_per_process_and_loads_every_module():
    import ui.warm_up

    warm_up()
    thread = ui.warm_up._thread
    warm_up()  # a later page, another session: nothing more
    assert ui.warm_up._thread is thread and thread.name == THREAD_NAME and thread.daemon
    thread.join(300)
    assert not thread.is_alive()
    assert [m for m in page_imports() if m not in sys.modules] == []
    assert "ui.figures.model_figures" in sys.modules
