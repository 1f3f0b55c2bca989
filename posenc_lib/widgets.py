"""Interactive explorers built from core ipywidgets (runs in JupyterLab, Binder and Colab).

Each explorer builds its matplotlib figure once, keeps handles to the artists, and on a slider
change updates their data and re-renders that one figure to PNG bytes shown in a
``widgets.Image``. The observers are plain functions, so tests can set ``slider.value`` without a
browser and benchmarks can time a step.
"""

import io

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PIL import Image

from . import plots
from .attention import compare_orders, split_words
from .sinusoidal import frequencies, sinusoidal_positions


class LiveFigure:
    """A matplotlib Figure rendered into an ``ipywidgets.Image``, fast enough for sliders.

    The first render lays the figure out (constrained layout) and then freezes the layout.
    Artists passed to `animate` are drawn apart from the rest: a render draws the static part
    once into a cached background and then only restores it and redraws the animated artists
    (blitting). Call ``render(full=True)`` after changing anything static (ticks, limits,
    titles).

    Parameters
    ----------
    figsize : (float, float)
        Inches.
    dpi : int
        Modest by default: fewer pixels to draw and encode on every step.
    """

    def __init__(self, figsize=(8, 3.2), dpi=80):
        self.fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
        self.canvas = FigureCanvasAgg(self.fig)
        self.image = widgets.Image(format="png")
        self.animated = []
        self.background = None
        self.renders = 0

    def animate(self, *artists):
        """Mark artists that change on every step; they are redrawn over a cached background."""
        for artist in artists:
            artist.set_animated(True)
            self.animated.append(artist)

    def render(self, full=False):
        """Publish the figure as PNG bytes, redrawing only the animated artists unless ``full``."""
        if full or self.background is None:
            self.canvas.draw()
            self.fig.set_layout_engine("none")  # keep the layout found on the first draw
            self.background = self.canvas.copy_from_bbox(self.fig.bbox)
        else:
            self.canvas.restore_region(self.background)
        for artist in self.animated:
            self.fig.draw_artist(artist)
        width, height = self.canvas.get_width_height()
        buffer = io.BytesIO()
        rgba = Image.frombuffer(
            "RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1
        )
        rgba.convert("RGB").save(buffer, format="png", compress_level=1)
        self.image.value = buffer.getvalue()
        self.renders += 1

    def snapshot(self):
        """The last rendered frame as a static image for a notebook output, re-encoded with
        full compression (slower than a slider step can afford, smaller to commit)."""
        from IPython.display import Image as PNG

        buffer = io.BytesIO()
        frame = Image.open(io.BytesIO(bytes(self.image.value))).convert("RGB")
        frame.quantize(colors=256).save(buffer, format="png", optimize=True)
        return PNG(buffer.getvalue())


def _slider(description, value, low, high, step=1, **kw):
    cls = widgets.IntSlider if isinstance(step, int) else widgets.FloatSlider
    return cls(
        value=value,
        min=low,
        max=high,
        step=step,
        description=description,
        continuous_update=True,
        style={"description_width": "initial"},
        **kw,
    )


class HelloSlider:
    """Chapter 0's widget check: one slider turns one clock hand."""

    def __init__(self):
        self.position = _slider("position", 0, 0, 20)
        self.label = widgets.Label()
        self.position.observe(self.update, names="value")
        self.update()
        self.box = widgets.VBox([self.position, self.label])

    def update(self, change=None):
        angle = self.position.value * frequencies(2)[0]
        self.label.value = (
            f"position {self.position.value}: the fastest hand has turned {angle:.2f} rad "
            f"= {np.degrees(angle) % 360:.0f} degrees round its clock"
        )

    def _ipython_display_(self):
        from IPython.display import display

        display(self.box)


def draw_order_comparison(axes, comparison, title_a="sentence A", title_b="sentence B"):
    """Chapter 1's three panels: both attention patterns and both sentence vectors.

    Returns the artists a widget updates: (image_a, image_b, bars_a, bars_b).
    """
    ax_a, ax_b, ax_v = axes
    image_a = plots.heatmap(
        ax_a, comparison.weights_a, labels=comparison.words_a, title=title_a, vmin=0, vmax=1
    )
    image_b = plots.heatmap(
        ax_b,
        comparison.weights_b,
        labels=comparison.words_b,
        title=title_b,
        vmin=0,
        vmax=1,
        ylabel="",
    )
    bars_a, bars_b = plots.grouped_bars(
        ax_v,
        [comparison.pooled_a, comparison.pooled_b],
        ["A", "B"],
        title="sentence vectors (mean over tokens)",
    )
    return image_a, image_b, bars_a, bars_b


