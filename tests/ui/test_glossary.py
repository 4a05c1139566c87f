"""The glossary: one definition per word, linked from the pages where the words first appear."""

import functools
import re
from pathlib import Path

import pytest

from ui.glossary import TERMS, slug, term
from ui.lesson_list import LESSONS

ROOT = Path(__file__).resolve().parents[2]

# The words the lessons use that a newcomer may not have: each must be defined
NEEDED = ("logit", "equivariance", "invariance", "epsilon", "rollout", "interval", "chance", "seed", "class token",
          "positional encoding", "reference ViT", "seen and unseen positions", "inductive bias", "translation invariance",
          "translation equivariance", "logit lens", "the notebook", "the seed module", "Lesson 33's flatten MLP")


def test_every_needed_word_is_defined_once_with_its_own_anchor():
    assert set(NEEDED) <= set(TERMS)
    assert len({slug(w) for w in TERMS}) == len(TERMS)
    assert term("logit") == "[logit](Glossary#logit)" and term("seed", "seeds") == "[seeds](Glossary#seed)"
    with pytest.raises(KeyError, match="not in the glossary"):
        term("logits")


def test_every_lesson_page_links_the_glossary():
    for lesson in LESSONS:
        assert "term(" in (ROOT / lesson.page).read_text(), lesson.page


def _sources() -> list[Path]:
    return [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]


def test_material_the_learner_does_not_have_is_named_only_through_the_glossary():
    """Lesson 33 and the seed module are not in the lab: a page names them only as a link to their glossary
    entry (``term``), which says what they are."""
    for path in _sources():
        if path == ROOT / "ui" / "glossary.py":
            continue
        text = re.sub(r"term\((['\"]).*?\1[,)]", "", path.read_text())  # a term(...) call's word is its link
        for phrase in ("Lesson 33", "seed module", "the seed's", "as the seed"):
            assert not re.search(phrase, text), (path, phrase)


def test_every_glossary_link_written_out_names_a_defined_word():
    """A link written without ``term`` (text that cannot import it, as the lesson list) still lands on an entry."""
    anchors = {slug(w) for w in TERMS}
    for path in _sources():
        for anchor in re.findall(r"\]\(Glossary#([^)]*)\)", path.read_text()):
            assert anchor in anchors, (path, anchor)


# Where a learner first meets each word that names the lab's sources: (page, the section tab to open or None,
# the words that name it). The first body text on that page mentioning any of the words links the entry.
FIRST_MET = {
    "the notebook": [("app.py", None, ("notebook",)),
                     ("pages/3_ViT_vs_CNN.py", None, ("notebook",)),
                     ("pages/3_ViT_vs_CNN.py", "What broke the ViT?", ("notebook",))],
    "Lesson 33's flatten MLP": [("pages/3_ViT_vs_CNN.py", None, ("lesson 33", "flatten mlp", "flatten-based mlp"))],
    "the seed module": [("app.py", None, ("seed module", "teaching module")),
                        ("pages/2_Permutation_symmetry.py", None, ("seed module", "teaching module"))],
}
BODY = ("markdown", "caption", "info", "warning", "success", "error")  # elements whose Markdown can hold a link


def _body_texts(node, out: list[str]) -> list[str]:
    """The page's body texts, in the order they are shown."""
    if getattr(node, "type", None) in BODY:
        out.append(node.value)
    children = getattr(node, "children", None)
    for child in (children.values() if isinstance(children, dict) else ()):
        _body_texts(child, out)
    return out


@pytest.mark.parametrize("word", sorted(FIRST_MET))
def test_the_sources_are_defined_and_linked_where_a_page_first_names_them(word):
    from tests.apptest_helpers import assert_clean, open_section, page

    assert word in TERMS and "Lesson 46: Vision Transformers" in TERMS["the notebook"]
    for path, tab, words in FIRST_MET[word]:
        at = page(path, timeout=120)
        if tab is not None:
            at.button(key="predict_skip").click().run()  # lesson 3 shows its sections once the learner skips
            open_section(at, tab)
        assert_clean(at)
        first = next((t for t in _body_texts(at._tree, []) if any(w in t.lower() for w in words)), None)
        assert first is not None, (path, word)
        assert f"(Glossary#{slug(word)})" in first, (path, first)


def test_lesson_33s_mlp_is_defined_as_the_code_builds_it():
    from core.models.mlp import MLP_HIDDEN

    text = TERMS["Lesson 33's flatten MLP"]
    assert f"hidden layer of {MLP_HIDDEN} units" in text and "flattened" in text and "stands in for" in text
    assert slug("Lesson 33's flatten MLP") == "lesson-33-s-flatten-mlp"


def test_the_interval_is_defined_by_its_coverage_and_rollout_and_the_lens_by_their_limits():
    assert "misses it about 5 times in 100" in TERMS["interval"] and "where the true mean lies" not in TERMS["interval"]
    assert "show nothing either way" in TERMS["interval"]  # overlap is not equality
    assert "heuristic" in TERMS["rollout"] and "0.5 A + 0.5 I" in TERMS["rollout"] and "Chefer" in TERMS["rollout"]
    assert "trained on the last layer only" in TERMS["logit lens"]
    assert "only to moves by whole patches" in TERMS["translation equivariance"]


@functools.cache
def _verdicts_of_every_shipped_preset() -> list:
    from core.engine.results.verdict import MEASURES, verdicts
    from core.lessons.model_cards import label
    from core.lessons.shipped import SHIPPED, SHIPPED_CONFIGS, load_fresh_shipped

    fresh = load_fresh_shipped()
    return [(preset, measure, v) for preset in SHIPPED if (result := fresh.get(SHIPPED_CONFIGS[preset])) is not None
            for measure in MEASURES
            for v in verdicts(result, {m: label(m) for m in result.config.models}, measure).values()]


def test_every_verdict_opens_with_plain_words_and_its_fold_out_uses_only_defined_statistical_words():
    """Every verdict of every shipped preset, on both measures: its first sentence uses no word of the statistics
    fold-out; every statistical word the fold-out uses has its glossary entry, in two plain sentences."""
    import re

    from ui.glossary import STATISTICS_WORDS

    checked = 0
    for preset, measure, v in _verdicts_of_every_shipped_preset():
        first = v.text.split(": ")[0] + ": " + v.text.split(": ", 1)[1]
        for word in STATISTICS_WORDS + ("95 %", "90 %", "p =", "sd", "Wilson", "t interval", "units"):
            assert not re.search(rf"\b{re.escape(word)}", first, re.IGNORECASE), (preset, measure, v.text, word)
        checked += 1
    assert checked > 100
    used = {w for _, _, v in _verdicts_of_every_shipped_preset() for w in STATISTICS_WORDS
            if re.search(rf"\b{re.escape(w)}", v.detail, re.IGNORECASE)}
    assert {"interval", "training draw", "Korn–Graubard"} <= used
    for word in STATISTICS_WORDS:
        assert word in TERMS, word
        sentences = [x for x in re.split(r"(?<=[.!?])\s+", TERMS[word].strip()) if x]
        assert 2 <= len(sentences) <= 3, (word, sentences)
