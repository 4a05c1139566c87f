"""ui/browser_store.py: what a learner's browser keeps (progress, answers, predictions), checked on the way back."""

import json

from core.lessons.lesson3_vit_vs_cnn import PRESETS
from ui.browser_store import MAX_BYTES, MAX_JUDGED, RECORD, VERSION, apply, record, restore


def _session() -> dict:
    return {"progress": {"ViT_vs_CNN/more-data": True, "Patchify/tokens": False},
            "judged": {PRESETS["lesson"]: "clearly above chance, clearly below 100 %", PRESETS["exercise-1"]: None},
            "predict": "clearly above chance, clearly below 100 %", "bench_predict": ("vit-shift", "vit-relpos"),
            "predict_split_skipped": True, "answer_ViT_vs_CNN_more-data": "Not at all: not shown better than the "
            "lesson's ViT", "predict_check": False, "predict_skip": True, "n_train": 3000, "models": ["vit"]}


def test_a_reload_gets_back_the_progress_the_answers_and_the_predictions():
    saved = json.dumps(record(_session()))
    fresh: dict = {}
    apply(fresh, restore(saved))
    assert fresh["progress"] == _session()["progress"]
    assert fresh["judged"] == _session()["judged"]  # the settings themselves, as the gate keys them
    assert fresh["bench_predict"] == ["vit-shift", "vit-relpos"] and fresh["predict_split_skipped"] is True
    assert fresh["answer_ViT_vs_CNN_more-data"].startswith("Not at all")
    # never a button's value (setting one raises), never a setting of the form (that is the link's)
    assert not {"predict_check", "predict_skip", "n_train", "models"} & set(fresh)
    assert fresh[RECORD]["v"] == VERSION


def test_what_the_session_holds_since_the_reload_wins_and_a_page_not_shown_stays_kept():
    fresh = {"predict": "near chance (50 %)", "progress": {"Patchify/tokens": True}}
    apply(fresh, restore(json.dumps(record(_session()))))
    assert fresh["predict"] == "near chance (50 %)" and fresh["progress"]["Patchify/tokens"] is True
    later = {RECORD: fresh[RECORD], "progress": {}}  # lesson 4's widgets are not in this run's session
    assert record(later)["widgets"]["bench_predict"] == ["vit-shift", "vit-relpos"]


def test_whatever_the_browser_sends_back_is_checked_and_never_raises():
    assert restore("") is None and restore("not json") is None and restore("[1, 2]") is None
    assert restore(json.dumps({"v": VERSION + 1})) is None  # another version's record
    assert restore("x" * (MAX_BYTES + 1)) is None
    bad = {"v": VERSION, "progress": {"a/b": "yes", "c/d": True}, "widgets": {"predict_check": True, "predict": 3,
           "answer_x": "ok", "<script>": "x"}, "judged": [["nope", "x"], [{"models": ["vit"]}, "y"], 5,
                                                          [PRESETS["lesson"].to_json(), {"a": 1}],
                                                          [PRESETS["lesson"].to_json(), "fine"]]}
    got = restore(json.dumps(bad))
    assert got["progress"] == {"c/d": True} and got["widgets"] == {"answer_x": "ok"}
    assert got["judged"] == [[PRESETS["lesson"].to_json(), "fine"]]
    refused = PRESETS["lesson"].to_json() | {"train": {**PRESETS["lesson"].to_json()["train"], "epochs": -5}}
    assert restore(json.dumps({"v": VERSION, "judged": [[refused, "x"]]}))["judged"] == []  # validated as a link is


def test_the_record_keeps_the_latest_predictions_only():
    from dataclasses import replace

    state = {"judged": {replace(PRESETS["lesson"], train=replace(PRESETS["lesson"].train, epochs=10 + i)): "x"
                        for i in range(MAX_JUDGED + 10)}}
    kept = record(state)["judged"]
    assert len(kept) == MAX_JUDGED and kept[-1][0]["train"]["epochs"] == 10 + MAX_JUDGED + 9
