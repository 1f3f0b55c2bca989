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
from .display import format_difference
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


class Explorer:
    """Base of the course's widgets: each builds ``self.box`` and shows it when displayed."""

    box = None

    def _ipython_display_(self):
        from IPython.display import display

        display(self.box)


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


class HelloSlider(Explorer):
    """Chapter 0's widget check: one slider turns one clock hand, drawn.

    The hand turns by one radian per position (the fastest pair of chapter 2). The label says the
    angle in radians and in degrees, with the whole turns taken out: 7 rad is 401 degrees, one
    full turn (360) plus 41.
    """

    def __init__(self):
        self.position = _slider("position", 0, 0, 20)
        self.label = widgets.Label()
        self.live = LiveFigure(figsize=(2.2, 2.2), dpi=72)
        ax = self.live.fig.add_subplot()
        (self.hands, self.dots) = plots.clock_faces(ax, [0.0])
        ax.set_title("the fastest hand", fontsize="small")
        self.live.animate(*self.hands, *self.dots)
        self.position.observe(self.update, names="value")
        self.update()
        self.box = widgets.VBox([self.position, self.live.image, self.label])

    def update(self, change=None):
        angle = self.position.value * frequencies(2)[0]
        plots.set_clock_hands(self.hands, self.dots, [angle])
        self.live.render()
        turns, rest = divmod(np.degrees(angle), 360)
        self.label.value = (
            f"position {self.position.value}: {angle:.2f} rad = {np.degrees(angle):.0f} degrees "
            f"= {turns:.0f} full turn{'s' if turns != 1 else ''} + {rest:.0f} degrees"
        )


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


class SinusoidalExplorer(Explorer):
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
        self.waves = plots.pair_waves(
            self.ax_wave, positions, self.table, self.pair.value, marker=self.position.value
        )
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


class AttentionInspector(Explorer):
    """Chapter 6: pick a task, a scheme, an evaluation length and a head, and see where each
    query of one test sequence attends. Models come from ``run_study(..., keep_models=True)``.
    """

    def __init__(self, models, tasks, lengths=(32, 64, 128, 256), seed=0):
        from .model import attention_maps, forward

        self._maps, self._forward = attention_maps, forward
        self.models = {
            (task, scheme): result for (task, scheme, s), result in models.items() if s == seed
        }
        self.tasks = tasks
        names = list(dict.fromkeys(task for task, _ in self.models))
        schemes = list(dict.fromkeys(scheme for _, scheme in self.models))
        self.task = widgets.Dropdown(options=names, value=names[0], description="task")
        self.scheme = widgets.Dropdown(options=schemes, value=schemes[-1], description="scheme")
        self.length = widgets.Dropdown(
            options=list(lengths), value=lengths[-1], description="length"
        )
        some = next(iter(self.models.values())).config
        self.head = _slider("head", 0, 0, some.n_heads - 1)
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(5.2, 4.6))
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap(self.ax, np.zeros((2, 2)), vmin=0, vmax=1, colorbar=True)
        self.live.animate(self.image)
        for control in (self.task, self.scheme, self.length):
            control.observe(self.redraw, names="value")
        self.head.observe(self.step, names="value")
        self.redraw()
        self.box = widgets.VBox(
            [
                widgets.HBox([self.task, self.scheme]),
                widgets.HBox([self.length, self.head]),
                self.live.image,
                self.status,
            ]
        )

    def _sample(self):
        task = self.tasks[self.task.value]()
        return task, task.sample(2024, 1, self.length.value)

    def step(self, change=None):
        """Show the chosen head of the current maps (fast path)."""
        if self.maps is not None:
            self.image.set_data(self.maps[0][0, self.head.value])
        self.live.render()

    def redraw(self, change=None):
        result = self.models[(self.task.value, self.scheme.value)]
        task, (tokens, targets) = self._sample()
        n = self.length.value
        self.image.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))
        self.ax.set_title(
            f"{self.scheme.value} on {self.task.value}, length {n} "
            f"(trained at {result.config.max_len})",
            fontsize="medium",
        )
        if result.config.scheme == "learned" and n > result.config.max_len:
            self.maps = None
            self.image.set_data(np.full((n, n), np.nan))
            self.status.value = (
                f"a learned table of {result.config.max_len} rows has no "
                f"vectors for positions {result.config.max_len}..{n - 1}"
            )
        else:
            self.maps = self._maps(result.params, result.config, tokens)
            logits = self._forward(result.params, tokens, result.config)
            valid = targets >= 0
            if task.metric == "accuracy":
                score = np.mean((logits.argmax(-1) == targets)[valid])
                self.status.value = f"this sequence: {score:.0%} of {valid.sum()} targets right"
            else:
                self.status.value = "this sequence: next-token prediction (see the loss table)"
            self.image.set_data(self.maps[0][0, self.head.value])
        self.live.render(full=True)


