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
from PIL import Image

from . import plots
from .attention import compare_orders, split_words
from .sinusoidal import frequencies


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
        Image.frombuffer(
            "RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1
        ).save(buffer, format="png", compress_level=1)
        self.image.value = buffer.getvalue()
        self.renders += 1

    def snapshot(self):
        """The figure as a static PNG for a notebook output (the last rendered frame)."""
        from IPython.display import Image as PNG

        return PNG(self.image.value)


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
