"""Figures of the course.

Each function draws into a given Axes and returns its artists, so notebooks compose them and widgets
update them in place. No math lives here.

One house style for every figure (`use_house_style`): the Okabe-Ito colour-blind-safe palette,
and every series also differs by marker and line style, so no figure depends on colour alone;
heatmaps antialiased when they have more rows than pixels, and a colorbar that says what it
means; legends off the data. `style_problems` checks a finished figure against those rules, and
with ``POSENC_CHECK_FIGURES=1`` (set by `make test`) every ``plt.show()`` checks its figure.

In a notebook, figures are drawn at twice their shown size (`figure_png`): a PNG with two image
pixels per CSS pixel, whose output metadata tells JupyterLab and the website (myst-nb writes it as
the ``<img>``'s width and height) to show it at its 1x size, so it stays sharp on a phone, on a
high-density screen and when zoomed.
"""

import base64
import io
import os
from functools import lru_cache

import numpy as np

from ._checks import check_choice, check_int
from .sweep import binned_curves, names, one_config, select, summarize
from .tasks import TASKS, chance_level, chance_levels, position_free_levels, position_free_scores

# Okabe and Ito's palette: distinguishable with every common colour-vision deficiency.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)))


def series_style(k, n_points=None):
    """Colour, marker and line style of series ``k``: two series never differ by colour alone.

    Parameters
    ----------
    k : int
        The series' index in its plot.
    n_points : int, optional
        How many points the series has; a long series gets a marker on about 10 of them.

    Returns
    -------
    dict
        Keyword arguments for ``Axes.plot``.

    Examples
    --------
    >>> series_style(1)["marker"], series_style(1)["linestyle"]
    ('s', '--')
    >>> series_style(0, n_points=1000)["markevery"]
    100
    """
    style = {
        "color": PALETTE[k % len(PALETTE)],
        "marker": MARKERS[k % len(MARKERS)],
        "linestyle": LINESTYLES[k % len(LINESTYLES)],
        "markersize": 4,
    }
    if n_points is not None and n_points > 20:
        style["markevery"] = max(1, n_points // 10)
    return style


def use_house_style():
    """Set matplotlib's defaults to the course's style (every notebook's setup cell calls this).

    Series drawn with plain ``ax.plot`` cycle through `PALETTE`, `MARKERS` and `LINESTYLES`
    together. With the environment variable ``POSENC_CHECK_FIGURES=1``, ``plt.show()`` first
    checks the figure with `style_problems` and raises ValueError listing what is wrong. Under
    IPython (a notebook), figures are shown as `figure_png` draws them: twice as many pixels as
    the figure's ``figure.dpi`` of 72 gives, shown at the 1x size.

    Returns
    -------
    None
        matplotlib's ``rcParams`` are changed in place.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> use_house_style()
    >>> plt.rcParams["lines.markersize"]
    4.0
    """
    import matplotlib.pyplot as plt
    from cycler import cycler

    plt.rcParams.update(
        {
            "figure.dpi": 72,
            "figure.figsize": (9, 3.2),
            "axes.prop_cycle": cycler(color=PALETTE)
            + cycler(marker=MARKERS)
            + cycler(linestyle=LINESTYLES),
            "lines.markersize": 4,
            "image.interpolation": "antialiased",
            "legend.fontsize": "small",
            "legend.framealpha": 0.9,
        }
    )
    if os.environ.get("POSENC_CHECK_FIGURES") == "1" and not hasattr(plt.show, "checked"):
        show = plt.show

        def checked_show(*args, **kwargs):
            for number in plt.get_fignums():
                problems = style_problems(plt.figure(number))
                if problems:
                    raise ValueError("figure breaks the house style: " + "; ".join(problems))
            return show(*args, **kwargs)

        checked_show.checked = True
        plt.show = checked_show
    _show_figures_sharp()


DENSITY = 2  # image pixels per CSS pixel of a notebook's static figure


def figure_png(fig, *, density=DENSITY):
    """Draw ``fig`` as a PNG at ``density`` times its dpi, and say at what size to show it.

    The figure is cropped to its drawn content (``bbox_inches="tight"``, as Jupyter's inline
    backend does) and keeps its background; an opaque figure is saved as a palette of 256
    colours, a transparent one as drawn.
    The shown size is the PNG's size divided by ``density``, rounded down, so the image has at
    least ``density`` pixels per shown pixel.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; its ``dpi`` says how many CSS pixels an inch is shown as (72 in the house
        style).
    density : int
        Image pixels per shown pixel, 1 to 4 (2: sharp on high-density screens and zoomed in).

    Returns
    -------
    png : bytes
        The image.
    shown : tuple of int
        ``(width, height)`` at which to show it, in CSS pixels.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1), dpi=72)
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1])
    >>> png, shown = figure_png(fig)
    >>> (width, height), (shown_width, shown_height) = _png_size(png), shown
    >>> png[1:4], shown_width <= 2 * 72, width >= 2 * shown_width, height >= 2 * shown_height
    (b'PNG', True, True, True)
    """
    from matplotlib.figure import Figure
    from PIL import Image

    if not isinstance(fig, Figure):
        raise TypeError(f"figure_png: fig must be a matplotlib Figure, got {type(fig).__name__}")
    density = check_int("figure_png", "density", density, minimum=1)
    if density > 4:
        raise ValueError(f"figure_png: density must be 1 to 4, got {density}")
    drawn = io.BytesIO()
    fig.canvas.print_figure(
        drawn,
        format="png",
        dpi=fig.dpi * density,
        bbox_inches="tight",
        facecolor=fig.get_facecolor(),
        edgecolor=fig.get_edgecolor(),
    )
    image = Image.open(drawn)
    if image.mode == "RGBA" and image.getchannel("A").getextrema() == (255, 255):
        # An opaque figure: 256 colours (median cut keeps the white and the colormaps' steps)
        # make the PNG about 2.4 times smaller, which keeps a 2x figure near its 1x bytes.
        image = image.convert("RGB").quantize(colors=256)
    buffer = io.BytesIO()
    image.save(buffer, format="png", optimize=True)  # no text chunks: no matplotlib version
    width, height = image.size
    return buffer.getvalue(), (width // density, height // density)


def _png_size(png):
    """Return the ``(width, height)`` in pixels a PNG's header states."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _notebook_png(fig):
    """IPython's PNG formatter for figures: `figure_png`, with the size to show it at."""
    if not fig.axes and not fig.lines:  # as IPython: an empty figure shows nothing
        return None
    png, (width, height) = figure_png(fig)
    return base64.b64encode(png).decode("ascii"), {"width": width, "height": height}


def _show_figures_sharp():
    """Under IPython, show every matplotlib figure through `_notebook_png` (2x, shown at 1x)."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: figures are saved or shown by a GUI backend
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    import matplotlib
    from matplotlib.figure import Figure

    if "inline" not in matplotlib.get_backend():
        return  # another backend (a GUI, ipympl) shows figures its own way
    # Load Jupyter's inline backend now (matplotlib loads it with the first figure): loading it
    # sets its own PNG formatter, which would replace this one.
    import matplotlib_inline.backend_inline  # noqa: F401

    shell.display_formatter.formatters["image/png"].for_type(Figure, _notebook_png)


def legend_outside(ax, **kwargs):
    """Put a legend to the right of the axes, off the data, and return it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes whose labelled artists the legend lists.
    **kwargs
        Passed on to ``Axes.legend``.

    Returns
    -------
    matplotlib.legend.Legend

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> _ = ax.plot([0, 1], label="a")
    >>> legend_outside(ax).get_texts()[0].get_text()
    'a'
    """
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)


def style_problems(fig):
    """Return what in a finished figure breaks the house style (an empty list when nothing does).

    Checked: two labelled series in one axes that differ by colour alone (same marker and same
    line style); an image (heatmap) with no colorbar for it or for an image of the same colormap
    and limits; a legend whose box covers a plotted data point.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    list of str

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.add_subplot()
    >>> _ = ax.plot([0, 1], [0, 1], "-", label="a"), ax.plot([0, 1], [1, 0], "-", label="b")
    >>> style_problems(fig)
    ["axes 0: series 'a' and 'b' differ by colour alone"]
    """
    fig.draw_without_rendering()  # lay the figure out (limits, legend) without drawing pixels
    problems = []
    images = [im for ax in fig.axes for im in ax.images]
    with_bar = [im for im in images if getattr(im, "colorbar", None) is not None]
    for index, ax in enumerate(fig.axes):
        lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        for n, first in enumerate(lines):
            for second in lines[n + 1 :]:
                same_marker = first.get_marker() == second.get_marker()
                same_style = first.get_linestyle() == second.get_linestyle()
                if same_marker and same_style:
                    problems.append(
                        f"axes {index}: series {first.get_label()!r} and {second.get_label()!r} "
                        f"differ by colour alone"
                    )
        for image in ax.images:
            shared = any(
                other.get_cmap().name == image.get_cmap().name
                and other.get_clim() == image.get_clim()
                for other in with_bar
            )
            if not shared:
                problems.append(f"axes {index}: a heatmap has no colorbar")
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box = legend.get_window_extent()
            for line in ax.get_lines():
                if not line.get_visible() or line.get_label().startswith("_"):
                    continue
                x, y = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float)).T
                inside = (x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)
                if np.any(inside):
                    problems.append(f"axes {index}: the legend covers data of {line.get_label()!r}")
    return problems


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
    matrix = np.asarray(matrix)
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

    n = len(names)
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


# One look per scheme in every figure of chapters 6 to 8: its own colour (Okabe and Ito), marker and
# line style, so no two schemes differ by one of them alone. T5 is black with a filled plus and dense
# dashes (far from sinusoidal's orange, and unlike the grey dash-dotted floor lines with crosses);
# the learned table, often a single point, is drawn hollow.
SCHEME_STYLES = {
    "none": {"color": "#56B4E9", "marker": "o", "linestyle": ":"},
    "sinusoidal": {"color": "#E69F00", "marker": "s", "linestyle": "-"},
    "learned": {"color": "#009E73", "marker": "^", "linestyle": "--", "markerfacecolor": "none"},
    "rope": {"color": "#CC79A7", "marker": "D", "linestyle": "--"},
    "alibi": {"color": "#0072B2", "marker": "v", "linestyle": "-"},
    "t5": {"color": "#000000", "marker": "P", "linestyle": (0, (5, 1))},
}


def scheme_style(scheme, n=0, *, n_points=None):
    """One scheme's colour, marker and line style, the same in every figure of the course.

    Parameters
    ----------
    scheme : str
        A scheme of `SCHEME_STYLES` (others are styled as series ``n``, `series_style`).
    n : int
        The series index to use for a scheme the table does not know.
    n_points : int, optional
        How many points the series has; a long series gets a marker on about 12 of them.

    Returns
    -------
    dict
        Keyword arguments for ``Axes.plot`` (markers 5 points wide).

    Examples
    --------
    >>> style = scheme_style("t5")
    >>> style["color"], style["marker"], style["linestyle"]
    ('#000000', 'P', (0, (5, 1)))
    >>> scheme_style("alibi", n_points=1024)["markevery"]
    85
    >>> len({(s["color"], s["marker"]) for s in map(scheme_style, SCHEME_STYLES)})
    6
    >>> scheme_style("xpos", 1) == series_style(1)
    True
    """
    if scheme not in SCHEME_STYLES:
        return series_style(n)
    style = {"markersize": 5, **SCHEME_STYLES[scheme]}
    if n_points is not None and n_points > 12:
        style["markevery"] = max(1, n_points // 12)
    return style


# What each metric of the sweeps' records is called on an axis, and what a position holds.
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
    task = TASKS[check_choice("draw_floors", "task_name", task_name, tuple(TASKS))]()
    if lengths is not None:  # both floors on the sequences the study scores every model on
        key = (task_name, tuple(int(x) for x in lengths), int(train_len))
        chance = _chance_levels(*key)
        artists = ax.plot(
            list(chance), list(chance.values()), label="chance", zorder=1, **FLOOR_STYLES["chance"]
        )
        levels = _floor_levels(*key)
        xs, ys = list(levels), list(levels.values())
    else:
        artists = [
            ax.axhline(chance_level(task), label="chance", zorder=1, **FLOOR_STYLES["chance"])
        ]
        totals, counts = _floor_curve(task_name, int(length))
        n_bins = len(totals) // bin_width
        t = totals[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
        c = counts[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
        xs = np.arange(n_bins) * bin_width + (bin_width - 1) / 2
        ys = np.where(c > 0, t / np.maximum(c, 1), np.nan)
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
        Further selection of the records (e.g. ``mode="sliding"``), by `~posenc_lib.sweep.select`.

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

    check_choice("plot_results", "region", region, ("all", "unseen"))
    config = one_config(records, config, "plot_results")
    rows = select(records, config=config, region=None, **criteria)
    by = ("task", "scheme", "eval_len")
    everywhere = summarize(rows, by, region="all")
    region_summary = summarize(rows, by, region=region)
    train_len = rows[0]["train_len"]
    tasks, schemes = names(rows, "task"), names(rows, "scheme")
    lengths = sorted({r["eval_len"] for r in rows})
    metric = {r["task"]: r["metric"] for r in rows}
    if axes is None:
        _, axes = plt.subplots(1, len(tasks), figsize=(4 * len(tasks), 3.4), layout="constrained")
    axes = np.atleast_1d(axes)
    for ax, task in zip(axes, tasks, strict=True):
        for n, scheme in enumerate(schemes):
            points = [
                (x, (everywhere if x == train_len else region_summary).get((task, scheme, x)))
                for x in lengths
            ]
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


def plot_position_curves(curves, task, *, config=None, bin_width=8, ax=None, floors=True):
    """Plot the per-position curve of every scheme for one task and configuration.

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

    bin_width = check_int("plot_position_curves", "bin_width", bin_width, minimum=1)
    rows = select(curves, task=task, region=None)
    config = one_config(rows, config, "plot_position_curves")
    rows = select(rows, config=config, region=None)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.4), layout="constrained")
    for n, scheme in enumerate(names(rows, "scheme")):
        x, mean, low, high = binned_curves(select(rows, scheme=scheme), bin_width=bin_width)
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
