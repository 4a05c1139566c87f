import pytest
import torch
import torch.nn.functional as F

from core.adam import Adam
from core.generalization.config import PRESETS
from core.generalization.data import make_data
from core.generalization.models import build


@pytest.mark.parametrize("name", ["vit", "cnn", "hybrid", "vit-config"])
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
