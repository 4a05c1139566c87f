"""The lab's glossary: every word a page uses that a newcomer may not have, defined once. The glossary page
(pages/9_Glossary.py) lists them; a page links a word where it first appears with ``term``."""

from __future__ import annotations

import re

from ui.lesson_list import GLOSSARY

# word -> definition (Markdown), in the order the lessons meet them
TERMS: dict[str, str] = {
    "token": "One vector in the sequence a Transformer reads. A ViT makes one token per image patch (and one "
             "extra, the class token).",
    "patch": "A P×P square of the image. The image is cut into non-overlapping patches; each becomes a token.",
    "embedding": "The vector a patch is mapped to (its token), and the linear map that does it. Its width is D.",
    "epsilon": "The gap between 1 and the next number a float type can store (about 2.2e-16 for float64, 1.2e-7 "
               "for float32). A difference of a few epsilon is rounding; millions of epsilon is a different "
               "computation.",
    "class token": "An extra learned token put in front of the patch tokens. It reads all the others through "
                   "attention, and the classifier looks only at it.",
    "positional encoding": "A table with one vector per place in the sequence, added to the tokens so the model "
                           "can tell where each patch was. *learned*: trained like any weight; *sincos*: fixed "
                           "sine and cosine waves (1-D: along the sequence; 2-D: along rows and columns).",
    "attention": "How a Transformer mixes tokens: each token takes a weighted average of all tokens, with "
                 "weights from how well their contents match. Several *heads* do this side by side.",
    "logit": "A model's raw score for a class, before softmax turns the scores into probabilities. A larger "
             "logit means a more likely class.",
    "invariance": "An output that does not change when the input is changed in some way (here: reordering the "
                  "patches leaves the class token's answer the same).",
    "equivariance": "An output that changes in step with the input: reorder the patches and the patch outputs "
                    "come out reordered the same way.",
    "untrained": "A model with its random starting weights, before any training. Its answers mean nothing; "
                 "what it shows is how the architecture routes information.",
    "reference ViT": "A reduced Vision Transformer written for teaching (the module this lab was built from): "
                     "four claims about positions and one attention experiment, reproduced on lesson 2.",
    "CNN": "A convolutional network: small filters slid over every position of the image, then pooling. The "
           "lab's CNN ends in a *global max pool*: for each filter, only its strongest response anywhere "
           "counts, so where a shape is does not matter.",
    "seen and unseen positions": "The shape's centre during training (seen) and during testing (unseen): the "
                                 "test asks whether a model recognises a shape at a place it never saw it.",
    "chance": "50 % on a two-class test: what guessing scores. A result whose interval includes 50 % is not "
              "distinguishable from chance.",
    "seed": "The number that fixes a run's random start (weights, data order). Different seeds of the same "
            "setting can end differently; the lab trains several and reports their mean.",
    "interval": "The 95 % interval around a mean over seeds: where the true mean lies, given the seeds run. Two "
                "models whose intervals do not overlap really differ; more seeds make it narrower.",
    "rollout": "Attention rollout: the attention of every layer multiplied together, an estimate of how much each "
               "patch contributes to the class token at the end.",
    "remedy": "One change to the lesson's ViT (its data, positions, tokens, attention or pooling) that may let it "
              "recognise shapes at unseen positions.",
}


def slug(word: str) -> str:
    """The word's anchor on the glossary page."""
    return re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")


def term(word: str, text: str | None = None) -> str:
    """Markdown: ``text`` (default: the word) linked to the word's definition on the glossary page."""
    if word not in TERMS:
        raise KeyError(f"{word!r} is not in the glossary; its words: {sorted(TERMS)}")
    return f"[{text or word}]({GLOSSARY.url_path}#{slug(word)})"