def describe_comparison(comparison):
    """One line of numbers under chapter 1's figure."""
    if comparison.order is None:
        tokens = "B is not a shuffle of A's words, so tokens can't be matched"
    else:
        tokens = f"max |out_B - out_A shuffled| = {comparison.token_gap:.1e}"
    return f"{tokens};  max |vector_A - vector_B| = {comparison.pooled_gap:.1e}"


class OrderExplorer:
    """Type two sentences (or shuffle the first), toggle positions and the causal mask, and watch
    both attention patterns and the two sentence vectors."""

    def __init__(
        self, w_q, w_k, w_v, sentence="the dog bit the man .", other="the man bit the dog .", seed=0
    ):
        self.layer = (w_q, w_k, w_v)
        self.rng = np.random.default_rng(seed)
        self.text_a = widgets.Text(value=sentence, description="A", continuous_update=False)
        self.text_b = widgets.Text(value=other, description="B", continuous_update=False)
        self.shuffle = widgets.Button(description="shuffle A into B", icon="random")
        self.positions = widgets.Checkbox(value=False, description="add sinusoidal positions")
        self.causal = widgets.Checkbox(value=False, description="causal mask")
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(10, 3.4))
        axes = self.live.fig.subplots(1, 3, width_ratios=[1, 1, 1.4])
        self.artists = draw_order_comparison(axes, self.compare())
        self.axes = axes
        image_a, image_b, bars_a, bars_b = self.artists
        self.live.animate(image_a, image_b, *bars_a, *bars_b)
        self.shown_words = None
        for control in (self.text_a, self.text_b, self.positions, self.causal):
            control.observe(self.update, names="value")
        self.shuffle.on_click(self.shuffle_a)
        self.update()
        self.box = widgets.VBox(
            [
                widgets.HBox([self.text_a, self.text_b, self.shuffle]),
                widgets.HBox([self.positions, self.causal]),
                self.live.image,
                self.status,
            ]
        )

    def compare(self):
        return compare_orders(
            self.text_a.value or ".",
            self.text_b.value or ".",
            *self.layer,
            positions=self.positions.value,
            causal=self.causal.value,
        )

    def shuffle_a(self, button=None):
        words = split_words(self.text_a.value)
        self.text_b.value = " ".join(self.rng.permutation(words))

    def update(self, change=None):
        comparison = self.compare()
        image_a, image_b, bars_a, bars_b = self.artists
        words = (comparison.words_a, comparison.words_b)
        full = words != self.shown_words
        self.shown_words = words
        for ax, image, words, weights in (
            (self.axes[0], image_a, comparison.words_a, comparison.weights_a),
            (self.axes[1], image_b, comparison.words_b, comparison.weights_b),
        ):
            image.set_data(weights)
            if full:
                image.set_extent((-0.5, len(words) - 0.5, len(words) - 0.5, -0.5))
                plots.set_token_ticks(ax, words)
        for bars, values in ((bars_a, comparison.pooled_a), (bars_b, comparison.pooled_b)):
            for bar, value in zip(bars, values, strict=True):
                bar.set_height(value)
        reach = max(np.abs(comparison.pooled_a).max(), np.abs(comparison.pooled_b).max())
        low, high = self.axes[2].get_ylim()
        if full or reach > high or reach < high / 4:  # rescale only when bars leave the frame
            self.axes[2].set_ylim(-1.3 * reach - 1e-3, 1.3 * reach + 1e-3)
            full = True
        self.status.value = describe_comparison(comparison)
        self.live.render(full=full)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.box)


