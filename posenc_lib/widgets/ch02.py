"""Chapter 2: sinusoidal positions as clock hands, and similarity against shift."""

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from .. import plots
from .._checks import check_choice, check_int
from ..sinusoidal import (
    distance_by_shift,
    frequencies,
    similarity_by_distance,
    sinusoidal_positions,
    wavelengths,
)
from ._front import LiveView, connect
from ._live import LiveFigure, StatusExplorer, slider


class SinusoidalExplorer(StatusExplorer):
    """Chapter 2's explorer: sliders for position, pair, d_model and base.

    Top: the selected pair's clock (red), then eight clocks for evenly spaced pairs from the
    fastest to the slowest, one hand per (sin, cos) pair. Bottom left: the selected pair's two waves
    around the current position (marked at offset 0). Bottom right: the same rows of the table PE,
    positions p - 40 .. p + 40 by every dimension (rows before position 0 or past the table's end
    in grey), with a line on row p and a frame round the pair's columns: each row gets a few pixel
    rows, so even the fastest pair is drawn wave by wave. Position and pair steps only move
    artists (blitting); d_model and base changes redraw the figure.

    Parameters
    ----------
    seq_len : int, optional
        Positions in the table (default: enough for the slowest pair shown to turn visibly).
    d_model : {16, 32, 64, 128}
        The encoding's width (a dropdown offers these).
    base : {100.0, 1000.0, 10000.0, 100000.0}
        The encoding's base (a dropdown offers these).
    position : int
        The position shown first.
    pair : int
        The pair shown first, 0 .. d_model/2 - 1.

    Examples
    --------
    >>> explorer = SinusoidalExplorer(position=3, pair=1)
    >>> explorer.status.value[:34]
    'p=3, pair i=1 (columns 2, 3; wavel'
    """

    n_clocks = 8
    window = 40  # the waves panel and the table show positions p - 40 .. p + 40
    fine = 8  # the waves are drawn at eighths of a position: the sinusoid between the entries
    outside = "0.8"  # the grey of rows outside the table (not a value: no colour of the colorbar)

    d_models = (16, 32, 64, 128)
    bases = (100.0, 1000.0, 10000.0, 100000.0)

    def __init__(self, seq_len=None, d_model=16, *, base=10000.0, position=3, pair=0):
        func = "SinusoidalExplorer"
        d_model = check_choice(func, "d_model", d_model, self.d_models)
        base = check_choice(func, "base", base, self.bases)
        if seq_len is not None:
            seq_len = check_int(func, "seq_len", seq_len, minimum=2)
        position = check_int(func, "position", position, minimum=0)
        pair = check_int(func, "pair", pair, minimum=0)
        if pair >= d_model // 2:
            raise ValueError(f"{func}: pair must be < d_model / 2 = {d_model // 2}, got {pair}")
        self.fixed_len = seq_len  # None: the range grows with the slowest wavelength shown
        self.seq_len = seq_len or self.positions_needed(d_model, base)
        if position >= self.seq_len:
            raise ValueError(f"{func}: position must be < seq_len = {self.seq_len}, got {position}")
        self.position = slider("position p", position, 0, self.seq_len - 1)
        self.pair = slider("pair i", pair, 0, d_model // 2 - 1)
        self.d_model = widgets.Dropdown(
            options=list(self.d_models), value=d_model, description="d_model"
        )
        self.base = widgets.Dropdown(options=list(self.bases), value=base, description="base")
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(9, 5.2), density=1, widget=False)
        grid = self.live.fig.add_gridspec(2, 2, height_ratios=[1, 1.6])
        self.ax_clock = self.live.fig.add_subplot(grid[0, :])
        self.ax_wave = self.live.fig.add_subplot(grid[1, 0])
        self.ax_map = self.live.fig.add_subplot(grid[1, 1])
        self._build()
        for control in (self.position, self.pair):
            control.observe(self.step, names="value")
        for control in (self.d_model, self.base):
            control.observe(self.rebuild, names="value")
        # The view drawn in the browser (explorers.js): a wide position slider with a coarse step
        # (PageUp/PageDown, the -/+ buttons) and a field for the exact position, the pair, d_model
        # and base, the figure and the status line. d_model and base go first: they set the
        # position's range.
        self.view = LiveView(
            kind="sinusoidal",
            spec={
                "seq_len": self.fixed_len,
                "window": self.window,
                "fine": self.fine,
                "d_models": list(self.d_models),
                "bases": list(self.bases),
            },
            description="Sinusoidal positions as clock hands: position, pair, d_model and base",
        )
        connect(
            self.view,
            {
                "d_model": self.d_model,
                "base": self.base,
                "pair": self.pair,
                "position": self.position,
            },
        )
        self.box = self.view

    # -- state derived from the controls ----------------------------------------------------
    @staticmethod
    def positions_needed(d_model, base, cap=10_000):
        """Enough positions for the slowest pair to turn visibly.

        A quarter of its wavelength, at least 100 and at most ``cap``.
        """
        slowest = wavelengths(d_model, base=base)[d_model // 2 - 1]
        return int(min(cap, max(100, np.ceil(slowest / 4))))

    def shown_pairs(self):
        """Pick the pairs the clocks show: evenly spaced from fastest to slowest."""
        n_pairs = self.d_model.value // 2
        return np.unique(np.round(np.linspace(0, n_pairs - 1, self.n_clocks)).astype(int))

    def _build(self):
        """Draw everything for the current d_model and base (slow path)."""
        if getattr(self, "heat", None) is not None and self.heat.colorbar is not None:
            self.heat.colorbar.remove()  # drawn again below, for the new table
        for ax in (self.ax_clock, self.ax_wave, self.ax_map):
            ax.clear()
        self.live.animated.clear()
        d, base = self.d_model.value, self.base.value
        self.omega = frequencies(d, base=base)
        self.wavelength = wavelengths(d, base=base)
        if self.fixed_len is None:
            self.seq_len = self.positions_needed(d, base)
            self.position.max = self.seq_len - 1
        self.table = sinusoidal_positions(self.seq_len, d, base=base)
        labels = [""] + [f"i={i}\nλ={self.wavelength[i]:,.0f}" for i in self.shown_pairs()]
        self.hands, self.dots = plots.clock_faces(
            self.ax_clock, self._angles(), labels=labels, highlight=0
        )
        self.ax_clock.set_title("one clock per pair i: the hand points at (sin pω_i, cos pω_i)")
        self.selected_label = self.ax_clock.text(
            0, -1.35, "", ha="center", va="top", fontsize="small", color=plots.PALETTE[5]
        )
        # The waves around the current position: offsets -window..window from p, so a slider
        # step moves data, not the axes (a step stays a fast blit at any sequence length). The
        # lines are the sinusoids themselves, drawn at eighths of a position, with a marker on
        # every 8th whole position (the table's own entries): joined whole positions alone would
        # cut the peaks of a fast pair short.
        self.offsets = np.arange(-self.window, self.window + 1)
        self.wave_offsets = (
            np.arange(-self.window * self.fine, self.window * self.fine + 1) / self.fine
        )
        self.waves = plots.pair_waves(
            self.ax_wave,
            self.wave_offsets,
            self._wave(self.position.value, self.pair.value),
            0,
            marker=0,
        )
        for line in self.waves[:2]:
            line.set_markevery(8 * self.fine)
        self.ax_wave.set_xlabel("offset from the current position p")
        self.ax_wave.set_xlim(-self.window, self.window)
        # The table around p: the rows of the waves panel, every column. A row per offset, so
        # the axes stay put and a step only changes the image's data (blitting).
        self.heat = plots.heatmap(
            self.ax_map,
            self._around(self.position.value),
            cmap=matplotlib.colormaps["RdBu"].with_extremes(bad=self.outside),
            vmin=-1,
            vmax=1,
            xlabel="dimension index",
            ylabel="offset from p (row p at 0)",
            colorbar="value",
        )
        self.heat.set_interpolation("nearest")  # a few pixel rows per table row: drawn sharp
        self.heat.set_extent((-0.5, d - 0.5, self.window + 0.5, -self.window - 0.5))
        self.ax_map.set(xlim=(-0.5, d - 0.5), ylim=(self.window + 0.5, -self.window - 0.5))
        self.ax_map.set_aspect("auto")
        self.ax_map.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole dimensions only
        self.ax_map.set_title("the table's rows p - 40 to p + 40")
        self.row_cursor = self.ax_map.axhline(0, color="k", lw=1.5)
        self.col_cursor = self.ax_map.add_patch(
            Rectangle(
                (-0.5, -self.window - 0.5), 2, len(self.offsets), fill=False, edgecolor="gold", lw=2
            )
        )
        self.ax_wave.set_title("the selected pair's two columns, around p")
        self.live.animate(
            *self.hands,
            *self.dots,
            *self.waves,
            self.heat,
            self.row_cursor,
            self.col_cursor,
            self.selected_label,
        )
        self.pair.max = d // 2 - 1
        self._move()
        self.live.render(full=True)

    def positions_per_pixel_row(self):
        """How many positions one pixel row of the drawn table covers, at the figure's own size.

        A pair whose wavelength spans only a few pixel rows cannot be drawn faithfully: its
        colours would average to grey or alias into stripes that are not in the data (moire).
        The table shows the window's 81 rows, so each position gets more than one pixel row.

        Returns
        -------
        float
            The number of rows drawn (2 * window + 1) divided by the table's height in pixels.

        Examples
        --------
        >>> explorer = SinusoidalExplorer(d_model=16)
        >>> 0.3 < float(explorer.positions_per_pixel_row()) < 0.45   # 81 rows, about 220 pixels
        True
        """
        self.live.fig.canvas.draw()  # the constrained layout sizes the axes when drawn
        return len(self.offsets) / self.ax_map.get_window_extent().height

    def _wave(self, p, i):
        """Pair i's sine and cosine at p + `wave_offsets`, as two columns; NaN outside the table."""
        where = p + self.wave_offsets
        angles = np.where((where >= 0) & (where <= self.seq_len - 1), where * self.omega[i], np.nan)
        return np.stack([np.sin(angles), np.cos(angles)], axis=1)

    def _around(self, p):
        """Rows p - window .. p + window of the table; NaN outside 0 .. seq_len - 1."""
        rows = p + self.offsets
        inside = (rows >= 0) & (rows < self.seq_len)
        around = np.full((len(rows), self.table.shape[1]), np.nan)
        around[inside] = self.table[rows[inside]]
        return around

    def _angles(self):
        pairs = np.concatenate([[self.pair.value], self.shown_pairs()])
        return self.position.value * self.omega[pairs]

    def _move(self):
        """Update the artists for the current position and pair (fast path)."""
        p, i = self.position.value, self.pair.value
        plots.set_clock_hands(self.hands, self.dots, self._angles())
        sin_line, cos_line, _ = self.waves
        wave = self._wave(p, i)
        sin_line.set_ydata(wave[:, 0])
        cos_line.set_ydata(wave[:, 1])
        self.heat.set_data(self._around(p))
        self.col_cursor.set_x(2 * i - 0.5)
        self.selected_label.set_text(f"selected\ni={i}\nλ={self.wavelength[i]:,.0f}")
        angle = p * self.omega[i]
        self.status.value = (
            f"p={p}, pair i={i} (columns {2 * i}, {2 * i + 1}; wavelength "
            f"{self.wavelength[i]:,.1f} positions): angle p·ω_i = {angle:.3f} rad, "
            f"sin = {np.sin(angle):+.4f}, cos = {np.cos(angle):+.4f}"
        )

    # -- observers ---------------------------------------------------------------------------
    def step(self, change=None):
        """Move the step's artists to the controls' values (the fast observer)."""
        self._move()
        self.live.render()

    def rebuild(self, change=None):
        """Redraw everything for a new d_model or base (the dropdowns' observer)."""
        self.pair.value = min(self.pair.value, self.d_model.value // 2 - 1)
        self._build()


class SimilarityExplorer(StatusExplorer):
    """Chapter 2's second explorer: how similar two positions k apart are, for a band of pairs.

    The curve is PE[p] . PE[p + k] against the shift k (the same for every p), for all pairs or
    only the fastest or slowest quarter of them; the marker sits at the chosen k, and the
    status line gives the similarity and the distance |PE[p + k] - PE[p]| there. Moving k only
    moves the marker; changing d_model, base or band redraws the curve.

    Parameters
    ----------
    d_model : {16, 32, 64, 128, 512}
        The encoding's width (a dropdown offers these).
    base : {100.0, 1000.0, 10000.0, 100000.0}
        The encoding's base.
    max_shift : int
        The largest shift k the slider offers.
    shift : int
        The shift shown first, 0 .. max_shift.

    Examples
    --------
    >>> explorer = SimilarityExplorer(d_model=16, max_shift=50, shift=0)
    >>> explorer.status.value[:36]
    'k = 0: similarity 8.00 of at most 8;'
    """

    bands = ("all pairs", "fastest quarter", "slowest quarter")
    d_models = (16, 32, 64, 128, 512)
    bases = (100.0, 1000.0, 10000.0, 100000.0)

    def __init__(self, d_model=128, *, base=10000.0, max_shift=2000, shift=10):
        func = "SimilarityExplorer"
        d_model = check_choice(func, "d_model", d_model, self.d_models)
        base = check_choice(func, "base", base, self.bases)
        max_shift = check_int(func, "max_shift", max_shift, minimum=1)
        shift = check_int(func, "shift", shift, minimum=0)
        if shift > max_shift:
            raise ValueError(f"{func}: shift must be <= max_shift = {max_shift}, got {shift}")
        self.shifts = np.arange(0, max_shift + 1)
        self.shift = slider("shift k", shift, 0, max_shift)
        self.d_model = widgets.Dropdown(
            options=list(self.d_models), value=d_model, description="d_model"
        )
        self.base = widgets.Dropdown(options=list(self.bases), value=base, description="base")
        self.band = widgets.Dropdown(options=self.bands, value="all pairs", description="pairs")
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(8, 3.4), density=1, widget=False)
        self.ax = self.live.fig.add_subplot()
        self._build()
        self.shift.observe(self.step, names="value")
        for control in (self.d_model, self.base, self.band):
            control.observe(self._build, names="value")
        self.view = LiveView(  # drawn in the browser (explorers.js), as SinusoidalExplorer's
            kind="similarity",
            spec={
                "max_shift": int(self.shifts[-1]),
                "bands": list(self.bands),
                "d_models": list(self.d_models),
                "bases": list(self.bases),
            },
            description="Similarity of two positions against their shift k",
        )
        connect(
            self.view,
            {"d_model": self.d_model, "base": self.base, "band": self.band, "shift": self.shift},
        )
        self.box = self.view

    def pairs(self):
        """Return the pairs of the chosen band, as a slice."""
        n = self.d_model.value // 2
        quarter = max(1, n // 4)
        return {
            "all pairs": slice(0, n),
            "fastest quarter": slice(0, quarter),
            "slowest quarter": slice(n - quarter, n),
        }[self.band.value]

    def _build(self, change=None):
        self.ax.clear()
        self.live.animated.clear()
        d, base, pairs = self.d_model.value, self.base.value, self.pairs()
        self.curve = similarity_by_distance(self.shifts, d, base=base, pairs=pairs)
        self.ax.plot(self.shifts, self.curve, "-", color=plots.PALETTE[0], lw=1.2)
        self.ax.axhline(0, color="0.6", lw=0.8)
        self.ax.set(
            xlabel="shift k (positions)",
            ylabel="PE[p] · PE[p+k]",
            title=f"similarity against shift, {self.band.value} of d_model = {d}, base {base:,.0f}",
        )
        (self.marker,) = self.ax.plot([0], [0], "o", color=plots.PALETTE[5], ms=8)
        self.live.animate(self.marker)
        self._move()
        self.live.render(full=True)

    def _move(self):
        k = self.shift.value
        d, base, pairs = self.d_model.value, self.base.value, self.pairs()
        self.marker.set_data([k], [self.curve[k]])
        distance = float(distance_by_shift(k, d, base=base, pairs=pairs))
        self.status.value = (
            f"k = {k}: similarity {self.curve[k]:.2f} of at most {self.curve[0]:.0f}; "
            f"distance |PE[p+k] - PE[p]| = {distance:.3f}"
        )

    def step(self, change=None):
        """Move the marker to the slider's shift (the fast observer)."""
        self._move()
        self.live.render()
