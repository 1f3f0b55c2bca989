"""Chapter 3: step through snapshots of a trained table."""

import ipywidgets as widgets

from .. import plots
from ._live import Explorer, LiveFigure


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
