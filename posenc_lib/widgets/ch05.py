"""Chapter 5: ALiBi's penalty and the attention weights, per head and query."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from .._checks import check_int
from ..alibi import alibi_bias, alibi_slopes
from ..attention import causal_mask, self_attention
from ._live import LiveFigure, StatusExplorer, slider


class AlibiExplorer(StatusExplorer):
    """Chapter 5: head (slope) and query position.

    Top: the bias -m·(i - j) over keys j <= i. Bottom: the attention weights over keys with and
    without the bias, for fixed random q, k.

    Parameters
    ----------
    seq_len : int
        Positions (at least 2).
    n_heads : int
        Heads, each with its ALiBi slope.
    d_k : int
        Width of the random queries and keys.
    seed : int
        Seeds the queries and keys.

    Examples
    --------
    >>> explorer = AlibiExplorer(seq_len=8, n_heads=2)
    >>> explorer.status.value[:30]
    'head 0: slope m = 0.0625; quer'
    """

    def __init__(self, seq_len=32, n_heads=8, d_k=16, seed=0):

        func = "AlibiExplorer"
        seq_len = check_int(func, "seq_len", seq_len, minimum=2)
        n_heads = check_int(func, "n_heads", n_heads, minimum=1)
        d_k = check_int(func, "d_k", d_k, minimum=1)
        rng = np.random.default_rng(check_int(func, "seed", seed, minimum=0))
        q, k = rng.normal(size=(seq_len, d_k)), rng.normal(size=(seq_len, d_k))
        # Chapter 1's attention on fixed random queries and keys: the input holds them side by
        # side, [q | k], and the projections pick them out (exactly: the other block is zeros).
        x = np.concatenate([q, k], axis=1)
        pick_q = np.concatenate([np.eye(d_k), np.zeros((d_k, d_k))])
        pick_k = np.concatenate([np.zeros((d_k, d_k)), np.eye(d_k)])
        visible = causal_mask(seq_len)
        self.bias = alibi_bias(seq_len, n_heads)
        self.slopes = alibi_slopes(n_heads)
        self.plain = self_attention(x, pick_q, pick_k, pick_q, mask=visible)[1]
        self.biased = self_attention(x, pick_q, pick_k, pick_q, mask=visible, bias=self.bias)[1]
        self.head = slider("head", 0, 0, n_heads - 1)
        self.query = slider("query position i", seq_len - 1, 0, seq_len - 1)
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(8, 4.4))
        ax_bias, ax_w = self.live.fig.subplots(2, 1, sharex=True)
        keys = np.arange(seq_len)
        (self.bias_line,) = ax_bias.plot(keys, keys * 0.0, "o-", color=plots.PALETTE[5], ms=3)
        ax_bias.set(
            ylabel="bias",
            ylim=(-0.5 * (seq_len - 1) - 0.5, 0.5),
            title="ALiBi bias −m·(i − j) on each key",
        )
        (self.plain_line,) = ax_w.plot(
            keys, keys * 0.0, "s--", color="0.5", ms=3, label="without ALiBi"
        )
        (self.biased_line,) = ax_w.plot(
            keys, keys * 0.0, "o-", color=plots.PALETTE[0], ms=3, label="with ALiBi"
        )
        ax_w.set(xlabel="key position j", ylabel="attention weight", ylim=(0, 1.02))
        plots.legend_outside(ax_w)
        self.live.animate(self.bias_line, self.plain_line, self.biased_line)
        for control in (self.head, self.query):
            control.observe(self.step, names="value")
        self.step()
        self.box = widgets.VBox(
            [widgets.HBox([self.head, self.query]), self.live.image, self.status]
        )

    def step(self, change=None):
        """Show the chosen head and query (the sliders' observer)."""
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
