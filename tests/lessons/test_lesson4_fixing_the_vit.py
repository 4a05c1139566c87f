import json
import re

import pytest

from core.engine.run import run
from core.lessons.lesson4_fixing_the_vit import BENCH, POSITION_RANGES, bench, positions
from core.models.registry import REGISTRY
from core.models.remedies import CARDS, GROUPS, CNNVariant, on_bench, remedy
from tests.test_cli import run_cli


def test_every_remedy_is_a_registered_model_with_a_card_that_cites_a_year():
    assert set(REGISTRY) - set(CARDS) == {"vit-config"}  # every model but the form's configurable ViT
    assert set(CARDS) <= set(REGISTRY) and set(BENCH.models) == set(CARDS)
    for card in CARDS.values():
        assert card.group in GROUPS and card.what and card.why and card.reported
        assert re.search(r"(19|20)\d\d", card.source) or card.model == "vit-max", card.source


def test_a_remedy_is_declared_once_and_a_bench_card_needs_a_known_model_and_group():
    card = {"group": "the CNN side", "what": "w", "why": "y", "source": "s 2020", "reported": "r"}
    with pytest.raises(ValueError, match="already registered"):
        remedy("cnn-avg", "again", "#000000", CNNVariant(head="avg"), **card)
    with pytest.raises(ValueError, match="unknown model"):
        on_bench("no-such-model", **card)
    with pytest.raises(ValueError, match="group"):
        on_bench("cnn", **{**card, "group": "elsewhere"})


def test_the_bench_is_the_lessons_split_with_five_seeds_and_refuses_strangers():
    assert BENCH.data.train_range == (5, 10) and BENCH.data.test_range == (3, 4) and len(BENCH.train.seeds) >= 5
    assert bench(("cnn", "vit"), 2).models == ("vit", "cnn")  # the registry's order: one key per setting
    with pytest.raises(ValueError, match="not on the bench: \\['vit-config'\\]"):
        bench(("vit-config",))
    with pytest.raises(ValueError, match="seeds must be in 1..10, got 0"):
        bench(seeds=0)
    assert [positions(r) for r in POSITION_RANGES] == [1, 4, 16, 36, 64]


def test_a_selection_of_a_result_is_that_result_restricted():
    cfg = bench(("cnn", "cnn-flatten"), 1)
    from dataclasses import replace

    cfg = replace(cfg, train=replace(cfg.train, epochs=20))
    result = run(cfg, workers=0)
    part = result.subset(replace(cfg, models=("cnn",)))
    assert {r.model for r in part.rows} == {"cnn"} and {p.model for p in part.position_map} == {"cnn"}
    assert [r for r in result.rows if r.model == "cnn"] == part.rows
    with pytest.raises(ValueError, match="not a selection"):
        result.subset(replace(cfg, models=("cnn",), train=replace(cfg.train, epochs=30)))


def test_cli_prints_per_seed_rows_and_intervals():
    p = run_cli("remedies", "--models", "cnn", "cnn-flatten", "--seeds", "2", "--epochs", "20", "--workers", "0",
                "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert [(r["model"], r["seed"]) for r in out["results"]] == [("cnn", 0), ("cnn-flatten", 0), ("cnn", 1),
                                                                  ("cnn-flatten", 1)]
    assert set(out["results"][0]) == {"model", "seed", "train_acc", "test_acc"}
    s = out["summary"]["cnn"]
    assert s["test_interval"][0] <= s["test_mean"] <= s["test_interval"][1] and s["band"] in ("below", "chance",
                                                                                                "between", "top")
    bad = run_cli("remedies", "--models", "mlp")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_what_to_notice_and_the_prediction_are_read_from_the_bench():
    from core.engine.verdict import verdicts
    from core.lessons.lesson4_fixing_the_vit import notes, prediction_against_bench
    from core.lessons.shipped import load_fresh_shipped

    v = verdicts(load_fresh_shipped()[BENCH])
    said = notes(v, [{"model": "vit", "value": 1, "test_acc": 0.5}, {"model": "vit", "value": 36, "test_acc": 0.4}])
    restored = next(n for n in said if n.startswith("Restored here"))
    assert "**ViT, learned positions** 100%" in restored and "ViT (lesson)" not in restored
    assert any(n.startswith("**Did not help here**") and "ViT, overlapping patches" in n for n in said)
    assert any(n.startswith("A CNN can lose too: **CNN, flatten + linear head**") for n in said)
    assert said[-1] == "Data efficiency, ViT (lesson): 50% with 1 training position(s), 40% with 36."
    hit, wrong, missed = prediction_against_bench(["vit-learned", "vit-overlap"], v)
    assert hit == ["vit-learned"] and wrong == ["vit-overlap"] and "vit-relpos" in missed and "vit-learned" not in missed


def test_a_selection_of_the_bench_is_read_from_the_stored_bench():
    from dataclasses import replace

    from core.lessons.lesson4_fixing_the_vit import from_bench
    from core.lessons.shipped import load_fresh_shipped

    stored = load_fresh_shipped()
    some = replace(BENCH, models=("vit", "cnn-flatten"))
    picked = from_bench(stored.get, some)
    assert picked.config == some and {r.model for r in picked.rows} == {"vit", "cnn-flatten"}
    assert from_bench(stored.get, replace(some, train=replace(some.train, epochs=50))) is None  # other epochs: not stored
