import pytest
import torch
import torch.nn.functional as F

from core.data.data_config import make_data
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.registry import build
from core.nn.adam import Adam


@pytest.mark.parametrize("name", ["vit", "cnn", "hybrid", "vit-prenorm"])
def test_same_weights_as_torch_adam_bit_for_bit(name):
    cfg = PRESETS["tiny"]
    data = make_data(cfg.data)
    ours, theirs = build(name, cfg.model, 16, 0), build(name, cfg.model, 16, 0)
    opts = Adam(ours.parameters(), lr=3e-3), torch.optim.Adam(theirs.parameters(), lr=3e-3)
    for _ in range(25):
        for model, opt in zip((ours, theirs), opts, strict=True):
            opt.zero_grad()
            F.binary_cross_entropy_with_logits(model(data.Xtr), data.ytr).backward()
            opt.step()
    for (k, a), b in zip(ours.state_dict().items(), theirs.state_dict().values(), strict=True):
        assert torch.equal(a, b), k
    assert any(not torch.equal(a, b) for a, b in zip(ours.state_dict().values(),
                                                     build(name, cfg.model, 16, 0).state_dict().values(), strict=True))


def test_parameters_at_different_steps_match_torch_adam_bit_for_bit():
    # one parameter gets a gradient every step, the other every third: their step counts differ, so the
    # update takes a list of per-parameter scalars instead of one scalar for all
    ours = [torch.nn.Parameter(torch.linspace(-1, 1, 5)), torch.nn.Parameter(torch.linspace(2, 3, 4))]
    theirs = [torch.nn.Parameter(p.detach().clone()) for p in ours]
    opts = Adam(ours, lr=0.05), torch.optim.Adam(theirs, lr=0.05)
    for i in range(10):
        for (a, b), opt in zip((ours, theirs), opts, strict=True):
            opt.zero_grad()
            loss = (a**2).sum() + ((b**3).sum() if i % 3 == 0 else 0)
            loss.backward()
            opt.step()
    assert opts[0].steps == [10, 4]
    for a, b in zip(ours, theirs, strict=True):
        assert torch.equal(a, b)


def test_parameters_without_gradients_are_left_alone():
    w, unused = torch.nn.Parameter(torch.ones(3)), torch.nn.Parameter(torch.ones(3))
    opt = Adam([w, unused], lr=0.1)
    (w * torch.tensor([1.0, -1.0, 0.0])).sum().backward()
    opt.step()
    assert torch.equal(unused, torch.ones(3)) and opt.steps == [1, 0]
    assert torch.allclose(w, torch.tensor([0.9, 1.1, 1.0]))


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="lr=0"):
        Adam([torch.nn.Parameter(torch.ones(1))], lr=0)
