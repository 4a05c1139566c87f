"""The lab's own source, gathered for a notebook: the module-level definitions some roots need, found by a walk over
the names each definition reads, and kept as the lab wrote them (comments and shape notes included).

A root is a name in a module of ``core`` (``("core.data.shapes", "make_image")``) or one of a module's top-level
statements (a registration, which binds no name). From each, the walk follows every name a statement reads: one
defined in the same module, one imported from another of the lab's modules (``from core.nn.patchify import
patchify``), or an attribute of a lab module imported whole (``seeded.linear`` after ``from core.nn import seeded``).
Annotations are skipped: every lab module starts with ``from __future__ import annotations``, so none is evaluated.
Imports from outside the lab are kept, reduced to the names used.

What comes back is one ``Piece`` per module, ordered so that every piece comes after the pieces it reads from, so that
they run top to bottom in one namespace with no ``import core``: the lab's own imports are dropped (what they name is
defined in an earlier piece), and a module imported whole becomes a ``SimpleNamespace`` of the names read from it.
One namespace cannot hold two definitions of one name: gathering refuses that, naming both.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: where the ``core`` package lives
LAB = "core"


@dataclass(frozen=True)
class Replacement:
    """What a notebook runs instead of one lab statement that cannot run there (a path beside the lab's file)."""

    source: str
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class Piece:
    """One module's share of a notebook: its outside imports, then its statements in the file's order."""

    module: str  # "core.data.shapes"
    source: str
    whole: bool  # every statement of the module is in it (else only those a root needs)


@dataclass
class _Module:
    """A lab module, parsed: its top-level statements and what each name at its top level is."""

    name: str
    lines: list[str]
    body: list[ast.stmt]
    binds: dict[str, list[int]] = field(default_factory=dict)  # name -> the statements that bind it
    lab: dict[str, tuple[str, str]] = field(default_factory=dict)  # imported from a lab module: (module, name)
    whole: dict[str, str] = field(default_factory=dict)  # a lab module imported whole: alias -> module
    outside: dict[str, tuple[int, ast.alias]] = field(default_factory=dict)  # name -> (import statement, its alias)

    @property
    def docstring(self) -> int | None:
        first = self.body[0] if self.body else None
        is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
            first.value.value, str)
        return 0 if is_doc else None

    def definitions(self) -> set[int]:
        """Every statement but imports and the docstring: what a whole module's piece holds."""
        return {i for i, s in enumerate(self.body) if not isinstance(s, ast.Import | ast.ImportFrom)} - {self.docstring}

    def text(self, i: int) -> str:
        """Statement ``i`` as written, with its decorators and the comment lines right above it."""
        s = self.body[i]
        start = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) - 1
        while start > 0 and self.lines[start - 1].lstrip().startswith("#"):
            start -= 1
        return "\n".join(self.lines[start:s.end_lineno]).rstrip()


