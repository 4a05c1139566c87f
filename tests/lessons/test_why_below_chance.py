"""core/lessons/why_below_chance.py: every sentence is written from the census's numbers, says which way they
point only where they do, and claims no cause."""

from dataclasses import replace

from core.data.data_config import DataConfig
from core.engine.results.run_result import RunResult
from core.engine.setting.run_config import GeneralizationConfig
from core.inspect.census import Census, ClassCensus, InkBaseline, PatchVote, census
from core.lessons.why_below_chance import notes, plural

CENSUS = Census(
    patch_size=4, train_images=300, test_images=150, distinct_test_images=74,
    classes=(ClassCensus("plus", 82, 414, 0.5, 0.3, 0.1, 0.1), ClassCensus("circle", 68, 296, 0.7, 0.2, 0.0, 0.1)),
    vote=PatchVote(0.3, {"plus": 0.56, "circle": 0.0}, 0, 0),
    ink=InkBaseline(31.0, "plus", "circle", 1.0, 1.0, {"plus": 1.0, "circle": 1.0}))


def test_each_class_is_told_where_its_patches_occur_and_which_way_the_one_class_ones_point():
    said = notes(CENSUS)
    assert said[0].startswith("Over the run's 150 test images (74 distinct) and 300 training images")
    assert ("Of the test circles' 296 inked 4×4 patches, 70% never occur in a training image, 20% occur only in "
            "training pluses, 0% only in training circles and 10% in both.") in said
    assert "Among them, those training shows only in pluses (20%) outnumber those it shows only in circles (0%)." in said
    even = replace(CENSUS, classes=(replace(CENSUS.classes[0], other_only=0.1), CENSUS.classes[1]))
    assert sum("outnumber" in n for n in notes(even)) == 1  # the pluses' one-class patches no longer point away


def test_the_vote_and_the_ink_baseline_are_said_with_the_models_below_them():
    said = notes(CENSUS, {"vit": 0.168, "cnn": 1.0, "cnn-flatten": 0.9973})
    assert any(n.startswith("A nearest-patch vote") and "scores 30% on the test images (pluses 56%, circles 0%)" in n
               for n in said)
    assert "The vote is below chance on the test circles: it gives them the other class more often than their own." in said
    assert any("(total ink above 31: plus; below: circle), scores 100% on the test images" in n for n in said)
    below = next(n for n in said if n.startswith("Below that position-free count"))
    assert "16.8%" in below and "99.7%" in below and "CNN (lesson)" not in below  # a few images below still shows
    assert said[-1].startswith("These are counts over the images")
    assert not any(word in n.lower() for n in said for word in ("because", "cause", "explain", "proves"))


def test_more_classes_name_the_others_together_and_no_ink_baseline_is_invented():
    three = replace(CENSUS, classes=CENSUS.classes + (ClassCensus("star", 10, 40, 1.0, 0.0, 0.0, 0.0),), ink=None,
                    vote=PatchVote(0.2, {"plus": 0.3, "circle": 0.0, "star": 0.4}, 3, 0))
    said = notes(three, {"vit": 0.1}, chance=1 / 3)
    assert any("occur only in training images of other classes" in n for n in said)
    assert not any("total ink" in n for n in said) and any("3 tied images count as a random pick" in n for n in said)
    assert "The vote is below chance on the test pluses and circles." in said  # two classes only: no "other class"
    assert (plural("plus"), plural("circle"), plural("7")) == ("pluses", "circles", "7s")


def test_notes_read_a_phase_split_runs_own_census():
    cfg = GeneralizationConfig(models=("vit",), data=DataConfig(n_train=60, n_test=40, train_range=(3, 12),
                                                                phases=(0, 1, 2)))
    said = notes(census(RunResult(cfg)))
    assert said[0].startswith("Over the run's 40 test images")
    assert sum(n.startswith("Of the test ") for n in said) == 2 and any("ignores position" in n for n in said)
