"""core/lessons/experiment_parts.py: what lessons 3, 4 and 5 share: the seeds and the bench's selection refused
in one line, a selection served from a stored run of more models, and the four outcomes of their exercises."""

import pytest

from core.engine.results.verdict import BANDS
from core.lessons.experiment_parts import (
    FORM_SEEDS,
    OPTIONS,
    OUTCOME,
    first_seeds,
    from_full_run,
    on_bench,
    phases_control,
)
from core.lessons.lesson4_fixing_the_vit import BENCH
from core.lessons.shipped import load_fresh_shipped


def test_seeds_and_models_outside_the_forms_are_refused_in_one_line():
    assert first_seeds(3) == (0, 1, 2)
    with pytest.raises(ValueError, match=f"seeds must be in 1..{FORM_SEEDS}"):
        first_seeds(FORM_SEEDS + 1)
    with pytest.raises(ValueError, match=r"not on the bench: \['vit-prenorm'\]"):
        on_bench(("vit", "vit-prenorm"))


def test_a_selection_of_a_stored_run_s_models_is_served_from_it():
    shipped = load_fresh_shipped()
    chosen = BENCH.__class__(**{**BENCH.__dict__, "models": ("vit", "cnn")})
    result = from_full_run(shipped.get, chosen, BENCH.models)
    assert result is not None and {r.model for r in result.rows} == {"vit", "cnn"}
    assert from_full_run(shipped.get, chosen, ("vit",)) is None  # not a selection of that run


def test_every_band_has_one_of_the_four_outcomes():
    assert set(OUTCOME) == set(BANDS) and set(OUTCOME.values()) == set(range(len(OPTIONS)))
    assert phases_control("phases").field == "data.phases"


def _units(*scores: float):
    from core.engine.results.verdict import unit_interval

    return unit_interval({(i, 1): s for i, s in enumerate(scores)})


def test_a_change_is_judged_against_the_model_it_changes_and_the_one_it_should_reach():
    from core.lessons.experiment_parts import BETTER, NOT_BETTER, OPEN, REACHES, against

    names = ("changed", "base", "top")
    base, top = _units(*[0.7, 0.75, 0.8] * 5), _units(*[1.0] * 15)
    key, said = against(_units(*[1.0] * 15), base, top, names)
    assert key == REACHES and "as good as top" in said  # the same score on every unit
    key, said = against(_units(*[0.85, 0.9, 0.95] * 5), base, top, names)
    assert key == BETTER and "base unit by unit" in said and "higher on 15 of 15 units" in said
    key, said = against(_units(*[0.75, 0.7, 0.8] * 5), base, top, names)  # the same scores, other units
    assert key == NOT_BETTER and "as good as base" in said and "the same on 5" in said  # within the margin
    worse = _units(*[0.6] * 15)
    assert against(worse, base, top, names)[0] == NOT_BETTER  # worse is not better
    # higher than base on every unit and, against a top it beats on some units, undecided: open
    top_mixed = _units(*[1.0, 0.5, 1.0, 0.6, 1.0] * 3)
    assert against(_units(*[0.9, 0.9, 0.9] * 5), base, top_mixed, names)[0] == OPEN
    # two runs over different units are compared by their intervals alone, with no unit count
    from core.engine.results.verdict import unit_interval

    other = unit_interval({(i, 2): s for i, s in enumerate([0.8, 0.85, 0.9] * 5)})
    key, said = against(other, base, top, names, base_same_run=False)
    # two runs do not pair: no sign test against the base, their intervals (and a rank test where those cannot tell)
    assert key == OPEN and "sign test" not in said.split(", and ")[0] and "Mann–Whitney" in said  # top: no shared units
    same = unit_interval({(i, 2): s for i, s in enumerate([0.75, 0.7, 0.8] * 5)})
    assert against(same, base, top, names, base_same_run=False)[0] == NOT_BETTER