def module_path(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


@cache
def parse(module: str) -> _Module:
    text = module_path(module).read_text()
    m = _Module(module, text.splitlines(), ast.parse(text).body)
    for i, s in enumerate(m.body):
        if isinstance(s, ast.ImportFrom) and s.module and s.module.split(".")[0] == LAB:
            for a in s.names:
                if a.asname not in (None, a.name):  # the notebook defines the name itself, not another for it
                    raise ValueError(f"{module} imports {a.name} from {s.module} as {a.asname}: a notebook cannot "
                                     "gather a renamed import")
                if module_path(f"{s.module}.{a.name}").exists():  # from core.nn import seeded: a module
                    m.whole[a.name] = f"{s.module}.{a.name}"
                else:
                    m.lab[a.name] = (s.module, a.name)
        elif isinstance(s, ast.Import | ast.ImportFrom):
            for a in s.names:
                if not (isinstance(s, ast.ImportFrom) and s.module == "__future__"):
                    m.outside[a.asname or a.name.split(".")[0]] = (i, a)
        else:
            for name in _bound(s):
                m.binds.setdefault(name, []).append(i)
    return m


def _bound(s: ast.stmt) -> list[str]:
    """The names a top-level statement binds (a def, a class, an assignment; a loop's variables are its own)."""
    if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [s.name]
    targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


class _Reads(ast.NodeVisitor):
    """The names a statement reads, and the attributes it reads of lab modules imported whole; annotations are
    skipped (never evaluated under ``from __future__ import annotations``)."""

    def __init__(self, whole: dict[str, str]):
        self.whole = whole
        self.names: set[str] = set()
        self.attributes: set[tuple[str, str]] = set()  # (alias, name): seeded.linear

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.names.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id in self.whole:
            self.attributes.add((node.value.id, node.attr))
        else:
            self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:  # an argument: only its annotation could read a name
        pass

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for part in [*node.decorator_list, node.args, *node.body]:  # not node.returns: an annotation
            self.visit(part)

    visit_AsyncFunctionDef = visit_FunctionDef


def _reads_of(module: str, i: int) -> _Reads:
    m = parse(module)
    found = _Reads(m.whole)
    found.visit(m.body[i])
    return found


class LabSource:
    """The lab's definitions, taken step by step (a notebook's data, then its models, then its training): each
    ``take`` returns the pieces no earlier one took. ``replace`` maps (module, name) to what runs instead of the
    statement that binds that name."""

    def __init__(self, replace: dict[tuple[str, str], Replacement] | None = None):
        self.replace = replace or {}
        self.taken: dict[str, set[int]] = {}  # module -> statements already in a piece
        self.defined: dict[str, str] = {}  # every name bound so far -> what binds it (for clashes)
        self.namespaces: dict[str, set[str]] = {}  # alias of a module imported whole -> names given it so far

    def took(self, module: str, name: str) -> bool:
        return any(i in self.taken.get(module, ()) for i in parse(module).binds.get(name, ()))

    def take(self, names: list[tuple[str, str]] = (), statements: list[tuple[str, int]] = (),
             through_module: list[tuple[str, str]] = ()) -> list[Piece]:
        """The pieces that ``names`` ((module, name)), ``statements`` ((module, index)) and ``through_module``
        ((module, name), read as ``alias.name``: the alias is the module's last part) need, less those taken."""
        walk = _Walk(self)
        for module, name in names:
            walk.name(module, name)
        for module, i in statements:
            walk.statement(module, i)
        for module, name in through_module:
            walk.attribute(module, name)
        pieces = [self._piece(module, walk) for module in walk.order()]
        return [p for p in pieces if p is not None]

    def _piece(self, module: str, walk: _Walk) -> Piece | None:
        m = parse(module)
        new = sorted(walk.needed.get(module, set()))
        alias = module.rsplit(".", 1)[1]
        members = sorted(walk.members.get(module, set()) - self.namespaces.get(alias, set()))
        if not new and not members:
            return None
        first = not self.taken.get(module)
        self.taken.setdefault(module, set()).update(new)
        whole = self.taken[module] >= m.definitions()
        parts = [f"# {module_path(module).relative_to(ROOT)}" + ("" if whole else ": what this notebook uses of it")]
        if first and m.docstring is not None:
            parts.append(m.text(m.docstring))
        imports = _import_lines(m, walk.outside.get(module, set()))
        imports += [line for i in new if (r := walk.replaced.get((module, i))) for line in r.imports]
        if members and alias not in self.namespaces:
            imports.append("from types import SimpleNamespace")
        if imports:
            parts.append("\n".join(dict.fromkeys(imports)))
        for name in walk.outside.get(module, set()):
            self.define(name, f"the import of {_imported(m, name)}")
        statements = []
        for i in new:
            for name in _bound(m.body[i]):
                self.define(name, module)
            statements.append(walk.replaced[module, i].source if (module, i) in walk.replaced else m.text(i))
        if members:
            statements.append(self._namespace(module, alias, members))
        return Piece(module, "\n\n".join(parts) + "\n\n\n" + _spaced(statements, [m.body[i] for i in new]) + "\n", whole)

    def define(self, name: str, what: str) -> None:
        """Record that ``what`` (a lab module, an import, a module as a namespace) binds ``name``; refuse a second,
        different one."""
        if self.defined.setdefault(name, what) != what:
            raise ValueError(f"{name!r} is bound by {self.defined[name]} and by {what}: one notebook namespace "
                             "cannot hold both")

    def _namespace(self, module: str, alias: str, members: list[str]) -> str:
        """The lines that make ``alias.<member>`` read each member, as the lab's ``from package import alias`` does."""
        if alias in self.namespaces:
            lines = [f"{alias}.{n} = {n}" for n in members]
        else:
            self.define(alias, f"the namespace of {module}")
            lines = [f"{alias} = SimpleNamespace({', '.join(f'{n}={n}' for n in members)})"]
        self.namespaces.setdefault(alias, set()).update(members)
        return (f"# The lab reads these as {alias}.<name> (from {module.rsplit('.', 1)[0]} import {alias}): the module "
                "as a namespace\n" + "\n".join(lines))


def _spaced(texts: list[str], statements: list[ast.stmt]) -> str:
    """The statements as a module lays them out: two blank lines around a def or a class, one between others."""
    out = texts[0]
    for text, before, after in zip(texts[1:], statements, [*statements[1:], None], strict=False):
        wide = any(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for s in (before, after))
        out += ("\n\n\n" if wide else "\n\n") + text
    return out


def _imported(m: _Module, name: str) -> str:
    """What an outside name of ``m`` is: "torch.nn.functional", "dataclasses.field"."""
    i, alias = m.outside[name]
    s = m.body[i]
    return f"{s.module}.{alias.name}" if isinstance(s, ast.ImportFrom) else alias.name


def _import_lines(m: _Module, names: set[str]) -> list[str]:
    """The module's imports from outside the lab that bind ``names``, in the file's order, each reduced to them."""
    by_statement: dict[int, list[ast.alias]] = {}
    for name in sorted(names):
        i, alias = m.outside[name]
        by_statement.setdefault(i, []).append(alias)
    lines = []
    for i, aliases in sorted(by_statement.items()):
        s = m.body[i]
        kept = sorted(aliases, key=lambda a: [x.name for x in s.names].index(a.name))
        if isinstance(s, ast.ImportFrom):
            lines.append(ast.unparse(ast.ImportFrom(s.module, kept, 0)))
        else:
            lines += [ast.unparse(ast.Import([a])) for a in kept]
    return lines


class _Walk:
    """One ``take``: the statements each module needs, the outside names each reads, the names read through a
    module imported whole, and which module reads which (for the order)."""

    def __init__(self, source: LabSource):
        self.source = source
        self.needed: dict[str, set[int]] = {}
        self.outside: dict[str, set[str]] = {}
        self.members: dict[str, set[str]] = {}  # module imported whole -> names read through it
        self.replaced: dict[tuple[str, int], Replacement] = {}
        self.uses: dict[str, list[str]] = {}  # module -> the modules its statements read from, in first-read order
        self.seen: list[str] = []  # every module the walk reached, in that order

    def name(self, module: str, name: str) -> None:
        self._reached(module)
        m = parse(module)
        if name in m.lab:
            self._read_from(module, m.lab[name][0])
            self.name(*m.lab[name])
        elif name in m.outside:
            self.outside.setdefault(module, set()).add(name)
        for i in m.binds.get(name, ()):
            self.statement(module, i)

    def attribute(self, module: str, name: str) -> None:
        """``name`` read as ``alias.name``, the lab module imported whole (under its own name, ``parse`` checks)."""
        self.members.setdefault(module, set()).add(name)
        self.name(module, name)

    def statement(self, module: str, i: int) -> None:
        self._reached(module)
        if i in self.source.taken.get(module, ()) or i in self.needed.get(module, ()):
            return
        self.needed.setdefault(module, set()).add(i)
        replaced = [self.source.replace[module, n] for n in _bound(parse(module).body[i])
                    if (module, n) in self.source.replace]
        if replaced:  # what runs instead reads nothing of the lab
            self.replaced[module, i] = replaced[0]
            return
        found = _reads_of(module, i)
        for name in sorted(found.names):
            self.name(module, name)
        for alias, name in sorted(found.attributes):
            target = parse(module).whole[alias]
            self._read_from(module, target)
            self.attribute(target, name)

    def _reached(self, module: str) -> None:
        if module not in self.seen:
            self.seen.append(module)

    def _read_from(self, module: str, target: str) -> None:
        if target != module and target not in self.uses.setdefault(module, []):
            self.uses[module].append(target)

    def order(self) -> list[str]:
        """Every module once, each after the modules it reads from (the lab's imports have no cycle)."""
        done: list[str] = []

        def visit(module: str) -> None:
            if module in done:
                return
            for target in self.uses.get(module, []):
                visit(target)
            done.append(module)

        for module in self.seen:
            visit(module)
        return done
