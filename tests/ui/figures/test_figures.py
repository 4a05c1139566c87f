"""Every figure in ui/figures/, built from small inputs: its traces, axes and title."""

import numpy as np

from ui.figures import figure_tables, image_figures, margins, model_figures, plots

ROWS = [{"model": m, "seed": s, "train_acc": 1.0, "test_acc": acc} for m, accs in (("vit", (0.5, 0.3)), ("cnn", (1.0, 1.0)))
        for s, acc in enumerate(accs)]


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two #rrggbb colours."""
    def luminance(c: str) -> float:
        r, g, b = (int(c[i:i + 2], 16) / 255 for i in (1, 3, 5))
        r, g, b = (v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in (r, g, b))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_images_and_patch_grids():
    img = np.random.default_rng(0).random((3, 8, 8))
    fig = image_figures.image_figure(img, "an image")
    assert fig.data[0].type == "image" and fig.layout.title.text == "an image"
    assert image_figures.image_figure(img[:1]).data[0].type == "heatmap"
    grid = image_figures.image_with_patch_grid(img, 4, highlight=3, title="grid")
    assert len(grid.layout.shapes) == 1 + 1  # the frame and the box
    lines = next(t for t in grid.data if t.name == image_figures.GRID_TRACE)  # the grid: one vertical, one horizontal line
    assert list(lines.x) == [3.5, 3.5, None, -0.5, 7.5, None] and list(lines.y) == [-0.5, 7.5, None, 3.5, 3.5, None]
    assert all(name != image_figures.GRID_TRACE for name, _ in figure_tables.figure_tables(grid))  # not listed as numbers
    numbers = grid.data[-1]  # each patch's number at its top-left corner, as a text trace with no badge behind it
    assert list(numbers.text) == ["0", "1", "2", "3"] and (numbers.x[1], numbers.y[2]) == (3.5, 3.5)
    assert numbers.mode == "text" and numbers.textfont.size >= plots.MIN_FONT
    # large: the default 4 x 4 patches' numbers at the largest size, 8 x 8's still well above the minimum
    assert numbers.textfont.size == image_figures.NUMBER_PX and numbers.textfont.weight == "bold"
    assert image_figures.number_px(8) >= 14 and image_figures.number_px(16) == plots.MIN_FONT
    # on every patch, light or dark: each digit in a solid ring (shadows without blur on every side) of a colour
    # at least 4.5:1 against the digit's, so the digit's own background is the ring, whatever pixel is under it
    ring = [shadow.split() for shadow in numbers.textfont.shadow.split(", ")]
    assert {(x, y) for x, y, _, _ in ring} >= {(f"{dx}px", f"{dy}px") for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy}
    assert {blur for _, _, blur, _ in ring} == {"0"} and len({c for *_, c in ring}) == 1
    assert contrast(numbers.textfont.color, ring[0][3]) >= 4.5
    assert list(image_figures.image_with_patch_grid(img, 4, labels=[3, 2, 1, 0]).data[-1].text) == ["3", "2", "1", "0"]
    assert list(figure_tables.figure_tables(grid)[-1][1]["label"]) == ["0", "1", "2", "3"]  # "Show numbers" lists them


def test_matrices_maps_and_bars():
    m = plots.matrix_figure(np.arange(6).reshape(2, 3) - 2, "m", "x", "y", highlight_row=1)
    assert m.data[0].zmin == -3 and m.data[0].zmax == 3 and m.layout.xaxis.title.text == "x"
    g = plots.grid_map(np.eye(2), "g", zmin=0, zmax=1)
    assert g.data[0].text[0][0] == "1.000" and g.layout.yaxis.autorange == "reversed"
    b = plots.bar_figure(np.array([1.0, -1.0]), "b")
    assert list(b.data[0].marker.color) == ["#4f46e5", "#ef4444"]
    gb = plots.grouped_bars({"a": [1, 2], "b": [3, 4]}, "gb")
    assert [t.name for t in gb.data] == ["a", "b"] and gb.layout.barmode == "group"
    ls = plots.log_strip({"zeros": np.zeros(3)}, "ls", "value")
    assert ls.layout.xaxis.type == "log" and min(ls.data[0].x) == 1e-18


