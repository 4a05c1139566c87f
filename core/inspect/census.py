"""The patch census: what a patch-based model could have learned about the test images' patches from the training
images alone, position aside. Three exact counts over a run's own images (its training and test sets):

- **which test patches occur in training.** Each image is cut into the ViT's P×P patches (lesson 1's grid); each
  *inked* test patch (any pixel > 0) is looked up among the training images' patches, pixel for pixel: never
  there, there only in training images of another class, only in its own class, or in both.
- **a nearest-patch vote.** Each test image takes the majority class of its inked patches' nearest training
  patches (L2 over the patch's pixels, wherever either patch sits): a bag of patches with no positions at all.
- **the ink-count baseline.** One number per image, its total ink, and one threshold chosen on the training
  images: a classifier that ignores position altogether, which a model should at least match.

The counts describe the data as a patch-based model is handed it; they say nothing of what a trained model did
with it (``core.inspect.equivariance`` looks at the models). Everything is exact: the sets are what the run drew,
so the numbers are shares, not estimates.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from core.engine.results.run_result import RunResult
from core.inspect.trained_model import run_data
from core.models.registry import spec
from core.nn.patchify import patchify

# Where an inked test patch occurs among the training images' patches
OCCURS = ("never", "other class only", "same class only", "both")
NEAREST_ELEMENTS = 2**22  # (test patch, training patch) distances held at once: bounds the memory of the vote


@dataclass(frozen=True)
class ClassCensus:
    """One test class: where its inked test patches occur in training (shares of ``patches``, summing to 1)."""

    name: str  # the class's name: "plus", "circle", or a digit
    images: int  # test images of this class
    patches: int  # their inked patches, each occurrence counted (an image's patches, over the test set's images)
    never: float
    other_only: float  # only in training images of another class
    same_only: float  # only in training images of this class
    both: float


@dataclass(frozen=True)
class PatchVote:
    """The nearest-patch vote's accuracy on the test images, overall and per class. An image whose vote is tied
    between classes scores 1/(classes tied): what breaking the tie at random is expected to score."""

    accuracy: float
    per_class: dict[str, float]
    ties: int  # test images whose vote was tied
    unvoted: int  # test images without an inked patch (scored as a tie between every class)


@dataclass(frozen=True)
class InkBaseline:
    """Total ink thresholded once: images with more ink than ``threshold`` are called ``above``, the rest
    ``below``; the threshold is the best on the training images."""

    threshold: float
    above: str
    below: str
    train_accuracy: float
    accuracy: float  # on the test images
    per_class: dict[str, float]


@dataclass(frozen=True)
class Census:
    patch_size: int
    train_images: int
    test_images: int
    distinct_test_images: int  # the test set draws centres with replacement: some images occur more than once
    classes: tuple[ClassCensus, ...]  # per test class, in the dataset's class order
    vote: PatchVote
    ink: InkBaseline | None  # None with more than two classes: one threshold splits two


def _labels(y: torch.Tensor) -> torch.Tensor:
    return y.long()  # two classes are float 0/1 (one logit), more are already indices


def occurrences(Xtr: torch.Tensor, ytr: torch.Tensor, Xte: torch.Tensor, yte: torch.Tensor, patch_size: int,
                classes: tuple[str, ...]) -> tuple[ClassCensus, ...]:
    """Per test class, where its inked P×P test patches occur among the training images' patches (``OCCURS``),
    matched pixel for pixel. Images are (N, C, H, W); labels class indices (or 0/1 floats)."""
    K = len(classes)
    tr, te = patchify(Xtr, patch_size), patchify(Xte, patch_size)  # (Ntr, G*G, C*P*P), (Nte, G*G, C*P*P)
    ytr, yte = _labels(ytr), _labels(yte)
    n_tr, n_te, G2 = len(tr), len(te), tr.shape[1]
    every = torch.cat([tr.flatten(0, 1), te.flatten(0, 1)])  # (Ntr*G*G + Nte*G*G, C*P*P)
    _, which = torch.unique(every, dim=0, return_inverse=True)  # the same id for the same pixels
    which_tr, which_te = which[:n_tr * G2], which[n_tr * G2:].reshape(n_te, G2)  # (Ntr*G*G,), (Nte, G*G)
    # (distinct patches, K): whether that patch occurs in a training image of each class
    seen = torch.zeros(int(which.max()) + 1, K, dtype=torch.bool)
    seen[which_tr, ytr.repeat_interleave(G2)] = True
    inked = te.amax(dim=-1) > 0  # (Nte, G*G)
    out = []
    for c, name in enumerate(classes):
        mine = inked & (yte == c)[:, None]  # (Nte, G*G): this class's inked test patches
        in_class = seen[which_te[mine]]  # (n, K): the classes each occurs in, in training
        same = in_class[:, c]
        other = torch.cat([in_class[:, :c], in_class[:, c + 1:]], dim=1).any(dim=1)
        n = max(int(mine.sum()), 1)  # a class without inked test patches: every share 0 of 0
        kinds = (~same & ~other, other & ~same, same & ~other, same & other)  # OCCURS, in order
        out.append(ClassCensus(name, int((yte == c).sum()), int(mine.sum()), *(float(k.sum()) / n for k in kinds)))
    return tuple(out)


def nearest_patch_vote(Xtr: torch.Tensor, ytr: torch.Tensor, Xte: torch.Tensor, yte: torch.Tensor, patch_size: int,
                       classes: tuple[str, ...]) -> PatchVote:
    """Each test image classified by the majority class of its inked patches' nearest inked training patches (L2
    over the pixels, positions ignored). A training patch that occurs in several classes, or several training
    patches at the same least distance, share that test patch's one vote equally."""
    K = len(classes)
    tr, te = patchify(Xtr, patch_size).double(), patchify(Xte, patch_size).double()  # (N, G*G, C*P*P)
    ytr, yte = _labels(ytr), _labels(yte)
    G2 = tr.shape[1]
    # the distinct inked training patches and the classes each occurs in
    tr_inked = tr.amax(dim=-1) > 0  # (Ntr, G*G)
    distinct, which = torch.unique(tr[tr_inked], dim=0, return_inverse=True)  # (U, C*P*P), (n,)
    if len(distinct) == 0:
        raise ValueError(f"the training images have no inked {patch_size}x{patch_size} patch: nothing to vote with")
    seen = torch.zeros(len(distinct), K, dtype=torch.float64)
    seen[which, ytr.repeat_interleave(G2)[tr_inked.flatten()]] = 1.0  # (U, K): 1 where the patch occurs in class k
    te_inked = te.amax(dim=-1) > 0  # (Nte, G*G)
    queries = te[te_inked]  # (M, C*P*P)
    owner = torch.arange(len(te)).repeat_interleave(G2)[te_inked.flatten()]  # (M,): each query's test image
    votes = torch.zeros(len(te), K, dtype=torch.float64)
    chunk = max(1, NEAREST_ELEMENTS // len(distinct))
    for start in range(0, len(queries), chunk):
        q = queries[start:start + chunk]
        # exact distances (no matrix-product shortcut): equal distances compare equal, so ties are ties
        d = torch.cdist(q, distinct, compute_mode="donot_use_mm_for_euclid_dist")  # (m, U)
        nearest = (d == d.amin(dim=1, keepdim=True)).double()  # (m, U): the nearest training patches, ties kept
        share = nearest @ seen  # (m, K): how many of the nearest (patch, class) pairs are of each class
        share = share / share.sum(dim=1, keepdim=True)  # each test patch casts one vote, split among them
        votes.index_add_(0, owner[start:start + chunk], share)
    top = votes.amax(dim=1, keepdim=True)
    tied = (votes >= top - 1e-9).double()  # (Nte, K): the classes with the most votes (every class: no vote)
    score = tied[torch.arange(len(te)), yte] / tied.sum(dim=1)  # (Nte,): 1 right, 0 wrong, 1/k a k-way tie
    per_class = {name: float(score[yte == c].mean()) for c, name in enumerate(classes) if (yte == c).any()}
    return PatchVote(float(score.mean()), per_class, int((tied.sum(dim=1) > 1).sum()),
                     int((~te_inked.any(dim=1)).sum()))


def ink_baseline(Xtr: torch.Tensor, ytr: torch.Tensor, Xte: torch.Tensor, yte: torch.Tensor,
                 classes: tuple[str, ...]) -> InkBaseline | None:
    """The total ink of each image thresholded at the best threshold on the training images (either class above
    it); its accuracy on the test images. None unless there are two classes. The thresholds tried lie below every
    training image's total (one class for all) and halfway between each two totals they take; among equally good
    ones the lowest is kept."""
    if len(classes) != 2:
        return None
    ink_tr, ink_te = Xtr.double().flatten(1).sum(1), Xte.double().flatten(1).sum(1)  # (Ntr,), (Nte,)
    ytr, yte = _labels(ytr), _labels(yte)
    values = torch.unique(ink_tr)  # sorted
    thresholds = torch.cat([values[:1] - 1, (values[:-1] + values[1:]) / 2])  # (T,): below all, then between
    above = ink_tr[None, :] > thresholds[:, None]  # (T, Ntr)
    right = (above == (ytr == 1)[None, :]).double().mean(dim=1)  # (T,): class 1 above the threshold
    accs = torch.stack([right, 1 - right])  # (2, T): class 1 above, or class 0 above
    best = int(accs.flatten().argmax())
    flip, t = divmod(best, len(thresholds))
    hi = 0 if flip else 1  # the class called above the threshold
    threshold = float(thresholds[t])
    given = torch.where(ink_te > threshold, hi, 1 - hi)  # (Nte,)
    correct = (given == yte).double()
    return InkBaseline(threshold, classes[hi], classes[1 - hi], float(accs.flatten()[best]), float(correct.mean()),
                       {name: float(correct[yte == c].mean()) for c, name in enumerate(classes) if (yte == c).any()})


def check_patch_based(result: RunResult) -> int:
    """The run's patch size, if some model of the run reads the image as patches; else a one-line error."""
    if not any(spec(m).transformer for m in result.config.models):
        raise ValueError(f"the patch census needs a patch-based model (a transformer); this run has "
                         f"{list(result.config.models)}")
    return result.config.model.patch_size


def census(result: RunResult) -> Census:
    """The patch census, the nearest-patch vote and the ink-count baseline over the run's own training and test
    images, at the run's patch size."""
    P = check_patch_based(result)
    d = result.config.data
    data = run_data(d)  # the run's images, made once and shared
    classes = d.kind.classes
    sets = (data.Xtr, data.ytr, data.Xte, data.yte)
    return Census(P, len(data.Xtr), len(data.Xte), len(torch.unique(data.Xte.flatten(1), dim=0)),
                  occurrences(*sets, P, classes), nearest_patch_vote(*sets, P, classes), ink_baseline(*sets, classes))
