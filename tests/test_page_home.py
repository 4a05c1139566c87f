from tests.apptest_helpers import assert_clean, page


def test_home_links_every_lesson():
    at = page("app.py")
    assert_clean(at)
    assert "ViT Lab" in at.title[0].value
    links = [el.proto.page for el in at.get("page_link")]
    assert links == ["Patchify", "Permutation_symmetry", "ViT_vs_CNN"]