def test_accuracy_bars_use_the_registry_labels_and_colours():
    fig = model_figures.accuracy_bars(ROWS)
    bars = [t for t in fig.data if t.type == "bar"]
    assert list(bars[1].x) == ["ViT (lesson)", "CNN"] and list(bars[1].y) == [0.4, 1.0]
    assert list(bars[1].marker.color) == [model_figures.color("vit"), model_figures.color("cnn")]
    assert fig.layout.yaxis.tickformat == ".0%"


def test_curves_skip_missing_points():
    curves = [{"model": "cnn", "seed": 0, "epoch": e, "loss": 1 / e, "test_acc": None if e % 2 else 0.5}
              for e in range(1, 5)]
    loss = model_figures.curves_figure(curves, "loss", "Training loss")
    acc = model_figures.curves_figure(curves, "test_acc", "acc")
    assert list(loss.data[0].x) == [1, 2, 3, 4] and list(acc.data[0].x) == [2, 4]
    assert acc.data[0].name == "CNN" and acc.layout.yaxis.range == (0, 1.05)


def test_curves_one_colour_per_model_seeds_as_line_styles_one_legend_entry_per_model():
    curves = [{"model": m, "seed": s, "epoch": 1, "loss": 1.0} for m in ("vit", "cnn") for s in (0, 1, 2)]
    fig = model_figures.curves_figure(curves, "loss", "loss")
    assert [t.name for t in fig.data if t.showlegend] == ["ViT (lesson)", "CNN"]
    vit = [t for t in fig.data if t.legendgroup == "vit"]
    assert {t.line.color for t in vit} == {model_figures.color("vit")} and len({t.line.dash for t in vit}) == 3
    assert "seed 0 solid" in fig.layout.title.text


def test_position_map_is_colour_blind_safe_with_numbers_in_cells():
    fig = model_figures.position_map_figure(np.array([[0.0, 1.0], [0.5, np.nan]]), [3, 4], (3, 3), (4, 4), "map")
    colours = [c for _, c in fig.data[0].colorscale]
    assert not {"#d73027", "#1a9850"} & set(colours)  # no red-to-green
    assert [list(r) for r in fig.data[0].text] == [["0", "100"], ["50", ""]]  # in %: the colour bar says so
    assert fig.data[0].texttemplate and fig.data[0].textfont.size >= plots.MIN_FONT


def test_cell_numbers_only_where_they_fit():
    assert plots.cell_font(10, 270, 3) >= plots.MIN_FONT  # a 10 x 10 accuracy map: "100" fits
    assert plots.cell_font(20, 270, 3) is None  # 20 across: too small to read, so hover and the table instead
    many = model_figures.position_map_figure(np.full((20, 20), 0.5), list(range(20)), (5, 10), (3, 4), "map")
    assert many.data[0].texttemplate is None and many.data[0].text is not None  # the numbers stay for hover/tables
    assert plots.grid_map(np.eye(4), "g").data[0].texttemplate  # four 5-character numbers in 200 px fit
    assert plots.grid_map(np.eye(8), "g", text_fmt=".3f").data[0].texttemplate is None  # eight do not


def test_figure_tables_give_every_chart_its_numbers():
    tables = figure_tables.figure_tables(plots.grid_map(np.arange(6).reshape(2, 3), "g"))
    assert tables[0][1].shape == (2, 3) and tables[0][1].iloc[1, 2] == 5
    bars = figure_tables.figure_tables(plots.bar_figure(np.array([1.0, -2.0]), "b", ["a", "b"]))
    assert list(bars[0][1]["x"]) == ["a", "b"] and list(bars[0][1]["y"]) == [1.0, -2.0]
    gal = image_figures.image_gallery([np.zeros((4, 4))], ["c"], table=[{"shape": "plus", "cx": 3}])
    assert figure_tables.figure_tables(gal)[0][1].to_dict("records") == [{"shape": "plus", "cx": 3}]


def test_position_map_outlines_inclusive_ranges():
    fig = model_figures.position_map_figure(np.full((10, 10), 0.5), list(range(3, 13)), (5, 10), (3, 4), "map")
    train, test = fig.layout.shapes
    assert (train.x0, train.x1) == (4.5, 10.5) and (test.x0, test.x1) == (2.5, 4.5) and test.line.dash == "dash"


