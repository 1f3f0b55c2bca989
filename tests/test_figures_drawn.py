"""Every figure of the course draws what its numbers say, read back from matplotlib's artists.

No tier compares a figure's pixels with a reference image (nbval skips ``image/png``), so a
plotting function that puts a line half a position off, shifts a colour scale or collapses a band
would pass everything else. Each test here draws into a small Figure (no pyplot, no rendering) and
reads what matplotlib would draw: an image's data, extent and colour limits, which colour each
value gets, a line's x and y data, a band's polygon (``fill_between``'s vertices), a bar's
rectangle, a colorbar's strips and ticks. The expected values are worked out here from the data
given to the function, not by calling the library's own helpers, so a helper's slip shows too.

The browser views (`LiveView`) are held to their figures' colours and limits here as well; their
painted colours under Node.js are in tests/test_explorers_node.py.
"""

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from posenc_lib import plots
from posenc_lib.tasks import (
    TASKS,
    chance_level,
    chance_levels,
    position_free_levels,
    position_free_scores,
)


def new_axes():
    return Figure(figsize=(4, 3)).add_subplot()


def vertical_lines(ax):
    """The x of every line drawn from the bottom of the axes to the top (``axvline``)."""
    return [
        float(line.get_xdata()[0])
        for line in ax.get_lines()
        if len(set(line.get_xdata())) == 1 and list(line.get_ydata()) == [0, 1]
    ]


def horizontal_lines(ax):
    """The y of every line drawn across the whole axes (``axhline``)."""
    return [
        float(line.get_ydata()[0])
        for line in ax.get_lines()
        if len(set(line.get_ydata())) == 1 and list(line.get_xdata()) == [0, 1]
    ]


def line_labelled(ax, label):
    (line,) = [line for line in ax.get_lines() if line.get_label() == label]
    return line


def band_of(ax, line):
    """The lowest and highest y of the shaded band drawn in ``line``'s colour, at each of its x.

    Read from the band's polygon, whatever order matplotlib lists the vertices in."""
    (band,) = [
        c
        for c in ax.collections
        if np.allclose(c.get_facecolor()[0][:3], to_rgba(line.get_color())[:3])
    ]
    vertices = np.concatenate([path.vertices for path in band.get_paths()])
    low, high = [], []
    for x in line.get_xdata():
        ys = vertices[np.isclose(vertices[:, 0], x), 1]
        low.append(ys.min())
        high.append(ys.max())
    return np.array(low), np.array(high)


# -- heatmaps -------------------------------------------------------------------------------------


def test_a_heatmap_draws_every_cell_at_its_index_with_row_0_on_top():
    matrix = np.arange(12.0).reshape(3, 4)
    image = plots.heatmap(new_axes(), matrix, vmin=-2, vmax=20, colorbar="weight")
    np.testing.assert_array_equal(image.get_array(), matrix)
    assert image.get_extent() == [-0.5, 3.5, 2.5, -0.5]  # cell (i, j) centred on (j, i)
    assert image.origin == "upper"
    assert image.get_clim() == (-2, 20)
    assert image.colorbar.ax.get_ylabel() == "weight"


def test_a_heatmap_without_limits_spans_its_smallest_to_its_largest_value():
    matrix = np.array([[0.3, 0.9], [0.45, 0.6]])
    image = plots.heatmap(new_axes(), matrix, colorbar=True)
    assert image.get_clim() == (0.3, 0.9)


def test_a_heatmap_labels_rows_and_columns_with_the_tokens_at_their_cells():
    ax = new_axes()
    plots.heatmap(ax, np.eye(3), labels=["the", "dog", "bit"], colorbar=True)
    for axis in (ax.xaxis, ax.yaxis):
        assert list(axis.get_ticklocs()) == [0, 1, 2]
        assert [t.get_text() for t in axis.get_ticklabels()] == ["the", "dog", "bit"]


