"""Why a model can score *below* chance on the phase split: what the run's images offer a model that reads them as
patches. The numbers are ``core.inspect.census``'s (which test patches occur in training and in which class, a
nearest-patch vote, the ink-count baseline); this module writes them as sentences, and says no more than they
show: they describe the images a model was handed, not what a trained model did with them.
"""

from __future__ import annotations

from core.inspect.census import Census, ClassCensus, InkBaseline
from core.lessons.model_cards import label


def plural(name: str) -> str:
    """A class's name as a plural: "pluses", "circles", "7s"."""
    return name + ("es" if name.endswith("s") else "s")


def _others(c: ClassCensus, census: Census) -> str:
    """The other classes, as a sentence names them: "pluses", or "other classes" when there are several."""
    others = [k.name for k in census.classes if k.name != c.name]
    return plural(others[0]) if len(others) == 1 else "images of other classes"


def occurrence_notes(census: Census) -> list[str]:
    """Per test class: where its inked patches occur among the training images' patches."""
    P = census.patch_size
    out = []
    for c in census.classes:
        if not c.patches:
            continue
        out.append(f"Of the test {plural(c.name)}' {c.patches} inked {P}×{P} patches, {c.never:.0%} never occur in "
                   f"a training image, {c.other_only:.0%} occur only in training {_others(c, census)}, "
                   f"{c.same_only:.0%} only in training {plural(c.name)} and {c.both:.0%} in both.")
        if c.other_only > c.same_only:
            out.append(f"Among them, those training shows only in {_others(c, census)} ({c.other_only:.0%}) "
                       f"outnumber those it shows only in {plural(c.name)} ({c.same_only:.0%}).")
    return out


def vote_notes(census: Census, chance: float) -> list[str]:
    """The nearest-patch vote's accuracy, and the classes it is below chance on."""
    v = census.vote
    per = ", ".join(f"{plural(name)} {acc:.0%}" for name, acc in v.per_class.items())
    line = (f"A nearest-patch vote (each test image given the class most of its inked patches' nearest training "
            f"patches come from, positions ignored) scores {v.accuracy:.0%} on the test images ({per})")
    if v.ties:
        line += f"; {v.ties} tied images count as a random pick among the tied classes would score"
    out = [line + "."]
    below = [name for name, acc in v.per_class.items() if acc < chance]
    if below:
        line = f"The vote is below chance on the test {' and '.join(map(plural, below))}"
        if len(census.classes) == 2:  # two classes: below half right, ties halved, is wrong more often than right
            line += ": it gives them the other class more often than their own"
        out.append(line + ".")
    return out


def ink_notes(census: Census, accuracies: dict[str, float]) -> list[str]:
    """The ink-count baseline, and the models below it on the same test images."""
    return ink_baseline_notes(census.ink, accuracies)


def ink_baseline_notes(ink: InkBaseline | None, accuracies: dict[str, float]) -> list[str]:
    """The ink-count baseline (``census.ink_baseline``), and the models below it on the same test images."""
    if ink is None:
        return []
    out = [f"The total ink of an image alone, with one threshold chosen on the training images (total ink above {ink.threshold:g}: "
           f"{ink.above}; below: {ink.below}), scores {ink.accuracy:.0%} on the test images (training "
           f"{ink.train_accuracy:.0%}): a classifier that ignores position."]
    under = [m for m, acc in accuracies.items() if acc < ink.accuracy]
    if under:  # one decimal: a model a few images below must not read as equal to the baseline
        out.append("Below that position-free count on the same test images: " + "; ".join(
            f"{label(m)} {accuracies[m]:.1%}" for m in under) + ".")
    return out


def notes(census: Census, accuracies: dict[str, float] | None = None, chance: float = 0.5) -> list[str]:
    """Short sentences from the census, the vote and the ink baseline; ``accuracies`` (model -> its mean test
    accuracy on the same test set) puts the models beside the ink baseline."""
    out = [f"Over the run's {census.test_images} test images ({census.distinct_test_images} distinct) and "
           f"{census.train_images} training images, every image cut into {census.patch_size}×{census.patch_size} "
           "patches, as the ViT cuts it:"]
    out += occurrence_notes(census) + vote_notes(census, chance) + ink_notes(census, accuracies or {})
    out.append("These are counts over the images: they show what patches read without their place offer a model, "
               "not what any trained model did with them (the shift consistency looks at the models).")
    return out
