"""What every explorer shares: a fast matplotlib figure in a widget, the base classes, sliders."""

import contextlib
import io
import numbers

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image
from traitlets import TraitError, Unicode  # ipywidgets' own dependency: its values are traits

from .._checks import check_bool, check_choice, check_int, check_real, short
from ..style import PNG_LEVEL


class FrameImage(widgets.Image):
    """An ``ipywidgets.Image`` whose ``tooltip`` is the frame's text alternative.

    JupyterLab's widget front end writes a widget's ``tooltip`` into the element's ``title``
    (the accessible name of an ``img`` without ``alt``: what a screen reader says), but only for a
    widget that has a ``description``; a plain Image has none and never shows its tooltip. This
    one has an empty description, so its tooltip reaches the page (ipywidgets >= 8).

    Parameters
    ----------
    *args, **kwargs
        As for ``ipywidgets.Image`` (``format``, ``layout``, ``value``, ``tooltip``).

    Examples
    --------
    >>> image = FrameImage()
    >>> image.tooltip = "a clock hand at 3 o'clock"
    >>> image.description, image.tooltip
    ('', "a clock hand at 3 o'clock")
    """

    description = Unicode("").tag(sync=True)
    if "tooltip" not in widgets.Image.class_trait_names():  # ipywidgets 7: no tooltip trait
        tooltip = Unicode(None, allow_none=True)


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
        Screen (CSS) pixels per inch: the image is shown ``figsize * dpi`` pixels large (or
        narrower, never wider than the output area). Modest by default: fewer pixels to draw and
        encode on every step.
    density : int
        Image pixels per screen pixel: 2 draws every frame at twice the size shown, sharp on
        high-density (retina) screens and when the browser zooms to 200%.
    widget : bool
        Publish the frames in an ``ipywidgets.Image`` (default). False keeps them in a plain
        holder (``image.value``, the PNG bytes) for an explorer whose live view is drawn in the
        browser (`LiveView`): its frames serve the static twins only, so they are drawn lazily,
        when ``image.value`` or a `snapshot` asks for one (``lazy``), not on every step.

    Examples
    --------
    >>> live = LiveFigure(figsize=(2, 2))
    >>> (line,) = live.fig.add_subplot().plot([0, 1], [0, 1])
    >>> live.animate(line)
    >>> live.render(alt="a rising line")
    >>> live.renders, bytes(live.image.value[1:4]), live.image.tooltip
    (1, b'PNG', 'a rising line')
    >>> live.canvas.get_width_height(), live.image.layout.width  # drawn at 2x, shown at 1x
    ((320, 320), '160px')
    """

    def __init__(self, figsize=(8, 3.2), dpi=80, density=2, widget=True):
        if not isinstance(figsize, tuple | list) or len(figsize) != 2:
            raise TypeError(
                f"LiveFigure: figsize must be (width, height) in inches, got {short(figsize)}"
            )
        width, height = (check_real("LiveFigure", "figsize", v, greater_than=0) for v in figsize)
        dpi = check_int("LiveFigure", "dpi", dpi, minimum=10)
        self.density = check_int("LiveFigure", "density", density, minimum=1)
        if self.density > 4:
            raise ValueError(f"LiveFigure: density must be 1 to 4, got {self.density}")
        figsize = (width, height)
        self.fig = Figure(figsize=figsize, dpi=dpi * self.density, layout="constrained")
        self.canvas = FigureCanvasAgg(self.fig)
        self.shown_size = (round(width * dpi), round(height * dpi))  # CSS pixels
        self.image = (
            FrameImage(
                format="png",
                layout=widgets.Layout(
                    width=f"{self.shown_size[0]}px", max_width="100%", height="auto"
                ),
            )
            if widget
            else _Frame(self)
        )
        self.lazy = not widget
        self.animated = []
        self.background = None
        self.renders = 0  # frames asked for (`render`)
        self.draws = 0  # frames drawn: fewer than ``renders`` when ``lazy``
        self._pending = None  # a lazy figure's frame not drawn yet: (full, relayout)

    def animate(self, *artists):
        """Mark artists that change on every step; they are redrawn over a cached background."""
        for artist in artists:
            artist.set_animated(True)
            self.animated.append(artist)

    def render(self, full=False, relayout=False, alt=None):
        """Publish the figure as PNG bytes, redrawing only the animated artists unless ``full``.

        ``relayout`` lays the figure out again first (for new tick labels of another length).
        ``alt`` says in words what this frame shows (the image's text alternative); None keeps
        the last one.
        """
        if alt is not None and not isinstance(alt, str):
            raise TypeError(f"LiveFigure.render: alt must be a str, got {short(alt)}")
        self.renders += 1
        if self.lazy:  # nothing shows this frame yet: remember what to draw, and its text
            if alt is not None:
                self.image.tooltip = alt
            was_full, was_relayout = self._pending or (False, False)
            self._pending = (was_full or full, was_relayout or relayout)
            return
        self._draw(full, relayout, alt)

    def flush(self):
        """Draw a lazy figure's last asked-for frame, if it is not drawn yet."""
        if self._pending is not None:
            full, relayout = self._pending
            self._pending = None
            self._draw(full, relayout, None)

    def _draw(self, full, relayout, alt):
        """Draw the frame and publish it (the body of `render`)."""
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
        # One message for the frame and its text: the front end redraws the image once per
        # message, and a second redraw would replace the frame the browser is still decoding.
        with self.image.hold_sync():
            if alt is not None:
                self.image.tooltip = alt
            self.image.value = buffer.getvalue()
        self.draws += 1

    def snapshot(self):
        """Return the last rendered frame as a static image for a notebook output.

        The high-density frame, shown at its size on the page (the output's width and height,
        as every figure of the course: `~posenc_lib.plots.figure_png`), re-encoded with 256
        colours and zlib's default level (slower than a slider step can afford, smaller to commit).
        """
        from IPython.display import Image as PNG

        if self.density >= 2:
            frame = Image.open(io.BytesIO(bytes(self.image.value))).convert("RGB")
        else:  # frames drawn at 1x (their live view is drawn in the page): draw this one at 2x
            frame = self._drawn_at_twice_the_size()
            self.draws += 1
        buffer = io.BytesIO()
        frame.quantize(colors=256).save(buffer, format="png", compress_level=PNG_LEVEL)
        width, height = self.shown_size
        return PNG(buffer.getvalue(), width=width, height=height)

    def _drawn_at_twice_the_size(self):
        """Draw the whole figure, animated artists included, once at twice the size shown."""
        dpi = self.fig.dpi
        _, relayout = self._pending or (False, False)
        if self._pending is not None or self.draws == 0:
            self._pending = (True, False)  # the 1x frame, drawn when `image.value` is read
        if relayout:
            self.fig.set_layout_engine("constrained")
        for artist in self.animated:
            artist.set_animated(False)
        try:
            self.fig.set_dpi(2 * dpi / self.density)
            self.canvas.draw()  # lays the figure out, if no drawing has yet
            self.fig.set_layout_engine("none")
            width, height = self.canvas.get_width_height()
            return Image.frombuffer(
                "RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1
            ).convert("RGB")
        finally:
            for artist in self.animated:
                artist.set_animated(True)
            self.fig.set_dpi(dpi)
            self.background = None  # cached at another size: the next render draws it all


class _Frame:
    """Where a lazy `LiveFigure` (no widget) keeps its last frame (``value``: PNG bytes).

    Reading ``value`` draws the frame last asked for, if it is not drawn yet (`LiveFigure.flush`).
    ``tooltip`` keeps the frame's text, as `FrameImage` does; ``hold_sync`` is a no-op here,
    since nothing is sent to a page.
    """

    tooltip = None

    def __init__(self, figure):
        self._figure = figure
        self._value = b""

    @property
    def value(self):
        self._figure.flush()
        return self._value

    @value.setter
    def value(self, png):
        self._value = png

    def hold_sync(self):
        return contextlib.nullcontext()


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


class StatusExplorer(Explorer):
    """An explorer with a live figure (``live``) and a status line under it (``status``).

    Its controls are the widgets it keeps as attributes that take a learner's value (sliders,
    dropdowns, checkboxes, text boxes), named as the attributes are. `snapshot_at` sets some of
    them and returns the figure as a static image: one call per image of a notebook's static twin.
    The explorers of chapters 01, 02, 04, 05 and 06 are StatusExplorers; chapter 00's
    `HelloSlider` (a ``label``, no ``status``) and chapter 03's `FrameSlider` (no status line)
    are not.

    Examples
    --------
    >>> from posenc_lib.widgets import FrameSlider, SinusoidalExplorer
    >>> issubclass(SinusoidalExplorer, StatusExplorer), issubclass(FrameSlider, StatusExplorer)
    (True, False)
    """

    def _controls(self):
        """Return the widgets that take a learner's value, by attribute name, in creation order."""
        shown_only = (widgets.Label, widgets.HTML, widgets.HTMLMath, widgets.Image)
        return {
            name: value
            for name, value in vars(self).items()
            if isinstance(value, widgets.ValueWidget) and not isinstance(value, shown_only)
        }

    def snapshot_at(self, **values):
        """Set controls, print the status line and return the figure as a static image.

        The controls are set one at a time in the order given, each running its observer as a
        slider move would, so a control that changes another's range goes first (``d_model``
        before ``position`` in chapter 02). A name that is no control is refused before any is
        set; a value the control would not keep as given (outside a slider's range, not among a
        dropdown's options, 3.5 for an integer slider) is refused before it is set.

        Parameters
        ----------
        **values
            Control name -> its new value, e.g. ``m=103, n=107``.

        Returns
        -------
        IPython.display.Image
            The figure as it now stands (`LiveFigure.snapshot`): shown when it ends a cell.

        Examples
        --------
        >>> from posenc_lib.widgets import RopeExplorer
        >>> explorer = RopeExplorer()
        >>> image = explorer.snapshot_at(m=103, n=107)
        m=103, n=107, offset n-m=4: score = +1.618215  (pair 0 turns 1.0000 rad per position)
        >>> (explorer.m.value, explorer.n.value), bytes(image.data[1:4])
        ((103, 107), b'PNG')
        >>> explorer.snapshot_at(k=4)
        Traceback (most recent call last):
        ...
        TypeError: RopeExplorer.snapshot_at: k=4 names no control; the controls are m, n, pair
        """
        func = f"{type(self).__name__}.snapshot_at"
        controls = self._controls()
        for name, value in values.items():  # all checked before any is set: a typo changes nothing
            if name not in controls:
                raise TypeError(
                    f"{func}: {name}={short(value)} names no control; "
                    f"the controls are {', '.join(controls)}"
                )
        for name, value in values.items():
            control = controls[name]
            self._check_value(func, name, control, value)
            try:
                control.value = value
            except TraitError as error:
                raise TypeError(f"{func}: {name} cannot be {short(value)}: {error}") from None
        print(self.status.value)
        return self.live.snapshot()

    @staticmethod
    def _check_value(func, name, control, value):
        """Refuse a value the control would not keep as given.

        A dropdown's value must be one of its options; a checkbox's True or False; an integer
        slider's an integer (it would round 3.5 to 3); a slider's inside its range (it would clip).
        """
        options = getattr(control, "options", None)
        if options is not None:
            allowed = [o[1] if isinstance(o, tuple) and len(o) == 2 else o for o in options]
            check_choice(func, name, value, allowed)
        elif isinstance(control.value, bool):
            check_bool(func, name, value)
        elif isinstance(control.value, numbers.Integral):
            check_int(func, name, value)
        low, high = getattr(control, "min", None), getattr(control, "max", None)
        if low is not None and isinstance(value, numbers.Real) and not low <= value <= high:
            raise ValueError(f"{func}: {name} must be in {low}..{high}, got {short(value)}")


def slider(description, value, low, high, step=1, **kw):
    """Return the course's slider: integer or float by ``step``, updating while it is dragged.

    Parameters
    ----------
    description : str
        The label shown beside it.
    value, low, high : int or float
        Its start value and range.
    step : int or float
        An int makes an ``IntSlider``, a float a ``FloatSlider``.
    **kw
        Further ipywidgets arguments.

    Returns
    -------
    ipywidgets.IntSlider or ipywidgets.FloatSlider

    Examples
    --------
    >>> s = slider("position", 3, 0, 20)
    >>> type(s).__name__, s.value, s.max
    ('IntSlider', 3, 20)
    """
    if not isinstance(description, str):
        raise TypeError(f"slider: description must be a str, got {short(description)}")
    value, low, high = (
        check_real("slider", n, v) for n, v in (("value", value), ("low", low), ("high", high))
    )
    if not low <= value <= high:
        raise ValueError(f"slider: value must be in low..high = {low:g}..{high:g}, got {value:g}")
    integer = isinstance(step, numbers.Integral) and not isinstance(step, bool)
    step = check_real("slider", "step", step, greater_than=0)
    cls = widgets.IntSlider if integer else widgets.FloatSlider
    if integer:
        value, low, high, step = int(value), int(low), int(high), int(step)
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