def test_a_category_heatmap_gives_each_code_its_own_flat_colour():
    """Code k gets the k-th of the n listed colours: the colour scale runs from -0.5 to n - 0.5,
    one colour bin centred on each code."""
    names = ["0", "1", "2", "3"]
    matrix = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    image = plots.category_heatmap(new_axes(), matrix, names, colorbar="bit")
    n = len(names)
    assert image.get_clim() == (-0.5, n - 0.5)
    assert n == image.cmap.N
    listed = np.asarray(image.cmap.colors)
    np.testing.assert_array_equal(image.to_rgba(matrix), listed[matrix])
    assert len({tuple(c) for c in listed}) == n  # no two codes share a colour


def test_a_category_heatmaps_colorbar_has_one_strip_per_name_with_its_tick_in_the_middle():
    names = ["none", "some", "all"]
    image = plots.category_heatmap(new_axes(), [[0, 1], [2, 1]], names, colorbar="coverage")
    bar = image.colorbar
    assert list(bar.get_ticks()) == [0, 1, 2]
    assert [t.get_text() for t in bar.ax.get_yticklabels()] == names
    edges = np.unique(bar.solids.get_coordinates()[:, :, 1])
    np.testing.assert_allclose(edges, [-0.5, 0.5, 1.5, 2.5])  # strip k spans k - 0.5 .. k + 0.5
    strips = bar.solids.to_rgba(bar.solids.get_array()).reshape(-1, 4)
    np.testing.assert_allclose(strips, image.to_rgba(np.arange(3)))  # strip k: code k's colour


# -- small figures of chapters 00-05 --------------------------------------------------------------


def test_grouped_bars_stand_side_by_side_centred_on_their_dimension():
    vectors = [[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, -1.0, 2.0], [2.0, 2.0, 2.0, -0.5]]
    bars = plots.grouped_bars(new_axes(), vectors, ["a", "b", "c"])
    width = 0.8 / 3
    for k, (container, vector) in enumerate(zip(bars, vectors, strict=True)):
        for i, (bar, value) in enumerate(zip(container, vector, strict=True)):
            centre = bar.get_x() + bar.get_width() / 2
            assert centre == pytest.approx(i + (k - 1) * width)
            assert bar.get_width() == pytest.approx(width)
            assert (bar.get_y(), bar.get_height()) == pytest.approx((0, value))
    for i in range(4):  # the three bars of a dimension tile i - 0.4 .. i + 0.4 without overlap
        lefts = sorted(container[i].get_x() for container in bars)
        np.testing.assert_allclose(np.diff(lefts), width)
        assert lefts[0] == pytest.approx(i - 0.4)


def test_a_clock_hand_points_from_its_clocks_centre_to_sin_cos_of_its_angle():
    angles = [0.0, np.pi / 2, 2.0, -1.0]
    ax = new_axes()
    hands, dots = plots.clock_faces(ax, angles, highlight=2, spacing=3.0)
    for n, (hand, dot, angle) in enumerate(zip(hands, dots, angles, strict=True)):
        tip = [3.0 * n + np.sin(angle), np.cos(angle)]
        np.testing.assert_allclose(hand.get_xydata(), [[3.0 * n, 0.0], tip], atol=1e-15)
        np.testing.assert_allclose(dot.get_xydata(), [tip], atol=1e-15)
        colour = plots.PALETTE[5] if n == 2 else plots.PALETTE[0]
        assert hand.get_color() == dot.get_color() == colour
    left, right = ax.get_xlim()
    assert left < -1 and right > 3.0 * 3 + 1  # every clock face inside the axes
    plots.set_clock_hands(hands, dots, [np.pi, 0.5, 0.5, 0.5], spacing=3.0)
    np.testing.assert_allclose(hands[0].get_xydata(), [[0, 0], [0, -1]], atol=1e-15)
    np.testing.assert_allclose(dots[3].get_xydata(), [[9 + np.sin(0.5), np.cos(0.5)]])


def test_pair_waves_draw_columns_2i_and_2i_plus_1_against_position():
    positions = np.arange(5, 25)
    table = np.random.default_rng(0).normal(size=(20, 8))
    ax = new_axes()
    sin_line, cos_line, marker = plots.pair_waves(ax, positions, table, 2, marker=11)
    np.testing.assert_array_equal(sin_line.get_xdata(), positions)
    np.testing.assert_array_equal(sin_line.get_ydata(), table[:, 4])
    np.testing.assert_array_equal(cos_line.get_ydata(), table[:, 5])
    assert marker.get_visible() and vertical_lines(ax) == [11]
    _, _, hidden = plots.pair_waves(new_axes(), positions, table, 0)
    assert not hidden.get_visible()


