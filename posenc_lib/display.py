"""Small notebook helpers: show library source, report the environment."""

import inspect
import platform
from importlib import metadata

MINIMUM_VERSIONS = {
    "numpy": "1.23",
    "matplotlib": "3.7",
    "ipywidgets": "7.6.5",
    "autograd": "1.6.2",
    "tqdm": "4.62",
}


def show_source(obj):
    """Display the source code of a library function or class, highlighted in a notebook.

    The course shows the library's code this way instead of keeping a copy in the notebook.
    """
    from IPython.display import Code, display

    display(Code(inspect.getsource(obj), language="python"))


def _version_tuple(text):
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def environment_report():
    """Rows (package, installed version, minimum, ok) for Python and each runtime dependency."""
    rows = [("python", platform.python_version(), "3.10", None)]
    for name, minimum in MINIMUM_VERSIONS.items():
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "missing"
        rows.append((name, version, minimum, None))
    return [
        (
            name,
            version,
            minimum,
            version != "missing" and _version_tuple(version) >= _version_tuple(minimum),
        )
        for name, version, minimum, _ in rows
    ]
