"""The glossary: one definition per word, linked from the pages where the words first appear."""

import re
from pathlib import Path

import pytest

from ui.glossary import TERMS, slug, term
from ui.lesson_list import LESSONS

ROOT = Path(__file__).resolve().parents[2]

# The words the lessons use that a newcomer may not have: each must be defined
NEEDED = ("logit", "equivariance", "invariance", "epsilon", "rollout", "interval", "chance", "seed", "class token",
          "positional encoding", "reference ViT", "seen and unseen positions", "inductive bias", "translation invariance",
          "translation equivariance", "logit lens")


def test_every_needed_word_is_defined_once_with_its_own_anchor():
    assert set(NEEDED) <= set(TERMS)
    assert len({slug(w) for w in TERMS}) == len(TERMS)
    assert term("logit") == "[logit](Glossary#logit)" and term("seed", "seeds") == "[seeds](Glossary#seed)"
    with pytest.raises(KeyError, match="not in the glossary"):
        term("logits")


def test_every_lesson_page_links_the_glossary():
    for lesson in LESSONS:
        assert "term(" in (ROOT / lesson.page).read_text(), lesson.page


def test_no_page_refers_to_material_the_learner_does_not_have():
    texts = [(ROOT / "app.py").read_text()] + [p.read_text() for p in (ROOT / "pages").glob("*.py")]
    texts += [p.read_text() for p in (ROOT / "ui").rglob("*.py")]
    for text in texts:
        for phrase in ("Lesson 33", "seed module", "the seed's", "as the seed"):
            assert not re.search(phrase, text), phrase


def test_the_interval_is_defined_by_its_coverage_and_rollout_and_the_lens_by_their_limits():
    assert "covers the true mean at least 92" in TERMS["interval"] and "where the true mean lies" not in TERMS[
        "interval"]
    assert "show nothing either way" in TERMS["interval"]  # overlap is not equality
    assert "heuristic" in TERMS["rollout"] and "0.5 A + 0.5 I" in TERMS["rollout"] and "Chefer" in TERMS["rollout"]
    assert "trained on the last layer only" in TERMS["logit lens"]
    assert "only to moves by whole patches" in TERMS["translation equivariance"]
