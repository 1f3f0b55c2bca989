"""What every explorer shares: a fast matplotlib figure in a widget, the base class, sliders."""

import io

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from .._checks import check_int, check_real, short


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



    Examples
    --------
    >>> live = LiveFigure(figsize=(2, 2))
    >>> (line,) = live.fig.add_subplot().plot([0, 1], [0, 1])
    >>> live.animate(line)
    >>> live.render()
    >>> live.renders, bytes(live.image.value[1:4])
    (1, b'PNG')
    """

    def __init__(self, figsize=(8, 3.2), dpi=80):
        if not isinstance(figsize, tuple | list) or len(figsize) != 2:
            raise TypeError(
                f"LiveFigure: figsize must be (width, height) in inches, got {short(figsize)}"
            )
        width, height = (check_real("LiveFigure", "figsize", v, greater_than=0) for v in figsize)
        dpi = check_int("LiveFigure", "dpi", dpi, minimum=10)
        figsize = (width, height)
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

    def render(self, full=False, relayout=False):
        """Publish the figure as PNG bytes, redrawing only the animated artists unless ``full``.

        ``relayout`` lays the figure out again first (for new tick labels of another length).
        """
        if relayout:
            self.fig.set_layout_engine("constrained")
        if full or relayout or self.background is None:
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
        """Return the last rendered frame as a static image for a notebook output.

        Re-encoded with full compression (slower than a slider step can afford, smaller to commit).
        """
        from IPython.display import Image as PNG

        buffer = io.BytesIO()
        frame = Image.open(io.BytesIO(bytes(self.image.value))).convert("RGB")
        frame.quantize(colors=256).save(buffer, format="png", optimize=True)
        return PNG(buffer.getvalue())


class Explorer:
    """Base of the course's widgets: each builds ``self.box`` and shows it when displayed.

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> class Hello(Explorer):
    ...     def __init__(self):
    ...         self.box = widgets.Label("hello")
    >>> Hello().box.value
    'hello'
    """

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