def test_similarity_curves_draw_each_curve_against_the_distances():
    distances = [0, 1, 2, 5]
    curves = {"all pairs": [4.0, 3.1, 1.2, -0.5], "fast": [2.0, 0.5, -1.0, 0.3]}
    lines = plots.similarity_curves(new_axes(), distances, curves)
    for line, (name, values) in zip(lines, curves.items(), strict=True):
        assert line.get_label() == name
        np.testing.assert_array_equal(line.get_xdata(), distances)
        np.testing.assert_array_equal(line.get_ydata(), values)


def test_rope_arrows_run_from_the_origin_to_q_k_and_their_rotations():
    ax = new_axes()
    plots.rope_plane(ax, limit=3.0)
    assert ax.get_xlim() == ax.get_ylim() == (-3.0, 3.0)
    arrows = plots.rope_arrows(ax)
    vectors = [[1.0, 0.5], [-0.5, 2.0], [0.2, -1.1], [2.5, 0.0]]
    plots.set_rope_arrows(arrows, *vectors)
    for arrow, vector in zip(arrows, vectors, strict=True):
        np.testing.assert_array_equal(arrow.get_xydata(), [[0, 0], vector])
    assert [a.get_alpha() for a in arrows] == [0.3, 0.3, 1.0, 1.0]  # before rotation: faint
    assert [a.get_color() for a in arrows] == [plots.PALETTE[0], plots.PALETTE[1]] * 2


# -- the sweeps of chapters 06 and 07 -------------------------------------------------------------

TRAIN_LEN, LENGTHS, SEEDS = 8, (8, 16, 32), (0, 1, 2)


def study_records():
    """A small study: rope runs at every length, learned at the training length only; records in
    region "all" at every length and "unseen" past the training length, each seed different."""
    rng = np.random.default_rng(5)
    records = []
    for scheme in ("rope", "learned"):
        for seed in SEEDS:
            for n in LENGTHS:
                can_run = scheme == "rope" or n == TRAIN_LEN
                for region in ("all", "unseen") if n > TRAIN_LEN else ("all",):
                    records.append(
                        {
                            "task": "toy-copy",  # not a study task: no floors drawn
                            "scheme": scheme,
                            "config": "c",
                            "seed": seed,
                            "train_len": TRAIN_LEN,
                            "eval_len": n,
                            "region": region,
                            "metric": "accuracy",
                            "value": float(rng.uniform(0, 1)) if can_run else None,
                        }
                    )
    return records


def values_at(records, scheme, n, region):
    return [
        r["value"]
        for r in records
        if r["scheme"] == scheme and r["eval_len"] == n and r["region"] == region
    ]


@pytest.mark.parametrize("region", ["unseen", "all"])
def test_a_results_panel_draws_the_seed_mean_and_a_band_from_the_lowest_to_the_highest_seed(
    region,
):
    """With region "unseen" the point at the training length is over all positions, the longer
    lengths over the unseen ones only."""
    records = study_records()
    (ax,) = plots.plot_results(records, region=region, axes=[new_axes()], legend=False)
    line = line_labelled(ax, "rope")
    np.testing.assert_array_equal(line.get_xdata(), LENGTHS)
    seeds = [values_at(records, "rope", n, "all" if n == TRAIN_LEN else region) for n in LENGTHS]
    np.testing.assert_allclose(line.get_ydata(), [np.mean(v) for v in seeds])
    low, high = band_of(ax, line)
    np.testing.assert_allclose(low, [min(v) for v in seeds])
    np.testing.assert_allclose(high, [max(v) for v in seeds])
    assert all(high - low > 0.05)  # the seeds differ: a band, not a line


def test_a_scheme_that_runs_at_one_length_is_one_larger_hollow_point_there():
    (ax,) = plots.plot_results(study_records(), axes=[new_axes()], legend=False)
    learned = line_labelled(ax, "learned")
    assert list(learned.get_xdata()) == [TRAIN_LEN]
    np.testing.assert_allclose(
        learned.get_ydata(), [np.mean(values_at(study_records(), "learned", TRAIN_LEN, "all"))]
    )
    assert learned.get_markersize() == 9 and learned.get_markerfacecolor() == "none"