def test_gallery_sweep_and_patch_row():
    gal = image_figures.image_gallery([np.ones((4, 4))] * 7, [f"c{i}" for i in range(7)], cols=6, title="gallery")
    # one mosaic: a heatmap holding every image as a tile (gaps between them), and one trace of captions
    (tiles, captions) = gal.data
    z = np.asarray(tiles.z, dtype=float)
    assert np.nansum(z) == 7 * 16 and list(captions.text) == [f"c{i}" for i in range(7)]
    assert captions.x[6] == captions.x[0] and captions.y[6] > captions.y[0]  # the seventh starts the second row
    assert np.isnan(z[: int(captions.y[0] + 0.5)]).all()  # the room above a tile is its caption's
    small = image_figures.image_gallery([np.ones((4, 4))] * 7, [f"c{i}" for i in range(7)], cols=6, tile_px=60)
    assert small.layout.height < gal.layout.height  # smaller tiles: a shorter figure, no room left below them
    maps = image_figures.small_maps_figure(np.arange(8.0).reshape(2, 2, 2), ["a", "b"], "m", cols=2, zmin=0, zmax=7)
    assert len(maps.data) == 2 and (maps.data[0].zmin, maps.data[0].zmax) == (0, 7)
    assert figure_tables.figure_tables(maps)[0][1].shape == (8, 4)  # every cell of every map, for "Show numbers"
    sweep = model_figures.sweep_figure([{"value": v, "model": "vit", "test_acc": a} for v, a in ((2, 0.9), (2, 0.7), (4, 0.5))],
                                "patch size P (pixels)")
    assert list(sweep.data[0].x) == [2, 4] and list(sweep.data[0].y) == [0.8, 0.5]
    assert np.allclose(sweep.data[0].error_y.array, [0.1, 0.0]) and sweep.layout.xaxis.title.text == "patch size P (pixels)"
    assert list(sweep.layout.xaxis.tickvals) == [2, 4] and list(sweep.layout.xaxis.ticktext) == ["2", "4"]
    chance = next(t for t in sweep.data if t.name.startswith("chance"))  # the chance line, named in the legend
    assert list(chance.y) == [0.5, 0.5] and not sweep.layout.annotations and "vs patch size P (pixels)" in sweep.layout.title.text
    row = image_figures.patch_row_figure(np.zeros(48), "row", channels=3, patch_size=4)
    assert [s.x0 for s in row.layout.shapes] == [15.5, 31.5]


def test_side_by_side_titles_wrap_at_spaces():
    from ui.figures.plots import wrap

    assert wrap("Hybrid (CNN stem + ViT)", 12) == "Hybrid (CNN<br>stem + ViT)"
    assert wrap("CNN", 12) == "CNN" and all(len(line) <= 12 for line in wrap("ViT, 2-D relative position bias", 12).split("<br>"))


def fixed_margins(fig):
    """The figure with ``margins.margin_settings`` written into it, as ``ui.widgets.plot`` sends it."""
    return fig.update_layout(margins.margin_settings(fig))


def test_fixed_margins_fit_the_labels_and_leave_plotly_no_second_pass():
    # numbers on y: room for about five characters; automargin off on both axes
    gb = fixed_margins(plots.grouped_bars({"a": [1, 2]}, "gb", ["class 0", "class 1"]))
    assert gb.layout.xaxis.automargin is False and gb.layout.yaxis.automargin is False
    assert gb.layout.margin.l >= 5 * margins.CHAR_PX and gb.layout.margin.b >= margins.LINE_PX
    # names on y (horizontal bars, boxes placed at their names): room for the longest
    rank = fixed_margins(model_figures.ranking_figure([{"model": "vit-relpos", "mean": 0.6, "lo": 0.5, "hi": 0.7},
                                                       {"model": "cnn", "mean": 0.9, "lo": 0.8, "hi": 1.0}]))
    longest = max(len(t) for t in rank.data[0].y)
    assert rank.layout.margin.l >= longest * margins.CHAR_PX and rank.layout.xaxis.title.text  # and its title below
    assert rank.layout.margin.b >= 2 * margins.LINE_PX
    strip = fixed_margins(plots.log_strip({"with sincos2d positions": np.ones(3)}, "s", "max"))
    assert strip.layout.margin.l >= len("with sincos2d positions") * margins.CHAR_PX
    # a margin the figure asked for is kept when larger; hidden axes need none
    maps = fixed_margins(image_figures.small_maps_figure(np.zeros((2, 3, 3)), ["a", "b"], "m", cols=2))
    assert (maps.layout.margin.l, maps.layout.margin.b) == (10, 10)  # as the figure set them
    assert fixed_margins(plots.grid_map(np.eye(2), "g")).layout.margin.t == 40


