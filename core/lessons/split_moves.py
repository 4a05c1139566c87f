"""What a split asks of each model, said before anything trains: at each test centre, has the model seen its input
there up to a reordering, or must it carry what it learned somewhere new?

A model samples its input on a grid: a ViT one token per P×P patch, the CNN one value per 2×2 pool, a flatten model
every pixel with weights of its own (its stride is the whole image). At a test centre that a training centre reaches
by whole strides, in x and in y, the grid lines up with the drawing as it did there (for the lesson's ViT, away from
the edges, the same drawing's tokens reordered: lessons 1 and 2); at an offset within the stride that no training
centre takes it cuts the drawing where training never did. Geometry only: the sentences say no more (``sentence``). The lesson's
own words for the three kinds are ``behaviour.OFFSETS`` (seen, new place at trained offsets, new offset), and
``behaviour.new_for_stride`` decides each centre, as it does for the phase split's verdicts: this is that question
asked of any split, a split of one's own included.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.data.data_config import DataConfig
from core.engine.results.behaviour import OFFSETS, new_for_stride
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.model_cards import label
from core.models.registry import spec

Centre = tuple[int, int]  # (cx, cy)


@dataclass(frozen=True)
class SplitMoves:
    model: str
    stride: int  # pixels between the model's samples (a ViT's patch, the CNN's pool; the image for a flatten model)
    moved: tuple[Centre, ...]  # test centres a training centre reaches by whole strides: the grid lines up as there
    new: tuple[Centre, ...]  # test centres at an offset within the stride that no training centre takes
    whole_image: bool  # the stride is the image: no grid is shared between places

    def sentence(self) -> str:
        """What the split's geometry asks of the model, and no more: where its sampling grid lines up with a training
        centre's. Not that the model sees the same input there: a test image can be a new scan, a model can read
        pixels beyond its own patch (overlapping or shifted patches, a CNN's stem), the canvas's edge cuts what a
        grid samples, and a marked training centre may hold no training image of a class."""
        n = len(self.moved) + len(self.new)
        who = label(self.model)
        if self.whole_image:
            return (f"{who} has weights of its own for every pixel (no sampling grid shared between places): all {n} "
                    "test centres are new places to it.")
        return (f"{who} samples every {self.stride} pixels: {len(self.moved)} of {n} test centres lie whole "
                f"{self.stride}-pixel steps (in x and in y) from a centre marked for training, where its grid lines up "
                f"as there; {len(self.new)} sit at an offset within {self.stride} pixels that no training centre has.")


def move_kinds(d: DataConfig, stride: int) -> dict[Centre, str]:
    """Each training and test centre of ``d``'s split, and what it is for a model sampling every ``stride`` pixels:
    ``OFFSETS[0]`` a training centre, ``OFFSETS[1]`` a test centre some training centre reaches by whole strides,
    ``OFFSETS[2]`` a test centre at an offset no training centre takes. Centres in neither set are left out."""
    out = {c: OFFSETS[0] for c in d.train_positions}
    for cx, cy in d.test_positions:
        out[cx, cy] = OFFSETS[2] if new_for_stride(d, stride, cx, cy) else OFFSETS[1]
    return out


def split_moves(cfg: GeneralizationConfig) -> tuple[SplitMoves, ...]:
    """For each model of ``cfg``, in its order, which test centres ask for a move by whole strides and which for a
    new offset (``move_kinds``)."""
    out = []
    for m in cfg.models:
        stride = spec(m).stride(cfg.model, cfg.data.img_size)
        kinds = move_kinds(cfg.data, stride)
        out.append(SplitMoves(m, stride, tuple(c for c in cfg.data.test_positions if kinds[c] == OFFSETS[1]),
                              tuple(c for c in cfg.data.test_positions if kinds[c] == OFFSETS[2]),
                              stride >= cfg.data.img_size))
    return tuple(out)