class SinusoidalExplorer:
    """Chapter 2's explorer: sliders for position, pair, d_model and base.

    Top: the selected pair's clock (red), then eight clocks for evenly spaced pairs from the
    fastest to the slowest, one hand per (sin, cos) pair. Bottom left: the selected pair's two waves with a marker at
    the position. Bottom right: the whole table PE with a cursor on the position's row and the
    pair's columns. Position and pair steps only move artists (blitting); d_model and base
    changes redraw the figure.
    """

    n_clocks = 8

    def __init__(self, seq_len=100, d_model=16, base=10000.0, position=3, pair=0):
        self.seq_len = seq_len
        self.position = _slider("position p", position, 0, seq_len - 1)
        self.pair = _slider("pair i", pair, 0, d_model // 2 - 1)
        self.d_model = widgets.Dropdown(
            options=[16, 32, 64, 128], value=d_model, description="d_model"
        )
        self.base = widgets.Dropdown(
            options=[100.0, 1000.0, 10000.0, 100000.0], value=base, description="base"
        )
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(9, 5.2))
        grid = self.live.fig.add_gridspec(2, 2, height_ratios=[1, 1.6])
        self.ax_clock = self.live.fig.add_subplot(grid[0, :])
        self.ax_wave = self.live.fig.add_subplot(grid[1, 0])
        self.ax_map = self.live.fig.add_subplot(grid[1, 1])
        self._build()
        for control in (self.position, self.pair):
            control.observe(self.step, names="value")
        for control in (self.d_model, self.base):
            control.observe(self.rebuild, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.position, self.pair]),
                widgets.HBox([self.d_model, self.base]),
                self.live.image,
                self.status,
            ]
        )

    # -- state derived from the controls ----------------------------------------------------
    def shown_pairs(self):
        n_pairs = self.d_model.value // 2
        return np.unique(np.round(np.linspace(0, n_pairs - 1, self.n_clocks)).astype(int))

    def _build(self):
        """Draw everything for the current d_model and base (slow path)."""
        for ax in (self.ax_clock, self.ax_wave, self.ax_map):
            ax.clear()
        self.live.animated.clear()
        d, base = self.d_model.value, self.base.value
        self.omega = frequencies(d, base)
        self.table = sinusoidal_positions(self.seq_len, d, base=base)
        labels = ["selected\npair i"] + [
            f"i={i}\nλ={2 * np.pi / self.omega[i]:,.0f}" for i in self.shown_pairs()
        ]
        self.hands, self.dots = plots.clock_faces(
            self.ax_clock, self._angles(), labels=labels, highlight=0
        )
        self.ax_clock.set_title("one clock per pair i: the hand points at (sin pω_i, cos pω_i)")
        positions = np.arange(self.seq_len)
        self.waves = plots.pair_waves(self.ax_wave, positions, self.table, self.pair.value)
        self.heat = plots.heatmap(
            self.ax_map,
            self.table,
            cmap="RdBu",
            vmin=-1,
            vmax=1,
            xlabel="dimension index",
            ylabel="position p",
        )
        self.ax_map.set_aspect("auto")
        self.row_cursor = self.ax_map.axhline(0, color="k", lw=1)
        self.col_cursor = self.ax_map.add_patch(
            Rectangle((-0.5, -0.5), 2, self.seq_len, fill=False, edgecolor="gold", lw=2)
        )
        self.ax_wave.set_title("the selected pair's two columns")
        self.live.animate(*self.hands, *self.dots, *self.waves, self.row_cursor, self.col_cursor)
        self.pair.max = d // 2 - 1
        self._move()
        self.live.render(full=True)

    def _angles(self):
        pairs = np.concatenate([[self.pair.value], self.shown_pairs()])
        return self.position.value * self.omega[pairs]

    def _move(self):
        """Update the artists for the current position and pair (fast path)."""
        p, i = self.position.value, self.pair.value
        plots.set_clock_hands(self.hands, self.dots, self._angles())
        sin_line, cos_line, marker = self.waves
        sin_line.set_ydata(self.table[:, 2 * i])
        cos_line.set_ydata(self.table[:, 2 * i + 1])
        marker.set_xdata([p, p])
        self.row_cursor.set_ydata([p, p])
        self.col_cursor.set_x(2 * i - 0.5)
        angle = p * self.omega[i]
        self.status.value = (
            f"p={p}, pair i={i} (columns {2 * i}, {2 * i + 1}; wavelength "
            f"{2 * np.pi / self.omega[i]:,.1f} positions): angle p·ω_i = {angle:.3f} rad, "
            f"sin = {np.sin(angle):+.4f}, cos = {np.cos(angle):+.4f}"
        )

    # -- observers ---------------------------------------------------------------------------
    def step(self, change=None):
        self._move()
        self.live.render()

    def rebuild(self, change=None):
        self.pair.value = min(self.pair.value, self.d_model.value // 2 - 1)
        self._build()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.box)
