"""The code fingerprint follows the training code's import closure: no list to keep by hand."""

from core.engine.setting.fingerprint import TRAINING, code_fingerprint, import_closure


def tree(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_module_joining_the_closure_changes_the_fingerprint(tmp_path):
    tree(tmp_path, {"core/__init__.py": "", "core/engine/__init__.py": "",
                    "core/engine/running/run.py": "from core.nn.layer import f\n",
                    "core/nn/__init__.py": "", "core/nn/layer.py": "def f(): pass\n",
                    "core/nn/other.py": "x = 1\n"})
    before = code_fingerprint(TRAINING, tmp_path)
    assert "core.nn.other" not in import_closure(TRAINING, tmp_path)
    (tmp_path / "core/nn/other.py").write_text("x = 2\n")  # outside the closure: nothing changes
    assert code_fingerprint(TRAINING, tmp_path) == before

    (tmp_path / "core/nn/layer.py").write_text("def f():\n    from core.nn.other import x  # a lazy import counts\n")
    joined = code_fingerprint(TRAINING, tmp_path)
    assert joined != before and "core.nn.other" in import_closure(TRAINING, tmp_path)
    (tmp_path / "core/nn/other.py").write_text("x = 3\n")  # now inside it
    assert code_fingerprint(TRAINING, tmp_path) != joined


def test_a_package_init_on_the_way_is_in_the_closure(tmp_path):
    tree(tmp_path, {"core/__init__.py": "", "core/engine/__init__.py": "", "core/engine/running/run.py": "import core.models.a\n",
                    "core/models/__init__.py": "from core.models import b\n", "core/models/a.py": "",
                    "core/models/b.py": ""})
    assert {"core.models", "core.models.a", "core.models.b"} <= set(import_closure(TRAINING, tmp_path))


def test_the_real_closure_holds_every_model_and_the_loop():
    closure = import_closure()
    assert {"core.engine.running.train", "core.models.registry", "core.models.remedies", "core.models.postnorm_vit",
            "core.nn.adam", "core.nn.seeded", "core.data.shapes"} <= set(closure)
    assert not [m for m in closure if m.startswith(("core.lessons", "core.inspect"))]


def test_torchs_version_is_read_without_importing_it_and_is_torchs_own():
    import torch

    from core.engine.setting.fingerprint import torch_version

    assert torch_version() == torch.__version__  # a stamp made with either reads the same
