"""The exported notebook: every model exports and builds the registry's weights, the data is the lab's, and run in a
kernel that cannot import the lab it prints the lab's accuracies, bit for bit (the command line's, and the lesson's
shipped ones)."""

import ast
import json
import subprocess
import sys
import types
from dataclasses import replace

import nbformat
import pytest
import torch

from core.cli import build_parser, form_config, main
from core.data.data_config import DataConfig, make_data
from core.data.datasets import DATASETS
from core.engine.setting.run_config import TrainConfig
from core.export.notebook import PAGES, WRITTEN, notebook_for, registration
from core.lessons.lesson3_vit_vs_cnn import POSITION_TASK_DATA, PRESETS
from core.lessons.shipped import shipped_path
from core.models.model_config import ModelConfig
from core.models.registry import REGISTRY, build
from support.notebook_run import accuracies, execute, lab_accuracies
from tests.conftest import ROOT

TINY = PRESETS["tiny"]
EVERY_MODEL = replace(TINY, models=tuple(REGISTRY))
# A digits setting small enough for seconds: the digits command's "small" preset, trained shorter on fewer images
DIGITS_ARGS = ("--preset", "small", "--n-train", "200", "--n-test", "100", "--epochs", "50", "--seeds", "1")


def run_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def definitions(nb) -> dict:
    """The notebook's setting and the lab's code in it, run here as one script (as ``jupyter nbconvert --to script``
    would write it), without the cells that make the data, train or draw."""
    code = [c.source for c in nb.cells if c.cell_type == "code" and c.source.rstrip() not in
            {w.rstrip() for w in WRITTEN}]
    module = types.ModuleType("exported_notebook")  # a module of its own: dataclasses look their class's module up
    sys.modules[module.__name__] = module
    try:
        exec(compile("\n\n".join(code), "<notebook>", "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return module.__dict__


@pytest.mark.parametrize("model", [ModelConfig(), TINY.model, ModelConfig(patch_size=2, pos_scale=0.1, stem_channels=4),
                                   ModelConfig(embed_dim=16, num_heads=2, pos_embed="sincos2d", global_pool="avg")])
def test_every_model_of_the_registry_exports_and_starts_from_the_registrys_weights(model):
    cfg = replace(EVERY_MODEL, model=model)
    namespace = definitions(notebook_for(cfg))
    assert list(namespace["MODELS"]) == list(REGISTRY)
    for name, make in namespace["MODELS"].items():
        ours, theirs = make(1).state_dict(), build(name, cfg.model, cfg.data.img_size, 1, cfg.data.kind.outputs).state_dict()
        assert list(ours) == list(theirs), name
        assert all(torch.equal(ours[k], theirs[k]) for k in ours), name
        assert type(make(1)).__name__ == type(build(name, cfg.model, 16, 1)).__name__


@pytest.mark.parametrize("data", [TINY.data, replace(TINY.data, train_range=(3, 12), phases=(0, 1, 2)),
                                  replace(POSITION_TASK_DATA, n_train=60, n_test=40),
                                  DataConfig(dataset="digits", n_train=60, n_test=30, train_range=(6, 12), test_range=(4, 5)),
                                  DataConfig(dataset="digits-0-1", n_train=40, n_test=20, train_range=(5, 12),
                                             phases=(0, 2))])
def test_the_notebooks_data_is_the_labs(data):
    namespace = definitions(notebook_for(replace(TINY, models=("cnn",), data=data)))
    ours, theirs = namespace["make_data"](namespace["DataConfig"](**namespace["DATA"])), make_data(data)
    for field in ("Xtr", "ytr", "Xte", "yte", "grid_X", "grid_y"):
        assert torch.equal(getattr(ours, field), getattr(theirs, field)), field
    assert (ours.grid_centres == theirs.grid_centres).all() and (ours.test_centres == theirs.test_centres).all()


def test_every_dataset_has_the_one_statement_that_registers_it():
    statements = {name: registration(name) for name in DATASETS}
    assert len(set(statements.values())) == len(DATASETS) - 1  # the digits' loop registers both digit tasks


def test_the_notebook_needs_only_torch_numpy_matplotlib_and_says_so():
    nb = notebook_for(replace(EVERY_MODEL, data=DataConfig(dataset="digits", train_range=(6, 12), test_range=(4, 5))))
    nbformat.validate(nb)
    imported = {a.name.split(".")[0] if isinstance(node, ast.Import) else node.module.split(".")[0]
                for c in nb.cells if c.cell_type == "code" for node in ast.walk(ast.parse(c.source))
                if isinstance(node, ast.Import | ast.ImportFrom) for a in node.names}
    assert imported - sys.stdlib_module_names == {"torch", "numpy", "matplotlib"}
    words = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "**torch**, **numpy** and **matplotlib**" in words and "keeps the notebook small" in words
    steps = [c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## ")]
    assert len(steps) == 6 and all(any(p in s for p in PAGES.values()) for s in steps)  # each step names its page
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    # the lab's data, models and training loop, nothing of how the lab runs them (registry, pool, store, queue)
    files = {c.splitlines()[0][2:].split(":")[0] for c in code if c.startswith("# core/")}
    assert {f.split("/")[1] for f in files} == {"data", "nn", "models", "engine"}
    assert {f for f in files if f.startswith("core/engine/")} == {"core/engine/running/train.py"}
    assert "core/models/registry.py" not in files and "__file__" not in "".join(code)
    assert "torch.set_num_threads(1)" in code[0] and any("UCI_DIGITS_CSV_GZ = " in c for c in code)


def test_the_notebook_pages_are_the_apps_lessons():
    from ui.lesson_list import LESSONS

    assert PAGES == {n: f"{n} · {lesson.title}" for n, lesson in enumerate(LESSONS, 1)}


def cli(capsys, *args) -> tuple[int, str, str]:
    """``python -m core ARGS`` in this process: (exit status, stdout, stderr)."""
    try:
        status = main(list(args))
    except SystemExit as stop:  # argparse's errors, as the lab's parser words them
        status = stop.code
    said = capsys.readouterr()
    return status, said.out, said.err


def test_the_command_writes_a_notebook_to_stdout_and_bad_options_in_one_line(capsys, tmp_path):
    status, out, err = cli(capsys, "notebook", "--preset", "tiny", "--models", "cnn", "--seeds", "3")
    assert status == 0, err
    nb = nbformat.reads(out, as_version=4)
    nbformat.validate(nb)
    assert "python -m core generalization --preset tiny --models cnn --seeds 3 --json" in nb.cells[2].source
    assert "SEEDS = (3,)" in nb.cells[2].source
    for bad, said in ((("--patch-size", "5"), "does not divide"), (("--frobnicate", "2"), "unknown option --frobnicate"),
                      (("--out", str(tmp_path / "no" / "run.ipynb")), "--out")):
        status, out, err = cli(capsys, "notebook", *bad)
        assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and said in err, err


@pytest.mark.slow
def test_the_notebook_prints_what_the_command_line_prints_for_every_model(tmp_path):
    """Every model, the phase split and the α control in one setting: the notebook, run in a kernel that cannot
    import the lab, prints each model's accuracies exactly as ``generalization --json`` does."""
    options = ("--preset", "tiny", "--models", *REGISTRY, "--seeds", "0", "--epochs", "60", "--phases", "0", "1", "2",
               "--train-range", "3", "12", "--pos-scale", "0.3")
    p = run_cli("notebook", *options, "--out", str(tmp_path / "run.ipynb"))
    assert p.returncode == 0, p.stderr
    lab = run_cli("generalization", *options, "--workers", "0", "--json")
    assert lab.returncode == 0, lab.stderr
    ran = execute(nbformat.read(tmp_path / "run.ipynb", as_version=4))
    expected = lab_accuracies(json.loads(lab.stdout))
    assert len(expected) == len(REGISTRY) and accuracies(ran) == expected


@pytest.mark.slow
def test_the_lesson_notebook_prints_the_shipped_accuracies_of_seeds_0_and_1(tmp_path):
    p = run_cli("notebook", "--preset", "lesson", "--seeds", "0", "1", "--out", str(tmp_path / "lesson.ipynb"))
    assert p.returncode == 0, p.stderr
    shipped = json.loads(shipped_path("lesson").read_text())["result"]
    expected = {k: v for k, v in lab_accuracies({"results": shipped["rows"]}).items() if k[1] in (0, 1)}
    assert len(expected) == 4
    assert accuracies(execute(nbformat.read(tmp_path / "lesson.ipynb", as_version=4))) == expected


@pytest.mark.slow
def test_a_digits_notebook_carries_its_data_and_prints_what_the_digits_command_prints():
    args = build_parser().parse_args(["digits", *DIGITS_ARGS])
    cfg = form_config(args)
    assert cfg.data.dataset == "digits" and cfg.train == TrainConfig(50, 1e-3, (0,))
    lab = run_cli("digits", *DIGITS_ARGS, "--train", "--workers", "0", "--json")
    assert lab.returncode == 0, lab.stderr
    ran = execute(notebook_for(cfg, "python -m core digits " + " ".join(DIGITS_ARGS) + " --train --json"))
    assert accuracies(ran) == lab_accuracies(json.loads(lab.stdout))


def test_the_command_takes_the_setting_options_of_generalization():
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices

    def options(command):
        return {s for a in commands[command]._actions for s in a.option_strings}

    assert options("notebook") == options("generalization") - {"--workers", "--no-limits", "--json", "--full"} | {"--out"}
    cfg = form_config(build_parser().parse_args(["notebook", "--preset", "exercise-2", "--seeds", "4"]))
    assert cfg == replace(PRESETS["exercise-2"], train=replace(PRESETS["exercise-2"].train, seeds=(4,)))


def test_a_setting_of_your_own_names_its_page_its_classes_and_its_split():
    from core.lessons.lesson6_own_experiment import PRESETS as OWN

    text = "\n".join(c.source for c in notebook_for(OWN["mirrored Ls, checkerboard"]).cells if c.cell_type == "markdown")
    assert "*6 · Your own experiment*" in text and "one of your own classes (L, mirrored L)" in text
    assert "at the 72 training centres of a split of your own, the test images at its 72 test centres" in text
    assert "These are the controls of the lesson page *6 · Your own experiment*." in text
