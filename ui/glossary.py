"""The lab's glossary: every word a page uses that a newcomer may not have, defined once. The glossary page
(pages/9_Glossary.py) lists them; a page links a word where it first appears with ``term``."""

from __future__ import annotations

import re

from ui.lesson_list import GLOSSARY

# word -> definition (Markdown), in the order the lessons meet them
TERMS: dict[str, str] = {
    "the notebook": "The lesson this lab was built from: *Lesson 46: Vision Transformers*, a Jupyter notebook of the "
                    "same course. It trains a tiny ViT and a CNN on plus-vs-circle images at some positions, tests "
                    "them at others, concludes why the ViT fails there, and asks three exercises. Lesson 3 repeats its "
                    "experiment exactly (the same model, images and training) and then tests that conclusion; *the "
                    "notebook's* split, table or setting is the one it used.",
    "the seed module": "The small ViT teaching module given with the notebook: a reduced Vision Transformer (the "
                       "*reference ViT*), four claims about it (a patchify is one linear map; the number of tokens; "
                       "without positions, shuffling the patches leaves the answer alone; changing one patch changes "
                       "one embedding, yet attention can change the answer) and one attention experiment. Lesson 2 "
                       "checks all four live, and runs the experiment.",
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
    "reference ViT": "A reduced Vision Transformer written for teaching, the model of the seed module this lab was "
                     "built from: its four claims about positions and its attention experiment, reproduced on lesson 2.",
    "CNN": "A convolutional network: small filters slid over every position of the image, then pooling. The "
           "lab's CNN ends in a *global max pool*: for each filter, only its strongest response anywhere counts. "
           "That makes where a shape is matter little, not nothing: its stride-2 pooling and its zero-padded "
           "borders still see position (lesson 3's shift test, lesson 4's CNN side).",
    "Lesson 33's flatten MLP": "The MLP of an earlier lesson of the same course (Lesson 33), which the notebook says "
                               "its ViT \"stands in for\": the image flattened into one long vector of its pixels, one "
                               "hidden layer of 16 units, then the answer. Every pixel has weights of its own, so "
                               "nothing is shared across positions: a shape at pixels no training image lit meets "
                               "weights that never learned from it. Lesson 33 is not part of this lab, so its width is "
                               "the lab's choice, about as many weights as the lesson's CNN (about 4,000 against "
                               "3,400). On the charts: *MLP (flatten + hidden layer)*; lesson 3's *mlp* preset sets it "
                               "beside the ViT and the CNN.",
    "inductive bias": "What a model assumes before it sees any data, built into its architecture: a convolution "
                      "assumes the same pattern means the same thing anywhere; a transformer without positions "
                      "assumes order does not matter. A bias helps when it matches the task, and costs data to "
                      "unlearn when it does not.",
    "translation invariance": "A model whose answer does not change when the image moves. No model here has it "
                              "exactly for every move: lesson 3 measures each one's answer under 1-pixel and "
                              "one-patch moves.",
    "translation equivariance": "A computation whose output moves with its input: move the image, and the feature "
                                "map moves the same way. A stride-1 convolution is equivariant to every 1-pixel move "
                                "(away from the borders); a stride-P patchify only to moves by whole patches (P "
                                "pixels), which turn into the same tokens, reordered (lessons 1 and 2).",
    "sampling stride": "How far apart a model samples its input before anything pools over position: a ViT's "
                       "patch size (its tokens start every P pixels), a CNN's pooling step (the lab's: 2). A move "
                       "by whole strides only reorders what the model samples; a move by part of one gives it "
                       "new samples.",
    "anti-aliasing": "Blurring before subsampling, so that what a model samples changes smoothly when the image "
                     "moves by part of a stride (Zhang 2019, blur-pool CNNs; Azulay & Weiss 2019). The lab's "
                     "blurred models keep their plain twins' weights: the blur is fixed, not learned.",
    "seen and unseen positions": "The shape's centre during training (seen) and during testing (unseen): the "
                                 "test asks whether a model recognises a shape at a place it never saw it.",
    "chance": "What guessing scores: 50 % on a two-class test, 10 % on ten digits. A model that gives the same "
              "answer to every image scores chance too, since the lab's measures count every class equally.",
    "test set": "Every class drawn once at every test centre of the split, each class counting equally. A model "
                "that answers one class for every image scores exactly chance on it.",
    "unseen map": "Every class drawn once at every centre of the canvas that no training image was centred on. It "
                  "asks the same question as the test set at many more places.",
    "notebook's test": "The notebook's own measure: the share right of 150 test images drawn at random from the few "
                       "distinct images at the test centres. A model that answers one class everywhere scores that "
                       "class's share of the draw, which need not be 50 %.",
    "seed": "The number that fixes a model's random start (its weights and the order it sees the data). Two seeds "
            "of one setting can end far apart.",
    "run": "One model trained once: one seed on one training draw (an experiment trains many). Its score is "
           "counted on every image of the measure, so it is not an estimate: what varies is which run you get.",
    "training draw": "Which images the training set holds, fixed by the data seed. Seeds that share a training draw "
                     "share its images, so the lab counts each draw once, scored by the mean of its seeds.",
    "unit": "What the statistics count as one independent try: a training draw, scored by the mean of its seeds "
            "(seeds that share a training set are not separate tries), or each seed where there is only one draw. "
            "*How sure is this?* counts units.",
    "interval": "The range the model's average accuracy (over many more runs) is likely to fall in, given the "
                "runs so far: a 95 % interval misses it about 5 times in 100 (more often while a rare failure has not shown "
                "up yet). Two intervals that overlap show "
                "nothing either way: the pages compare two models by the interval of their difference.",
    "margin": "How close counts as the same: a quarter of chance (12.5 points for two classes, 2.5 for ten). *No "
              "better than guessing* and *close to the best* mean within it, checked on a 90 % interval because "
              "each asks about one side only.",
    "Korn–Graubard": "How the lab computes its interval: it treats the units' average like a count of coin flips, "
                     "and the more closely the units agree, the more flips they are worth. Units that agree closely "
                     "give a narrow interval; units that disagree give a wide one.",
    "Clopper–Pearson": "The exact interval for a share counted in coin flips. When every unit scored the same, the lab "
                       "uses it to say how many further units could still score differently without any having "
                       "shown up yet (with 10 units: up to 31 %).",
    "sign test": "A count of the units on which one model scores higher than another. If one wins on far more units "
                 "than a fair coin would give, it is higher unit by unit, whatever the size of the gaps.",
    "Holm-adjusted": "A correction for asking the same question of many models at once. Each model's test must pass "
                     "a stricter bar, so that across all of them a false alarm stays as rare as for one.",
    "Mann–Whitney": "A rank test for two separate experiments, whose units do not pair up: it asks whether one's units "
                    "tend to rank above the other's. It needs no bell-shaped spread.",
    "rollout": "Attention rollout (Abnar & Zuidema 2020): each layer's attention, with the skip connection added "
               "as an identity (0.5 A + 0.5 I, rows renormalised), multiplied through the layers: an estimate of how "
               "much each patch reaches the class token. A heuristic, not a faithful attribution: it ignores the "
               "values, the MLPs and the head, and gradient-based methods can disagree with it (Chefer, Gur & Wolf "
               "2021).",
    "logit lens": "Reading a model's answer after each layer by passing that layer's class token through the final "
                  "norm and head. The head was trained on the last layer only, so an early layer's reading shows what "
                  "the head makes of it, not what that layer 'knows'.",
    "remedy": "One change to the lesson's ViT (its data, positions, tokens, attention or pooling) that may let it "
              "recognise shapes at unseen positions.",
}


# The words of the statistics fold-out ("How sure is this?"): each has its entry above, and none is in a verdict's
# first, plain sentence (tests/ui/test_glossary.py)
STATISTICS_WORDS = ("interval", "unit", "training draw", "margin", "Korn–Graubard", "Clopper–Pearson", "sign test",
                    "Holm-adjusted", "Mann–Whitney")


def slug(word: str) -> str:
    """The word's anchor on the glossary page."""
    return re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")


def term(word: str, text: str | None = None) -> str:
    """Markdown: ``text`` (default: the word) linked to the word's definition on the glossary page."""
    if word not in TERMS:
        raise KeyError(f"{word!r} is not in the glossary; its words: {sorted(TERMS)}")
    return f"[{text or word}]({GLOSSARY.url_path}#{slug(word)})"
