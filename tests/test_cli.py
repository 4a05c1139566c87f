import json
import os
import subprocess
import sys

import pytest

from core.cli import build_parser
from core.engine.setting import machine
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
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "does not divide" in p.stderr


def test_help_documents_subcommands():
    p = run_cli("--help")
    assert p.returncode == 0 and "patchify" in p.stdout


def test_verify_json_passes_all_four_claims():
    p = run_cli("verify", "--json")
    assert p.returncode == 0, p.stderr
    claims = json.loads(p.stdout)["claims"]
    assert len(claims) == 4 and all(c["passed"] for c in claims)
    assert set(claims[0]) >= {"claim", "value", "tolerance", "passed"}


def test_attention_json_default_cases_and_position():
    out = json.loads(run_cli("attention", "--json").stdout)
    assert [c["id"] for c in out["cases"]] == ["top-left", "middle", "bottom-right"]
    one = json.loads(run_cli("attention", "--json", "--position", "2", "3").stdout)
    assert len(one["cases"]) == 1 and one["cases"][0]["matrices"][0]["values"][8][12] == 1.0
    bad = run_cli("attention", "--position", "5", "0")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_generalization_json_tiny():
    p = run_cli("generalization", "--preset", "tiny", "--models", "cnn", "--epochs", "5", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["config"]["train"]["epochs"] == 5 and out["config"]["models"] == ["cnn"]
    assert set(out["results"][0]) >= {"model", "seed", "train_acc", "test_acc"}


def test_the_whole_process_starts_workers_early_trains_beside_them_and_leaves_none_behind():
    # as `python -m core` runs it: workers start before the imports; this process is one lane
    script = """
import json, os, sys
from core import cli
from core.engine.setting.machine import children
from core.engine.running import worker
start, started = worker.start_worker_process, []
worker.start_worker_process = lambda preload: started.append(start(preload)) or started[-1]
bad = cli.main(["generalization", "--lr", "nan"], process=True)
print(json.dumps({"bad": bad, "started": len(started), "left": len(children(os.getpid()))}), flush=True)
started.clear()
cli.main(["generalization", "--preset", "tiny", "--epochs", "5", "--json"], process=True)
from core.engine.running.pool import server_pool, shutdown_server_pool
adopted = {w.proc.pid for w in server_pool().idle} & {p.pid for p in started}
shutdown_server_pool()
print(json.dumps({"started": len(started), "adopted": len(adopted), "left": len(children(os.getpid()))}))
"""
    p = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "VITLAB_WORKERS": ""})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    bad, good = json.loads(lines[0]), json.loads(lines[-1])
    lanes = min(int(machine.cpu_count()), machine.total_budget() // machine.WORKER_BASE)
    assert bad == {"bad": 2, "started": lanes - 1, "left": 0}  # bad input: the early workers are ended
    assert good["started"] == good["adopted"] == lanes - 1 and good["left"] == 0
    alone = json.loads(run_cli("generalization", "--preset", "tiny", "--epochs", "5", "--workers", "0", "--json").stdout)
    def numbers(out):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in out["results"]]

    assert numbers(json.loads(lines[1])) == numbers(alone)  # the same numbers as training in one process


def test_generalization_bad_range_is_one_line():
    p = run_cli("generalization", "--train-range", "1", "10")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "does not fit" in p.stderr


BAD = [
    ("patchify", "--patch-size", "0"), ("patchify", "--image-size", "-16"), ("patchify", "--embed-dim", "0"),
    ("patchify", "--image-size", "8192", "--patch-size", "8192"), ("verify", "--seed", "-1"),
    ("generalization", "--num-heads", "0"), ("generalization", "--patch-size", "0"),
    ("generalization", "--embed-dim", "0"), ("generalization", "--data-seed", "-1"),
    ("generalization", "--seeds", str(2**64)), ("generalization", "--workers", "-1"),
    ("generalization", "--depth", "0"), ("generalization", "--models", "hybrid", "--stem-channels", "0"),
    ("generalization", "--lr", "nan"), ("generalization", "--lr", "inf"), ("generalization", "--lr", "1e6"),
    ("generalization", "--n-train", "-5"), ("generalization", "--n-train", str(10**9)),
    ("generalization", "--train-range", "8", "5"), ("generalization", "--epochs", "400", "--patch-size", "2",
                                                    "--depth", "4", "--seeds", "0", "1", "2", "3", "4"),
]


