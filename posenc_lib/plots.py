"""Figures of the course: the drawings.

Each function draws into a given Axes and returns its artists, so notebooks compose them and widgets
update them in place. No math lives here, and no look: the house style, the palette, each scheme's
look and the PNG a notebook shows are `posenc_lib.style`'s (imported here too, so a chapter's setup
cell reads ``from posenc_lib.plots import heatmap, use_house_style``).

The sweeps of chapters 6 and 7 are drawn by `plot_results` (a metric against the evaluation length,
one line per scheme) and `plot_position_curves` (a metric along the query positions), over each
study task's honest floors (`draw_floors`).
"""

from functools import lru_cache

import numpy as np

from ._checks import check_bool, check_choice, check_int, check_real, short
from ._limits import check_sequence
from .records import (
    bin_positions,
    binned_curves,
    check_criteria,
    check_records,
    group_summary,
    in_region,
    names,
    one_config,
    select,
)
from .style import (  # noqa: F401 (the house style, read from here by the chapters and widgets)
    DENSITY,
    LINESTYLES,
    MARKERS,
    PALETTE,
    SCHEME_STYLES,
    figure_png,
    legend_outside,
    notebook_png,
    scheme_style,
    series_style,
    style_problems,
    use_house_style,
)
from .tasks import TASKS, chance_level, chance_levels, position_free_levels, position_free_scores

_notebook_png = notebook_png  # the name tests/test_course_files.py reads (style.notebook_png)


def _check_matrix(func, matrix):
    """Return ``matrix`` as an array if it is 2-d and numeric (NaN allowed: drawn blank)."""
    try:
        array = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{func}: matrix must be a 2-d array of numbers, got {short(matrix)}"
        ) from None
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(
            f"{func}: matrix must be a 2-d array (rows, columns) with at least one of each, got "
            f"shape {array.shape}"
        )
    return np.asarray(matrix)  # as given: an integer matrix stays one


def _check_limits(func, vmin, vmax):
    """Return the colour limits as floats (or None), refusing vmin > vmax."""
    vmin = None if vmin is None else check_real(func, "vmin", vmin)
    vmax = None if vmax is None else check_real(func, "vmax", vmax)
    if vmin is not None and vmax is not None and vmin > vmax:
        raise ValueError(f"{func}: vmin must be <= vmax, got vmin={vmin:g} and vmax={vmax:g}")
    return vmin, vmax


def heatmap(
    ax,
    matrix,
    *,
    labels=None,
    title=None,
    cmap="viridis",
    vmin=None,
    vmax=None,
    xlabel="key position j",
    ylabel="query position i",
    colorbar=False,
):
    """Draw ``matrix`` as an image; return the AxesImage.

    ``colorbar`` may be True or a label for the colorbar (what the colours mean). The image is
    antialiased, so a matrix with more rows than pixels does not alias into moire.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    matrix : array_like, shape (M, N)
        The values.
    labels : list of str, optional
        Token labels for both axes (`set_token_ticks`).
    title : str, optional
        The axes' title.
    cmap : str
        A colormap (viridis; RdBu for signed values).
    vmin, vmax : float, optional
        The colour scale's limits.
    xlabel, ylabel : str
        Axis labels.
    colorbar : bool or str
        Draw a colorbar; a str is its label.

    Returns
    -------
    matplotlib.image.AxesImage

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> image = heatmap(ax, np.eye(3), vmin=0, vmax=1, colorbar="weight")
    >>> image.get_array().shape
    (3, 3)
    """
    func = "heatmap"
    matrix = _check_matrix(func, matrix)
    vmin, vmax = _check_limits(func, vmin, vmax)
    image = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="antialiased")
    if labels is not None:
        set_token_ticks(ax, labels)
    if title:
        ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        label = colorbar if isinstance(colorbar, str) else None
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label=label)
    return image


