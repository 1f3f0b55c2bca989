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

from .sinusoidal import frequencies


class LiveFigure:
    """A matplotlib Figure rendered into an ``ipywidgets.Image`` on demand.

    Parameters
    ----------
    figsize : (float, float)
        Inches.
    dpi : int
        Modest by default: fewer pixels to draw and encode on every slider step.
    """

    def __init__(self, figsize=(8, 3.2), dpi=80):
        self.fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
        self.canvas = FigureCanvasAgg(self.fig)
        self.image = widgets.Image(format="png")
        self.renders = 0

    def render(self):
        """Draw the figure and publish it as PNG bytes (fast zlib level: pixels, not archives)."""
        self.canvas.draw()
        width, height = self.canvas.get_width_height()
        buffer = io.BytesIO()
        Image.frombuffer(
            "RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1
        ).save(buffer, format="png", compress_level=1)
        self.image.value = buffer.getvalue()
        self.renders += 1


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
