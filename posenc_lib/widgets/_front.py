"""The browser-drawn view of the course's explorers (chapters 00 to 06).

`LiveView` is an anywidget whose ES module, ``explorers.js`` beside this file, draws the explorer's
controls and figure on a canvas in the page from the widget's state: what it shows (``kind``),
what never changes (``spec``: widths, bases, the fixed random q and k) and the controls' values
(``values``). A key press or a drag redraws in the browser, at the size the figure is shown and at
the screen's pixel density, without waiting for the kernel. The closed-form explorers (chapters 00,
02, 04, 05) compute everything in the page, and the same module runs them on the course website
with a local model and no kernel (docs/_static/posenc-live.js). The explorers whose numbers need
Python (chapters 01, 03, 06: attention over typed sentences, a trained table's snapshots, a trained
model's attention) get them from the kernel in ``data``, for every state the page can reach without
it (both checkboxes, every frame, every head), so stepping through those states draws in the page;
they stay off the website (``site=False``), where their static twins stand.

The explorer's Python controls (ipywidgets sliders and dropdowns, kept as its attributes with its
matplotlib figure and status line) follow the view's values and the view follows them: set
``explorer.position.value`` in a cell and the drawing moves; move the drawing and the attribute
changes. The matplotlib figure draws the static twins (`StatusExplorer.snapshot_at`).
"""

from pathlib import Path

import anywidget
import traitlets

MIME = "application/vnd.posenc.live+json"  # the state the website mounts the same view from


class LiveView(anywidget.AnyWidget):
    """An explorer drawn in the browser by ``explorers.js`` from ``kind``, ``spec`` and ``values``.

    Parameters
    ----------
    kind : {"hello", "sinusoidal", "similarity", "rope", "alibi", "order", "frames", "attention"}
        Which explorer the module draws.
    spec : dict
        What the explorer keeps fixed (JSON: numbers, strings, lists).
    values : dict
        The controls' values, by control name.
    description : str
        The accessible name of the whole explorer (its role is ``group``).
    data : dict, optional
        What the kernel computed for the explorer's current inputs (JSON, or `numbers_bytes` for
        a large array): the module reads it with ``spec``, and redraws when it changes.
    site : bool
        Whether the website mounts this view from a notebook's output (`MIME`): only the
        closed-form explorers, which need no kernel, are live there.

    Examples
    --------
    >>> view = LiveView(kind="hello", spec={}, values={"position": 3}, description="a clock")
    >>> sorted(view.state_for_site())
    ['description', 'kind', 'spec', 'values']
    """

    _esm = Path(__file__).with_name("explorers.js")
    kind = traitlets.Unicode().tag(sync=True)
    spec = traitlets.Dict().tag(sync=True)
    values = traitlets.Dict().tag(sync=True)
    description = traitlets.Unicode().tag(sync=True)
    data = traitlets.Dict().tag(sync=True)

    def __init__(self, kind, spec, values=None, description="", data=None, site=True):
        super().__init__(
            kind=kind, spec=spec, values=values or {}, description=description, data=data or {}
        )
        self.site = bool(site)

    def state_for_site(self):
        """Return the state the website's loader gives the module (JSON-ready)."""
        return {
            "kind": self.kind,
            "spec": self.spec,
            "values": dict(self.values),
            "description": self.description,
        }

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if data is not None:
            if self.site:
                data[MIME] = self.state_for_site()
            data["text/plain"] = f"{self.description} (an interactive figure)"
        return bundle

    def __repr__(self):
        return f"LiveView(kind={self.kind!r}, values={dict(self.values)!r})"


def numbers_bytes(array):
    """Return ``array`` as the bytes of little-endian float64s, row-major, for `LiveView.data`.

    The widget sends them as a binary buffer (no JSON text for a large matrix); the module reads
    them as a ``Float64Array``, exactly the numbers Python holds.

    Parameters
    ----------
    array : array_like
        Any shape; NaN allowed.

    Returns
    -------
    bytes

    Examples
    --------
    >>> import numpy as np
    >>> raw = numbers_bytes([[0.5, np.nan]])
    >>> len(raw), np.frombuffer(raw, "<f8").tolist()[0]
    (16, 0.5)
    """
    import numpy as np

    return np.ascontiguousarray(array, dtype="<f8").tobytes()


def colormap_colors(cmap):
    """Return a matplotlib colormap's 256 colours as [r, g, b] bytes, for the module's heatmaps.

    The module colours a value as matplotlib does (`heatmapColors` in explorers.js): normalised
    by vmin and vmax, times the number of colours N (256), truncated, clipped to 0..N-1; these
    are the colours of those indices, as matplotlib's ``cmap(index, bytes=True)`` gives them.

    Parameters
    ----------
    cmap : str or matplotlib.colors.Colormap
        A matplotlib colormap (viridis, RdBu, cividis...), by name or itself.

    Returns
    -------
    list of [int, int, int]

    Examples
    --------
    >>> colors = colormap_colors("viridis")
    >>> len(colors), colors[0], colors[-1]
    (256, [68, 1, 84], [253, 231, 36])
    """
    import matplotlib
    import numpy as np

    if isinstance(cmap, str):
        cmap = matplotlib.colormaps[cmap]
    return cmap(np.arange(cmap.N), bytes=True)[:, :3].astype(int).tolist()


def connect(view, controls):
    """Keep ``view.values`` and the Python ``controls`` equal, in both directions.

    Parameters
    ----------
    view : LiveView
        The browser-drawn view.
    controls : dict
        Value name -> its ipywidgets control, in the order a change from the view is applied (a
        control that changes another's range goes first).

    Returns
    -------
    None
        The view's values are set from the controls at once.

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> slider = widgets.IntSlider(value=3, max=20)
    >>> view = LiveView("hello", {})
    >>> connect(view, {"position": slider})
    >>> view.values
    {'position': 3}
    >>> view.values = {"position": 7}
    >>> slider.value
    7
    """
    applying = []  # non-empty while the view's values are being applied: no half-way echo

    def from_controls(change=None):
        if not applying:
            view.values = {name: control.value for name, control in controls.items()}

    def from_view(change):
        applying.append(True)
        try:
            for name, control in controls.items():
                if name in change["new"] and control.value != change["new"][name]:
                    control.value = change["new"][name]
        finally:
            applying.pop()
        from_controls()  # a control may have clipped the value (a range that shrank)

    for control in controls.values():
        control.observe(from_controls, names="value")
    view.observe(from_view, names="values")
    from_controls()
