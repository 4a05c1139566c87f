"""The layers, enforced: imports only go down, core never reaches Streamlit or the UI, no cycles, and
model names are compared only inside the registry."""

import ast
import re
from pathlib import Path

import pytest

from core.models.registry import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
# core's packages, bottom to top: a package imports only itself and those before it
LAYERS = ["nn", "data", "models", "engine", "inspect", "lessons", "export"]
# core.engine's concerns, bottom to top: what a run is and may cost, what it produced, runs kept, running it, a class's
# queue; and in each, its modules bottom to top. A module imports only the engine's modules before it.
ENGINE = {
    "setting": ["typed_json", "machine", "fingerprint", "run_config", "planning"],
    "results": ["run_result", "behaviour", "units", "verdict"],
    "storage": ["stored_run", "run_signature", "archive", "store"],
    "running": ["train", "worker", "pool", "run", "flights"],
    "queue": ["queue_redis", "queue_job", "redis_archive", "queue_worker", "queue_flights"],
}
ENGINE_ORDER = [f"{package}.{module}" for package, modules in ENGINE.items() for module in modules]


def imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports inside functions count too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


CORE = {module_name(p): p for p in (ROOT / "core").rglob("*.py")}


@pytest.mark.parametrize("name", sorted(CORE))
def test_core_never_imports_streamlit_or_the_ui(name):
    bad = {m for m in imports(CORE[name]) if m.split(".")[0] in ("streamlit", "ui", "pages", "tests", "benchmarks")}
    assert not bad, f"{name} imports {bad}"


def test_core_is_its_layers_and_the_command_line():
    top = {p.name for p in (ROOT / "core").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert top == set(LAYERS), top
    assert {p.name for p in (ROOT / "core").glob("*.py")} == {"__init__.py", "__main__.py", "cli.py"}


@pytest.mark.parametrize("layer", LAYERS)
def test_packages_import_only_the_layers_below(layer):
    allowed = {f"core.{lower}" for lower in LAYERS[:LAYERS.index(layer) + 1]}
    for name, path in CORE.items():
        if name.startswith(f"core.{layer}."):
            above = {m for m in imports(path) if m.startswith("core.") and ".".join(m.split(".")[:2]) not in allowed}
            assert not above, f"{name} imports {above}, which are not below it"


def test_engine_imports_only_go_down():
    for i, layer in enumerate(ENGINE_ORDER):
        allowed = {f"core.engine.{lower}" for lower in ENGINE_ORDER[:i]} | {f"core.engine.{layer.split('.')[0]}"}
        engine_imports = {m for m in imports(CORE[f"core.engine.{layer}"]) if m.startswith("core.engine.")}
        above = {m for m in engine_imports if not any(m == a or m.startswith(a + ".") for a in allowed)}
        assert not above, f"core.engine.{layer} imports {above}, which are not below it"
    found = {f"{p.parent.name}.{p.stem}" for p in (ROOT / "core" / "engine").glob("*/*.py") if p.stem != "__init__"}
    assert set(ENGINE_ORDER) == found and not [p.name for p in (ROOT / "core" / "engine").glob("*.py")
                                                if p.stem != "__init__"]


def test_no_two_modules_share_a_name():
    """A name says its layer: grep, tracebacks and a newcomer's search each find one file."""
    stems: dict[str, list[str]] = {}
    for d in ("core", "ui", "pages", "benchmarks", "scripts", "support"):
        for path in (ROOT / d).rglob("*"):
            if path.suffix == ".py" and path.stem not in ("__init__", "__main__") or path.is_dir() and path.name != "__pycache__":
                stems.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
    assert not {s: ps for s, ps in stems.items() if len(ps) > 1}


def test_no_import_cycle_in_core():
    graph = {name: {m for m in imports(p) if m in CORE} - {name} for name, p in CORE.items()}
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack + [nxt]))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])


def test_ui_and_pages_do_not_import_upwards():
    for path in (ROOT / "ui").glob("*.py"):
        assert not [m for m in imports(path) if m.split(".")[0] in ("pages", "tests", "benchmarks")], path


def test_model_names_are_compared_only_in_the_registry():
    names = "|".join(re.escape(n) for n in REGISTRY)
    compare = re.compile(rf"""(==|!=|\bin)\s*\(?\s*["']({names})["']|["']({names})["']\s*(==|!=)""")
    files = [p for d in ("core", "ui", "pages") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    offenders = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in files if p.name != "registry.py"
                 for line in p.read_text().splitlines() if compare.search(line)]
    assert not offenders, offenders


def test_pages_build_no_figures_themselves():
    for path in (ROOT / "pages").glob("*.py"):
        text = path.read_text()
        assert "go.Figure" not in text and "add_trace" not in text and "update_layout" not in text, path
        assert "plotly" not in " ".join(imports(path)), path


