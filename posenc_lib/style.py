"""The course's house style for figures, and how a notebook shows them.

One house style for every figure (`use_house_style`): the Okabe-Ito colour-blind-safe palette,
and every series also differs by marker and line style (`series_style`; one look per scheme in
chapters 6-8, `scheme_style`), so no figure depends on colour alone; heatmaps antialiased when they
have more rows than pixels, and a colorbar that says what it means; legends off the data
(`legend_outside`). `style_problems` checks a finished figure against those rules, and with
``POSENC_CHECK_FIGURES=1`` (set by `make test`) every ``plt.show()`` checks its figure.

In a notebook, figures are drawn at twice their shown size (`figure_png`): a PNG with two image
pixels per CSS pixel, whose output metadata tells JupyterLab and the website (myst-nb writes it as
the ``<img>``'s width and height) to show it at its 1x size, so it stays sharp on a phone, on a
high-density screen and when zoomed.

The drawings themselves are `posenc_lib.plots`'s.
"""

import base64
import io
import os

import numpy as np

from ._checks import check_int

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
PNG_LEVEL = 6  # zlib level of a static figure's PNG (9 packs 2% smaller, 4 times slower)


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
    fig.canvas.print_figure(  # an uncompressed PNG: only read back here, so no time spent packing it
        drawn,
        format="png",
        dpi=fig.dpi * density,
        bbox_inches="tight",
        facecolor=fig.get_facecolor(),
        edgecolor=fig.get_edgecolor(),
        pil_kwargs={"compress_level": 0},
    )
    image = Image.open(drawn)
    if image.mode == "RGBA" and image.getchannel("A").getextrema() == (255, 255):
        # An opaque figure: 256 colours (median cut keeps the white and the colormaps' steps)
        # make the PNG about 2.4 times smaller, which keeps a 2x figure near its 1x bytes.
        image = image.convert("RGB").quantize(colors=256)
    buffer = io.BytesIO()
    # zlib's default level: the same pixels, 2% more bytes than level 9 in a quarter of the time
    image.save(buffer, format="png", compress_level=PNG_LEVEL)  # no text chunks: no version
    width, height = image.size
    return buffer.getvalue(), (width // density, height // density)


def _png_size(png):
    """Return the ``(width, height)`` in pixels a PNG's header states."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def notebook_png(fig):
    """IPython's PNG formatter for figures: `figure_png`, with the size to show it at.

    `use_house_style` installs it under IPython.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure a cell shows.

    Returns
    -------
    tuple or None
        The base64 PNG and ``{"width": ..., "height": ...}`` in CSS pixels; None for an empty
        figure (as IPython shows nothing for one).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> notebook_png(Figure()) is None
    True
    """
    if not fig.axes and not fig.lines:  # as IPython: an empty figure shows nothing
        return None
    png, (width, height) = figure_png(fig)
    return base64.b64encode(png).decode("ascii"), {"width": width, "height": height}


def _show_figures_sharp():
    """Under IPython, show every matplotlib figure through `notebook_png` (2x, shown at 1x)."""
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

    shell.display_formatter.formatters["image/png"].for_type(Figure, notebook_png)


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
