import numpy as np
import pytest
import torch

from core.data.data_config import distinct, make_data
from core.data.shapes import make_dataset, max_distinct, possible_images
from core.engine.running.train import train
from core.engine.setting.run_config import with_value
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.registry import build

TINY = PRESETS["tiny"]


def test_distinct_finds_each_image_once_with_its_count():
    data = make_data(PRESETS["lesson"].data)
    X, y, counts = distinct(data.Xtr, data.ytr)
    assert counts.sum().item() == len(data.Xtr) == 300
    assert len(X) == 70 <= max_distinct(300, (5, 10)) == 72  # 300 draws over 72 possible images
    for i in range(len(X)):  # every distinct row occurs exactly ``counts[i]`` times, with its label
        same = (data.Xtr == X[i]).flatten(1).all(dim=1)
        assert same.sum().item() == counts[i].item()
        assert (data.ytr[same] == y[i]).all()


def test_max_distinct_is_reached_by_enough_draws():
    ds = make_dataset(np.random.default_rng(0), 3000, (3, 12))
    X, _, _ = distinct(torch.from_numpy(ds.images), torch.from_numpy(ds.labels))
    assert len(X) == max_distinct(3000, (3, 12)) == 200
    assert max_distinct(10, (3, 12)) == 10 and possible_images((5, 10)) == 72


@pytest.mark.parametrize("chunk", [None, 16])
def test_distinct_training_is_the_same_mathematics_as_the_full_batch(chunk):
    cfg = with_value(TINY, "data.n_train", 200)
    data = make_data(cfg.data)
    assert len(distinct(data.Xtr, data.ytr)[0]) < 200  # the test would prove nothing without repeats
    full = train(build("vit", cfg.model, 16, 0), data.Xtr, data.ytr, data.Xte, data.yte, 8, 1e-3, dedup=False)
    dedup = train(build("vit", cfg.model, 16, 0), data.Xtr, data.ytr, data.Xte, data.yte, 8, 1e-3, chunk_size=chunk)
    for a, b in zip(full.curves, dedup.curves, strict=True):
        assert abs(a.loss - b.loss) < 1e-6 and abs(a.train_acc - b.train_acc) < 1e-6
    assert torch.allclose(full.test_logits, dedup.test_logits, atol=1e-5)
    assert dedup.train_acc == full.train_acc and dedup.test_acc == full.test_acc


def test_weighting_matters():
    """Dropping the counts (every distinct image weighted alike) is a different loss: the test above
    would notice a bug that forgot them."""
    cfg = with_value(TINY, "data.n_train", 200)
    data = make_data(cfg.data)
    X, y, counts = distinct(data.Xtr, data.ytr)
    model = build("cnn", cfg.model, 16, 0)
    with torch.no_grad():
        full = torch.nn.functional.binary_cross_entropy_with_logits(model(data.Xtr), data.ytr)
        weighted = torch.nn.functional.binary_cross_entropy_with_logits(model(X), y, weight=counts / 200.0,
                                                                        reduction="sum")
        unweighted = torch.nn.functional.binary_cross_entropy_with_logits(model(X), y)
    assert abs(full - weighted) < 1e-6 and abs(full - unweighted) > 1e-4


def test_bad_arguments_are_refused():
    data = make_data(TINY.data)
    with pytest.raises(ValueError, match="epochs=0"):
        train(build("cnn", TINY.model, 16, 0), data.Xtr, data.ytr, data.Xte, data.yte, epochs=0)


def test_evaluation_is_chunked_so_its_memory_is_bounded():
    """Train and test logits are computed EVAL_CHUNK images at a time (3000 images at once once took GBs)."""
    import torch.nn as nn

    from core.engine.running.train import EVAL_CHUNK, predict

    class Recorder(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.zeros(1))
            self.batches = []

        def forward(self, x):
            self.batches.append(len(x))
            return x.flatten(1).sum(1) * self.w

    m = Recorder()
    X = torch.rand(EVAL_CHUNK * 2 + 5, 1, 4, 4)
    out = predict(m, X)
    assert out.shape == (len(X),) and m.batches == [EVAL_CHUNK, EVAL_CHUNK, 5]
    m.batches.clear()
    train(m, X, torch.zeros(len(X)), X[:10], torch.zeros(10), epochs=1)
    # one full-batch step (every distinct image), then the evaluation in chunks: train set, then test set
    assert m.batches == [len(X), EVAL_CHUNK, EVAL_CHUNK, 5, 10]


def test_weighted_accuracy_is_the_full_sets_accuracy():
    from core.engine.running.train import accuracy, weighted_accuracy

    g = torch.Generator().manual_seed(0)
    X = torch.randint(0, 3, (150, 1, 2, 2), generator=g).float()  # 81 possible images: many repeats
    y = (X.sum((1, 2, 3)) > 4).float()
    w = torch.randn(4, generator=g)
    Xd, yd, counts = distinct(X, y)
    assert len(Xd) < 150
    logits, logits_d = X.flatten(1) @ w - 1.0, Xd.flatten(1) @ w - 1.0  # one fixed function of the image
    assert 0 < accuracy(logits, y) < 1
    assert weighted_accuracy(logits_d, yd, counts) == accuracy(logits, y)
    assert weighted_accuracy(logits_d, yd, torch.ones_like(counts)) != accuracy(logits, y)  # the counts matter


def test_live_test_points_equal_the_full_test_sets_accuracy():
    """The curve's test points are computed on the 8 distinct test images, weighted: each must equal the
    accuracy over all the test images at that epoch."""
    from core.engine.running.train import accuracy, predict

    data = make_data(TINY.data)
    assert len(distinct(data.Xte, data.yte)[0]) < len(data.Xte) // 4
    model = build("vit", TINY.model, 16, 0)
    seen = []

    def check(stats):
        if stats.test_acc is not None:
            seen.append((stats.test_acc, accuracy(predict(model, data.Xte), data.yte)))

    train(model, data.Xtr, data.ytr, data.Xte, data.yte, 40, 1e-2, callback=check, eval_every=4)
    assert len(seen) == 10 and all(a == b for a, b in seen)
    assert len({b for _, b in seen}) > 1  # the accuracy moved during training: the check compared something


def test_ten_classes_train_with_one_logit_per_class_and_the_same_distinct_weighting():
    """Lesson 5's ten digits: (B, 10) logits and a cross-entropy. Training on the distinct images, each weighted
    by its count, is the full batch's mathematics here too."""
    from core.data.data_config import DataConfig

    d = DataConfig(dataset="digits", n_train=200, n_test=60, train_range=(6, 8), test_range=(4, 5))
    data = make_data(d)
    X, y = torch.cat([data.Xtr, data.Xtr[:40]]), torch.cat([data.ytr, data.ytr[:40]])  # 40 images twice
    runs = []
    for dedup in (True, False):
        model = build("cnn", TINY.model, 16, 0, outputs=10)
        runs.append(train(model, X, y, data.Xte, data.yte, epochs=30, lr=3e-3, dedup=dedup))
    assert runs[0].test_logits.shape == (60, 10)
    assert runs[0].curves[-1].loss == pytest.approx(runs[1].curves[-1].loss, rel=1e-4)
    assert runs[0].curves[0].loss == pytest.approx(np.log(10), abs=0.3)  # a cross-entropy starts near log K
    assert runs[0].curves[-1].loss < runs[0].curves[0].loss and runs[0].train_acc > 0.3  # it learns (chance 10 %)
