"""Chapter 1: two sentences, one attention layer; shuffle, add positions, mask."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from .._checks import check_array, check_bool, check_int, check_weights, short
from ..display import format_difference
from ..word_order import OrderComparison, compare_orders, split_words
from ._front import LiveView, colormap_colors, connect
from ._live import LiveFigure, StatusExplorer


def draw_order_comparison(axes, comparison, title_a="sentence A", title_b="sentence B"):
    """Chapter 1's three panels: both attention patterns and both sentence vectors.

    The artists returned are those a widget updates.

    Parameters
    ----------
    axes : sequence of three matplotlib.axes.Axes
        For sentence A's weights, sentence B's weights and the two sentence vectors.
    comparison : OrderComparison
        From `~posenc_lib.word_order.compare_orders`.
    title_a, title_b : str
        The two heatmaps' titles.

    Returns
    -------
    image_a, image_b : matplotlib.image.AxesImage
        The two attention patterns.
    bars_a, bars_b : matplotlib.container.BarContainer
        The two sentence vectors.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from posenc_lib.word_order import compare_orders
    >>> c = compare_orders("a b", "b a", np.eye(4), np.eye(4), np.eye(4))
    >>> artists = draw_order_comparison(Figure().subplots(1, 3), c)
    >>> artists[0].get_array().shape, len(artists[2])
    ((2, 2), 4)
    """
    if not isinstance(comparison, OrderComparison):
        raise TypeError(
            f"draw_order_comparison: comparison must come from compare_orders, got {short(comparison)}"
        )
    flat = list(np.ravel(np.array(axes, dtype=object))) if hasattr(axes, "__len__") else []
    if len(flat) != 3 or isinstance(axes, str):
        raise ValueError(f"draw_order_comparison: axes must be three Axes, got {short(axes)}")
    for name, title in (("title_a", title_a), ("title_b", title_b)):
        if not isinstance(title, str):
            raise TypeError(f"draw_order_comparison: {name} must be a str, got {short(title)}")
    ax_a, ax_b, ax_v = flat
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
    """One line of numbers under chapter 1's figure.

    Parameters
    ----------
    comparison : OrderComparison
        From `~posenc_lib.word_order.compare_orders`.

    Returns
    -------
    str
        The token gap (when B is a shuffle of A) and the sentence-vector gap, machine-stable.

    Examples
    --------
    >>> from posenc_lib.word_order import compare_orders
    >>> describe_comparison(compare_orders("a b", "b a", np.eye(4), np.eye(4), np.eye(4)))
    'max |out_B - out_A shuffled| = < 1e-12 (rounding only);  max |vector_A - vector_B| = < 1e-12 (rounding only)'
    """
    if not isinstance(comparison, OrderComparison):
        raise TypeError(
            f"describe_comparison: comparison must come from compare_orders, got {short(comparison)}"
        )
    if comparison.order is None:
        tokens = "B is not a shuffle of A's words, so tokens can't be matched"
    else:
        tokens = f"max |out_B - out_A shuffled| = {format_difference(comparison.token_gap)}"
    return f"{tokens};  max |vector_A - vector_B| = {format_difference(comparison.pooled_gap)}"


_WIDE = {"description_width": "initial"}  # the whole label shown, not cut to 80 pixels


def frame_text(comparison, positions=False, causal=False):
    """Say in words what chapter 1's figure shows: its text alternative for a screen reader.

    Parameters
    ----------
    comparison : OrderComparison
        From `~posenc_lib.word_order.compare_orders`.
    positions, causal : bool
        Whether sinusoidal positions were added and the causal mask applied.

    Returns
    -------
    str
        The two sentences, the settings and the status line's numbers.

    Examples
    --------
    >>> from posenc_lib.word_order import compare_orders
    >>> frame_text(compare_orders("a b", "b a", np.eye(4), np.eye(4), np.eye(4)))[:77]
    'Attention weights of sentence A (a b) and sentence B (b a), without positions'
    """
    if not isinstance(comparison, OrderComparison):
        raise TypeError(
            f"frame_text: comparison must come from compare_orders, got {short(comparison)}"
        )
    check_bool("frame_text", "positions", positions)
    check_bool("frame_text", "causal", causal)
    settings = (
        f"{'with' if positions else 'without'} positions, "
        f"{'with' if causal else 'without'} the causal mask"
    )
    return (
        f"Attention weights of sentence A ({' '.join(comparison.words_a)}) and sentence B "
        f"({' '.join(comparison.words_b)}), {settings}, as two heatmaps, and the two sentence "
        f"vectors as bars. {describe_comparison(comparison)}"
    )


class OrderExplorer(StatusExplorer):
    """Compare two sentences through one attention layer.

    Type them (or shuffle the first), toggle positions and the causal mask, and watch both
    attention patterns and the two sentence vectors.

    The checkboxes, the figure and the status line are drawn in the browser (`LiveView`,
    explorers.js): for the sentences typed, the kernel runs the layer under all four settings of
    the two checkboxes and sends the weights, the sentence vectors, the status lines and the text
    alternatives, so a tick redraws in the page without waiting for it. The sentences and the
    shuffle button stay kernel widgets (new words need the kernel). ``positions``, ``causal``,
    ``status`` and the matplotlib figure (``live``) follow the view.

    Parameters
    ----------
    w_q, w_k, w_v : array_like, shape (d_model, width)
        The attention layer (as `~posenc_lib.attention.self_attention` takes it).
    sentence, other : str
        The two sentences shown first.
    seed : int
        Seeds the shuffle button.

    Examples
    --------
    >>> w = np.eye(8)
    >>> explorer = OrderExplorer(w, w, w)
    >>> explorer.status.value.startswith("max |out_B - out_A shuffled| = < 1e-12")
    True
    >>> explorer.causal.value = True   # a causal mask alone tells the orders apart
    >>> explorer.status.value.startswith("max |out_B - out_A shuffled| = < 1e-12")
    False
    """

    def __init__(
        self, w_q, w_k, w_v, sentence="the dog bit the man .", other="the man bit the dog .", seed=0
    ):
        func = "OrderExplorer"
        for name, text in (("sentence", sentence), ("other", other)):
            if not isinstance(text, str):
                raise TypeError(f"{func}: {name} must be a str, got {short(text)}")
        w_q = check_array(func, "w_q", w_q, ndim=2)
        check_weights(func, np.zeros((1, w_q.shape[0])), w_q, w_k, w_v)
        seed = check_int(func, "seed", seed, minimum=0)
        self.layer = (w_q, w_k, w_v)
        self.rng = np.random.default_rng(seed)
        self.text_a = widgets.Text(
            value=sentence, description="sentence A", continuous_update=False, style=_WIDE
        )
        self.text_b = widgets.Text(
            value=other, description="sentence B", continuous_update=False, style=_WIDE
        )
        self.shuffle = widgets.Button(description="shuffle A into B", icon="random")
        self.positions = widgets.Checkbox(value=False, description="add sinusoidal positions")
        self.causal = widgets.Checkbox(value=False, description="causal mask")
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(10, 3.4), widget=False)
        axes = self.live.fig.subplots(1, 3, width_ratios=[1, 1, 1.4])
        self.artists = draw_order_comparison(axes, self.compare())
        self.live.fig.colorbar(self.artists[1], ax=axes[:2], label="attention weight", shrink=0.8)
        self.axes = axes
        image_a, image_b, bars_a, bars_b = self.artists
        self.live.animate(image_a, image_b, *bars_a, *bars_b)
        self.shown_words = None
        # Drawn in the browser (explorers.js): the two checkboxes, the figure and the status
        # line, from the four settings' numbers that update() sends for the current sentences.
        self.view = LiveView(
            kind="order",
            spec={
                "colors": colormap_colors(self.artists[0].get_cmap()),
                "vmin": float(self.artists[0].get_clim()[0]),
                "vmax": float(self.artists[0].get_clim()[1]),
            },
            description="Two sentences through one attention layer: weights and sentence vectors",
            site=False,
        )
        self.sent = None  # the sentences whose four settings the view holds
        for control in (self.text_a, self.text_b, self.positions, self.causal):
            control.observe(self.update, names="value")
        self.shuffle.on_click(self.shuffle_a)
        self.update()
        connect(self.view, {"positions": self.positions, "causal": self.causal})
        self.box = widgets.VBox([widgets.HBox([self.text_a, self.text_b, self.shuffle]), self.view])

    def compare(self, positions=None, causal=None):
        """Run both sentences through the layer with the current settings (or those given)."""
        return compare_orders(
            self.text_a.value or ".",
            self.text_b.value or ".",
            *self.layer,
            positions=self.positions.value if positions is None else positions,
            causal=self.causal.value if causal is None else causal,
        )

    def view_data(self):
        """Return the view's numbers for the current sentences: every setting of both checkboxes.

        Keyed ``"pc"``: p and c are 1 where positions are added and the mask applied.
        """
        states = {}
        for positions in (False, True):
            for causal in (False, True):
                comparison = self.compare(positions, causal)
                states[f"{int(positions)}{int(causal)}"] = {
                    "weights_a": comparison.weights_a.tolist(),
                    "weights_b": comparison.weights_b.tolist(),
                    "pooled_a": comparison.pooled_a.tolist(),
                    "pooled_b": comparison.pooled_b.tolist(),
                    "status": describe_comparison(comparison),
                    "alt": frame_text(comparison, positions, causal),
                }
        return {
            "words_a": list(comparison.words_a),
            "words_b": list(comparison.words_b),
            "states": states,
        }

    def shuffle_a(self, button=None):
        """Put a random shuffle of sentence A into B (the button's handler)."""
        words = split_words(self.text_a.value)
        self.text_b.value = " ".join(self.rng.permutation(words))

    def update(self, change=None):
        """Redraw both patterns and vectors for the current inputs (the observer)."""
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
        alt = frame_text(comparison, self.positions.value, self.causal.value)
        self.live.render(full=full, relayout=relayout, alt=alt)
        sentences = (self.text_a.value, self.text_b.value)
        if sentences != self.sent:
            self.sent = sentences
            self.view.data = self.view_data()