def test_charts_are_sent_in_one_place():
    """ui.widgets.plot sends every chart (the lab's look, drawn once in the browser: ui.figures.theme)."""
    files = [p for d in ("ui", "pages") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    senders = [f"{p.relative_to(ROOT)}:{i}" for p in files for i, line in enumerate(p.read_text().splitlines(), 1)
               if ".plotly_chart(" in line]
    assert senders == [next(f"ui/widgets.py:{i}" for i, line in enumerate((ROOT / "ui" / "widgets.py").read_text()
                                                                          .splitlines(), 1) if ".plotly_chart(" in line)]


def test_static_tables_are_html_tables_not_markdown_cells():
    """ui.widgets.static_table draws every static table as one HTML element: st.table draws each cell as a
    Markdown element (lesson 4's answers were 130 of them, more than the tab's charts cost)."""
    files = [p for d in ("ui", "pages") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    assert [f"{p.relative_to(ROOT)}:{i}" for p in files for i, line in enumerate(p.read_text().splitlines(), 1)
            if ".table(" in line] == []


SETTING_WIDGETS = {"slider", "select_slider", "radio", "selectbox", "multiselect", "number_input", "toggle", "checkbox",
                   "text_input", "segmented_control", "pills"}
# a learner's own answers: a shared link must not carry them (prediction_key: ui.prediction_gate.predict_first's widget)
# the learner's answers; the class editor's and split painter's tools (which class is open, the brush): what they
# edit, the classes and the split, is in the link (own_classes, own_split)
NOT_IN_THE_LINK = ("predict", "answer_", "bench_predict", "prediction_key", "own_edit_")


def test_every_setting_control_is_in_the_link():
    """Each keyed control of every page is bound to the URL's query parameters (bind=URL), so a link
    reproduces the page: only the learner's answers are left out, on purpose."""
    unbound = []
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            linked_by_name = isinstance(node.func, ast.Name) and node.func.id == "named"  # ui.url_state.named
            if not (linked_by_name or isinstance(node.func, ast.Attribute) and node.func.attr in SETTING_WIDGETS):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            if "key" not in kw:
                continue
            key = ast.unparse(kw["key"])
            if ("bind" not in kw and not linked_by_name
                    and not any(key.strip("f'\"").startswith(p) for p in NOT_IN_THE_LINK)):
                unbound.append(f"{path.name}:{node.lineno} key={key}")
    assert not unbound, unbound


def test_no_two_pages_share_a_control_key():
    """A control bound to the URL keeps its value in the session when its page is left, so a key shared
    by two pages would carry one page's value into the other (a width of 17 into a form that needs a
    multiple of the heads). The sidebar's shared switches (ui/) are the same control on every page."""
    owner: dict[str, str] = {}
    clashes = []
    for path in sorted((ROOT / "pages").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SETTING_WIDGETS:
                key = next((k.value for k in node.keywords if k.arg == "key"), None)
                if isinstance(key, ast.Constant):
                    if owner.setdefault(key.value, path.name) != path.name:
                        clashes.append((key.value, owner[key.value], path.name))
    assert not clashes, clashes


def test_lesson_modules_import_the_shared_parts_never_each_other():
    """What lessons 3, 4 and 5 share is in core/lessons/experiment_parts.py; a lesson module importing another
    lesson's would tie the two together (what_broke.py is lesson 3's own)."""
    lessons = sorted((ROOT / "core" / "lessons").glob("lesson[0-9]_*.py"))
    crossing = [f"{p.name} imports {m}" for p in lessons for m in imports(p)
                if m.startswith("core.lessons.lesson") and m.split(".")[2] != p.stem]
    assert not crossing, crossing


# Modules tested through another's test file (the file named), not one of their own: a new module is not on this
# list, so it needs tests/<package>/test_<module>.py
TESTED_ELSEWHERE = {
    "core/engine/results/run_result.py": "tests/engine/test_run.py, test_stored_run.py",
    "core/engine/setting/typed_json.py": "tests/engine/test_stored_run.py, test_queue_worker.py, test_queue_redis.py",
    "core/engine/running/worker.py": "tests/engine/test_pool.py",
    "core/models/model_config.py": "tests/models/test_registry.py, test_prenorm_vit.py",
    "core/models/remedies.py": "tests/models/test_postnorm_vit.py, tests/lessons/test_model_cards.py",
    "ui/draw_your_own.py": "tests/pages/*",
    "ui/exercise_panel.py": "tests/lessons/test_exercise.py, tests/pages/*",
    "ui/figures/figure_tables.py": "tests/ui/figures/test_figures.py",
    "ui/figures/image_figures.py": "tests/ui/figures/test_figures.py",
    "ui/figures/model_figures.py": "tests/ui/figures/test_figures.py",
    "ui/figures/plots.py": "tests/ui/figures/test_figures.py",
    "ui/form_controls.py": "tests/lessons/test_controls.py, tests/pages/*",
    "ui/look_inside.py": "tests/pages/*",
    "ui/result_sections.py": "tests/pages/*",
    "ui/what_broke_section.py": "tests/pages/test_page_vit_vs_cnn.py",
}


def test_tests_mirror_the_tree():
    """Each module of core and ui has tests/<package>/test_<module>.py, or is on TESTED_ELSEWHERE."""
    own = []
    for p in sorted([*(ROOT / "core").rglob("*.py"), *(ROOT / "ui").rglob("*.py")]):
        if p.name in ("__init__.py", "__main__.py"):
            continue
        rel = p.relative_to(ROOT)
        package = rel.parts[1:-1] if rel.parts[0] == "core" else rel.parts[:-1]
        if not (ROOT / "tests" / Path(*package) / f"test_{p.stem}.py").exists():
            own.append(str(rel))
    assert sorted(own) == sorted(TESTED_ELSEWHERE), sorted(set(own) ^ set(TESTED_ELSEWHERE))


def test_architecture_md_names_every_module_and_only_paths_that_exist():
    """ARCHITECTURE.md is the map: each module of core and ui is named in it, and each path it names exists."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    modules = [p for p in [*(ROOT / "core").rglob("*.py"), *(ROOT / "ui").rglob("*.py")]
               if p.name not in ("__init__.py", "__main__.py")]
    unnamed = [str(p.relative_to(ROOT)) for p in modules if p.stem not in text]
    assert not unnamed, unnamed
    paths = set(re.findall(r"`((?:core|ui|pages|tests|scripts|benchmarks|support)/[\w/.*-]+\.(?:py|json|md))`", text))
    missing = [p for p in paths if "*" not in p and "N" not in Path(p).stem and not (ROOT / p).exists()]
    assert not missing, missing


def test_the_fast_tier_starts_no_server_browser_or_subprocess():
    """Every module of the fast tier (tests/conftest.py FAST) imports nothing that starts a server, a browser or a
    process: ``python -m pytest -m fast`` stays a unit suite as tests are added to its folders."""
    from tests.conftest import FAST

    heavy = ("subprocess", "playwright", "redis", "AppTest", "streamlit_server", "Popen", "multiprocessing")
    files = [f for prefix in FAST for f in ([ROOT / prefix] if prefix.endswith(".py") else
                                           sorted((ROOT / prefix).rglob("test_*.py")))]
    assert len(files) > 40
    found = {f.relative_to(ROOT).as_posix(): [w for w in heavy if w in f.read_text()] for f in files
             if f.name != "test_architecture.py"}
    assert not {f: w for f, w in found.items() if w}, "move these out of tests/conftest.py FAST"


# The fast tier's budget (tests/fast_durations.json, written by python -m scripts.test_durations): 90 s in all on the
# 2-core development machine, and no test over SLOWEST_FAST s, which belongs in the full tier (tests/conftest.py NOT_FAST)
FAST_BUDGET_SECONDS = 90
SLOWEST_FAST = 3.0


def test_the_fast_tier_keeps_to_its_measured_budget_and_every_fast_test_is_measured(request):
    import json

    from scripts.test_durations import BUDGET_FILE, BUDGET_TEST

    budget = json.loads(BUDGET_FILE.read_text())
    assert budget["command"] == "python -m pytest -m fast"
    assert budget["wall_seconds"] <= FAST_BUDGET_SECONDS, "move the slowest fast tests to tests/conftest.py NOT_FAST"
    assert sum(budget["tests"].values()) <= budget["wall_seconds"]
    slow = {t: s for t, s in budget["tests"].items() if s > SLOWEST_FAST}
    assert not slow, f"over {SLOWEST_FAST} s: add them to tests/conftest.py NOT_FAST: {slow}"
    tiers = request.config.vitlab_tiers  # every test collected in this run, each in one tier
    fast = {t for t, tier in tiers.items() if tier == "fast"}
    unmeasured = sorted(fast - set(budget["tests"]) - {BUDGET_TEST})
    assert not unmeasured, f"not yet measured (python -m scripts.test_durations): {unmeasured[:10]}"
    from tests.conftest import HEAVY

    both = [i.nodeid for i in request.session.items if i.get_closest_marker("fast")
            and any(i.get_closest_marker(m) for m in HEAVY)]
    assert not both, both  # a test marked slow, e2e, cloud or bench is in the full tier only
