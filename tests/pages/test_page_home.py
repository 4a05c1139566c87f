from tests.apptest_helpers import assert_clean, page


def test_home_links_every_lesson_and_names_itself_home_in_the_navigation():
    at = page("app.py")
    assert_clean(at)
    assert "ViT Lab" in at.title[0].value
    links = [(el.proto.label, el.proto.page) for el in at.get("page_link")]
    home = links.index(("Home", ""))  # the sidebar comes after the main area in AppTest's tree
    nav, cards = links[home:home + 5], links[:home]
    lessons = ["Patchify", "Permutation_symmetry", "ViT_vs_CNN", "Fixing_the_ViT"]
    assert nav[0][0] == "Home" and [p for _, p in nav[1:]] == lessons
    assert [p for _, p in cards] == lessons
    assert not any(label == "app" for label, _ in links)


def test_home_shows_exercise_progress_from_the_session():
    at = page("app.py")
    at.session_state["progress"] = {"patchify/tokens": True, "patchify/precision": False}
    at.run()
    assert any(c.value.startswith("Exercises: 1 of 3 answered right") for c in at.caption)
