"""Chapter 3: step through snapshots of a trained table."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from .._checks import check_array, short
from ._front import LiveView, colormap_colors, connect, numbers_bytes
from ._live import Explorer, LiveFigure


class FrameSlider(Explorer):
    """Step through precomputed matrices, one frame at a time.

    For example a similarity matrix at several training steps: choosing a frame swaps the image's
    data, nothing else. The control is a number field, frame 0, 1, ... (arrow keys step through
    them): unlike a slider, its label names it for a screen reader.

    The field, the heatmap and its colorbar are drawn in the browser (`LiveView`, explorers.js),
    which gets every frame once, as numbers, with the colormap's colours: stepping never waits for
    the kernel. ``frame`` and the matplotlib figure (``live``) follow the view in Python.

    Parameters
    ----------
    frames : dict
        Slider label -> a 2-D array, all of one shape.
    title : str
        The title of each frame, ``{key}`` replaced by its label.
    label : str
        The control's description (its name for a screen reader too).
    alt : str
        What every frame shows, in words (``{title}``: the frame's title, ``{key}``: its
        label), followed by the frame's size and color range: the image's text alternative.
    figsize : (float, float)
        Inches.
    colorbar : bool or str
        The colorbar's label (what the colours mean); True draws it without one.
    **heatmap_kw
        Passed on to `~posenc_lib.plots.heatmap` (vmin, vmax, cmap, labels...).

    Examples
    --------
    >>> import numpy as np
    >>> slider = FrameSlider({0: np.zeros((3, 3)), 10: np.eye(3)}, vmin=0, vmax=1)
    >>> slider.frame.value = 1  # the second frame: step 10
    >>> slider.caption.get_text(), float(slider.image.get_array()[0, 0])
    ('step 10', 1.0)
    >>> slider.live.image.tooltip
    'Heatmap, step 10: 3 by 3, values from 0 to 1 (colour scale 0 to 1).'
    """

    def __init__(
        self,
        frames,
        *,
        title="step {key}",
        label="step",
        alt="Heatmap, {title}",
        figsize=(5, 4.4),
        colorbar=True,
        **heatmap_kw,
    ):
        func = "FrameSlider"
        if not isinstance(frames, dict) or not frames:
            raise TypeError(
                f"{func}: frames must be a non-empty dict label -> matrix, got {short(frames)}"
            )
        self.frames = {k: check_array(func, "frames", v, ndim=2) for k, v in frames.items()}
        if len({v.shape for v in self.frames.values()}) > 1:
            raise ValueError(
                f"{func}: frames must all have one shape, got {sorted({v.shape for v in self.frames.values()})}"
            )
        for name, text in (("title", title), ("label", label), ("alt", alt)):
            if not isinstance(text, str):
                raise TypeError(f"{func}: {name} must be a str, got {short(text)}")
        if not isinstance(colorbar, bool | str):
            raise TypeError(
                f"{func}: colorbar must be True, False or a label, got {short(colorbar)}"
            )
        if colorbar == "":
            raise ValueError(f"{func}: colorbar must be True, False or a non-empty label, got ''")
        keys = list(self.frames)
        self.title, self.alt = title, alt
        self.keys = keys
        # a number field (frame 0, 1, ...), not a slider: its label names it for a screen reader,
        # and its arrow keys step it inside JupyterLab (which keeps a dropdown's for its own use)
        self.frame = widgets.BoundedIntText(
            value=0,
            min=0,
            max=len(keys) - 1,
            description=f"{label} (0-{len(keys) - 1})",
            continuous_update=True,
            style={"description_width": "initial"},
        )
        self.live = LiveFigure(figsize=figsize, widget=False)
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap(self.ax, self.frames[keys[0]], colorbar=colorbar, **heatmap_kw)
        self.caption = self.ax.set_title(title.format(key=keys[0]))
        self.live.animate(self.image, self.caption)
        self.frame.observe(self.step, names="value")
        self.step()
        # Drawn in the browser (explorers.js): every frame once, the colormap's colours and the
        # colour limits matplotlib uses, each frame's title and text alternative.
        self.view = LiveView(
            kind="frames",
            spec=self.view_spec(colorbar, heatmap_kw.get("labels")),
            values={"frame": self.frame.value},
            description=f"Heatmaps, one per {label}: choose one with the {label} field",
            data={"frames": numbers_bytes(np.stack([self.frames[k] for k in keys]))},
            site=False,
        )
        connect(self.view, {"frame": self.frame})
        self.box = self.view

    def view_spec(self, colorbar=True, tokens=None):
        """Return what the browser's view keeps fixed: the control, axes, colours and texts."""
        rows, cols = self.frames[self.keys[0]].shape
        low, high = self.image.get_clim()
        return {
            "label": self.frame.description,
            "count": len(self.keys),
            "rows": rows,
            "cols": cols,
            "titles": [self.title.format(key=k) for k in self.keys],
            "texts": [self._text(n, (low, high)) for n in range(len(self.keys))],
            "colors": colormap_colors(self.image.get_cmap()),
            "vmin": float(low),
            "vmax": float(high),
            "xlabel": self.ax.get_xlabel(),
            "ylabel": self.ax.get_ylabel(),
            "tokens": None if tokens is None else [str(t) for t in tokens],
            "colorbar": colorbar if isinstance(colorbar, str) else bool(colorbar),
        }

    def _text(self, n, clim):
        key = self.keys[n]
        matrix = self.frames[key]
        title = self.title.format(key=key)
        low, high = clim
        return (
            f"{self.alt.format(title=title, key=key)}: "
            f"{matrix.shape[0]} by {matrix.shape[1]}, values from {np.nanmin(matrix):.3g} to "
            f"{np.nanmax(matrix):.3g} (colour scale {low:g} to {high:g})."
        )

    def frame_text(self):
        """Say in words what the current frame shows (the image's text alternative)."""
        return self._text(self.frame.value, self.image.get_clim())

    def step(self, change=None):
        """Show the frame the control points at (the control's observer)."""
        key = self.keys[self.frame.value]
        self.image.set_data(self.frames[key])
        self.caption.set_text(self.title.format(key=key))
        self.live.render(alt=self.frame_text())
