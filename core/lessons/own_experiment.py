"""Your own experiment from the command line: lesson 3's experiment on the learner's own classes and split,

    python -m core generalization --dataset own --drawings classes.txt --split split.txt --seeds 0 --epochs 50

Each flag is a ``Control``, declared once (lesson 3's ``CLI_CONTROLS`` takes them). A file is read into what a
config keeps, through the link's own form (``core/data/own_classes.py``, ``core/data/own_split.py``: the files' forms
are there): the classes' link text, and the split's two sets of centres as its link text holds them. So a setting
read from files and the same setting opened from a link are one config: equal, one cache key, the same numbers.
Where a file goes, a link's text goes too (``c1.…``, ``s1.…``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.data.datasets import DATASETS
from core.data.own_classes import CLASSES_TAG, MAX_CLASSES_FILE, classes_from_text, decode_classes, encode_classes
from core.data.own_split import MAX_SPLIT_FILE, SPLIT_TAG, decode_split, encode_split, split_from_text
from core.engine.setting.typed_json import plain
from core.lessons.controls import Control


def _file_or_link(flag: str, value: str, tag: str, limit: int, from_file: Callable[[str], Any],
                  from_link: Callable[[str], Any]) -> Any:
    """The config's value for ``value``: the file it names, read with ``from_file``, else a link's text read with
    ``from_link``; every failure one sentence naming the flag and the value (as one line, cut short)."""
    named = f"{flag} {plain(value, 80)}"
    path = Path(value)
    try:
        is_file = path.is_file()
    except (OSError, ValueError):  # a name no file can have (too long, a NUL)
        is_file = False
    try:
        if not is_file:
            if value.startswith(f"{tag}."):
                return from_link(value)
            raise ValueError(f"no such file (a file, or the text of a link: {tag}.…)")
        if path.stat().st_size > 4 * limit:  # measured before it is read: UTF-8 takes at most 4 bytes a character
            raise ValueError(f"the file is larger than a file of this kind may be ({limit:,} characters)")
        return from_file(path.read_text(encoding="utf-8-sig"))  # a Windows editor's byte-order mark is no text
    except UnicodeDecodeError:
        raise ValueError(f"{named}: not a text file (UTF-8)") from None
    except OSError as exc:
        raise ValueError(f"{named}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{named}: {exc}") from None


def classes_arg(value: str) -> str:
    """``--drawings``: a file of drawings (``own_classes``' file form), or the classes' link text."""
    return _file_or_link("--drawings", value, CLASSES_TAG, MAX_CLASSES_FILE,
                         lambda text: encode_classes(classes_from_text(text)),
                         lambda text: encode_classes(decode_classes(text)))


def split_arg(value: str) -> tuple:
    """``--split``: a file of a split's map (``own_split``'s file form), or the split's link text; as
    ``DataConfig.split`` holds it, read back from its link text (what a file and a link give are one value)."""
    return _file_or_link("--split", value, SPLIT_TAG, MAX_SPLIT_FILE,
                         lambda text: tuple(decode_split(encode_split(split_from_text(text)))),
                         lambda text: tuple(decode_split(text)))


OWN_CONTROLS: tuple[Control, ...] = (
    Control("dataset", "data.dataset", "What is drawn", "selectbox", tuple(DATASETS),
            cli_help="what is drawn at a centre: " + ", ".join(DATASETS) + " (own: your classes, --drawings)"),
    Control("drawings", "data.own_classes", "Your own classes", "selectbox", cli_type=str, cli_to_config=classes_arg,
            cli_help="with --dataset own: a text file of 2 to 4 classes, each a line [name] then 1 to 8 drawings "
                     "(one row per line, . or 0 empty, # or 1 ink, at most 16x16, a blank line between two) or one "
                     "line 'digit N' (every shipped scan of N); or the classes' link text c1.…"),
    Control("split", "data.split", "Your own split", "selectbox", cli_type=str, cli_to_config=split_arg,
            cli_help="your own training and test centres: a text file mapping the canvas, one line per row (cy), one "
                     "character per column (cx): T train, X test, . neither; or the split's link text s1.… "
                     "(instead of --train-range, --test-range and --phases)"),
)


def check_own_flags(args: argparse.Namespace) -> None:
    """Flags that contradict one another, refused in one sentence before any file is read."""
    def given(dest: str) -> bool:
        return getattr(args, dest, None) is not None

    if given("task") and given("dataset"):
        raise ValueError("--task and --dataset both choose what is drawn: give one")
    if given("drawings") and getattr(args, "dataset", None) != "own":
        raise ValueError("--drawings gives your own classes: add --dataset own")
    if given("split"):
        for dest in ("train_range", "test_range", "phases"):
            if given(dest):
                raise ValueError(f"--split sets every training and test centre: leave out --{dest.replace('_', '-')}")
