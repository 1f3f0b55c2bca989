"""Chapter 0's widget check."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from ..sinusoidal import frequencies
from ._live import Explorer, LiveFigure, slider


class HelloSlider(Explorer):
    """Chapter 0's widget check: one slider turns one clock hand, drawn.

    The hand turns by one radian per position (the fastest pair of chapter 2). The label says the
    angle in radians and in degrees, with the whole turns taken out: 7 rad is 401 degrees, one
    full turn (360) plus 41.



    Examples
    --------
    >>> hello = HelloSlider()
    >>> hello.position.value = 7
    >>> hello.label.value
    'position 7: 7.00 rad = 401 degrees = 1 full turn + 41 degrees'
    """

    def __init__(self):
        self.position = slider("position", 0, 0, 20)
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
        """Turn the hand to the slider's position (the slider's observer)."""
        angle = self.position.value * frequencies(2)[0]
        plots.set_clock_hands(self.hands, self.dots, [angle])
        self.live.render()
        turns, rest = divmod(np.degrees(angle), 360)
        self.label.value = (
            f"position {self.position.value}: {angle:.2f} rad = {np.degrees(angle):.0f} degrees "
            f"= {turns:.0f} full turn{'s' if turns != 1 else ''} + {rest:.0f} degrees"
        )
