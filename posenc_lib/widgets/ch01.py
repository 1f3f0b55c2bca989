"""Chapter 1: two sentences, one attention layer; shuffle, add positions, mask."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from ..display import format_difference
from ..word_order import compare_orders, split_words
from ._live import Explorer, LiveFigure


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
        ylabel="mean of the token outputs",
    )
    return image_a, image_b, bars_a, bars_b


def describe_comparison(comparison):
    """One line of numbers under chapter 1's figure."""
    if comparison.order is None:
        tokens = "B is not a shuffle of A's words, so tokens can't be matched"
    else:
        tokens = f"max |out_B - out_A shuffled| = {format_difference(comparison.token_gap)}"
    return f"{tokens};  max |vector_A - vector_B| = {format_difference(comparison.pooled_gap)}"


class OrderExplorer(Explorer):
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
        self.live.fig.colorbar(self.artists[1], ax=axes[:2], label="attention weight", shrink=0.8)
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
        full = relayout = words != self.shown_words  # new tick labels need room: lay out again
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
        self.live.render(full=full, relayout=relayout)
