"""core/lessons/claim_checks.py: a ``check:`` line parsed, and its statistic recomputed from a run, exactly."""

import pytest

from core.data.data_config import DataConfig
from core.engine.results.behaviour import new_for_stride
from core.engine.results.run_result import PositionScore, RunResult, SeedResult
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig, TrainConfig
from core.lessons.claim_checks import CLAIMS_FILE, checks_in, parse, run_checks, value

ODD = DataConfig(train_range=(3, 12), phases=(0, 2))
CFG = GeneralizationConfig(models=("vit", "cnn"), data=ODD, train=TrainConfig(seeds=(0, 1)))


def synthetic_run() -> RunResult:
    """The ViT right exactly where its stride reaches the held-out centre, the CNN right everywhere on seed 0 and
    nowhere held out on seed 1; test accuracies 0.25/0.75 and 1.0/0.5."""
    cells = []
    for m in CFG.models:
        for seed in CFG.train.seeds:
            for cx in ODD.kind.centres(ODD.img_size):
                for cy in ODD.kind.centres(ODD.img_size):
                    seen = ODD.trains_at(cx) and ODD.trains_at(cy)
                    right = (seen or not new_for_stride(ODD, 4, cx, cy)) if m == "vit" else (seen or seed == 0)
                    cells += [PositionScore(m, seed, shape, cx, cy, float(right)) for shape in ("plus", "circle")]
    rows = [SeedResult(m, s, 1.0, acc, 1.0) for (m, s), acc in
            {("vit", 0): 0.25, ("vit", 1): 0.75, ("cnn", 0): 1.0, ("cnn", 1): 0.5}.items()]
    return RunResult(CFG, rows=rows, position_map=cells)


def test_a_check_line_is_parsed_and_a_malformed_one_is_refused_naming_it():
    c = parse("splits-odd vit-blur minus vit new mean > 0.3")
    assert (c.preset, c.models, c.measure, c.statistic, c.op, c.bound) == ("splits-odd", ("vit-blur", "vit"), "new",
                                                                            "mean", ">", 0.3)
    for bad in ("splits-odd vit new mean >", "splits-odd vit anywhere mean > 0.3", "splits-odd vit new mean > x",
                "splits-odd vit new average > 0.3"):
        with pytest.raises(ValueError, match="splits-odd"):
            parse(bad)
    text = "Claim 1.\n- `check: lesson cnn test min >= 1`\nnot a check: lesson cnn test min >= 1\n"
    assert [c.line for c in checks_in(text)] == ["lesson cnn test min >= 1"]


def test_a_statistic_is_computed_per_seed_and_over_the_measures_cells():
    runs = {"splits-odd": synthetic_run()}

    def v(line):
        return value(parse(line), runs)

    assert v("splits-odd vit notebook mean > 0") == 0.5 and v("splits-odd vit notebook min > 0") == 0.25
    assert v("splits-odd vit test max > 0") == 0.0  # the test set: every held-out centre (the phase split's test)
    assert v("splits-odd vit new max > 0") == 0.0  # every held-out centre is new for stride 4 on the odd split
    assert v("splits-odd cnn new min > 0") == 0.0 and v("splits-odd cnn new max > 0") == 1.0
    assert v("splits-odd cnn minus vit new mean > 0") == 0.5 and v("splits-odd cnn minus vit notebook min > 0") == -0.25
    lo, hi = v("splits-odd cnn unseen lo > 0"), v("splits-odd cnn unseen hi > 0")
    assert lo < 0.5 < hi
    assert v("splits-notebook vit test mean > 0") is None and v("splits-odd mlp test mean > 0") is None
    with pytest.raises(ValueError, match="the measure 'notebook'"):
        v("pos-scale@1.0 vit test mean > 0")  # a sweep's rows hold the notebook's measure only


def test_the_notebook_split_reaches_every_held_out_centre_by_whole_strides():
    notebook = RunResult(NOTEBOOK_SETUP, rows=[SeedResult("vit", 0, 1.0, 1.0, 1.0)],
                         position_map=[PositionScore("vit", 0, "plus", 3, 3, 1.0)])
    assert value(parse("n vit reached mean > 0"), {"n": notebook}) == 1.0
    assert value(parse("n vit new mean > 0"), {"n": notebook}) is None


def test_the_claims_document_has_checks_and_every_one_passes_on_the_shipped_runs():
    from core.lessons.shipped import SHIPPED, load_fresh_shipped, shipped_path
    from core.lessons.shipped import SHIPPED_CONFIGS as CONFIGS

    fresh = load_fresh_shipped()
    runs = {p: fresh[CONFIGS[p]] for p in SHIPPED if shipped_path(p).exists() and CONFIGS[p] in fresh}
    outcomes = run_checks(runs)
    assert len(outcomes) >= 10, f"{CLAIMS_FILE} has too few checks"
    failed = [f"{o.check.line}: {o.value}" for o in outcomes if not o.passed]
    assert not failed, "claims the shipped runs no longer carry:\n" + "\n".join(failed)
