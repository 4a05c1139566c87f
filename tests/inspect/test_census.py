"""core/inspect/census.py on cases whose answer is known by hand (which patches occur in training, the nearest-patch
vote and its ties, the ink threshold), then on a phase-split run's own images: no training, no shipped result."""

import pytest
import torch

from core.data.data_config import DataConfig
from core.data.shapes import make_image
from core.engine.results.run_result import RunResult
from core.engine.setting.run_config import GeneralizationConfig
from core.inspect.census import census, ink_baseline, nearest_patch_vote, occurrences
from core.inspect.trained_model import run_data
from core.nn.patchify import patchify

CLASSES = ("a", "b")


def canvas(*patches: tuple[int, torch.Tensor]) -> torch.Tensor:
    """(1, 8, 8) an image of four 4x4 patches (0 top left, 1 top right, 2, 3 below), each given one or blank."""
    x = torch.zeros(1, 8, 8)
    for where, patch in patches:
        row, col = divmod(where, 2)
        x[0, 4 * row:4 * row + 4, 4 * col:4 * col + 4] = patch
    return x


def dot(r: int, c: int) -> torch.Tensor:
    p = torch.zeros(4, 4)
    p[r, c] = 1.0
    return p


A, B, C, D = dot(0, 0), dot(1, 1), dot(2, 2), dot(3, 3)


def test_each_inked_test_patch_is_found_pixel_for_pixel_wherever_it_sat_in_training():
    Xtr = torch.stack([canvas((0, A), (1, D)), canvas((3, B), (2, D))])  # class a: A, D; class b: B, D
    ytr = torch.tensor([0.0, 1.0])
    # a test "b" holding A (only in a), B at another place (only in b), C (never) and D (both), plus a blank patch
    Xte = torch.stack([canvas((0, A), (1, B), (2, C)), canvas((3, D))])
    yte = torch.tensor([1.0, 1.0])
    a, b = occurrences(Xtr, ytr, Xte, yte, 4, CLASSES)
    assert (a.images, a.patches) == (0, 0)
    assert (b.images, b.patches) == (2, 4)  # blank patches are not counted
    assert (b.never, b.other_only, b.same_only, b.both) == (0.25, 0.25, 0.25, 0.25)


def test_the_vote_takes_each_patchs_nearest_training_patch_by_pixels_and_a_tie_scores_half():
    Xtr = torch.stack([canvas((0, A)), canvas((0, D))])
    ytr = torch.tensor([0.0, 1.0])
    near_a = A.clone()
    near_a[0, 1] = 1.0  # A and one more pixel: nearer A than D
    Xte = torch.stack([canvas((3, near_a)), canvas((0, D), (1, D)), canvas((0, A), (1, D)), torch.zeros(1, 8, 8)])
    yte = torch.tensor([0.0, 0.0, 1.0, 1.0])
    vote = nearest_patch_vote(Xtr, ytr, Xte, yte, 4, CLASSES)
    # right by its place-free nearest patch; wrong (two votes for b); a 1-1 tie; no inked patch: a tie of all
    assert vote.per_class == {"a": 0.5, "b": 0.5} and vote.accuracy == 0.5
    assert (vote.ties, vote.unvoted) == (2, 1)


def test_a_training_patch_of_both_classes_splits_its_vote():
    Xtr = torch.stack([canvas((0, A)), canvas((0, A), (1, B))])  # A in both classes, B in b only
    ytr = torch.tensor([0.0, 1.0])
    Xte = torch.stack([canvas((0, A), (2, B))])  # votes: A half a, half b; B all b
    assert nearest_patch_vote(Xtr, ytr, Xte, torch.tensor([1.0]), 4, CLASSES).accuracy == 1.0


def test_the_ink_threshold_is_the_best_on_training_and_either_class_may_be_above_it():
    plus, circle = torch.from_numpy(make_image("plus", 5, 5)), torch.from_numpy(make_image("circle", 8, 9))
    X = torch.stack([plus, circle])[:, None]
    ink = ink_baseline(X, torch.tensor([0.0, 1.0]), X.flip(0), torch.tensor([1.0, 0.0]), ("plus", "circle"))
    assert (ink.threshold, ink.above, ink.below) == ((33 + 29) / 2, "plus", "circle")  # 33 pixels against 29
    assert ink.train_accuracy == ink.accuracy == 1.0 and ink.per_class == {"plus": 1.0, "circle": 1.0}
    three = ("a", "b", "c")
    assert ink_baseline(X, torch.tensor([0, 1]), X, torch.tensor([0, 1]), three) is None


PHASE = GeneralizationConfig(models=("vit", "cnn"), data=DataConfig(n_train=60, n_test=40, train_range=(3, 12),
                                                                    phases=(0, 1, 2)))


def test_the_census_of_a_phase_split_run_counts_every_inked_test_patch_once():
    c = census(RunResult(PHASE))  # the images alone: no model is run, no weights needed
    data = run_data(PHASE.data)
    assert (c.patch_size, c.train_images, c.test_images) == (4, 60, 40)
    assert c.distinct_test_images == len(torch.unique(data.Xte.flatten(1), dim=0))
    inked = patchify(data.Xte, 4).amax(dim=-1) > 0  # (N, 16)
    for k, cls in enumerate(c.classes):
        mine = data.yte == k
        assert cls.name == PHASE.data.kind.classes[k] and cls.images == int(mine.sum())
        assert cls.patches == int(inked[mine].sum())
        assert cls.never + cls.other_only + cls.same_only + cls.both == pytest.approx(1.0)
    assert set(c.vote.per_class) == {"plus", "circle"} and 0 <= c.vote.accuracy <= 1
    assert c.ink.accuracy == 1.0  # a plus has 33 pixels of ink, a circle 29, wherever it is drawn


def test_a_run_without_a_patch_based_model_is_refused_naming_its_models():
    with pytest.raises(ValueError, match=r"needs a patch-based model .*\['cnn'\]"):
        census(RunResult(GeneralizationConfig(models=("cnn",))))
