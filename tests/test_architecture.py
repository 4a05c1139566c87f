"""The layers, enforced: imports only go down, core never reaches Streamlit or the UI, no cycles, and
model names are compared only inside the registry."""

import ast
import re
from pathlib import Path

import pytest

from core.generalization.models import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
# core.generalization, bottom to top: a module may import only those before it
ENGINE = ["machine", "model_config", "models", "config", "remedies", "data", "planning", "worker", "pool", "results", "verdict", "probe", "store",
          "run", "exercises"]


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


def test_engine_imports_only_go_down():
    for i, layer in enumerate(ENGINE):
        allowed = {f"core.generalization.{lower}" for lower in ENGINE[:i]}
        engine_imports = {m for m in imports(CORE[f"core.generalization.{layer}"]) if m.startswith("core.generalization")}
        above = {m for m in engine_imports if not any(m == a or m.startswith(a + ".") for a in allowed)}
        assert not above, f"core.generalization.{layer} imports {above}, which are not below it"
    assert set(ENGINE) | {"__init__"} == {p.stem for p in (ROOT / "core" / "generalization").glob("*.py")}


def test_concept_modules_do_not_import_the_engine():
    for name, path in CORE.items():
        if not name.startswith(("core.generalization", "core.cli", "core.__main__")):
            assert not [m for m in imports(path) if m.startswith("core.generalization")], name


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
    offenders = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in files if p.name != "models.py"
                 for line in p.read_text().splitlines() if compare.search(line)]
    assert not offenders, offenders


def test_pages_build_no_figures_themselves():
    for path in (ROOT / "pages").glob("*.py"):
        text = path.read_text()
        assert "go.Figure" not in text and "add_trace" not in text and "update_layout" not in text, path
        assert "plotly" not in " ".join(imports(path)), path


SETTING_WIDGETS = {"slider", "select_slider", "radio", "selectbox", "multiselect", "number_input", "toggle", "checkbox",
                   "text_input", "segmented_control", "pills"}
NOT_IN_THE_LINK = ("predict", "answer_", "bench_pick")  # a learner's own answers: a shared link must not carry them


def test_every_setting_control_is_in_the_link():
    """Each keyed control of every page is bound to the URL's query parameters (bind=URL), so a link
    reproduces the page: only the learner's answers are left out, on purpose."""
    unbound = []
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in SETTING_WIDGETS):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            if "key" not in kw:
                continue
            key = ast.unparse(kw["key"])
            if "bind" not in kw and not any(key.strip("f'\"").startswith(p) for p in NOT_IN_THE_LINK):
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
