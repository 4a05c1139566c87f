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
