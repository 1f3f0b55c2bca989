"""Chapter 4: move a query and a key; the RoPE score depends on the offset only."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from .._checks import check_even, check_int, check_real
from ..rope import apply_rope, rope_frequencies, rope_wavelengths
from ._live import LiveFigure, StatusExplorer, slider


class RopeExplorer(StatusExplorer):
    """Chapter 4: query position m, key position n and pair i.

    Left: pair i of q and k, drawn before (faint) and after rotation. Right: the score q_m . k_n
    against the offset n - m, a fixed curve, with a black marker at the current offset: move m and
    n together and it stays put. The plane is scaled to the selected pair, so its arrows fill it.

    Parameters
    ----------
    d : int
        Width of the random query and key (even).
    base : float
        RoPE's base (> 1).
    seed : int
        Seeds the query and the key.
    max_offset : int
        The score curve spans offsets -max_offset .. max_offset.

    Examples
    --------
    >>> explorer = RopeExplorer()
    >>> before = explorer.score(3, 7)
    >>> explorer.m.value, explorer.n.value = 103, 107   # the same offset, 100 positions later
    >>> bool(np.isclose(explorer.score(103, 107), before))
    True
    """

    def __init__(self, d=16, *, base=10000.0, seed=0, max_offset=120):
        func = "RopeExplorer"
        d = check_even(func, "d", d)
        base = check_real(func, "base", base, greater_than=1)
        max_offset = check_int(func, "max_offset", max_offset, minimum=1)
        rng = np.random.default_rng(check_int(func, "seed", seed, minimum=0))
        self.q, self.k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
        self.base = base
        self.theta = rope_frequencies(d, base=base)
        self.wavelength = rope_wavelengths(d, base=base)
        self.m = slider("query position m", 3, 0, 120)
        self.n = slider("key position n", 7, 0, 120)
        self.pair = slider("pair i", 0, 0, d // 2 - 1)
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(9, 3.8))
        ax_plane, ax_score = self.live.fig.subplots(1, 2, width_ratios=[1, 1.6])
        offsets = np.arange(-max_offset, max_offset + 1)
        self.ax_plane = ax_plane
        plots.rope_plane(ax_plane, limit=self.plane_limit(0))
        self.arrows = plots.rope_arrows(ax_plane)
        self.plane_title = ax_plane.set_title("")
        ax_score.plot(offsets, [self.score(0, int(o)) for o in offsets], "-", color="0.3")
        ax_score.set(
            xlabel="offset n - m", ylabel="score q_m · k_n", title="the score depends on n - m only"
        )
        (self.marker,) = ax_score.plot([0], [0], "o", color="black", ms=9)
        self.live.animate(*self.arrows, self.marker, self.plane_title)
        for control in (self.m, self.n, self.pair):
            control.observe(self.step, names="value")
        self.step()
        self.box = widgets.VBox(
            [widgets.HBox([self.m, self.n]), self.pair, self.live.image, self.status]
        )

    def plane_limit(self, i):
        """Half-width of the plane that fits pair ``i`` of q and k (rotation keeps lengths)."""
        pairs = slice(2 * i, 2 * i + 2)
        return 1.25 * max(np.linalg.norm(self.q[0, pairs]), np.linalg.norm(self.k[0, pairs]))

    def rotated(self, x, position):
        """Return ``x`` (shape (1, d)) rotated to ``position``."""
        return apply_rope(x, positions=[position], base=self.base)[0]

    def score(self, m, n):
        """Return the score of the query at position m against the key at n."""
        return float(self.rotated(self.q, m) @ self.rotated(self.k, n))

    def step(self, change=None):
        """Move the arrows and the marker to the sliders' values (the observer)."""
        m, n, i = self.m.value, self.n.value, self.pair.value
        new_pair = change is not None and change.get("owner") is self.pair
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
        self.plane_title.set_text(f"pair i={i} (wavelength {self.wavelength[i]:,.1f}) of q and k")
        self.status.value = (
            f"m={m}, n={n}, offset n-m={n - m}: score = {score:+.6f}  "
            f"(pair {i} turns {self.theta[i]:.4f} "
            f"rad per position)"
        )
        if new_pair:  # a new pair has its own length: rescale the plane (a full redraw)
            limit = self.plane_limit(i)
            self.ax_plane.set_xlim(-limit, limit)
            self.ax_plane.set_ylim(-limit, limit)
        self.live.render(full=new_pair)