def in_process(capsys, *args) -> tuple[int, str, str]:
    """``main(args)`` in this process (a process each costs a torch import): (exit code, stdout, stderr). The process
    boundary itself (the exit code and stderr of ``python -m core``): test_patchify_bad_patch_size_is_one_line_..."""
    from core.cli import main

    try:
        code = main(list(args))
    except SystemExit as stop:
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("args", BAD, ids=" ".join)
def test_every_bad_argument_is_one_line_exit_2_without_traceback(args, capsys):
    code, _, err = in_process(capsys, *args)
    assert code == 2, (args, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, (args, err)


def test_divergence_is_reported_and_json_is_strict():
    p = run_cli("generalization", "--preset", "tiny", "--models", "vit", "--lr", "10", "--epochs", "20", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert out["diverged"] and "diverged at epoch" in out["diverged"][0]
    assert out["results"][0]["test_acc"] is None and out["summary"] == {}


def test_the_work_cap_can_be_lifted_locally():
    heavy = ("generalization", "--preset", "tiny", "--models", "cnn", "--epochs", "2000", "--seeds", *map(str, range(30)))
    p = run_cli(*heavy)
    assert p.returncode == 2 and "reduce epochs" in p.stderr
    assert "--no-limits" in run_cli("generalization", "--help").stdout


def test_probe_json_prints_probabilities_attention_rollout_and_distances():
    p = run_cli("probe", "--preset", "lesson", "--model", "vit", "--seed", "0", "--shape", "plus", "--centre", "3", "4",
                "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    probe = out["probe"]
    assert probe["centre"] == [3, 4] and out["seen"]["centre"] == [5, 5] and set(probe["p_circle"]) == {"vit", "cnn"}
    assert len(probe["attention"]) == 2 and len(probe["attention"][0]) == 4  # layers, heads
    assert len(probe["rollout"]) == 4 and len(out["mean_distance"]["trained"]) == 2
    cnn = json.loads(run_cli("probe", "--model", "cnn", "--json").stdout)
    assert len(cnn["probe"]["peaks"]) == 16 and "attention" not in cnn["probe"]
    bad = run_cli("probe", "--model", "hybrid")
    assert bad.returncode == 2 and "not in the lesson run" in bad.stderr


def test_digits_prints_the_shipped_run_as_the_page_shows_it_and_trains_a_small_setting():
    from core.lessons.lesson5_real_handwriting import DIGITS, lookup_in
    from core.lessons.shipped import load_fresh_shipped

    p = run_cli("digits", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    shipped = lookup_in(load_fresh_shipped().get, DIGITS)
    assert out["origin"] == "shipped" and out["chance"] == 0.1 and len(out["results"]) == 35
    assert [r["test_acc"] for r in out["results"]] == [r.test_acc for r in shipped.rows]  # the page's numbers
    vit = out["summary"]["vit"]
    assert vit["band"] in ("below", "chance", "unclear", "between", "top") and 0 <= vit["map_unseen"] <= vit["map_seen"] + 1
    p = run_cli("digits", "--task", "digits-0-1", "--models", "vit", "cnn", "--n-train", "100", "--epochs", "30",
                "--seeds", "1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["origin"] == "live" and out["chance"] == 0.5 and {r["model"] for r in out["results"]} == {"vit", "cnn"}


def test_digits_refuses_what_the_page_refuses_in_one_line():
    for args, says in ((("--train-range", "3", "9"), "centres must be in 4..12"),
                       (("--seeds", "10", "--n-train", "3000", "--train"), "the lesson's training work"),
                       (("--canvas", "24", "--train-range", "6", "21"), "centres must be in 4..20")):
        p = run_cli("digits", *args)
        assert p.returncode == 2 and "Traceback" not in p.stderr and says in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
    p = run_cli("digits", "--models", "vit-prenorm")  # not on offer: argparse's own usage line and error
    assert p.returncode == 2 and "invalid choice: 'vit-prenorm'" in p.stderr


def test_probe_an_own_drawing_answers_with_every_model_the_lens_and_the_shift_sweep():
    p = run_cli("probe", "--image", "...#/..##/...#/....", "--json")  # 4 rows: not this run's 16
    assert p.returncode == 2 and "16 rows of 16 pixels" in p.stderr and "Traceback" not in p.stderr
    from core.data.drawing import to_text
    from core.data.shapes import make_image

    p = run_cli("probe", "--model", "vit", "--image", to_text(make_image("plus", 3, 4)).replace("\n", "/"), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["where"] == "unseen: test" and out["centre_of_mass"] == [3, 4] and len(out["answers"]) == 6
    # the lens's last reading is the answer (every token computed there, the class token alone in the answer)
    assert len(out["logit_lens"]) == 2 and abs(out["logit_lens"][-1]["plus"] - out["answers"]["vit/0"]["plus"]) < 1e-5
    assert abs(out["shift_sweep"]["vit"][4][3] - out["answers"]["vit/0"]["plus"]) < 1e-5  # rows cy, columns cx


def test_every_option_of_a_form_command_is_a_declared_control_or_a_switch():
    """A flag that sets a config field is a ``Control`` (form, link and command line from one declaration); the
    rest are the commands' own switches, declared once for all three."""
    from core.cli import form_commands

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for name, form in form_commands().items():
        flags = [f for a in subparsers[name]._actions for f in a.option_strings]
        switches = {"-h", "--help", "--preset", "--workers", "--no-limits", "--json", *(f for f, _ in form.extra)}
        assert len(flags) == len(set(flags)), name
        assert set(flags) - switches == {c.flag for c in form.controls}, name


def test_a_control_declared_twice_is_refused_naming_its_flag():
    import argparse

    from core.lessons.controls import Control, add_options
    from core.lessons.lesson3_vit_vs_cnn import CLI_CONTROLS, CONTROLS

    again = Control("data_seed", "data.data_seed", "Data seed", "slider", bounds=(0, 10))
    with pytest.raises(ValueError, match=r"declared by more than one control: \['--data-seed'\]"):
        add_options(argparse.ArgumentParser(), CONTROLS + (again,) + CLI_CONTROLS)


def test_the_position_table_scale_is_a_flag_validated_like_the_form():
    from core.cli import form_config

    args = build_parser().parse_args(["generalization", "--pos-scale", "0.1"])
    assert form_config(args).model.pos_scale == 0.1
    p = run_cli("generalization", "--pos-scale", "-1")
    assert p.returncode == 2 and "pos_scale must be a number in 0..10" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("words", [("generalization", "--frobnicate", "3"), ("generalization", "--epochs", "abc"),
                                   ("remedies", "--models", "nope"), ("frob",), ("digits", "--preset", "x")])
def test_every_command_line_error_is_one_line_naming_the_value(words, capsys):
    code, out, err = in_process(capsys, *words)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ") and "usage:" not in err and words[-1] in err
    if words[0] == "generalization" and words[1] == "--frobnicate":
        assert err.startswith("error: generalization: unknown option --frobnicate 3 (python -m core "
                                   "generalization --help lists the options)")


@pytest.fixture(scope="module")
def phase_run():
    """A small phase-split run trained here (seconds): what the census and the shift consistency read, whether
    or not the shipped results are fresh for this code."""
    from core.data.data_config import DataConfig
    from core.engine.running.run import run
    from core.engine.setting.run_config import GeneralizationConfig, TrainConfig
    from core.models.model_config import ModelConfig

    return run(GeneralizationConfig(models=("vit", "cnn"), model=ModelConfig(embed_dim=16, num_heads=2, depth=1),
                                    data=DataConfig(n_train=60, n_test=40, train_range=(3, 12), phases=(0, 1, 2)),
                                    train=TrainConfig(epochs=5, seeds=(0,))), workers=0)


def shipped_as(monkeypatch, preset: str, result) -> None:
    """The shipped results, as the commands read them, holding ``result`` for ``preset`` alone (None: nothing)."""
    from core.lessons import shipped

    runs = {} if result is None else {shipped.SHIPPED_CONFIGS[preset]: result}
    monkeypatch.setattr(shipped, "load_fresh_shipped", lambda: runs)


def test_census_prints_the_census_the_vote_the_ink_baseline_and_notes(monkeypatch, capsys, phase_run):
    from core.cli import main

    shipped_as(monkeypatch, "splits-phase", phase_run)
    assert main(["census", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["preset"] == "splits-phase" and out["patch_size"] == 4 and out["test_images"] == 40
    assert [c["name"] for c in out["classes"]] == ["plus", "circle"]
    assert set(out["classes"][0]) == {"name", "images", "patches", "never", "other_only", "same_only", "both"}
    assert set(out["vote"]) == {"accuracy", "per_class", "ties", "unvoted"} and out["ink"]["accuracy"] == 1.0
    assert set(out["test_accuracy"]) == {"vit", "cnn"} and any("never occur" in n for n in out["notes"])
    assert main(["census"]) == 0
    text = capsys.readouterr().out
    assert "\nnotes: \n  Over the run's 40 test images" in text and "\nink: {'threshold': 31.0" in text


def test_census_and_equivariance_refuse_a_run_not_fresh_for_this_code_in_one_line(monkeypatch, capsys):
    from core.cli import main

    shipped_as(monkeypatch, "splits-phase", None)  # what a stale shipped run reads as
    for words in (["census"], ["equivariance", "--preset", "splits-phase"]):
        assert main(words) == 2
        err = capsys.readouterr().err
        assert err == "error: the splits-phase run is not shipped for this code: python -m scripts.precompute " \
                      "splits-phase\n"
    p = run_cli("census", "--preset", "nope")
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert "census: argument --preset: invalid choice: 'nope'" in p.stderr


def test_equivariance_prints_the_shift_consistency_per_model_and_phase(monkeypatch, capsys, phase_run):
    from core.cli import main

    shipped_as(monkeypatch, "lesson", phase_run)
    assert main(["equivariance", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["consistency"]
    assert {(r["model"], r["axis"], r["phase"]) for r in rows} == {
        (m, a, k) for m, s in (("vit", 4), ("cnn", 2)) for a in ("x", "y") for k in range(s)}
    assert all(r["seed"] == 0 and r["pairs"] > 0 for r in rows) and out["responses"]
    assert main(["equivariance"]) == 0
    text = capsys.readouterr().out
    assert "consistency: same answer after a 1-pixel move, per phase\n  vit seed 0 x (stride 4): 0→1 " in text
    assert "\n  cnn seed 0 y (stride 2): 0→1 " in text and "3→0 " in text


def test_claims_recomputes_every_check_of_the_claims_document_from_the_shipped_runs():
    p = run_cli("claims", "--json")
    out = json.loads(p.stdout)
    assert p.returncode == 0 and out["passed"] and out["file"] == "docs/claims.md"
    assert len(out["claims"]) >= 30 and all(c["passed"] for c in out["claims"])


@pytest.mark.parametrize("args, said", [
    (["probe", "--center", "3", "4"], "error: probe: unknown option --center 3 4: did you mean --centre?"),
    (["generalization", "--epoch", "5", "--modles", "cnn"],
     "error: generalization: unknown option --modles cnn: did you mean --models?"),
    (["generalization", "--center", "3", "4"],
     "error: generalization: unknown option --center 3 4: --centre is an option of probe, not of generalization "
     "(python -m core generalization --help lists its own)"),
    (["generalization", "--zzz"],
     "error: generalization: unknown option --zzz (python -m core generalization --help lists the options)"),
    (["generalization", "stray"], "error: generalization: unrecognized arguments: stray"),
])
def test_an_unknown_option_names_the_nearest_valid_one_in_one_line_exit_2(args, said, capsys):
    from core.cli import main

    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2 and capsys.readouterr().err.strip() == said


def test_a_drawing_file_that_is_not_there_is_said_so_and_a_file_that_is_no_image_is_named(tmp_path, monkeypatch,
                                                                                          capsys):
    from core.cli import main

    monkeypatch.chdir(tmp_path)
    for missing in ("drawing.txt", "drawings/plus"):
        assert main(["probe", "--image", missing]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"error: no file {missing} (a drawing is given as a text file, or as the text itself: "), err
        assert len(err.splitlines()) == 1
    (tmp_path / "notes.png").write_text("a text file, renamed")
    assert main(["patchify", "--file", "notes.png"]) == 2
    assert capsys.readouterr().err.strip() == ("error: --file notes.png: not a PNG, JPEG, GIF, BMP, TIFF or WebP "
                                               "image, whatever its name says")
