import pytest


def test_a_foot_legend_moves_up_under_the_axis_title_leaving_the_phones_room_below_it():
    from ui.figures.margins import LINE_PX, PAD_PX, legend_below_axis
    from ui.figures.model_figures import ranking_figure

    rows = [{"model": m, "mean": 0.7, "lo": 0.6, "hi": 0.8, "group": g}
            for m, g in (("vit", "baseline"), ("cnn", "the CNN side"), ("vit-shift", "data"))]
    fig = ranking_figure(rows)
    settings = {"margin": {"t": 30}}
    legend = legend_below_axis(fig, settings)["legend"]
    plot_px = fig.layout.height - 30 - fig.layout.margin.b
    # just below the ticks and the two-line axis title, not at the container's foot
    assert legend["yref"] == "paper" and legend["yanchor"] == "top"
    assert legend["y"] * plot_px == pytest.approx(-(LINE_PX * 3 + PAD_PX))
    assert fig.layout.margin.b > LINE_PX * 3 + PAD_PX + 25 * 3  # the margin still holds a row per entry
    plain = ranking_figure(rows)
    plain.update_layout(legend=dict(y=1, yref="paper"))
    assert legend_below_axis(plain, settings) == {}  # any other legend is left alone