class FrameSlider(Explorer):
    """A slider over precomputed matrices (for example a similarity matrix at several training
    steps): moving it swaps the image's data, nothing else."""

    def __init__(self, frames, *, title="step {key}", label="step", figsize=(5, 4.4), **heatmap_kw):
        self.frames = dict(frames)
        keys = list(self.frames)
        self.title = title
        self.slider = widgets.SelectionSlider(
            options=keys, value=keys[0], description=label, continuous_update=True
        )
        self.live = LiveFigure(figsize=figsize)
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap(self.ax, self.frames[keys[0]], colorbar=True, **heatmap_kw)
        self.caption = self.ax.set_title(title.format(key=keys[0]))
        self.live.animate(self.image, self.caption)
        self.slider.observe(self.step, names="value")
        self.step()
        self.box = widgets.VBox([self.slider, self.live.image])

    def step(self, change=None):
        self.image.set_data(self.frames[self.slider.value])
        self.caption.set_text(self.title.format(key=self.slider.value))
        self.live.render()


class RopeExplorer(Explorer):
    """Chapter 4: query position m, key position n and pair i. Left: pair i of q and k, drawn
    before (faint) and after rotation. Right: the score q_m . k_n against the offset n - m, a
    fixed curve, with a marker at the current offset: move m and n together and it stays put."""

    def __init__(self, d=16, base=10000.0, seed=0, max_offset=120):
        from .rope import apply_rope

        self.apply_rope = apply_rope
        rng = np.random.default_rng(seed)
        self.q, self.k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
        self.base = base
        self.m = _slider("query position m", 3, 0, 120)
        self.n = _slider("key position n", 7, 0, 120)
        self.pair = _slider("pair i", 0, 0, d // 2 - 1)
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(9, 3.8))
        ax_plane, ax_score = self.live.fig.subplots(1, 2, width_ratios=[1, 1.6])
        offsets = np.arange(-max_offset, max_offset + 1)
        plots.rope_plane(ax_plane)
        self.arrows = plots.rope_arrows(ax_plane)
        ax_score.plot(offsets, [self.score(0, int(o)) for o in offsets], color="0.3")
        ax_score.set(
            xlabel="offset n - m", ylabel="score q_m · k_n", title="the score depends on n - m only"
        )
        (self.marker,) = ax_score.plot([0], [0], "o", color="C3", ms=9)
        self.live.animate(*self.arrows, self.marker)
        for control in (self.m, self.n, self.pair):
            control.observe(self.step, names="value")
        self.step()
        self.box = widgets.VBox(
            [widgets.HBox([self.m, self.n]), self.pair, self.live.image, self.status]
        )

    def rotated(self, x, position):
        return self.apply_rope(x, positions=[position], base=self.base)[0]

    def score(self, m, n):
        return float(self.rotated(self.q, m) @ self.rotated(self.k, n))

    def step(self, change=None):
        m, n, i = self.m.value, self.n.value, self.pair.value
        pairs = slice(2 * i, 2 * i + 2)
        plots.set_rope_arrows(
            self.arrows,
            self.q[0, pairs],
            self.k[0, pairs],
            self.rotated(self.q, m)[pairs],
            self.rotated(self.k, n)[pairs],
        )
        score = self.score(m, n)
        self.marker.set_data([n - m], [score])
        self.status.value = (
            f"m={m}, n={n}, offset n-m={n - m}: score = {score:+.6f}  "
            f"(pair {i} turns {self.base ** (-2 * i / self.q.shape[1]):.4f} "
            f"rad per position)"
        )
        self.live.render()


