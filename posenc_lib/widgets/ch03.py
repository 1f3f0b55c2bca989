"""Chapter 3: step through snapshots of a trained table."""

import ipywidgets as widgets

from .. import plots
from .._checks import check_array, short
from ._live import Explorer, LiveFigure


class FrameSlider(Explorer):
    """Step through precomputed matrices with a slider.

    For example a similarity matrix at several training steps: moving the slider swaps the image's
    data, nothing else.

    Parameters
    ----------
    frames : dict
        Slider label -> a 2-D array, all of one shape.
    title : str
        The title of each frame, ``{key}`` replaced by its label.
    label : str
        The slider's description.
    figsize : (float, float)
        Inches.
    **heatmap_kw
        Passed on to `~posenc_lib.plots.heatmap` (vmin, vmax, cmap, labels...).

    Examples
    --------
    >>> import numpy as np
    >>> slider = FrameSlider({0: np.zeros((3, 3)), 10: np.eye(3)}, vmin=0, vmax=1)
    >>> slider.slider.value = 10
    >>> slider.caption.get_text(), float(slider.image.get_array()[0, 0])
    ('step 10', 1.0)
    """

    def __init__(self, frames, *, title="step {key}", label="step", figsize=(5, 4.4), **heatmap_kw):
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
        if not isinstance(title, str) or not isinstance(label, str):
            raise TypeError(
                f"{func}: title and label must be str, got {short(title)} and {short(label)}"
            )
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
        """Show the frame the slider points at (the slider's observer)."""
        self.image.set_data(self.frames[self.slider.value])
        self.caption.set_text(self.title.format(key=self.slider.value))
        self.live.render()
