import json
import subprocess
import sys

from tests.conftest import ROOT


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_patchify_json():
    p = run_cli("patchify", "--image-size", "16", "--patch-size", "4", "--channels", "3", "--embed-dim", "16",
                "--seed", "0", "--dtype", "float64", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["n_patches"] == 16 and out["patch_dim"] == 48
    assert out["max_abs_diff"] <= 1e-12


def test_patchify_bad_patch_size_is_one_line_no_traceback():
    p = run_cli("patchify", "--image-size", "16", "--patch-size", "5")
    assert p.returncode != 0
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "does not divide" in p.stderr


def test_help_documents_subcommands():
    p = run_cli("--help")
    assert p.returncode == 0 and "patchify" in p.stdout
