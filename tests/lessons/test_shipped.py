"""The presets' shipped results must match the code that would produce them, and the page must find them."""

import pytest

from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.lesson4_fixing_the_vit import positions_base
from core.lessons.shipped import (
    FINGERPRINTS,
    REPLICATED,
    RESULTS_DIR,
    SHIPPED,
    SHIPPED_CONFIGS,
    UNIT_DRAWS,
    UNIT_SEEDS,
    load_shipped,
    load_shipped_rows,
    load_units,
    shipped_path,
)
from tests.apptest_helpers import page

PAGE = "pages/3_ViT_vs_CNN.py"


@pytest.mark.parametrize("preset", SHIPPED)
def test_shipped_result_is_present_and_fresh(preset):
    assert shipped_path(preset).exists(), f"results/{preset}.json is missing: run python -m scripts.precompute {preset}"
    result, fresh = load_shipped(preset)
    assert result.config == SHIPPED_CONFIGS[preset], f"results/{preset}.json was made for another config"
    assert fresh, (f"results/{preset}.json is stale: the training code changed since it was made. "
                   f"Run: python -m scripts.precompute {preset}")
    assert result.complete and len(result.rows) == len(result.config.jobs)


# Every shipped file together: a repository keeps each version of them forever, and a submission's size is bounded
RESULTS_BUDGET = 80 * 2**20


def test_the_shipped_results_fit_their_budget_and_carry_no_stamp_of_their_own():
    """A restamp (a code change that moves no number) rewrites only results/fingerprints.json."""
    files = [p for p in RESULTS_DIR.iterdir() if p.is_file()]
    assert sum(p.stat().st_size for p in files) < RESULTS_BUDGET
    for path in files:
        if path.suffix == ".json" and path != FINGERPRINTS:
            assert b'"fingerprint"' not in path.read_bytes()[:4096], f"{path.name} stamps itself"


@pytest.mark.parametrize("preset", REPLICATED)
def test_a_replicated_preset_ships_every_unit_over_seeds_and_training_draws(preset):
    units = load_units(preset)
    assert units, f"results/{preset}.units.json is missing or stale: python -m scripts.replicate {preset}"
    cfg = SHIPPED_CONFIGS[preset]
    assert sorted((u.model, u.seed, u.data_seed) for u in units) == sorted(
        (m, s, d) for m in cfg.models for d in UNIT_DRAWS for s in UNIT_SEEDS[d])
    assert len({u.seed for u in units}) == sum(len(UNIT_SEEDS[d]) for d in UNIT_DRAWS)  # no seed in two draws
    shipped, _ = load_shipped(preset)
    own = {(r.model, r.seed): r.test_acc for r in shipped.rows}  # the shipped run's own seeds are its draw's units
    assert all(u.notebook == own[u.model, u.seed] for u in units if u.data_seed == cfg.data.data_seed and (u.model, u.seed) in own)


def test_shipped_lesson_matches_the_notebook():
    """The notebook prints ViT 50.7 %, 50.7 %, 26.0 % and CNN 100 % at unseen positions for seeds 0-2."""
    result, _ = load_shipped("lesson")
    acc = {(r.model, r.seed): round(r.test_acc, 3) for r in result.rows}
    assert acc == {("vit", 0): 0.507, ("cnn", 0): 1.0, ("vit", 1): 0.507, ("cnn", 1): 1.0,
                   ("vit", 2): 0.26, ("cnn", 2): 1.0}


def test_lesson_4s_data_efficiency_rows_are_present_and_fresh():
    rows = load_shipped_rows("remedies-positions", positions_base())
    assert rows is not None, "stale or missing: run python -m scripts.precompute remedies-positions"
    assert len(rows) == 5 * 3 * 3  # ranges x models x seeds


@pytest.mark.parametrize("preset", [p for p in SHIPPED if p in PRESETS])
def test_every_preset_through_the_form_finds_its_shipped_result(preset):
    at = page(PAGE, timeout=60)
    at.button(key=f"preset_{preset}").click().run()
    at.radio(key="predict").set_value("clearly above chance, clearly below 100 %")  # results show once predicted
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and not at.get("progress"), "trained instead of showing the shipped result"
    assert any("precomputed with this code" in c.value for c in at.caption)


def test_the_shipped_results_are_read_one_at_a_time_when_asked_for(monkeypatch):
    from core.lessons import shipped

    read = []
    real = shipped.load_shipped
    monkeypatch.setattr(shipped, "load_shipped", lambda preset: (read.append(preset), real(preset))[1])
    fresh = shipped.load_fresh_shipped()
    assert read == []  # nothing read until asked: a server's first page reads only what it shows
    lesson = fresh[PRESETS["lesson"]]
    assert read == ["lesson"] and fresh[PRESETS["lesson"]] is lesson and read == ["lesson"]  # read once
    assert PRESETS["exercise-1"] in fresh and fresh.get("not a config") is None
    assert len(fresh) == len(SHIPPED) and set(read) == set(SHIPPED)


def test_a_stale_shipped_result_is_not_served(monkeypatch):
    from core.lessons import shipped

    real = shipped.load_shipped
    monkeypatch.setattr(shipped, "load_shipped", lambda preset: (real(preset)[0], preset != "lesson"))
    fresh = shipped.load_fresh_shipped()
    assert PRESETS["lesson"] not in fresh and PRESETS["exercise-1"] in fresh
    with pytest.raises(KeyError):
        fresh[PRESETS["lesson"]]