def test_fixed_margins_leave_automargin_where_labels_may_be_turned():
    # sixteen "layer l, head h" categories along x: Plotly turns them when they crowd, to a height unknown here
    bars = fixed_margins(model_figures.distance_bars(np.ones((4, 4)), np.ones((4, 4)), "d"))
    assert bars.layout.xaxis.automargin is True and bars.layout.yaxis.automargin is False


def test_values_of_bars_with_intervals_stand_in_a_column_right_of_the_plot_where_no_mark_reaches():
    from core.engine.results.verdict import Interval

    ivs = [Interval(0.98, 0.9, 1.0, 5), Interval(0.4, 0.2, 0.6, 5)]
    split = fixed_margins(model_figures.split_figure(["cnn", "vit"], ivs, [ivs[1], None], "s"))
    # no value at a bar's end (under its error bar): one per bar with a value, level with it, past 100 %
    assert all(t.text is None for t in split.data) and split.layout.xaxis.range[1] <= 1.02
    values = [(a.text, a.y) for a in split.layout.annotations]
    assert values == [("98%", -0.2), ("40%", 0.8), ("40%", 0.2)]  # whole-patch bars above, part-of-a-patch below
    assert all(a.xref == "paper" and a.x == 1 and a.xanchor == "left" and a.font.size >= plots.MIN_FONT
               for a in split.layout.annotations)
    assert split.layout.margin.r >= model_figures.VALUE_PX and split.layout.bargap == model_figures.BARGAP
    rank = model_figures.ranking_figure([{"model": "vit", "mean": 0.4, "lo": 0.2, "hi": 0.6},
                                         {"model": "cnn", "mean": 0.98, "lo": 0.9, "hi": 1.0}])
    assert [(a.text, a.y) for a in rank.layout.annotations if a.xref == "paper"] == [("40%", 0), ("98%", 1)]
    # a two-line category label: the margin holds its longest line, not both
    two = fixed_margins(model_figures.split_figure(["cnn"], ivs[:1], ivs[:1], "s", names=["CNN<br>(stride 2)"]))
    assert two.layout.margin.l < len("CNN<br>(stride 2)") * margins.CHAR_PX


def test_the_tradeoff_names_each_scale_in_its_legend_not_beside_its_point():
    from core.engine.results.verdict import Interval

    iv = Interval(0.5, 0.3, 0.7, 5)
    fig = model_figures.tradeoff_figure([0, 0.02, 1], [iv] * 3, [iv] * 3, "t")
    assert not any(t.text for t in fig.data) and not fig.layout.annotations  # no text where error bars reach
    assert [t.name for t in fig.data if t.showlegend is not False] == ["α = 0", "α = 0.02", "α = 1 (notebook)"]


def _lightness(color: str) -> float:
    """CIE L* of an "rgb(r, g, b)" or "#rrggbb" colour."""
    import re

    if color.startswith("#"):
        rgb = [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    else:
        rgb = [float(v) / 255 for v in re.findall(r"[\d.]+", color)[:3]]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return 116 * (y ** (1 / 3) if y > 216 / 24389 else (24389 / 27 * y + 16) / 116) - 16


def test_the_map_over_a_picture_reads_lighter_for_lower_values_even_blended():
    """The rollout's scale, blended at its opacity over white (its colour bar) and over black (ink): a lower
    value is never darker than a higher one."""
    import plotly.colors as pc

    from ui.figures.image_figures import MAP_OPACITY, MAP_SCALE

    stops = pc.get_colorscale(MAP_SCALE)
    for under in (255, 0):
        blended = []
        for _, c in stops:
            rgb = pc.unlabel_rgb(pc.convert_colors_to_same_type([c], "rgb")[0][0])
            mix = [MAP_OPACITY * v + (1 - MAP_OPACITY) * under for v in rgb]
            blended.append(_lightness(f"rgb({mix[0]}, {mix[1]}, {mix[2]})"))
        assert all(a >= b - 1e-9 for a, b in zip(blended, blended[1:], strict=False)), (under, blended)
    inferno = [_lightness(pc.convert_colors_to_same_type([c], "rgb")[0][0]) for _, c in pc.get_colorscale("Inferno")]
    assert inferno[0] < inferno[-1]  # the old scale ran dark to light: with opacity over white it was not monotonic