def test_a_results_panel_marks_the_training_length_on_a_log2_length_axis():
    (ax,) = plots.plot_results(study_records(), axes=[new_axes()], legend=False)
    assert vertical_lines(ax) == [TRAIN_LEN]
    assert ax.get_xscale() == "log"
    assert list(ax.get_xticks()) == list(LENGTHS)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(n) for n in LENGTHS]


@pytest.mark.parametrize("task_name", ["lookback-3", "markov"])
def test_a_results_panels_floors_are_the_tasks_chance_and_position_free_levels(task_name):
    """At each evaluation length; a loss task also gets its best possible loss."""
    records = [{**r, "task": task_name} for r in study_records()]
    if TASKS[task_name]().metric == "loss":
        records = [{**r, "metric": "loss"} for r in records]
    (ax,) = plots.plot_results(records, axes=[new_axes()], legend=False)
    task = TASKS[task_name]()
    chance = line_labelled(ax, "chance")
    rule = line_labelled(ax, "best position-free rule")
    expected_chance = chance_levels(task, LENGTHS, TRAIN_LEN)
    expected_rule = position_free_levels(task, LENGTHS, TRAIN_LEN)
    for line, expected in ((chance, expected_chance), (rule, expected_rule)):
        np.testing.assert_array_equal(line.get_xdata(), LENGTHS)
        np.testing.assert_allclose(line.get_ydata(), [expected[n] for n in LENGTHS])
    best = [line for line in ax.get_lines() if line.get_label() == "best possible"]
    if task.metric == "loss":
        assert horizontal_lines(ax) == [task.best_possible]
    else:
        assert best == []


EVAL_LEN, BIN = 32, 4


def position_curves():
    """Per-position totals and counts of two schemes over three seeds, on lookback-3 (whose
    first positions have no target: counts 0 there)."""
    rng = np.random.default_rng(6)
    curves = []
    for scheme in ("rope", "alibi"):
        for seed in SEEDS:
            counts = rng.integers(1, 5, size=EVAL_LEN)
            counts[:3] = 0
            curves.append(
                {
                    "task": "lookback-3",
                    "scheme": scheme,
                    "config": "c",
                    "seed": seed,
                    "train_len": 16,
                    "eval_len": EVAL_LEN,
                    "metric": "accuracy",
                    "totals": (counts * rng.uniform(0, 1, size=EVAL_LEN)).tolist(),
                    "counts": counts.tolist(),
                }
            )
    return curves


def in_bins(values):
    return np.asarray(values, dtype=float).reshape(-1, BIN).sum(1)


BIN_CENTRES = np.arange(EVAL_LEN).reshape(-1, BIN).mean(1)  # the mean position of each bin


def test_a_position_curve_draws_each_bins_mean_over_seeds_at_the_bins_middle_position():
    curves = position_curves()
    ax = plots.plot_position_curves(curves, "lookback-3", bin_width=BIN, ax=new_axes())
    for scheme in ("rope", "alibi"):
        rows = [r for r in curves if r["scheme"] == scheme]
        per_seed = np.array([in_bins(r["totals"]) / in_bins(r["counts"]) for r in rows])
        line = line_labelled(ax, scheme)
        np.testing.assert_allclose(line.get_xdata(), BIN_CENTRES)
        np.testing.assert_allclose(line.get_ydata(), per_seed.mean(0))
        low, high = band_of(ax, line)
        np.testing.assert_allclose(low, per_seed.min(0))
        np.testing.assert_allclose(high, per_seed.max(0))


def test_the_training_length_line_falls_between_the_last_trained_and_the_first_new_position():
    """Trained on positions 0..15: the line at 15.5."""
    ax = plots.plot_position_curves(position_curves(), "lookback-3", bin_width=BIN, ax=new_axes())
    assert vertical_lines(ax) == [16 - 0.5]


