"""A faithful re-implementation of the lesson notebook's model and loop, kept apart from ``core``.

It uses ``nn.TransformerEncoder`` exactly as the notebook does, one seed after another, default Adam.
The tests compare ``core`` against it and the benchmark times ``core`` against it.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.nn.patchify import patchify_unfold
from core.nn.pos_embed import sincos_1d


class NotebookViT(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_ch=1, embed_dim=32, n_heads=4, n_layers=2):
        super().__init__()
        self.patch_size = patch_size
        n_patches = (img_size // patch_size) ** 2
        self.embed = nn.Linear(in_ch * patch_size * patch_size, embed_dim)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.register_buffer("pos_enc", sincos_1d(n_patches + 1, embed_dim))
        layer = nn.TransformerEncoderLayer(embed_dim, n_heads, dim_feedforward=embed_dim * 2,
                                           batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(embed_dim, 1)

    def forward(self, x):
        tok = self.embed(patchify_unfold(x, self.patch_size))
        tok = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), tok], dim=1) + self.pos_enc
        return self.head(self.encoder(tok)[:, 0]).squeeze(-1)


class NotebookCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(), nn.AdaptiveMaxPool2d(1))
        self.fc = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1)).squeeze(-1)


def notebook_train_and_eval(model_fn, Xtr, ytr, Xte, yte, seed, epochs=200, lr=0.001):
    """The notebook's ``train_and_eval``: full-batch Adam, accuracy measured once at the end."""
    torch.manual_seed(seed)
    model = model_fn()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(Xtr), ytr)
        loss.backward()
        opt.step()
    with torch.no_grad():
        train_acc = ((model(Xtr) > 0).float() == ytr).float().mean().item()
        test_acc = ((model(Xte) > 0).float() == yte).float().mean().item()
    return train_acc, test_acc


class NotebookHybrid(NotebookViT):
    """Exercise 3 in the notebook's style: a 3x3 conv stem (created last), then NotebookViT on its features."""

    def __init__(self, stem_channels=8, **kwargs):
        super().__init__(in_ch=stem_channels, **kwargs)
        self.stem = nn.Sequential(nn.Conv2d(1, stem_channels, 3, padding=1), nn.ReLU())

    def forward(self, x):
        return super().forward(self.stem(x))
