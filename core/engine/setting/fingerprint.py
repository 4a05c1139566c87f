"""The code fingerprint: a hash of every source file that can decide a training result.

The files are not listed by hand: they are the import closure of the training code (``core.engine.running.run``,
whose ``train_job`` every worker runs), found by reading the ``import`` statements of each module, lazy ones
inside functions included, and the packages' ``__init__`` that Python runs on the way. A module added to that closure is in the fingerprint the moment it is imported;
a shipped result made before any of those files changed is stale.
"""

from __future__ import annotations

import ast
import hashlib
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]  # the repository: where the ``core`` package lives
TRAINING = ("core.engine.running.run",)


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The source file of module ``name`` under ``root`` (a module or a package's ``__init__``), or None."""
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported_names(path: Path) -> set[str]:
    """Every module name a file imports, at any depth; ``from a import b`` gives ``a`` and ``a.b``."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def import_closure(roots: tuple[str, ...] = TRAINING, root: Path = ROOT, package: str = "core") -> dict[str, Path]:
    """Every module of ``package`` that ``roots`` import, directly or through each other (roots included)."""
    found: dict[str, Path] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        path = module_file(name, root)
        if name in found or path is None:
            continue
        found[name] = path
        parents = [name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)]  # importing a.b.c runs a.b first
        todo += parents + [m for m in imported_names(path) if m.split(".")[0] == package]
    return found


def torch_version() -> str:
    """The installed torch's version (``torch.__version__``), read from its package metadata: a page can check a
    shipped result's stamp without importing torch (the home page on a sleeping app's wake, docs/performance.md)."""
    return version("torch")


def code_fingerprint(roots: tuple[str, ...] = TRAINING, root: Path = ROOT) -> str:
    """A hash of the training code's import closure (names and bytes) and of torch's version."""
    h = hashlib.sha256(torch_version().encode())
    for name, path in sorted(import_closure(roots, root).items()):
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]
