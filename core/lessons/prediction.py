"""Predict first, as one concept: what a lesson asks the learner to predict before any result, and how a
prediction is judged against the run.

An experiment lesson declares one ``Prediction``: its options (each naming the verdict bands it claims, for a
prediction of one model's outcome) and which model it is about. The page shows the options, keeps the pick
made before Run (``ui.prediction_gate``) and says, after the run, whether the pick was right: ``judge`` compares it
with that model's verdict (``core.engine.results.verdict``), allowing "possible" where the interval still reaches into
the predicted band. Lesson 4 asks which of its remedies work (several picks, no bands): it is judged by
``lesson4_fixing_the_vit.prediction_against_bench``.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engine.results.verdict import Verdict, margin
from core.models.registry import spec

RIGHT, POSSIBLE, WRONG = "right", "possible", "wrong"


@dataclass(frozen=True)
class Prediction:
    """A prediction of one model's outcome at the unseen positions: each option -> the verdict bands it names.
    No option names another model's result; "can't tell" is not an outcome, so none offers it."""

    options: tuple[tuple[str, tuple[str, ...]], ...]  # (option, its bands), in the order they are offered
    about: str = "the first transformer selected"  # which model it is judged against, in words (``judged_model``)

    def __post_init__(self):
        if not self.options or len({o for o, _ in self.options}) != len(self.options):
            raise ValueError(f"a prediction needs distinct options, got {[o for o, _ in self.options]}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(o for o, _ in self.options)

    def judge(self, prediction: str, verdict: Verdict) -> str:
        """RIGHT when ``prediction`` names the outcome's band; POSSIBLE when it does not, but the interval still
        reaches into the predicted band (the units so far cannot rule it out); else WRONG."""
        bands = dict(self.options).get(prediction)
        if bands is None:
            raise ValueError(f"prediction must be one of {list(self.names)}, got {prediction!r}")
        if verdict.band in bands:
            return RIGHT
        iv, best, chance = verdict.interval, verdict.best, verdict.chance
        reaches = {"below": iv.lo < chance, "chance": iv.contains(chance),
                   "between": iv.hi > chance and iv.lo < best.mean - margin(chance),
                   "top": iv.hi >= best.mean - margin(chance)}
        return POSSIBLE if any(reaches[b] for b in bands) else WRONG


def judged_model(models: tuple[str, ...], judged: dict[str, Verdict]) -> str | None:
    """The model a ``Prediction`` is about: the first transformer of the run that has a verdict (the lessons'
    ViT when it is selected), or None."""
    return next((m for m in models if spec(m).transformer and m in judged), None)
