import sys
import types

import numpy as np
import pytest
import torch

from core.data import shapes
from core.export.lab_source import LabSource, Replacement


def run(*pieces) -> dict:
    """The pieces run top to bottom as one module of their own, as a notebook runs its cells."""
    module = types.ModuleType("pieces_under_test")
    sys.modules[module.__name__] = module  # dataclasses look their class's module up
    try:
        code = "from __future__ import annotations\n\n" + "\n\n".join(p.source for p in pieces)
        exec(compile(code, "<pieces>", "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return module.__dict__


def test_a_name_brings_what_it_reads_and_nothing_else_without_the_labs_imports():
    pieces = LabSource().take(names=[("core.data.shapes", "make_image")])
    assert [p.module for p in pieces] == ["core.data.shapes"]
    source = pieces[0].source
    assert source.startswith("# core/data/shapes.py: what this notebook uses of it\n\n\"\"\"Plus-vs-circle images")
    for kept in ("def make_image(", "def check_centre(", "SHAPES = (", "REACH = 3", "import numpy as np",
                 "# pixels from the centre to the edge"):  # comments stay
        assert kept in source, kept
    for left in ("def make_dataset(", "def all_positions(", "from core", "dataclass", "PATTERN ="):
        assert left not in source, left
    ran = run(*pieces)
    assert np.array_equal(ran["make_image"]("circle", 5, 6, 16), shapes.make_image("circle", 5, 6, 16))


def test_imports_from_the_lab_become_earlier_pieces_and_a_module_imported_whole_a_namespace():
    source = LabSource()
    pieces = source.take(names=[("core.nn.spt", "ShiftedPatchTokens")])
    modules = [p.module for p in pieces]
    assert modules.index("core.nn.seeded") < modules.index("core.nn.spt")
    assert modules.index("core.nn.patchify") < modules.index("core.nn.spt")
    seeded = next(p for p in pieces if p.module == "core.nn.seeded").source
    assert "seeded = SimpleNamespace(linear=linear)" in seeded and "from types import SimpleNamespace" in seeded
    assert "def conv2d(" not in seeded  # read by nothing taken
    # a later take brings only what is new, and gives the namespace what it reads through it
    later = source.take(through_module=[("core.nn.seeded", "generator")])
    assert [p.module for p in later] == ["core.nn.seeded"]
    assert "def generator(" in later[0].source and "seeded.generator = generator" in later[0].source
    assert "def linear(" not in later[0].source
    ran = run(*pieces, *later)
    tokens = ran["ShiftedPatchTokens"](4, 1, 8, generator=ran["seeded"].generator(0))
    assert tokens(torch.rand(2, 1, 16, 16)).shape == (2, 16, 8)


def test_annotations_are_not_followed():
    pieces = LabSource().take(names=[("core.engine.running.train", "train")])
    train = next(p for p in pieces if p.module == "core.engine.running.train").source
    assert "callback: Callback | None = None" in train and "Callback = Callable" not in train
    assert "from collections.abc import Callable" not in train


def test_two_definitions_of_one_name_are_refused_and_a_replacement_runs_instead():
    with pytest.raises(ValueError, match="'make_dataset' is bound by core.data.shapes and by core.data.halves"):
        LabSource().take(names=[("core.data.shapes", "make_dataset"), ("core.data.halves", "make_dataset")])
    pieces = LabSource({("core.data.digits", "DATA_FILE"): Replacement("DATA_FILE = Path('here.csv.gz')",
                                                                       ("from pathlib import Path",))}).take(
        names=[("core.data.digits", "load")])
    assert "DATA_FILE = Path('here.csv.gz')" in pieces[0].source and "__file__" not in pieces[0].source
    assert "from pathlib import Path" in pieces[0].source and "from functools import lru_cache" in pieces[0].source
