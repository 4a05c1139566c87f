from tests.apptest_helpers import assert_clean, page
from ui.glossary import TERMS, slug


def test_the_glossary_lists_every_word_under_its_anchor():
    at = page("pages/9_Glossary.py")
    assert_clean(at)
    assert at.title[0].value == "Glossary"
    anchors = [h.proto.anchor for h in at.subheader]
    assert anchors == [slug(w) for w in TERMS]