def category_heatmap(ax, matrix, names, *, cmap="cividis", colorbar=None, **options):
    """Draw a matrix of categories 0 .. len(names) - 1, one flat colour each, with a discrete colorbar.

    For values such as bits, where a continuous colour scale (0.2, 0.4, ...) would suggest
    values in between that do not exist.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    matrix : array_like of int, shape (M, N)
        Category codes 0 .. len(names) - 1.
    names : sequence of str
        What each code means, shown on the colorbar.
    cmap : str
        The colormap the flat colours are taken from, evenly spaced.
    colorbar : str, optional
        The colorbar's label.
    **options
        Passed to `heatmap` (title, xlabel, ylabel, labels).

    Returns
    -------
    matplotlib.image.AxesImage

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> image = category_heatmap(ax, [[0, 1], [1, 0]], ["0", "1"], colorbar="bit")
    >>> image.cmap.N, [t.get_text() for t in image.colorbar.ax.get_yticklabels()]
    (2, ['0', '1'])
    """
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    func = "category_heatmap"
    if isinstance(names, str) or not hasattr(names, "__len__") or len(names) == 0:
        raise TypeError(f"{func}: names must be a non-empty sequence of labels, got {short(names)}")
    n = len(names)
    codes = _check_matrix(func, matrix).astype(float)
    bad = (codes != np.round(codes)) | (codes < 0) | (codes >= n)
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0].tolist())
        raise ValueError(
            f"{func}: matrix must hold category codes 0..{n - 1} (one per name), got "
            f"{codes[index]:g} at index {index}"
        )
    for key in ("vmin", "vmax"):
        if key in options:
            raise TypeError(f"{func}: {key} is set by the categories, not passed")
    colours = ListedColormap(colormaps[cmap](np.linspace(0, 1, n)))
    image = heatmap(ax, matrix, cmap=colours, vmin=-0.5, vmax=n - 0.5, **options)
    bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, ticks=np.arange(n), label=colorbar)
    bar.ax.set_yticklabels(list(names))
    return image


def set_token_ticks(ax, labels):
    """Label both axes of a token-by-token heatmap with the tokens.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A heatmap's axes.
    labels : list of str
        One token per row and column.

    Returns
    -------
    None

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> set_token_ticks(ax, ["the", "dog"])
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['the', 'dog']
    """
    ticks = np.arange(len(labels))
    ax.set_xticks(ticks, labels, rotation=90)
    ax.set_yticks(ticks, labels)


HATCHES = ("", "///", "...", "xxx")


def grouped_bars(ax, vectors, names, *, title=None, xlabel="dimension", ylabel="value"):
    """Bars of several vectors side by side per dimension; return one BarContainer per vector.

    Each vector's bars have their own colour and hatching, so they differ by more than colour.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    vectors : sequence of array_like
        Vectors of the same length.
    names : sequence of str
        One legend label per vector.
    title : str, optional
        The axes' title.
    xlabel, ylabel : str
        Axis labels.

    Returns
    -------
    list of matplotlib.container.BarContainer

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> bars = grouped_bars(ax, [[1.0, 2.0], [2.0, 1.0]], ["A", "B"])
    >>> len(bars), len(bars[0])
    (2, 2)
    """
    vectors = [np.asarray(v) for v in vectors]
    width = 0.8 / len(vectors)
    x = np.arange(len(vectors[0]))
    bars = [
        ax.bar(
            x + (k - (len(vectors) - 1) / 2) * width,
            v,
            width,
            label=name,
            color=PALETTE[k % len(PALETTE)],
            hatch=HATCHES[k % len(HATCHES)],
            edgecolor="white",
        )
        for k, (v, name) in enumerate(zip(vectors, names, strict=True))
    ]
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xticks(x)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    legend_outside(ax)
    if title:
        ax.set_title(title)
    return bars


