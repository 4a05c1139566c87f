"""Your own experiment on the command line: files of drawings and of a split train and print numbers, the same
setting from the files and from a link's texts is one config (equal, one cache key, the same numbers), and every bad
file or flag is one sentence."""

import json

import pytest

from core.cli import build_parser, form_config, main
from core.data.own_classes import decode_classes, encode_classes
from core.data.own_split import encode_split, make_split
from core.engine.storage.archive import config_key

CLASSES = """[tee]
###
.#.
.#.

####
.#..
.#..

[ell]
#.. / #.. / ###

1...
1...
1111
"""
# training in a 4×4 block, the test two centres left of it and one patch below it (a 16×16 canvas; rows are cy)
SPLIT = """
................
................
................
................
......TTTT......
......TTTT......
......TTTT......
......TTTT......
..XX............
..XX......X.....
"""
TINY = ["generalization", "--preset", "tiny", "--dataset", "own", "--seeds", "0", "--epochs", "20", "--n-train", "60",
        "--n-test", "40", "--workers", "0"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "classes.txt").write_text(CLASSES)
    (tmp_path / "split.txt").write_text(SPLIT)
    return str(tmp_path / "classes.txt"), str(tmp_path / "split.txt")


def links(files) -> tuple[str, str]:
    from core.data.own_classes import classes_from_text
    from core.data.own_split import split_from_text

    with open(files[0]) as a, open(files[1]) as b:
        return encode_classes(classes_from_text(a.read())), encode_split(split_from_text(b.read()))


def config(*words):
    return form_config(build_parser().parse_args([*TINY, *words]))


def test_the_files_and_the_links_texts_are_one_config_with_one_key(files):
    classes, split = links(files)
    from_files, from_links = config("--drawings", files[0], "--split", files[1]), config("--drawings", classes,
                                                                                          "--split", split)
    assert from_files == from_links and config_key(from_files) == config_key(from_links)
    d = from_files.data
    assert d.own_classes == classes and [c.name for c in decode_classes(classes)] == ["tee", "ell"]
    assert d.split == make_split([(x, y) for y in range(4, 8) for x in range(6, 10)], [(2, 8), (3, 8), (2, 9), (3, 9),
                                                                                       (10, 9)])
    assert d.train_range == (4, 9) and d.test_range == (2, 10)  # what the split spans


def test_the_command_line_trains_the_learners_setting_and_prints_the_same_numbers_from_files_and_links(files, capsys):
    classes, split = links(files)
    printed = []
    for words in (["--drawings", files[0], "--split", files[1]], ["--drawings", classes, "--split", split]):
        assert main([*TINY, "--models", "vit", "cnn", *words, "--json"]) == 0
        printed.append(json.loads(capsys.readouterr().out))
    assert printed[0]["config"] == printed[1]["config"] and printed[0]["config"]["data"]["own_classes"] == classes
    numbers = [[(r["model"], r["train_acc"], r["test_acc"]) for r in p["results"]] for p in printed]
    assert numbers[0] == numbers[1] and [m for m, *_ in numbers[0]] == ["vit", "cnn"]
    assert all(0 <= acc <= 1 for _, *accs in numbers[0] for acc in accs)


@pytest.mark.parametrize(("words", "said"), [
    (["--drawings", "{dir}/missing.txt"], "--drawings {dir}/missing.txt: no such file (a file, or the text of a link"),
    (["--drawings", "{dir}/bad.txt"], "--drawings {dir}/bad.txt: line 2: a drawing is written with . or 0 for empty"),
    (["--drawings", "{dir}/same.txt"], "--drawings {dir}/same.txt: drawing 1 of class 'a' is drawing 1 of class 'b': "
                                       "these two classes are the same image: nothing to learn"),
    (["--split", "{dir}/notest.txt"], "--split {dir}/notest.txt: this split has no test centre"),
    (["--split", "{dir}/edge.txt"], "error: training centre (1, 2) does not fit a 16x16 image: drawing 2 of class "
                                    "'tee' (4×3 pixels), the largest, reaches 2 pixels before its centre and 1 after, "
                                    "so centres must be in 2..14"),
    (["--drawings", "c1.AgN0ZWUCIukAMvRAA2VsbAIik4AyiPDTqPwX"], "the classes' link text fails its check"),
    (["--split", "s1.AgQHBQBVAFUAVQBVoACgANzB6W"], "the split's link text fails its check"),
    (["--split", "{dir}/split.txt", "--phases", "0", "1"], "--split sets every training and test centre: leave out "
                                                           "--phases"),
    (["--task", "where"], "--task and --dataset both choose what is drawn: give one"),
])
def test_a_bad_file_link_or_flag_is_one_sentence_and_nothing_trains(files, tmp_path, monkeypatch, capsys, words,
                                                                     said):
    monkeypatch.chdir(tmp_path)  # named by a short relative path: the error line shortens a long value with "…"
    tmp_path = type(tmp_path)(".")
    (tmp_path / "bad.txt").write_text("[a]\n#x\n")
    (tmp_path / "same.txt").write_text("[a]\n#\n[b]\n#\n")
    (tmp_path / "notest.txt").write_text("TT..\n")
    (tmp_path / "edge.txt").write_text("....\nX...\n.T..\n")
    words = [w.format(dir=tmp_path) for w in words]
    classes = [] if "--drawings" in words else ["--drawings", files[0]]
    assert main([*TINY, *classes, *words]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and said.format(dir=tmp_path) in err, err


def test_drawings_without_the_own_dataset_are_refused_and_the_help_says_the_formats(files, capsys):
    assert main(["generalization", "--drawings", files[0]]) == 2
    assert "--drawings gives your own classes: add --dataset own" in capsys.readouterr().err
    help_text = build_parser()._subparsers._group_actions[0].choices["generalization"].format_help()
    assert "[name]" in help_text and "digit N" in help_text and "T train, X test" in help_text


def test_a_file_saved_by_a_windows_editor_byte_order_mark_and_crlf_reads_as_any(tmp_path):
    plain, windows = tmp_path / "plain.txt", tmp_path / "windows.txt"
    text = "[a]\n#.\n##\n\n[b]\n##\n.#\n"
    plain.write_text(text)
    windows.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert config("--drawings", str(plain)) == config("--drawings", str(windows))