class AlibiExplorer(Explorer):
    """Chapter 5: head (slope) and query position. Top: the bias -m·(i - j) over keys j <= i.
    Bottom: the attention weights over keys with and without the bias, for fixed random q, k."""

    def __init__(self, seq_len=32, n_heads=8, d_k=16, seed=0):
        from .alibi import alibi_bias
        from .attention import causal_mask, softmax

        rng = np.random.default_rng(seed)
        q, k = rng.normal(size=(seq_len, d_k)), rng.normal(size=(seq_len, d_k))
        scores = q @ k.T / np.sqrt(d_k)
        visible = causal_mask(seq_len)
        self.bias = alibi_bias(seq_len, n_heads)
        self.slopes = -self.bias[:, 1, 0]
        self.plain = softmax(np.where(visible, scores, -np.inf))
        self.biased = softmax(np.where(visible, scores + self.bias, -np.inf))
        self.head = _slider("head", 0, 0, n_heads - 1)
        self.query = _slider("query position i", seq_len - 1, 0, seq_len - 1)
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(8, 4.4))
        ax_bias, ax_w = self.live.fig.subplots(2, 1, sharex=True)
        keys = np.arange(seq_len)
        (self.bias_line,) = ax_bias.plot(keys, keys * 0.0, "o-", color="C3", ms=3)
        ax_bias.set(
            ylabel="bias",
            ylim=(-0.5 * (seq_len - 1) - 0.5, 0.5),
            title="ALiBi bias −m·(i − j) on each key",
        )
        (self.plain_line,) = ax_w.plot(
            keys, keys * 0.0, "s--", color="0.5", ms=3, label="without ALiBi"
        )
        (self.biased_line,) = ax_w.plot(
            keys, keys * 0.0, "o-", color="C0", ms=3, label="with ALiBi"
        )
        ax_w.set(xlabel="key position j", ylabel="attention weight", ylim=(0, 1.02))
        ax_w.legend(loc="upper left", fontsize="small")
        self.live.animate(self.bias_line, self.plain_line, self.biased_line)
        for control in (self.head, self.query):
            control.observe(self.step, names="value")
        self.step()
        self.box = widgets.VBox(
            [widgets.HBox([self.head, self.query]), self.live.image, self.status]
        )

    def step(self, change=None):
        h, i = self.head.value, self.query.value
        hidden = np.arange(self.bias.shape[-1]) > i
        self.bias_line.set_ydata(np.where(hidden, np.nan, self.bias[h, i]))
        self.plain_line.set_ydata(np.where(hidden, np.nan, self.plain[i]))
        self.biased_line.set_ydata(np.where(hidden, np.nan, self.biased[h, i]))
        nearest = self.biased[h, i, max(i - 3, 0) : i + 1].sum()
        self.status.value = (
            f"head {h}: slope m = {self.slopes[h]:.4g}; query {i}: the 4 "
            f"nearest keys get {nearest:.0%} of the weight with ALiBi, "
            f"{self.plain[i, max(i - 3, 0) : i + 1].sum():.0%} without"
        )
        self.live.render()


class Quiz(Explorer):
    """Multiple-choice questions (ChoiceExercises with labels), each with a Check button that
    explains the answer, right or wrong."""

    def __init__(self, questions):
        self.questions = list(questions)
        self.choices, self.feedback, rows = [], [], []
        for n, question in enumerate(self.questions, start=1):
            labels = question.labels or {k: str(k) for k in question.options}
            choice = widgets.RadioButtons(
                options=[(label, key) for key, label in labels.items()],
                value=None,
                layout={"width": "max-content"},
            )
            feedback = widgets.HTML()
            button = widgets.Button(description="check")
            button.on_click(lambda _, n=n - 1: self.check(n))
            self.choices.append(choice)
            self.feedback.append(feedback)
            rows.append(
                widgets.VBox(
                    [
                        widgets.HTML(f"<b>{n}. {question.prompt}</b>"),
                        choice,
                        widgets.HBox([button, feedback]),
                    ]
                )
            )
        self.score = widgets.HTML()
        self.box = widgets.VBox([*rows, self.score])

    def check(self, n):
        """Grade question n from its radio buttons and show the explanation."""
        result = self.questions[n].evaluate(self.choices[n].value)
        color = "#1a7f37" if result.passed else "#b35900"
        self.feedback[n].value = f"<span style='color:{color}'>{result}</span>"
        answered = [
            q.evaluate(c.value).passed for q, c in zip(self.questions, self.choices, strict=True)
        ]
        self.score.value = f"{sum(answered)} of {len(answered)} right so far"
        return result