def clock_faces(ax, angles, *, labels=None, highlight=None, spacing=2.6):
    """Draw one small clock per angle, in a row; the hand of clock i points at (sin a, cos a).

    That point is exactly a (sin, cos) pair of the encoding: at angle 0 the hand points to 12
    o'clock and it turns clockwise as the angle grows, like a real clock hand.
    Returns (hands, dots): one Line2D hand and one tip marker per clock.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw (its axis lines are hidden).
    angles : sequence of float
        One angle per clock, in radians.
    labels : sequence of str, optional
        A label under each clock.
    highlight : int, optional
        The clock drawn in the highlight colour.
    spacing : float
        Distance between clock centres.

    Returns
    -------
    hands, dots : list of matplotlib.lines.Line2D
        One hand and one tip marker per clock.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> hands, dots = clock_faces(ax, [0.0, np.pi / 2])
    >>> np.round(hands[1].get_xydata()[1], 6)   # a quarter turn points to 3 o'clock
    array([3.6, 0. ])
    """
    theta = np.linspace(0, 2 * np.pi, 90)
    hands, dots = [], []
    for n, angle in enumerate(angles):
        cx = n * spacing
        ax.plot(cx + np.sin(theta), np.cos(theta), "-", color="0.75", lw=1)
        ax.plot([cx, cx], [0.85, 1.0], "-", color="0.6", lw=1)  # the 12 o'clock tick
        color = PALETTE[5] if n == highlight else PALETTE[0]  # vermillion, blue
        (hand,) = ax.plot([cx, cx + np.sin(angle)], [0, np.cos(angle)], "-", color=color, lw=2.5)
        (dot,) = ax.plot([cx + np.sin(angle)], [np.cos(angle)], "o", color=color, ms=4)
        hands.append(hand)
        dots.append(dot)
        if labels is not None:
            ax.text(cx, -1.35, labels[n], ha="center", va="top", fontsize="small")
    ax.set_xlim(-1.3, (len(angles) - 1) * spacing + 1.3)
    ax.set_ylim(-1.9, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    return hands, dots


def set_clock_hands(hands, dots, angles, spacing=2.6):
    """Turn the hands drawn by `clock_faces` to new angles.

    Parameters
    ----------
    hands, dots : list of matplotlib.lines.Line2D
        As `clock_faces` returns them.
    angles : sequence of float
        The new angles, one per clock.
    spacing : float
        As given to `clock_faces`.

    Returns
    -------
    None

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> hands, dots = clock_faces(ax, [0.0])
    >>> set_clock_hands(hands, dots, [np.pi])
    >>> np.round(dots[0].get_xydata(), 6)   # half a turn: 6 o'clock
    array([[ 0., -1.]])
    """
    for n, (hand, dot, angle) in enumerate(zip(hands, dots, angles, strict=True)):
        cx = n * spacing
        hand.set_data([cx, cx + np.sin(angle)], [0, np.cos(angle)])
        dot.set_data([cx + np.sin(angle)], [np.cos(angle)])


def pair_waves(ax, positions, table, pair, *, marker=None):
    """Columns 2i (sin) and 2i+1 (cos) of ``table`` against position, with an optional marker.

    Returns (sin_line, cos_line, marker_line).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    positions : array_like, shape (N,)
        The x values.
    table : array_like, shape (N, d_model)
        A sinusoidal table (rows at ``positions``).
    pair : int
        The pair i whose columns are drawn.
    marker : float, optional
        Where to draw a vertical marker (hidden when None).

    Returns
    -------
    sin_line, cos_line, marker_line : matplotlib.lines.Line2D

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> from posenc_lib.sinusoidal import sinusoidal_positions
    >>> sin_line, cos_line, marker = pair_waves(ax, np.arange(8), sinusoidal_positions(8, 4), 0)
    >>> sin_line.get_label(), marker.get_visible()
    ('sin: column 2i', False)
    """
    n = len(positions)
    (sin_line,) = ax.plot(
        positions, table[:, 2 * pair], label="sin: column 2i", **series_style(0, n)
    )
    (cos_line,) = ax.plot(
        positions, table[:, 2 * pair + 1], label="cos: column 2i+1", **series_style(1, n)
    )
    # The current position, for the explorer; hidden when no marker is asked for.
    marker_line = ax.axvline(0 if marker is None else marker, color=PALETTE[5], lw=1.5)
    marker_line.set_visible(marker is not None)
    ax.set_xlabel("position p")
    ax.set_ylabel("value")
    ax.set_ylim(-1.15, 1.8)  # room above the waves (which stay in [-1, 1]) for the legend
    ax.legend(loc="upper center", ncol=2, fontsize="small")
    return sin_line, cos_line, marker_line


def similarity_curves(ax, distances, curves, *, title=None, ylabel="PE[p] . PE[p+k]", legend=True):
    """Similarity against distance k, one line per named curve; returns the lines.

    With several curves, each has its own colour, marker and line style, and the legend (unless
    ``legend=False``, for a panel that shares another's legend) sits outside the axes.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    distances : array_like, shape (N,)
        The shifts k.
    curves : dict
        Name -> values at ``distances``.
    title : str, optional
        The axes' title.
    ylabel : str
        The y axis label.
    legend : bool
        Draw the legend (outside the axes) when there are several curves.

    Returns
    -------
    list of matplotlib.lines.Line2D

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> lines = similarity_curves(ax, [0, 1, 2], {"all": [2.0, 1.5, 0.6], "fast": [1.0, 0.5, -0.4]})
    >>> [line.get_label() for line in lines]
    ['all', 'fast']
    """
    lines = [
        ax.plot(distances, values, label=name, **series_style(k, len(distances)))[0]
        for k, (name, values) in enumerate(curves.items())
    ]
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set_xlabel("distance k (positions)")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if len(curves) > 1 and legend:
        legend_outside(ax)
    return lines


def rope_plane(ax, limit=2.6):
    """Return an empty square plane with axes through the origin, for one rotation pair.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    limit : float
        Half the width of the square shown.

    Returns
    -------
    None

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> rope_plane(ax, limit=2.0)
    >>> [float(v) for v in ax.get_xlim()]
    [-2.0, 2.0]
    """
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.set_xlabel("dimension 2i")
    ax.set_ylabel("dimension 2i+1")
    ax.set_title("pair i of q (blue) and k (orange)")  # widgets replace it with the pair's number


def rope_arrows(ax):
    """Four arrows as lines: q and k before (faint) and after rotation; returns the Line2Ds.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A plane from `rope_plane`.

    Returns
    -------
    list of matplotlib.lines.Line2D
        q, k (faint, before rotation), then q, k (after).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> len(rope_arrows(ax))
    4
    """
    styles = [(PALETTE[0], 0.3), (PALETTE[1], 0.3), (PALETTE[0], 1.0), (PALETTE[1], 1.0)]
    return [
        ax.plot([0, 0], [0, 0], "-", color=c, alpha=a, lw=2.5, marker="o", markevery=[1])[0]
        for c, a in styles
    ]


def set_rope_arrows(arrows, q, k, q_rotated, k_rotated):
    """Point the arrows of `rope_arrows` at new 2-D vectors.

    Parameters
    ----------
    arrows : list of matplotlib.lines.Line2D
        As `rope_arrows` returns them.
    q, k, q_rotated, k_rotated : array_like, shape (2,)
        One pair of each vector.

    Returns
    -------
    None

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> arrows = rope_arrows(ax)
    >>> set_rope_arrows(arrows, [1, 0], [0, 1], [0, 1], [-1, 0])
    >>> arrows[2].get_xydata()[1].tolist()
    [0.0, 1.0]
    """
    for line, vector in zip(arrows, (q, k, q_rotated, k_rotated), strict=True):
        line.set_data([0, vector[0]], [0, vector[1]])


# -- the sweeps of chapters 6 and 7 --------------------------------------------------------------
METRIC_LABELS = {
    "accuracy": ("accuracy", "tokens"),
    "loss": ("loss (nats/token)", "tokens"),
    "bits_per_char": ("bits per character", "characters"),
}


#: How the honest floors and the ceiling are drawn in the study's figures: grey for the floors
#: (dashed: chance; dash-dotted with crosses: the best rule without positions), black for the best
#: possible.
FLOOR_STYLES = {
    "chance": {"color": "0.45", "linestyle": (0, (4, 2)), "linewidth": 1.0},
    "position-free rule": {
        "color": "0.45",
        "linestyle": "-.",
        "linewidth": 1.2,
        "marker": "x",
        "markersize": 5,
    },
    "best possible": {"color": "k", "linestyle": (0, (1, 1)), "linewidth": 1.2},
}


@lru_cache(maxsize=32)
def _floor_levels(task_name, lengths, train_len):
    return position_free_levels(TASKS[task_name](), lengths, train_len)


@lru_cache(maxsize=32)
def _chance_levels(task_name, lengths, train_len):
    return chance_levels(TASKS[task_name](), lengths, train_len)


@lru_cache(maxsize=8)
def _floor_curve(task_name, length):
    return position_free_scores(TASKS[task_name](), length)


def draw_floors(ax, task_name, *, lengths=None, train_len=None, length=None, bin_width=8):
    """Draw a study task's chance level, best position-free rule and (for a loss) best possible.

    With ``lengths`` and ``train_len`` chance and the rule are drawn at each evaluation length
    (region as the study reports it); with ``length`` the rule is drawn along the query positions,
    in bins. Both are read on the sequences the study scores its models on
    (`~posenc_lib.tasks.evaluation_sequences`).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    task_name : str
        A task of `~posenc_lib.tasks.TASKS`.
    lengths : sequence of int, optional
        Evaluation lengths (a results panel).
    train_len : int, optional
        The training length (with ``lengths``).
    length : int, optional
        The sequence length of a per-position panel.
    bin_width : int
        Positions per point of a per-position panel.

    Returns
    -------
    list of matplotlib artists

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> _, ax = plt.subplots()
    >>> [a.get_label() for a in draw_floors(ax, "recent-marker", lengths=(8, 16), train_len=8)]
    ['chance', 'best position-free rule']
    >>> plt.close("all")
    """
    func = "draw_floors"
    task = TASKS[check_choice(func, "task_name", task_name, tuple(TASKS))]()
    if (lengths is None) == (length is None):
        raise ValueError(
            f"{func}: give either lengths= (with train_len=) or length=, got lengths="
            f"{short(lengths)} and length={short(length)}"
        )
    if lengths is not None:  # both floors on the sequences the study scores every model on
        lengths = check_sequence(func, "lengths", lengths, minimum=1)
        train_len = check_int(func, "train_len", train_len, minimum=1)
        key = (task_name, tuple(lengths), train_len)
        chance = _chance_levels(*key)
        artists = ax.plot(
            list(chance), list(chance.values()), label="chance", zorder=1, **FLOOR_STYLES["chance"]
        )
        levels = _floor_levels(*key)
        xs, ys = list(levels), list(levels.values())
    else:
        length = check_int(func, "length", length, minimum=1)
        bin_width = check_int(func, "bin_width", bin_width, minimum=1)
        if bin_width > length:
            raise ValueError(f"{func}: bin_width must be at most length={length}, got {bin_width}")
        artists = [
            ax.axhline(chance_level(task), label="chance", zorder=1, **FLOOR_STYLES["chance"])
        ]
        xs, ys = bin_positions(*_floor_curve(task_name, length), bin_width)
    style = FLOOR_STYLES["position-free rule"]
    if length is not None:
        style = {**style, "markevery": 4}
    artists += ax.plot(xs, ys, label="best position-free rule", zorder=1, **style)
    if task.metric == "loss" and task.best_possible is not None:
        artists.append(
            ax.axhline(
                task.best_possible, label="best possible", zorder=1, **FLOOR_STYLES["best possible"]
            )
        )
    return artists


def plot_results(
    records, *, config=None, region="unseen", axes=None, legend=True, floors=True, **criteria
):
    """Metric against evaluation length, one panel per task, one line per scheme.

    The mean over seeds is drawn, the range over seeds shaded; a scheme that cannot run at a
    length has no point there, and one that runs at a single length is drawn larger and
    hollow. With ``region="unseen"`` the point at the training length is over all (trained)
    positions. Both chapters' sweeps draw with it (chapter 07 selects a ``mode=``).

    Parameters
    ----------
    records : list of dict
        Records of a sweep (`~posenc_lib.experiments.load_study`,
        `~posenc_lib.realtext.load_sweep`).
    config : str, optional
        The configuration to plot (needed when the records hold several).
    region : {"unseen", "all"}
        Which query positions past the training length count.
    axes : array of matplotlib.axes.Axes, optional
        One per task (default: a new figure).
    legend : bool
        Draw the legend beside the last panel.
    floors : bool
        Draw each study task's chance level, best position-free rule and best possible loss
        (`draw_floors`); tasks that are not chapter 6's are left alone.
    **criteria
        Further selection of the records (e.g. ``mode="sliding"``), by `~posenc_lib.records.select`.

    Returns
    -------
    ndarray of matplotlib.axes.Axes
        One per task.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> records = [{"task": "t", "scheme": s, "config": "c", "seed": 0, "train_len": 8, "eval_len": n,
    ...             "region": "all", "metric": "accuracy", "value": v}
    ...            for s, n, v in [("rope", 8, 1.0), ("rope", 16, 0.5)]]
    >>> axes = plot_results(records, region="all")
    >>> axes[0].get_title()
    't'
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt

    func = "plot_results"
    check_choice(func, "region", region, ("all", "unseen"))
    check_bool(func, "legend", legend)
    check_bool(func, "floors", floors)
    records = check_records(
        func, records, fields=("task", "scheme", "train_len", "eval_len", "metric", "value")
    )
    check_criteria(func, records, criteria, values=True)
    config = one_config(records, config, func)
    rows = select(records, config=config, region=None, **criteria)
    if not rows:
        raise ValueError(f"{func}: no record matches config={config!r} and {criteria}")
    train_lens = names(rows, "train_len")
    if len(train_lens) > 1:
        raise ValueError(f"{func}: the records hold several training lengths {train_lens}")
    by = ("task", "scheme", "eval_len")
    summary = group_summary(in_region(rows, region), by, region=None)
    train_len = train_lens[0]
    tasks, schemes = names(rows, "task"), names(rows, "scheme")
    lengths = sorted({r["eval_len"] for r in rows})
    metric = {r["task"]: r["metric"] for r in rows}
    if axes is None:
        _, axes = plt.subplots(1, len(tasks), figsize=(4 * len(tasks), 3.4), layout="constrained")
    axes = np.atleast_1d(axes)
    if axes.size != len(tasks):
        raise ValueError(
            f"{func}: axes must hold one Axes per task ({len(tasks)}: {tasks}), got {axes.size}"
        )
    for ax, task in zip(axes.ravel(), tasks, strict=True):
        for n, scheme in enumerate(schemes):
            points = [(x, summary.get((task, scheme, x))) for x in lengths]
            points = [(x, v) for x, v in points if v is not None]
            if not points:
                continue
            xs = [x for x, _ in points]
            style = scheme_style(scheme, n)
            if len(points) == 1:  # a scheme that runs at one length only: drawn on top, larger
                style = {**style, "markersize": 9, "zorder": 5, "markerfacecolor": "none"}
            ax.plot(xs, [v[0] for _, v in points], label=scheme, **style)
            ax.fill_between(
                xs,
                [v[1] for _, v in points],
                [v[2] for _, v in points],
                color=style["color"],
                alpha=0.15,
                lw=0,
            )
        ax.axvline(train_len, color="0.5", ls=":", lw=1)
        if floors and task in TASKS:
            draw_floors(ax, task, lengths=lengths, train_len=train_len)
        what, unit = METRIC_LABELS.get(metric[task], (metric[task], "tokens"))
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths, [str(x) for x in lengths])
        ax.set_xlabel(f"evaluation length ({unit})")
        ax.set_ylabel(
            what
            if region == "all"
            else f"{what}\n(at {train_len}: all positions; later: >= {train_len})"
        )
        ax.set_title(task)
    if legend:
        legend_outside(axes[-1])
    return axes


def plot_position_curves(
    curves, task, *, config=None, bin_width=8, ax=None, floors=True, by="scheme"
):
    """Plot the per-position curve of every scheme (or plan) for one task and configuration.

    Each curve is the mean over seeds, with a band from the lowest to the highest seed.

    Parameters
    ----------
    curves : list of dict
        Per-position records (`~posenc_lib.experiments.load_study`).
    task : str
        The task to plot.
    config : str, optional
        The configuration (needed when the curves hold several).
    bin_width : int
        Positions per point.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).
    floors : bool
        Draw the task's chance level and best position-free rule along the positions, if it is
        a study task (`draw_floors`).
    by : str
        The field that names a curve: "scheme" (chapter 6), or "layers" (chapter 8's plans).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> curves = [{"task": "t", "scheme": "rope", "config": "4x8+mlp", "seed": 0, "train_len": 4,
    ...            "eval_len": 4, "metric": "accuracy", "totals": [1, 2, 3, 4],
    ...            "counts": [4, 4, 4, 4]}]
    >>> plot_position_curves(curves, "t", bin_width=2).get_lines()[0].get_label()
    'rope'
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt

    func = "plot_position_curves"
    check_bool(func, "floors", floors)
    check_choice(func, "by", by, ("scheme", "layers"))
    curves = check_records(
        func,
        curves,
        name="curves",
        fields=("task", by, "train_len", "eval_len", "metric", "totals", "counts"),
    )
    check_criteria(func, curves, {"task": task}, values=True)
    rows = select(curves, task=task, region=None)
    config = one_config(rows, config, func)
    rows = select(rows, config=config, region=None)
    if not rows:
        raise ValueError(f"{func}: no curve of task={task!r} has config={config!r}")
    for key in ("eval_len", "train_len"):
        if len(names(rows, key)) > 1:
            raise ValueError(f"{func}: the curves hold several {key} {names(rows, key)}")
    bin_width = check_int(func, "bin_width", bin_width, minimum=1)
    if bin_width > rows[0]["eval_len"]:
        raise ValueError(
            f"{func}: bin_width must be at most the {rows[0]['eval_len']} positions, got "
            f"{bin_width}"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.4), layout="constrained")
    for n, scheme in enumerate(names(rows, by)):
        x, mean, low, high = binned_curves(rows, **{by: scheme}, bin_width=bin_width)
        style = scheme_style(scheme, n)
        ax.plot(x, mean, label=scheme, **{**style, "markevery": 4})
        ax.fill_between(x, low, high, color=style["color"], alpha=0.15, lw=0)
    ax.axvline(rows[0]["train_len"] - 0.5, color="0.5", ls=":", lw=1)
    if floors and task in TASKS:
        draw_floors(ax, task, length=rows[0]["eval_len"], bin_width=bin_width)
    metric = rows[0]["metric"]
    ax.set_xlabel(f"query position (bins of {bin_width}; trained on 0..{rows[0]['train_len'] - 1})")
    ax.set_ylabel(METRIC_LABELS.get(metric, (metric,))[0])
    ax.set_title(f"{task}, length {rows[0]['eval_len']}, configuration {rows[0]['config']}")
    legend_outside(ax)
    return ax
