from benchmarks.cli_whole_process import rounding_only


def test_only_a_collapsed_vit_at_chance_on_both_sides_counts_as_rounding():
    # seed 2 of the lesson on an AVX-512 host: the command line 50.7 %, the notebook's loop 43.3 % (README)
    assert rounding_only(("vit", 2, 0.9967, 0.5067), ("vit", 2, 0.9967, 0.4333))
    assert not rounding_only(("vit", 2, 0.9967, 0.78), ("vit", 2, 0.9967, 0.4333))  # one side generalizes
    assert not rounding_only(("vit", 2, 1.0, 0.50), ("vit", 2, 0.55, 0.49))  # one side did not train
    assert not rounding_only(("cnn", 0, 1.0, 0.50), ("cnn", 0, 1.0, 0.45))  # not the ViT
    assert not rounding_only(("vit", 1, 1.0, 0.50), ("vit", 2, 1.0, 0.45))  # not the same run
