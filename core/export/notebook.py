"""A run as a Jupyter notebook that retrains it and prints the same numbers: ``notebook_for(cfg)``.

The notebook holds, in order: the setting as a few lines of Python; the data, made by the lab's own code; each
model's class; the training loop; then cells that print each seed's accuracies and draw the generalization map.
Every definition in it is the lab's source, gathered from the modules when the notebook is made
(``core.export.lab_source``), so it cannot drift from them; only the few cells that call them (make the data, train
each model, print, draw) are written here. It imports torch, numpy and matplotlib, never ``core``.

Each model is written as the call of its class that the registry makes for this setting, read from that very call
(``constructor_call``): whatever way a registry entry puts its arguments together, the notebook gets the class and
the values it was given.

The same numbers: the notebook runs the lab's data, models, seeding, dedup-weighted loss and Adam on one thread, as
the lab's workers do, so on the machine that ran the lab it prints the accuracies ``python -m core generalization
... --json`` prints, bit for bit (docs/notebook.md says how that is measured, and where it cannot hold).
"""

from __future__ import annotations

import ast
import base64
import re
import sys
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from inspect import Parameter, signature

import nbformat
import torch
import torch.nn as nn
from nbformat import v4

from core.data import digits
from core.data.data_config import DataConfig, distinct, make_data
from core.data.datasets import Dataset
from core.engine.running.train import train
from core.engine.setting.run_config import GeneralizationConfig
from core.export.lab_source import LabSource, Piece, Replacement, parse
from core.lessons.model_cards import card
from core.models.registry import build
from core.nn import seeded

# The lesson pages, as the app names them (ui/lesson_list.py; core never imports ui, a test compares the two)
PAGES = {1: "1 · Patchify", 2: "2 · Permutation symmetry", 3: "3 · ViT vs CNN", 4: "4 · Fixing the ViT",
         5: "5 · Real handwriting", 6: "6 · Your own experiment"}

# The digits file cannot be beside the notebook's code as it is beside core/data/digits.py: the notebook carries it
EMBEDDED_DIGITS = "UCI_DIGITS_CSV_GZ"
DIGITS_FILE = Replacement(
    f"# The lab reads {digits.DATA_FILE.name} beside core/data/digits.py. This notebook carries the file ({EMBEDDED_DIGITS},\n"
    "# above) and writes it to a temporary folder, so that load() reads it, and checks its SHA-256, as in the lab\n"
    f"DATA_FILE = Path(tempfile.mkdtemp()) / {digits.DATA_FILE.name!r}\n"
    f"DATA_FILE.write_bytes(base64.b64decode({EMBEDDED_DIGITS}))",
    ("import base64", "import tempfile", "from pathlib import Path"))


def where(obj) -> tuple[str, str]:
    """(module, name) of a lab function or class: a root of the walk."""
    return obj.__module__, obj.__qualname__


