"""``python -m core SUBCOMMAND``: every lesson's experiment from the command line, as text or JSON.

Bad input exits with status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import math
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace


def _strict(obj):
    """JSON as the standard has it: non-finite numbers become null (Python would write NaN/Infinity)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _strict(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_strict(v) for v in obj]
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return _strict(obj.tolist())
    return obj


def _print(obj: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(_strict(obj), indent=None, allow_nan=False))
    elif "claims" in obj:
        for c in obj["claims"]:
            print(f"{'PASS' if c['passed'] else 'FAIL'}  {c['value']:.3g} (tol {c['tolerance']:g})  {c['claim']}")
            print(f"      {c['detail']}")
    else:
        for key, value in obj.items():
            print(f"{key}: {value}")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with its errors as the lab's: one line on stderr naming the value and what is allowed, exit 2
    (argparse's own prints the whole usage first). ``--help`` still prints the subcommand's own usage."""

    def error(self, message: str):
        where = self.prog.removeprefix("python -m core").strip()
        print(f"error: {where + ': ' if where else ''}{message}", file=sys.stderr)
        raise SystemExit(2)


@dataclass(frozen=True)
class FormCommand:
    """A subcommand that trains what a lesson's form trains: its presets (the first is the default) and its
    controls (the form's and the command line's own, each a ``Control``), so every flag that sets a config field
    is declared once, beside the widget that sets it. The lesson is named, not imported: the table is read before
    anything heavy is (``_start_workers_early``)."""

    help: str
    description: str
    lesson: str  # the lesson's module in core.lessons
    presets_name: str  # its presets: a dict, or one config (a preset of its own name)
    controls_names: tuple[str, ...]  # its tuples of controls, joined
    run: str  # the function of this module that runs it
    extra: tuple = ()  # (flag, argparse keywords) of store_true switches that set no config field

    @property
    def module(self):
        return importlib.import_module(f"core.lessons.{self.lesson}")

    @property
    def presets(self) -> dict:
        presets = getattr(self.module, self.presets_name)
        return presets if isinstance(presets, dict) else {self.presets_name.lower(): presets}

    @property
    def controls(self) -> tuple:
        return tuple(c for name in self.controls_names for c in getattr(self.module, name))


# Every training command, declared once: the parser, the help and the early start of workers read this table
FORM_COMMANDS = {
    "generalization": FormCommand(
        "train ViT vs CNN at some positions, test at unseen ones",
        "Train afresh (never cached) and print per-seed accuracies. Options override the preset.",
        "lesson3_vit_vs_cnn", "PRESETS", ("CONTROLS", "CLI_CONTROLS"), "cmd_generalization",
        (("--full", {"help": "also print curves, test predictions and the position map"}),)),
    "remedies": FormCommand(
        "lesson 4's bench: which changes to the ViT are above chance at unseen positions",
        "Train the remedies on the lesson's split (train at centres 5..10, test at 3..4) and print per model and "
        "seed the accuracies, then each model's mean with its 95 % interval and its band.",
        "lesson4_fixing_the_vit", "BENCH", ("CONTROLS", "CLI_CONTROLS"), "cmd_remedies"),
    "digits": FormCommand(
        "lesson 5: real handwritten digits at unseen positions (ViT, CNN, remedies)",
        "Lesson 3's experiment on the UCI handwritten digits: train at centres 6..12, test at 4..5 on digits "
        "never trained on. Prints per model and seed the accuracies, then each model's mean with its 95 % "
        "interval, its band, and its map accuracy at the training and at the test centres. A shipped setting "
        "is printed as shipped unless --train; anything else trains, within the page's cap.",
        "lesson5_real_handwriting", "PRESETS", ("CONTROLS",), "cmd_digits",
        (("--train", {"help": "train even a setting that ships precomputed"}),)),
}
TRAINING_COMMANDS = tuple(FORM_COMMANDS)


def form_commands() -> dict[str, FormCommand]:
    return FORM_COMMANDS


def form_config(args: argparse.Namespace):
    """The config a form command's flags set: its preset with every given flag applied, validated once."""
    from core.lessons.controls import config_from_args
    from core.lessons.own_experiment import check_own_flags

    if getattr(args, "workers", None) is not None and args.workers < 0:
        raise ValueError(f"--workers must be >= 0, got {args.workers}")
    check_own_flags(args)
    form = args.form
    return config_from_args(form.presets[getattr(args, "preset", None) or next(iter(form.presets))], form.controls,
                            args)


def cmd_worker(args: argparse.Namespace) -> dict:
    from core.engine.queue.queue_redis import URL_VARIABLE, redis_url  # redis: only for this command
    from core.engine.queue.queue_worker import work
    from core.engine.storage.run_signature import env_secret

    url = redis_url()
    if url is None:
        raise ValueError(f"set {URL_VARIABLE} to the Redis the app's replicas use (redis://host:6379/0)")
    return {"jobs": work(url, env_secret(), burst=args.burst)}


def cmd_patchify(args: argparse.Namespace) -> dict:
    from core.data.images import decode_upload
    from core.lessons.controls import config_from_args
    from core.lessons.lesson1_patchify import CONTROLS, PatchifyConfig, run_patchify

    config = config_from_args(PatchifyConfig(), CONTROLS, args)
    upload = None
    if args.file:
        config = replace(config, image="upload")
        with open(args.file, "rb") as fh:
            upload = fh.read()
        try:
            decode_upload(upload)  # decoded once (cached): the run reads the same
        except ValueError as exc:  # a file that is no image: named, as the page says it beside the uploader
            raise ValueError(f"--file {args.file}: {exc}") from exc
    return run_patchify(config, upload).to_json()


def _symmetry_config(args: argparse.Namespace):
    from core.lessons.controls import config_from_args
    from core.lessons.lesson2_symmetry import CONTROLS, SymmetryConfig

    return config_from_args(SymmetryConfig(), CONTROLS, args)


def cmd_verify(args: argparse.Namespace) -> dict:
    from core.lessons.lesson2_symmetry import claims_json, verify

    cfg = _symmetry_config(args)
    claims = claims_json(verify(cfg))
    return {"config": asdict(cfg), "passed": all(c["passed"] for c in claims), "claims": claims}


def cmd_attention(args: argparse.Namespace) -> dict:
    from core.lessons.lesson2_symmetry import SEED_CASES, experiment

    cases = SEED_CASES
    if args.position is not None:
        row, col = args.position
        cases = ((f"row{row}-col{col}", f"Bright patch at row {row}, column {col}", row, col),)
    return experiment(cases, _symmetry_config(args))


def cmd_generalization(args: argparse.Namespace) -> dict:
    from core.engine.results.run_result import summary
    from core.engine.running.run import run

    cfg = form_config(args)

    printed: dict[tuple[str, int], int] = {}

    def progress(model, seed, stats, done, total):  # a line each time a job passes another 50 epochs
        if stats.epoch // 50 > printed.get((model, seed), 0):
            printed[model, seed] = stats.epoch // 50
            print(f"  {model} seed {seed}: epoch {stats.epoch} loss {stats.loss:.4f}", file=sys.stderr)

    _adopt_early_workers(args, cfg)
    # with --json nothing is printed while training: no progress messages at all (they cross process pipes)
    result = run(cfg, None if args.json else progress, workers=args.workers, limit=not args.no_limits, here=args.here)
    rows = [asdict(r) for r in result.rows]
    out = {"config": cfg.to_json(), "results": rows,
           "summary": {m: asdict(s) for m, s in summary(result).items()}, "seconds": result.seconds,
           "diverged": [f"{r.model} seed {r.seed} diverged at epoch {r.diverged_at}" for r in result.diverged]}
    if args.full:
        full = result.to_json()
        out |= {k: full[k] for k in ("curves", "test_predictions", "position_map")}
    return out


def cmd_notebook(args: argparse.Namespace) -> dict:
    """The setting ``generalization`` would train, as a notebook that retrains it (on stdout, or in --out)."""
    import nbformat

    from core.export.notebook import notebook_for

    cfg = form_config(args)
    text = nbformat.writes(notebook_for(cfg, " ".join(["python -m core generalization", *_setting_flags(args), "--json"])))
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:  # named as the option that gave it, in one line
            raise ValueError(f"--out {args.out}: {exc.strerror or exc}") from None
        print(f"wrote {args.out}: open it in Jupyter, or upload it to Colab", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return {}  # nothing more to print: stdout may be the notebook itself


def _setting_flags(args: argparse.Namespace) -> list[str]:
    """The flags that set the config of ``args``, as typed: ``--preset exercise-2 --seeds 0 1``."""
    words = [f"--preset {args.preset}"] if getattr(args, "preset", None) else []
    for c in args.form.controls:
        value = getattr(args, c.dest, None)
        if value is True and c.widget == "toggle":
            words.append(c.flag)
        elif value is not None:
            words.append(" ".join([c.flag, *map(shlex.quote, map(str, value if isinstance(value, list) else [value]))]))
    return words


def per_model(result, more: Callable[[str], dict] = lambda m: {}) -> dict:
    """A run's rows, and per model its summary with its 95 % interval and band (and ``more(model)``)."""
    from core.engine.results.run_result import summary
    from core.engine.results.verdict import verdicts

    v = verdicts(result)
    return {"results": [{"model": r.model, "seed": r.seed, "train_acc": r.train_acc, "test_acc": r.test_acc}
                        for r in result.rows],
            # test_mean: the notebook's test (the rows' test_acc); test_set_mean and its interval: the test set, every
            # class at every test centre once, over the run's units (core.engine.results.verdict)
            "summary": {m: {**asdict(s), "test_set_mean": v[m].interval.mean,
                            "test_interval": [v[m].interval.lo, v[m].interval.hi], "band": v[m].band,
                            "verdict": v[m].text, **more(m)} for m, s in summary(result).items() if m in v}}


def cmd_remedies(args: argparse.Namespace) -> dict:
    from core.engine.running.run import run
    from core.engine.setting.planning import MAX_RUN_COST, check_cost, relative_cost
    from core.lessons.lesson4_fixing_the_vit import BENCH

    cfg = form_config(args)
    if not args.no_limits:  # the whole bench may run here, over the page's cap; the shared page ships it instead
        check_cost(cfg, limit=max(MAX_RUN_COST, relative_cost(BENCH)), what="this bench run")
    _adopt_early_workers(args, cfg)
    result = run(cfg, workers=args.workers, limit=False, here=args.here)
    return {"config": cfg.to_json(), **per_model(result), "seconds": result.seconds}


def cmd_digits(args: argparse.Namespace) -> dict:
    from core.engine.running.run import run
    from core.engine.setting.planning import check_cost
    from core.lessons.lesson5_real_handwriting import lookup_in, seen_unseen
    from core.lessons.shipped import load_fresh_shipped

    cfg = form_config(args)
    # As the page: a shipped run (or a selection of its models) is shown as it is; anything else trains, within
    # the page's cap unless --no-limits
    result = None if args.train else lookup_in(load_fresh_shipped().get, cfg)
    if result is None:
        if not args.no_limits:
            check_cost(cfg)
        _adopt_early_workers(args, cfg)
        result = run(cfg, workers=args.workers, limit=False, here=args.here)
    return {"config": cfg.to_json(), "origin": result.origin, "chance": cfg.data.kind.chance,
            **per_model(result, lambda m: {"map_seen": (su := seen_unseen(result, m)).seen, "map_unseen": su.unseen}),
            "seconds": result.seconds}


def cmd_equivariance(args: argparse.Namespace) -> dict:
    from core.inspect.equivariance import shift_consistency, shift_responses
    from core.lessons.shipped import SHIPPED_CONFIGS, load_fresh_shipped

    cfg = SHIPPED_CONFIGS[args.preset]
    if args.seed not in cfg.train.seeds:
        raise ValueError(f"seed {args.seed} is not in the {args.preset} run; choose from {list(cfg.train.seeds)}")
    result = load_fresh_shipped().get(cfg)
    if result is None:
        raise ValueError(f"the {args.preset} run is not shipped for this code: python -m scripts.precompute {args.preset}")
    pixels = tuple(args.pixels) if args.pixels else None
    if pixels and not all(1 <= n < cfg.data.img_size for n in pixels):
        raise ValueError(f"--pixels must be in 1..{cfg.data.img_size - 1}, got {list(pixels)}")
    consistency = shift_consistency(result, (args.seed,))
    return {"preset": args.preset, "seed": args.seed,
            "responses": [asdict(r) for r in shift_responses(result, args.seed, pixels)],
            "consistency": [asdict(r) for r in consistency] if args.json else _consistency_lines(consistency)}


def _consistency_lines(rows) -> str:
    """The shift consistency as text: per model and axis, each phase's move k→k+1 with its share and pairs."""
    lines: dict[str, list[str]] = {}
    for r in rows:
        share = "n/a" if r.same is None else f"{r.same:.0%}"
        lines.setdefault(f"{r.model} seed {r.seed} {r.axis} (stride {r.stride})", []).append(
            f"{r.phase}→{(r.phase + 1) % r.stride} {share} of {r.pairs}")
    return "same answer after a 1-pixel move, per phase" + "".join(
        f"\n  {what}: " + ", ".join(moves) for what, moves in lines.items())


def cmd_census(args: argparse.Namespace) -> dict:
    from core.engine.results.run_result import summary
    from core.inspect.census import census
    from core.lessons.shipped import SHIPPED_CONFIGS, load_fresh_shipped
    from core.lessons.why_below_chance import notes

    cfg = SHIPPED_CONFIGS[args.preset]
    result = load_fresh_shipped().get(cfg)
    if result is None:
        raise ValueError(f"the {args.preset} run is not shipped for this code: python -m scripts.precompute {args.preset}")
    c = census(result)
    accuracies = {m: s.test_mean for m, s in summary(result).items()}
    said = notes(c, accuracies, cfg.data.kind.chance)
    return {"preset": args.preset, **asdict(c), "test_accuracy": accuracies,
            "notes": said if args.json else "".join(f"\n  {n}" for n in said)}


def _probed_run(args: argparse.Namespace):
    """The preset's run (shipped when fresh, else trained now) and the class to draw, after checking the model,
    seed and class belong to it."""
    from core.engine.running.run import run
    from core.lessons.shipped import SHIPPED_CONFIGS, load_fresh_shipped

    cfg = SHIPPED_CONFIGS[args.preset]
    result = load_fresh_shipped().get(cfg)
    if result is None:  # no fresh shipped run (the code changed): train it, as the page would
        print(f"training the {args.preset} preset (no fresh shipped result)…", file=sys.stderr)
        result = run(cfg, workers=args.workers)
    if args.model not in cfg.models:
        raise ValueError(f"model {args.model!r} is not in the {args.preset} run; choose from {list(cfg.models)}")
    if args.seed not in cfg.train.seeds:
        raise ValueError(f"seed {args.seed} is not in the {args.preset} run; choose from {list(cfg.train.seeds)}")
    shape = args.shape or cfg.data.kind.classes[0]
    if shape not in cfg.data.kind.classes:
        raise ValueError(f"--shape must be one of {list(cfg.data.kind.classes)} for the {args.preset} run, got {shape!r}")
    return result, shape


def cmd_claims(args: argparse.Namespace) -> dict:
    from core.lessons.claim_checks import CLAIMS_FILE, run_checks
    from core.lessons.shipped import SHIPPED, SHIPPED_CONFIGS, load_fresh_shipped

    fresh = load_fresh_shipped()
    runs = {p: fresh[SHIPPED_CONFIGS[p]] for p in SHIPPED if SHIPPED_CONFIGS[p] in fresh}
    outcomes = run_checks(runs)
    return {"claims": [{"claim": o.check.line, "value": float("nan") if o.value is None else o.value,
                        "tolerance": o.check.bound, "passed": o.passed,
                        "detail": "the run, model or cells are not shipped for this code" if o.value is None else
                                  f"{o.check.statistic} {o.check.op} {o.check.bound:g}"} for o in outcomes],
            "passed": all(o.passed for o in outcomes), "file": str(CLAIMS_FILE.relative_to(CLAIMS_FILE.parents[1]))}


DRAWING_TEXT = ". for empty, # for ink, 1-9 for grey, one row per line or rows split by /"


def drawing_text(value: str) -> str:
    """``--image``'s drawing: the text of the file it names, else the value itself. A value that is not a drawing's
    text and looks like a path (a file extension or a path separator) but names no file is refused as that: read
    as a drawing it would be refused for its letters ("got 'adginrtwx'"), which says nothing of the missing file."""
    from pathlib import Path

    path = Path(value)
    try:
        is_file = path.is_file()
    except OSError:  # a drawing's text on one line can be longer than a file's name may be
        is_file = False
    if is_file:
        return path.read_text()
    drawn = set(value) <= set(".#0123456789/ \t\r\n")
    if not drawn and (path.suffix or os.sep in value or "/" in value):
        raise ValueError(f"no file {value} (a drawing is given as a text file, or as the text itself: {DRAWING_TEXT})")
    return value


def cmd_probe(args: argparse.Namespace) -> dict:
    from core.inspect.trained_model import distances, probe, seen_centre

    text = drawing_text(args.image) if args.image is not None else None  # a missing file said before a run loads
    result, shape = _probed_run(args)
    if text is not None:
        return _probe_drawing(args, result, shape, text)
    cx, cy = args.centre

    def one(x: int, y: int) -> dict:
        p = probe(result, args.model, args.seed, shape, x, y)
        out = {"centre": [x, y], "p_right": p.p_true,
               "probabilities": {m: dict(zip(p.classes, ps, strict=True)) for m, ps in p.probs.items()}}
        if "circle" in p.classes:  # the lesson's shapes: every model's probability of "circle", as before
            out["p_circle"] = {m: ps[p.classes.index("circle")] for m, ps in p.probs.items()}
        if p.attention:
            out |= {"attention": [a.tolist() for a in p.attention], "rollout": p.rollout.tolist(),
                    "distance": [d.tolist() for d in p.distance], "logit_lens": _lens(result, args, p.image)}
        if p.features is not None:
            out |= {"peaks": p.peaks}
        return out

    out = {"preset": args.preset, "model": args.model, "seed": args.seed, "shape": shape,
           "probe": one(cx, cy), "seen": one(*seen_centre(result, cx, cy))}
    if out["probe"].get("attention") is not None:
        untrained, trained = distances(result, args.model, args.seed)
        out["mean_distance"] = {"untrained": untrained.tolist(), "trained": trained.tolist()}
    return out


def _lens(result, args: argparse.Namespace, image) -> list[dict]:
    """The probed model's logit lens on ``image``: each class's probability read after each layer."""
    import torch

    from core.inspect.logit_lens import logit_lens
    from core.inspect.trained_model import trained_model

    lens = logit_lens(trained_model(result, args.model, args.seed), torch.from_numpy(image)[None, None])
    return [dict(zip(result.config.data.kind.classes, map(float, row), strict=True)) for row in lens.probs]


def _probe_drawing(args: argparse.Namespace, result, shape: str, text: str) -> dict:
    """``probe --image``: the learner's own drawing through every trained model of the run, the probed model's
    logit lens, and the shift sweep of the drawn class (``shape``) at the probed seed; ``text``: the drawing
    (``drawing_text``)."""
    from core.data import drawing
    from core.inspect.own_input import answers, shift_sweep, where
    from core.models.registry import spec

    size, classes = result.config.data.img_size, result.config.data.kind.classes
    image = drawing.from_text(text, size)
    out = {"preset": args.preset, "model": args.model, "seed": args.seed, "shape": shape,
           "drawing": drawing.to_text(image).splitlines(), "link": drawing.encode(image),
           "centre_of_mass": drawing.centre_of_mass(image), "where": where(result, image),
           "answers": {f"{m}/{seed}": dict(zip(classes, map(float, p), strict=True))
                       for (m, seed), p in answers(result, image).items()}}
    if spec(args.model).transformer:
        out["logit_lens"] = _lens(result, args, image)
    if out["centre_of_mass"] is not None:
        sweep = shift_sweep(result, args.seed, image, classes.index(shape))
        out["shift_sweep"] = {m: grid.tolist() for m, grid in sweep.maps.items()}  # rows cy, columns cx; NaN: null
    return out


def build_parser() -> argparse.ArgumentParser:
    from core.lessons.controls import add_options

    parser = OneLineParser(prog="python -m core", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    from core.lessons import lesson1_patchify, lesson2_symmetry

    p = sub.add_parser("patchify", help="conv vs flatten+linear patch embedding on one image",
                       description="Patchify an image and compare the strided-conv and flatten+linear embeddings.")
    add_options(p, lesson1_patchify.CONTROLS)  # the page's controls, declared once in the lesson's module
    p.add_argument("--file", help="a PNG/JPEG to use instead of a synthetic image")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_patchify)

    p = sub.add_parser("verify", help="the seed module's four claims, measured",
                       description="Check the four ViT claims; exits 1 if any fails.")
    add_options(p, lesson2_symmetry.CONTROLS)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("attention", help="class-token attention for a bright patch (the seed's experiment)",
                       description="The seed's experiment() structure: three cases, or one at --position.")
    add_options(p, lesson2_symmetry.CONTROLS)
    p.add_argument("--position", type=int, nargs=2, metavar=("ROW", "COL"), help="one bright patch at this grid cell")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_attention)

    for name, form in form_commands().items():
        p = sub.add_parser(name, help=form.help, description=form.description)
        _add_setting_options(p, form)
        p.add_argument("--workers", type=int, help="parallel training lanes: this process and worker processes "
                                                   "(default: one per available core; 0: this process alone)")
        p.add_argument("--no-limits", action="store_true",
                       help="lift the cap on one run's work (the app's limit for a shared server), on a machine of "
                            "your own")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        for flag, kw in form.extra:
            p.add_argument(flag, action="store_true", **kw)
        p.set_defaults(func=globals()[form.run], form=form)

    p = sub.add_parser("notebook", help="a setting of generalization as a Jupyter notebook that retrains it",
                       description="Write the setting that generalization's options give as a Jupyter notebook (to "
                                   "stdout, or --out): the lab's own data, models and training loop, then each seed's "
                                   "accuracies and the generalization map. It needs torch, numpy and matplotlib, not "
                                   "this repository; on this machine it prints the accuracies generalization --json "
                                   "prints for the same options.")
    _add_setting_options(p, FORM_COMMANDS["generalization"])
    p.add_argument("--out", metavar="FILE", help="write the notebook to FILE instead of stdout")
    p.set_defaults(func=cmd_notebook, form=FORM_COMMANDS["generalization"], json=False)

    from core.lessons.shipped import SHIPPED

    p = sub.add_parser("probe", help="look inside a trained model: probabilities, attention, rollout, distances",
                       description="Probe one trained (model, seed) of a preset's run (the shipped one when fresh, "
                                   "else trained now) with a shape at a centre, and at the nearest training centre.")
    p.add_argument("--preset", default="lesson", choices=list(SHIPPED))
    p.add_argument("--model", default="vit")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shape", default=None, help="the class drawn: plus or circle (default plus), or a digit 0-9 "
                                                "for lesson 5's presets (default 0)")
    p.add_argument("--centre", type=int, nargs=2, default=(3, 4), metavar=("CX", "CY"))
    p.add_argument("--image", help="your own drawing instead of a test image: a text file, or the text itself, one "
                                   "row per line (or rows split by /), . for empty, # for ink, 1-9 for grey; every "
                                   "model answers, with the logit lens and the shift sweep of --shape")
    p.add_argument("--workers", type=int, help="if it must train: parallel worker processes")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_probe)

    p = sub.add_parser("equivariance", help="how much each trained model's answer changes under 1-pixel and one-patch moves",
                       description="Every model of a shipped run (trained at --seed, and as it started) answers the "
                                   "map's images, then the same images moved right and down by 1 pixel and by one "
                                   "patch: the share of answers that change, the change of the true class's "
                                   "probability, and of the patch tokens (as a set) or the CNN's feature maps; "
                                   "then each trained model's shift consistency: the share of answers that stay the "
                                   "same after a 1-pixel move, per phase of its sampling stride. Forward passes only.")
    p.add_argument("--preset", default="lesson", choices=list(SHIPPED))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pixels", type=int, nargs="+", help="the moves in pixels (default: 1 and the patch size)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_equivariance)

    p = sub.add_parser("census", help="why below chance: which test patches occur in training, a nearest-patch vote, "
                                      "the ink-count baseline",
                       description="Over a shipped run's own training and test images, cut into the ViT's patches: "
                                   "where each test class's inked patches occur in training (never, only in another "
                                   "class, only in its own, in both), a nearest-patch vote that ignores positions, "
                                   "and the total ink thresholded once on the training images. Exact counts; no "
                                   "model is run.")
    p.add_argument("--preset", default="splits-phase", choices=list(SHIPPED))
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_census)

    p = sub.add_parser("claims", help="recompute every check of docs/claims.md from the shipped runs",
                       description="Every 'check:' line of docs/claims.md, recomputed from the shipped results (fresh "
                                   "for this code): its value and whether it holds; exits 1 if any fails.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_claims)

    p = sub.add_parser("worker", help="train the app's queued runs (on Redis: VITLAB_REDIS_URL)",
                       description="Take training jobs from the Redis that the app's replicas share "
                                   "(VITLAB_REDIS_URL, never printed) and train them on this machine, within its "
                                   "memory budget and cost cap; finished runs are signed with VITLAB_ARCHIVE_SECRET, "
                                   "the same on every replica and worker. Run one per machine, on as many machines "
                                   "as needed. SIGTERM or Ctrl-C hands a job in training back to the queue.")
    p.add_argument("--burst", action="store_true", help="leave when the queue is empty (default: wait for jobs)")
    p.add_argument("--json", action="store_true", help="print one JSON object when it leaves")
    p.set_defaults(func=cmd_worker)
    return parser




def _add_setting_options(p: argparse.ArgumentParser, form: FormCommand) -> None:
    """A form command's options that set its config: its preset (if it has several) and its controls."""
    from core.lessons.controls import add_options

    if len(form.presets) > 1:
        p.add_argument("--preset", default=next(iter(form.presets)), choices=list(form.presets))
    add_options(p, form.controls)  # every setting, declared once in the lesson's module


def _long_options(parser: argparse.ArgumentParser) -> list[str]:
    return [s for a in parser._actions for s in a.option_strings if s.startswith("--")]


def _nearest(name: str, options: list[str]) -> str | None:
    """The option most like ``name`` (a typo, or the other spelling: --center for --centre), if one is close."""
    near = difflib.get_close_matches(name.lstrip("-"), [o.lstrip("-") for o in options], n=1, cutoff=0.6)
    return "--" + near[0] if near else None


def unknown_arguments(commands: dict[str, argparse.ArgumentParser], command: str, unknown: list[str]) -> str:
    """argparse's "unrecognized arguments" said usefully: each unknown option with the nearest of the subcommand's
    own, else the subcommand that has one like it, else where its options are listed; each named with the values
    that followed it (what was typed, in one line)."""
    said, strays, groups = [], [], []  # groups: [unknown option, the values that followed it]
    for token in unknown:
        name = token.split("=", 1)[0]
        if name.startswith("-") and not _is_number(name):
            groups.append([token])
        elif groups:
            groups[-1].append(token)
        else:
            strays.append(token)
    for group in groups:
        name, given = group[0].split("=", 1)[0], " ".join(group)
        if near := _nearest(name, _long_options(commands[command])):
            said.append(f"unknown option {given}: did you mean {near}?")
            continue
        elsewhere = [(c, n) for c, p in commands.items() if c != command and (n := _nearest(name, _long_options(p)))]
        if elsewhere:
            other, near = elsewhere[0]
            said.append(f"unknown option {given}: {near} is an option of {other}, not of {command} "
                        f"(python -m core {command} --help lists its own)")
        else:
            said.append(f"unknown option {given} (python -m core {command} --help lists the options)")
    if strays:
        said.append(f"unrecognized arguments: {' '.join(strays)}")
    return "; ".join(said)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _start_workers_early(argv: list[str]) -> list:
    """For a training command, start its worker processes before this process imports anything heavy:
    they import torch while this one does, instead of after it. One per available core, less one: this
    process trains too. None at all when the count is the user's (``--workers``, ``VITLAB_WORKERS``) or for help."""
    if (not argv or argv[0] not in TRAINING_COMMANDS or os.environ.get("VITLAB_WORKERS")
            or any(a in ("-h", "--help") or a.startswith("--workers") for a in argv)):
        return []
    from core.engine.running.worker import start_worker_process
    from core.engine.setting.machine import WORKER_BASE, cpu_count, total_budget

    lanes = min(int(cpu_count()), total_budget() // WORKER_BASE)
    return [start_worker_process(("core.engine.running.run",)) for _ in range(lanes - 1)]


def _adopt_early_workers(args: argparse.Namespace, cfg) -> None:
    """Hand the workers started early to the pool (which ends any the run's plan does not need)."""
    if args.early_workers:
        from core.engine.running.run import warm

        procs, args.early_workers = args.early_workers, []
        warm(cfg, procs=procs, here=args.here)


def main(argv: list[str] | None = None, process: bool = False) -> int:
    """Run one subcommand. ``process``: this call is the whole process (``python -m core``), so a training
    command may start its workers before its imports and train in this process too (it sets torch to
    one thread process-wide, which a caller such as a test suite would not expect)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if process:  # its workers are its only work: not below its own priority, as a server's are
        os.environ.setdefault("VITLAB_WORKER_NICE", "0")
    early = _start_workers_early(argv) if process else []
    args = None
    try:
        parser = build_parser()
        args, unknown = parser.parse_known_args(argv)
        args.early_workers, args.here = early, process
        if unknown:  # named by the subcommand they were given to, with its own usage on --help
            commands = next(a for a in parser._actions if a.dest == "command").choices
            commands[args.command].error(unknown_arguments(commands, args.command, unknown))
        try:
            result = args.func(args)
        except (ValueError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    finally:
        for proc in early if args is None else args.early_workers:  # not adopted (bad input, help): end them
            proc.kill()
            proc.wait()
    _print(result, args.json)
    return 1 if result.get("passed") is False else 0
