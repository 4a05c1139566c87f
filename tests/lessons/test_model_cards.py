"""core/lessons/model_cards.py: every model has a card, the bench's cards say what, why and whose, and no
word of a card is in the training code's fingerprint."""

import re
import shutil

import pytest

from core.engine.setting.fingerprint import ROOT, code_fingerprint, import_closure
from core.lessons.model_cards import BENCH, CARDS, GROUPS, Card, missing_cards
from core.models.registry import REGISTRY


def test_every_registered_model_has_a_card_and_every_card_a_model():
    assert missing_cards() == [] and set(CARDS) == set(REGISTRY)
    assert len({c.color for c in CARDS.values()}) == len(CARDS)  # one colour per model on every chart
    assert len({c.label for c in CARDS.values()}) == len(CARDS)


def test_the_bench_s_cards_say_what_why_and_whose():
    for name in BENCH:
        c = CARDS[name]
        assert c.group in GROUPS and c.what and c.why and c.reported
        assert re.search(r"(19|20)\d\d", c.source) or name == "vit-max", c.source
    with pytest.raises(ValueError, match="group 'elsewhere'"):
        Card("x", "#000000", group="elsewhere", what="w", why="y", source="s", reported="r")
    with pytest.raises(ValueError, match="says what, why"):
        Card("x", "#000000", group="data", what="w")


def test_the_anti_aliased_models_and_the_no_position_vit_are_on_the_bench_and_the_linear_control_is_not():
    assert CARDS["cnn-blurpool"].group == CARDS["vit-blur"].group == "anti-aliasing"
    assert CARDS["vit-nopos"].group == "positions"
    for name in ("cnn-blurpool", "vit-blur"):
        assert "1904.11486" in CARDS[name].source and "1805.12177" in CARDS[name].source
        assert "should" in CARDS[name].why  # an expectation, not a result: nothing measured yet
    assert CARDS["linear"].group == "" and "linear" not in BENCH and CARDS["linear"].what and CARDS["linear"].why
    groups = [CARDS[name].group for name in BENCH]
    assert groups == sorted(groups, key=GROUPS.index)  # the bench is in GROUPS's order, a group's cards together


def test_no_card_no_label_and_no_colour_is_in_the_training_fingerprint(tmp_path):
    """Editing a card re-trains nothing; editing a model's forward does (a scratch copy of the code)."""
    assert "core.lessons.model_cards" not in import_closure()
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "core", copy / "core", ignore=shutil.ignore_patterns("__pycache__"))
    before = code_fingerprint(root=copy)
    cards = copy / "core" / "lessons" / "model_cards.py"
    cards.write_text(cards.read_text().replace("ViT (lesson)", "The lesson's ViT").replace("#d55e00", "#ff0000"))
    assert code_fingerprint(root=copy) == before
    vit = copy / "core" / "models" / "postnorm_vit.py"
    forward = "return self.head(pooled).squeeze(-1)"
    assert forward in vit.read_text()
    vit.write_text(vit.read_text().replace(forward, "return 2 * self.head(pooled).squeeze(-1)"))
    assert code_fingerprint(root=copy) != before
