"""core/engine/storage/stored_run.py: a stored run is shown only when every field has its type and range, its size is
within what its setting can produce, and its weights load into the setting's own model."""

import json

import pytest

from core.engine.running.run import run
from core.engine.setting.run_config import TrainConfig, with_value
from core.engine.storage.stored_run import UnusableRun, decode_run, max_result_bytes
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.shipped import SHIPPED, load_shipped, shipped_path
from support.hostile_runs import hostile_rows

SMALL = with_value(with_value(PRESETS["tiny"], "train", TrainConfig(epochs=5, seeds=(0, 1))), "models", ("cnn",))


@pytest.fixture(scope="module")
def stored():
    return run(SMALL, workers=0)


def test_a_good_run_decodes_to_itself(stored):
    back = decode_run(SMALL, json.dumps(stored.to_json()), stored.weights)
    assert back.rows == stored.rows and back.test_predictions == stored.test_predictions
    assert back.position_map == stored.position_map and back.curves == stored.curves and back.weights == stored.weights


@pytest.mark.parametrize("case", list(hostile_rows(run(SMALL, workers=0))))
def test_every_hostile_or_broken_run_is_refused_in_one_line(stored, case, capsys):
    text, weights = hostile_rows(stored)[case]
    with pytest.raises(UnusableRun) as refused:
        decode_run(SMALL, text, weights)
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 400
    assert "code ran" not in capsys.readouterr().out  # the pickles were never run


@pytest.mark.parametrize("name", SHIPPED)
def test_the_bound_holds_every_shipped_run(name):
    result, _ = load_shipped(name)
    text = json.dumps(json.loads(shipped_path(name).read_text())["result"])
    assert len(text) < max_result_bytes(result.config) < 10 * len(text) + 2**20