# ---------------------------------------------------------------- the models, as the registry calls their classes
def constructor_call(make: Callable[[], nn.Module]) -> tuple[nn.Module, dict]:
    """The model ``make()`` returns and the arguments its class's ``__init__`` was called with, read from that
    call's frame as it starts (a profile hook on this thread alone, removed at once)."""
    starts: list[tuple[object, dict]] = []

    def watch(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "__init__":
            starts.append((frame.f_code, dict(frame.f_locals)))

    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        model = make()
    finally:
        sys.setprofile(previous)
    init = type(model).__init__
    arguments = next((a for code, a in starts if code is init.__code__ and a.get("self") is model), None)
    if arguments is None:
        raise TypeError(f"{type(model).__name__}.__init__ was not seen building the model: no call to write")
    return model, {p: arguments[p] for p in signature(init).parameters if p != "self"}


def as_python(value, classes: dict[type, None]) -> str:
    """``value`` as Python the notebook runs: the registry's generator as ``seeded.generator(seed)``, a settings
    dataclass by its fields that differ from their defaults (``ViTVariant()`` is the lesson's model), plain values
    by ``repr``. The dataclasses met are added to ``classes``, in order (the notebook must define them)."""
    if isinstance(value, torch.Generator):
        return "seeded.generator(seed)"
    if is_dataclass(value) and not isinstance(value, type):
        classes[type(value)] = None
        changed = [f"{f.name}={as_python(getattr(value, f.name), classes)}" for f in fields(value)
                   if f.default is MISSING or getattr(value, f.name) != f.default]
        return f"{type(value).__name__}({', '.join(changed)})"
    if isinstance(value, tuple):
        items = [as_python(v, classes) for v in value]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    raise TypeError(f"cannot write a {type(value).__name__} as Python for the notebook: {value!r}")


def model_calls(cfg: GeneralizationConfig) -> tuple[dict[str, str], dict[type, None]]:
    """Per model of ``cfg``, the call of its class that the registry makes (``seed`` free), and every class these
    calls name, in the order they are met."""
    calls, classes = {}, {}  # classes: a dict, to keep the order they are met in
    for name in cfg.models:
        model, arguments = constructor_call(
            lambda name=name: build(name, cfg.model, cfg.data.img_size, 0, cfg.data.kind.outputs))
        classes[type(model)] = None
        kinds = {p.kind for p in signature(type(model).__init__).parameters.values()}
        if kinds & {Parameter.VAR_POSITIONAL, Parameter.VAR_KEYWORD}:
            raise TypeError(f"{type(model).__name__} takes *args or **kwargs: the notebook names every argument")
        calls[name] = wrapped(f"{type(model).__name__}(", [f"{k}={as_python(v, classes)}" for k, v in arguments.items()],
                              "        ")
    return calls, classes


def wrapped(opening: str, arguments: list[str], indent: str, width: int = 110) -> str:
    """``opening`` and its arguments, closed, one line if it fits ``width``, else the arguments on lines of their
    own (whole arguments to a line, so a line never breaks inside one)."""
    if len(indent) + len(opening) + len(", ".join(arguments)) < width:
        return f"{opening}{', '.join(arguments)})"
    lines = [indent]
    for a in arguments:
        if len(lines[-1]) > len(indent) and len(lines[-1]) + len(a) + 2 > width:
            lines.append(indent)
        lines[-1] += a + ", "
    return opening + "\n" + "\n".join(line.rstrip() for line in lines).removesuffix(",") + ")"


# ---------------------------------------------------------------- the data
def registration(dataset: str) -> tuple[str, int]:
    """The statement of the datasets' module that registers ``dataset``: the one that names it first, as
    ``register(Dataset("shapes", ...))`` does or a loop over ``("digits", ...)`` tuples does."""
    module = Dataset.__module__
    body = parse(module).body
    found = [i for i, s in enumerate(body) if not isinstance(s, ast.FunctionDef | ast.ClassDef)
             and dataset in _first_strings(s)]
    if len(found) != 1:
        raise ValueError(f"expected one statement of {module} to register {dataset!r}, found {len(found)}")
    return module, found[0]


def _first_strings(s: ast.stmt) -> set[str]:
    """The strings that come first in a call's arguments or in a tuple anywhere in ``s``."""
    firsts = [n.args[0] for n in ast.walk(s) if isinstance(n, ast.Call) and n.args]
    firsts += [n.elts[0] for n in ast.walk(s) if isinstance(n, ast.Tuple) and n.elts]
    return {n.value for n in firsts if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def embedded_digits() -> str:
    """The cell that carries the digits file: its bytes, base64 (the file is gzip already)."""
    encoded = base64.b64encode(digits.DATA_FILE.read_bytes()).decode()
    return (f"# {digits.DATA_FILE.name}, the lab's copy of the UCI handwritten digits (CC BY 4.0; provenance: "
            f"core/data/uci_digits.md),\n# base64: the bytes core/data/digits.py reads\n"
            f"{EMBEDDED_DIGITS} = {encoded!r}\n")


# ---------------------------------------------------------------- the cells written here
def setting_cell(cfg: GeneralizationConfig, calls: dict[str, str], command: str, classes: dict[type, None]) -> str:
    """The setting as a few lines a learner changes for homework: the image size written once (the data and every
    model read it), each settings dataclass's fields listed (what a model's call may change, α among them)."""
    size = cfg.data.img_size
    data = wrapped("DATA = dict(", [f"{f.name}=IMG_SIZE" if f.name == "img_size" else
                                    f"{f.name}={getattr(cfg.data, f.name)!r}" for f in fields(cfg.data)], "    ")
    size_argument = re.compile(rf"\bimg_size={size}\b")  # a model's canvas: the same IMG_SIZE as the data's
    models = "".join(f"    {name!r}: lambda seed: {size_argument.sub('img_size=IMG_SIZE', call)},\n"
                     for name, call in calls.items())
    options = "".join(f"# {c.__name__}'s fields, with their defaults: "
                      + ", ".join(f"{f.name}={f.default!r}" for f in fields(c) if f.default is not MISSING) + "\n"
                      for c in classes if is_dataclass(c))
    return (
        "from __future__ import annotations  # as every module of the lab: annotations are never evaluated\n\n"
        "import torch\n\n"
        "# One thread, as each of the lab's training workers: the number of threads changes how floats are rounded\n"
        "torch.set_num_threads(1)\n\n"
        + (f"# The setting. The lab trains it with: {command}\n" if command else "# The setting\n")
        + f"SEEDS = {cfg.train.seeds!r}  # each seed fixes a model's starting weights\n"
        f"EPOCHS = {cfg.train.epochs!r}  # full-batch steps\n"
        f"LR = {cfg.train.lr!r}  # Adam's learning rate\n"
        f"IMG_SIZE = {size!r}  # the canvas, in pixels a side: the data and every model read it\n"
        f"{data}\n"
        "# Each model as the lab's registry builds it (core/models/registry.py): its class with this setting's sizes,\n"
        "# its weights drawn from a generator seeded with the seed. The classes are defined in section 3.\n"
        f"{options}"
        f"MODELS = {{\n{models}}}\n")


DATA_CELL = '''\
data = make_data(DataConfig(**DATA))
print(f"{len(data.Xtr)} training images ({len(distinct(data.Xtr, data.ytr)[0])} distinct), {len(data.Xte)} test images, "
      f"{len(data.grid_X)} images behind the map")

import matplotlib.pyplot as plt

classes = DataConfig(**DATA).kind.classes
fig, axes = plt.subplots(1, 8, figsize=(12, 1.8))
for ax, image, label in zip(axes, data.Xtr[:8, 0], data.ytr[:8].tolist()):
    ax.imshow(image, cmap="gray_r", vmin=0, vmax=1)
    ax.set_title(classes[int(label)], fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
plt.show()
'''

TRAIN_CELL = '''\
trained, results = {}, {}
for seed in SEEDS:  # as the lab orders its jobs: each seed, then each model
    for name, make in MODELS.items():
        model = make(seed)
        results[name, seed] = train(model, data.Xtr, data.ytr, data.Xte, data.yte, EPOCHS, LR)
        trained[name, seed] = model
        print(f"{name} seed {seed}: trained in {results[name, seed].seconds:.1f} s")
'''

ACCURACY_CELL = '''\
# Each float as python -m core generalization --json prints it (train_acc, test_acc): compare them digit by digit
print(f"{'model':<16}{'seed':>5}  {'train accuracy':<22}test accuracy")
for (name, seed), r in results.items():
    if r.diverged_at is not None:  # the lab reports no accuracy for a training that blew up
        print(f"{name:<16}{seed:>5}  diverged at epoch {r.diverged_at}")
    else:
        print(f"{name:<16}{seed:>5}  {r.train_acc!r:<22}{r.test_acc!r}")
print()
for name in MODELS:
    tests = [results[name, seed].test_acc for seed in SEEDS if results[name, seed].diverged_at is None]
    if tests:
        print(f"{name}: mean test accuracy {sum(tests) / len(tests):.1%} over {len(tests)} seeds")
'''

MAP_CELL = '''\
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap

setting = DataConfig(**DATA)
chance = setting.kind.chance
axis = list(setting.kind.centres(setting.img_size))  # every centre where a pattern fits, in x and in y
# wrong (0) orange, chance white, right (1) blue: the lab's colours, which colour-blind eyes tell apart
colours = LinearSegmentedColormap.from_list("accuracy", [(0.0, "#b35806"), (chance / 2, "#f1a340"), (chance, "#f7f7f7"),
                                                         ((1 + chance) / 2, "#67a9cf"), (1.0, "#2166ac")])


def accuracy_map(name):
    """(cy, cx): the share of the map's images at each centre that the model answers right, over its seeds."""
    right = np.zeros((len(axis), len(axis)))
    count = np.zeros_like(right)
    for seed in SEEDS:
        if results[name, seed].diverged_at is not None:
            continue
        answers = predicted(predict(trained[name, seed], data.grid_X)).to(data.grid_y.dtype) == data.grid_y
        for (cx, cy), ok in zip(data.grid_centres.tolist(), answers.tolist()):
            right[cy - axis[0], cx - axis[0]] += ok
            count[cy - axis[0], cx - axis[0]] += 1
    return np.where(count > 0, right / np.maximum(count, 1), np.nan)


cols = min(len(MODELS), 4)
fig, axes = plt.subplots(-(-len(MODELS) // cols), cols, figsize=(3.4 * cols, 3.2 * -(-len(MODELS) // cols)),
                         squeeze=False, constrained_layout=True)
trained_at, tested_at = np.array(setting.train_positions), np.array(setting.test_positions)  # (n, 2): (cx, cy)
extent = (axis[0] - 0.5, axis[-1] + 0.5, axis[-1] + 0.5, axis[0] - 0.5)
for ax, name in zip(axes.flat, MODELS):
    shown = ax.imshow(accuracy_map(name), cmap=colours, vmin=0, vmax=1, extent=extent)
    ax.scatter(trained_at[:, 0], trained_at[:, 1], s=4, c="black")
    if not setting.phases:  # the phase split tests every centre without a dot
        ax.scatter(tested_at[:, 0], tested_at[:, 1], s=12, c="black", marker="x", linewidths=0.8)
    ax.set_title(name, fontsize=10)
    ax.set_xlabel("centre x")
    ax.set_ylabel("centre y")
for ax in axes.flat[len(MODELS):]:
    ax.axis("off")
fig.colorbar(shown, ax=axes, shrink=0.8, label="share right (white: chance)")
plt.show()
'''
WRITTEN = (DATA_CELL, TRAIN_CELL, ACCURACY_CELL, MAP_CELL)  # the cells written here, not gathered


# ---------------------------------------------------------------- the words
def _remedies(cfg: GeneralizationConfig) -> list[str]:
    return [m for m in cfg.models if card(m).group not in ("", "baseline")]


def title_words(cfg: GeneralizationConfig, command: str) -> str:
    return (
        "# A ViT Lab run as a notebook: retrain it, get the same numbers\n\n"
        f"This notebook retrains one setting of the ViT Lab{f' (`{command}`)' if command else ''} from scratch with "
        "the lab's own code: the data, each model and the training loop below are the lab's source files, copied in "
        "when the notebook was made (`python -m core notebook`), not rewritten. Run every cell, top to bottom, on "
        "the machine that ran the lab, and it prints the accuracies the lab prints for this setting, bit for bit.\n\n"
        "It needs Python 3.11 or later and three packages: **torch**, **numpy** and **matplotlib**, which draws the "
        "figures. Matplotlib rather than the lab's Plotly keeps the notebook small: its figures are saved as small "
        "PNG images, while a Plotly figure saved in a notebook carries Plotly's JavaScript library (megabytes).\n\n"
        f"Made with torch {torch.__version__}. Another torch version or another processor may round differently, "
        "and a training that balances on a knife's edge (as some seeds of the lesson's ViT do) can then end "
        "elsewhere.\n\n"
        "1. The setting · 2. The data · 3. The models · 4. Training · 5. Each seed's accuracies · "
        "6. The generalization map")


def setting_words(cfg: GeneralizationConfig) -> str:
    d = cfg.data
    first = PAGES[6] if d.kind.own is not None or d.split else PAGES[5] if d.kind.noun != "shapes" else PAGES[3]
    pages = [first] + ([PAGES[4]] if _remedies(cfg) else [])
    return (
        "## 1 · The setting\n\n"
        "What is trained: the models, the seeds, the number of epochs and the learning rate, and the data (how "
        "many images, at which centres). These are the controls of the lesson page "
        + " and ".join(f"*{p}*" for p in pages) + ". For homework, change one thing here, run every cell again and "
        "explain what changed.\n\n"
        "`torch.set_num_threads(1)`: the lab trains each model on one thread, and the number of threads changes how "
        "sums of floats are rounded; with it, this notebook repeats the lab's arithmetic exactly.")


def data_words(cfg: GeneralizationConfig) -> str:
    d, kind = cfg.data, cfg.data.kind
    if d.split:
        split = (f"The training images sit at the {len(d.train_positions)} training centres of a split of your own, the "
                 f"test images at its {len(d.test_positions)} test centres, never seen in training: *{PAGES[6]}*.")
    elif d.phases:
        split = (f"The training images sit only at centres whose offset within a {d.phase_period}-pixel patch is "
                 f"{', '.join(map(str, d.phases))} (in {d.train_range[0]}..{d.train_range[1]}); the test images at "
                 f"every other centre: the phase split of *{PAGES[3]}*, part *What broke the ViT?*.")
    else:
        split = (f"The training images sit at centres {d.train_range[0]}..{d.train_range[1]} (in x and in y), the test "
                 f"images at {d.test_range[0]}..{d.test_range[1]}, never seen in training: *{PAGES[3]}*.")
    canvas = f"{d.img_size}×{d.img_size} canvas"
    if kind.place:  # the label is where the shape is
        what = (f"a plus or a circle on a {canvas}, labelled by where it is ({' or '.join(kind.classes)} half): the "
                f"position task of *{PAGES[3]}*")
    elif kind.own is not None:  # the learner's own classes
        what = (f"one of your own classes ({', '.join(kind.classes)}) placed on a {canvas} by the middle of its ink: "
                f"*{PAGES[6]}*")
    elif kind.noun == "shapes":
        what = f"a plus or a circle on a {canvas}, the label says which"
    else:
        what = (f"a real handwritten digit (the UCI digits, {kind.label}) placed on a {canvas}, split by image as well "
                f"as by place: *{PAGES[5]}*. The digits file travels in the notebook "
                f"({digits.DATA_FILE.stat().st_size // 1000} KB, base64, its cell folded)")
    return (
        "## 2 · The data\n\n"
        f"The lab's own code draws {d.n_train} training and {d.n_test} test images (`core/data/`): each {what}. "
        f"{split} One random generator, seeded with the data seed, draws them all, training images first. The map in "
        "section 6 asks every class at every centre where it fits.")


def model_words(cfg: GeneralizationConfig) -> str:
    models = "".join(f"\n- **{card(m).label}**, `{m}`" + (f": {_sentence(card(m).what)}" if card(m).what else "")
                     for m in cfg.models)
    return (
        "## 3 · The models\n\n"
        "Each model's class as the lab has it (`core/models/`), with the building blocks it uses (`core/nn/`) and "
        "its seeded initialisation (`core/nn/seeded.py`: every weight drawn from the model's own generator, as "
        "`torch.manual_seed(seed)` and the constructor would draw it). A ViT cuts the image into patches "
        f"(*{PAGES[1]}*) and adds a position table that tells attention where each patch was (*{PAGES[2]}*); "
        f"the ViT against the CNN is *{PAGES[3]}*"
        + (f", and each change to them is one of the remedies of *{PAGES[4]}*" if _remedies(cfg) else
           f". The ViT's class can switch on the remedies of *{PAGES[4]}*, so their building blocks come with it; "
           "this setting leaves them off")
        + f".\n{models}")


def _sentence(what: str) -> str:
    """A card's "what it changes", as a sentence of its own: a baseline's "Nothing: the lesson's CNN" as "The
    lesson's CNN"."""
    what = what.removeprefix("Nothing: ")
    return what[:1].upper() + what[1:]


TRAINING_WORDS = (
    "## 4 · Training\n\n"
    "The lab's loop (`core/engine/running/train.py`) with its Adam (`core/nn/adam.py`: `torch.optim.Adam`'s "
    "arithmetic, written out): one full-batch step per epoch. A training set repeats itself (an image is fixed by "
    "its class, its centre and, for digits, its scan), so the loop computes each distinct image once, weighted by how "
    "often it was drawn: the same loss and gradient as the mean over every draw, up to float rounding, and this "
    f"rounding is the lab's. *{PAGES[3]}*, exercise 1: ten times the data, and the same distinct images.\n\n"
    "The notebook calls `train` as `python -m core generalization --json` does: no progress callback, no test points "
    "during training (`train`'s `callback`, `eval_every` and `chunk_size` are how the lab's pages follow a run; they "
    "stay at their defaults here). Each model trains in seconds to minutes on one thread.")


def accuracy_words(cfg: GeneralizationConfig) -> str:
    return (
        "## 5 · Each seed's accuracies\n\n"
        "The share of the training images and of the test images each trained model answers right: the numbers "
        "`python -m core generalization … --json` prints as `train_acc` and `test_acc` for this setting (and the "
        f"lesson pages' per-seed table, *{PAGES[3]}*). Guessing gets {cfg.data.kind.chance:.0%} right.")


MAP_WORDS = (
    "## 6 · The generalization map\n\n"
    "Every class drawn at every centre where it fits, answered by each trained model: the share right at each "
    "centre, over the seeds. Orange is wrong, white chance, blue right; dots mark the training centres (every "
    "other cell is a place the model never saw in training) and crosses the test set's, unless the split is the "
    f"phase split, which tests every centre without a dot. The lesson pages draw the same map: *{PAGES[3]}* "
    f"(and *{PAGES[4]}*, *{PAGES[5]}*, *{PAGES[6]}*). Matplotlib draws it here.")


# ---------------------------------------------------------------- the notebook
def notebook_for(cfg: GeneralizationConfig, command: str = "") -> nbformat.NotebookNode:
    """The notebook that retrains ``cfg`` with the lab's code and prints its accuracies; ``command``: the lab's command
    line that trains the same setting, if there is one, shown in its first cells (compare the two outputs)."""
    calls, classes = model_calls(cfg)
    source = LabSource({(digits.__name__, "DATA_FILE"): DIGITS_FILE})
    data = source.take(names=[where(make_data), where(DataConfig), where(distinct)],
                       statements=[registration(cfg.data.dataset)])
    models = source.take(names=[where(c) for c in classes],
                         through_module=[where(seeded.generator)])
    training = source.take(names=[where(train)])
    setting = setting_cell(cfg, calls, command, classes)
    _check_written(source, (setting, *WRITTEN))
    cells = [v4.new_markdown_cell(title_words(cfg, command)),
             v4.new_markdown_cell(setting_words(cfg)), _code(setting),
             v4.new_markdown_cell(data_words(cfg))]
    if source.took(digits.__name__, "DATA_FILE"):
        cells.append(_code(embedded_digits(), metadata={"jupyter": {"source_hidden": True}}))
    cells += [*map(_code, data), _code(DATA_CELL),
              v4.new_markdown_cell(model_words(cfg)), *map(_code, models),
              v4.new_markdown_cell(TRAINING_WORDS), *map(_code, training), _code(TRAIN_CELL),
              v4.new_markdown_cell(accuracy_words(cfg)), _code(ACCURACY_CELL),
              v4.new_markdown_cell(MAP_WORDS), _code(MAP_CELL)]
    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def _code(code: str | Piece, **kw) -> nbformat.NotebookNode:
    return v4.new_code_cell((code.source if isinstance(code, Piece) else code).rstrip("\n"), **kw)


def _check_written(source: LabSource, cells: tuple[str, ...]) -> None:
    """The cells written here bind no name the lab's code defines (a variable ``centres`` would hide a function)."""
    for cell in cells:
        for node in ast.walk(ast.parse(cell)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for a in node.names:
                    what = a.name if isinstance(node, ast.Import) else f"{node.module}.{a.name}"
                    source.define(a.asname or a.name.split(".")[0], f"the import of {what}")
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) or isinstance(node, ast.FunctionDef):
                name = node.id if isinstance(node, ast.Name) else node.name
                source.define(name, "the notebook's own cells")
