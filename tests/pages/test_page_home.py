from tests.apptest_helpers import assert_clean, page


def test_home_links_every_lesson_and_names_itself_home_in_the_navigation():
    at = page("app.py")
    assert_clean(at)
    assert "ViT Lab" in at.title[0].value
    links = [(el.proto.label, el.proto.page) for el in at.get("page_link")]
    home = links.index(("Home", ""))  # the sidebar comes after the main area in AppTest's tree
    nav = links[home:home + 7]
    cards = [link for link in links[:home] if link[0] != "Find out in lesson 3"]  # the picture's link comes first
    lessons = ["Patchify", "Permutation_symmetry", "ViT_vs_CNN", "Fixing_the_ViT", "Real_handwriting"]
    assert nav[0][0] == "Home" and [p for _, p in nav[1:]] == [*lessons, "Glossary"]
    assert [p for _, p in cards] == lessons
    assert not any(label == "app" for label, _ in links)


def test_home_shows_exercise_progress_from_the_session():
    at = page("app.py")
    at.session_state["progress"] = {"patchify/tokens": True, "patchify/precision": False}
    at.run()
    assert any(c.value.startswith("Exercises: 1 of 3 answered right") for c in at.caption)


def test_home_shows_the_finding_as_a_picture_without_giving_away_lesson_3():
    at = page("app.py")
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert len(charts) == 2  # the lesson's two models' accuracy maps, from the shipped run
    titles = [md.value for md in at.markdown if md.value.startswith("**Model ")]
    assert titles == ["**Model A: accuracy at each centre (%)**", "**Model B: accuracy at each centre (%)**"]
    # which map is which model is lesson 3's question: neither the maps nor the cards answer it
    assert not any(name in spec.proto.spec for spec in charts for name in ("ViT", "CNN"))
    card = next(md.value for md in at.markdown if "plus-vs-circle" in md.value)
    assert "generalizes" not in card and "chance" not in card and "Which one" in card
    assert ("Find out in lesson 3", "ViT_vs_CNN") in [(el.proto.label, el.proto.page) for el in at.get("page_link")]
