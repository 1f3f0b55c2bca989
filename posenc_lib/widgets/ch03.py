"""Chapter 3: step through snapshots of a trained table."""

import ipywidgets as widgets

from .. import plots
from .._checks import check_array, short
from ._live import Explorer, LiveFigure


class FrameSlider(Explorer):
    """Step through precomputed matrices, one frame at a time.

    For example a similarity matrix at several training steps: choosing a frame swaps the image's
    data, nothing else. The control is a number field, frame 0, 1, ... (arrow keys step through
    them): unlike a slider, its label names it for a screen reader.

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
    'Heatmap, step 10: 3 by 3, values from 0 to 1.'
    """

    def __init__(
        self,
        frames,
        *,
        title="step {key}",
        label="step",
        alt="Heatmap, {title}",
        figsize=(5, 4.4),
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
        self.live = LiveFigure(figsize=figsize)
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap(self.ax, self.frames[keys[0]], colorbar=True, **heatmap_kw)
        self.caption = self.ax.set_title(title.format(key=keys[0]))
        self.live.animate(self.image, self.caption)
        self.frame.observe(self.step, names="value")
        self.step()
        self.box = widgets.VBox([self.frame, self.live.image])

    def frame_text(self):
        """Say in words what the current frame shows (the image's text alternative)."""
        key = self.keys[self.frame.value]
        matrix = self.frames[key]
        title = self.title.format(key=key)
        low, high = self.image.get_clim()
        return (
            f"{self.alt.format(title=title, key=key)}: "
            f"{matrix.shape[0]} by {matrix.shape[1]}, values from {low:g} to {high:g}."
        )

    def step(self, change=None):
        """Show the frame the control points at (the control's observer)."""
        key = self.keys[self.frame.value]
        self.image.set_data(self.frames[key])
        self.caption.set_text(self.title.format(key=key))
        self.live.render(alt=self.frame_text())
