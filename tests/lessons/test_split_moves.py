"""What a split asks of each model before anything trains: the lesson's split only whole-patch moves, the phase split
new offsets for the ViT and none for the CNN's stride-2 pool, a checkerboard new offsets for both."""

from dataclasses import replace

from core.data.own_split import checkerboard_split
from core.engine.results.behaviour import OFFSETS
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.split_moves import move_kinds, split_moves

MODELS = ("vit", "cnn", "mlp")


def moves(**data):
    cfg = replace(NOTEBOOK_SETUP, models=MODELS, data=replace(NOTEBOOK_SETUP.data, **data))
    return {m.model: m for m in split_moves(cfg)}


def test_the_lessons_split_asks_only_for_whole_patch_moves_and_everything_of_a_flatten_model():
    got = moves()
    assert [got["vit"].stride, got["cnn"].stride, got["mlp"].stride] == [4, 2, 16]
    assert len(got["vit"].moved) == len(got["cnn"].moved) == 4 and not got["vit"].new and not got["cnn"].new
    assert got["mlp"].whole_image and len(got["mlp"].new) == 4 and not got["mlp"].moved
    assert got["vit"].sentence() == ("ViT (lesson) samples every 4 pixels: 4 of 4 test centres lie whole 4-pixel steps "
                                     "(in x and in y) from a centre marked for training, where its grid lines up as "
                                     "there; 0 sit at an offset within 4 pixels that no training centre has.")
    assert got["mlp"].sentence().endswith("all 4 test centres are new places to it.")


def test_the_phase_split_is_new_for_the_vits_patch_and_not_for_the_cnns_pool():
    got = moves(train_range=(3, 12), phases=(0, 1, 2))
    assert len(got["vit"].new) == 51 and not got["vit"].moved
    assert len(got["cnn"].moved) == 51 and not got["cnn"].new


def test_a_checkerboard_is_new_for_every_stride_and_each_centre_says_what_it_asks():
    d = replace(NOTEBOOK_SETUP.data, split=checkerboard_split(range(3, 13)))
    got = moves(split=d.split)
    assert all(len(got[m].new) == 50 and not got[m].moved for m in MODELS)
    kinds = move_kinds(d, 4)
    assert set(kinds) == set(d.train_positions) | set(d.test_positions)
    assert kinds[3, 3] == OFFSETS[0] and kinds[4, 3] == OFFSETS[2]
    assert move_kinds(d, 1)[4, 3] == OFFSETS[1]  # a stride of one pixel: every move is a move by whole strides