def test_the_position_free_floor_is_binned_as_the_model_curves_and_drawn_at_the_same_centres():
    ax = plots.plot_position_curves(position_curves(), "lookback-3", bin_width=BIN, ax=new_axes())
    task = TASKS["lookback-3"]()
    totals, counts = position_free_scores(task, EVAL_LEN)
    rule = line_labelled(ax, "best position-free rule")
    np.testing.assert_allclose(rule.get_xdata(), BIN_CENTRES)
    np.testing.assert_allclose(rule.get_ydata(), in_bins(totals) / in_bins(counts))
    np.testing.assert_allclose(rule.get_xdata(), line_labelled(ax, "rope").get_xdata())
    assert horizontal_lines(ax) == [chance_level(task)]


def test_a_position_curve_of_chapter_8s_plans_is_drawn_per_plan_as_the_schemes_are():
    """Chapter 8 names its curves by plan ("layers"); each plan's line and band are its seeds'."""
    curves = [
        {**{k: v for k, v in r.items() if k != "scheme"}, "layers": f"{r['scheme']}+nope"}
        for r in position_curves()
    ]
    ax = plots.plot_position_curves(curves, "lookback-3", bin_width=BIN, ax=new_axes(), by="layers")
    for plan in ("rope+nope", "alibi+nope"):
        rows = [r for r in curves if r["layers"] == plan]
        per_seed = np.array([in_bins(r["totals"]) / in_bins(r["counts"]) for r in rows])
        line = line_labelled(ax, plan)
        np.testing.assert_allclose(line.get_ydata(), per_seed.mean(0))
        low, high = band_of(ax, line)
        np.testing.assert_allclose(low, per_seed.min(0))
        np.testing.assert_allclose(high, per_seed.max(0))
    assert vertical_lines(ax) == [16 - 0.5]


# -- the browser views hold their figure's colours and limits -------------------------------------


def frame_slider_with_positive_data():
    from posenc_lib.widgets import FrameSlider

    rng = np.random.default_rng(4)
    return FrameSlider({step: rng.uniform(0.3, 0.9, size=(4, 5)) for step in (0, 10)}, colorbar="x")


def attention_inspector():
    from posenc_lib.model import ModelConfig, train
    from posenc_lib.widgets import AttentionInspector

    config = ModelConfig(vocab_size=16, scheme="alibi", d_model=8, n_heads=2, max_len=8)
    model = train(config, TASKS["lookback-3"](), steps=1, length=8, progress=False)
    return AttentionInspector({("lookback-3", "alibi", 0): model}, TASKS, lengths=(8,))


def order_explorer():
    from posenc_lib.widgets import OrderExplorer

    rng = np.random.default_rng(0)
    return OrderExplorer(*(rng.normal(0, 0.7, size=(8, 8)) for _ in range(3)))


VIEWS = {
    "ch01 order": (order_explorer, lambda e: e.artists[0]),
    "ch03 frames, positive automatic limits": (frame_slider_with_positive_data, lambda e: e.image),
    "ch06 attention": (attention_inspector, lambda e: e.image),
}


@pytest.mark.parametrize("name", VIEWS)
def test_a_browser_view_paints_with_its_figures_colormap_and_colour_limits(name):
    make, image_of = VIEWS[name]
    explorer = make()
    image, spec = image_of(explorer), explorer.view.spec
    colours = image.cmap(np.arange(image.cmap.N), bytes=True)[:, :3]
    np.testing.assert_array_equal(spec["colors"], colours)
    assert (spec["vmin"], spec["vmax"]) == image.get_clim()


def test_the_frame_sliders_automatic_scale_spans_its_first_frame():
    """Positive data: the scale starts at the smallest value, not at 0."""
    slider = frame_slider_with_positive_data()
    first = slider.frames[slider.keys[0]]
    assert slider.image.get_clim() == (first.min(), first.max())
    assert (slider.view.spec["vmin"], slider.view.spec["vmax"]) == (first.min(), first.max())


def test_the_attention_inspector_colours_weights_from_0_to_1():
    inspector = attention_inspector()
    assert inspector.image.get_clim() == (0, 1)
    assert (inspector.view.spec["vmin"], inspector.view.spec["vmax"]) == (0, 1)
