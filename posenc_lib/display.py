"""Small notebook helpers: source, stable differences, the environment, progress in place."""

import contextlib
import inspect
import platform
from importlib import metadata

from packaging.version import InvalidVersion, Version

from ._checks import check_real, short


def minimum_versions():
    """Return the runtime dependencies and their lower bounds, as the package declares them.

    Read from the package metadata (pyproject.toml's ``dependencies``), so there is one list.

    Returns
    -------
    dict
        Package name -> the lowest version allowed (the text after ``>=``).

    Examples
    --------
    >>> minimum_versions()["numpy"]
    '1.23'
    """
    from packaging.requirements import Requirement

    bounds = {}
    for text in metadata.requires("posenc-lib") or []:
        requirement = Requirement(text)
        if requirement.marker is not None:  # extras (test, lab) are not needed to run the course
            continue
        lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        bounds[requirement.name] = lower[0] if lower else ""
    return bounds


def show_source(obj):
    """Display the source code of a library function or class, highlighted in a notebook.

    The course shows the library's code this way instead of keeping a copy in the notebook.

    Parameters
    ----------
    obj : function, class or module
        Something defined in Python source.

    Returns
    -------
    None
        The code is displayed, not returned.

    Examples
    --------
    >>> from posenc_lib import causal_mask
    >>> show_source(causal_mask)  # outside a notebook: plain text  # doctest: +ELLIPSIS
    def causal_mask(seq_len):
    ...
    """
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismodule(obj)):
        raise TypeError(f"show_source: obj must be a function, class or module, got {short(obj)}")
    from IPython.display import Code, display

    display(Code(inspect.getsource(obj), language="python"))


ROUNDING_BOUND = 1e-12


def format_difference(value, *, bound=ROUNDING_BOUND):
    """Return a maximum absolute difference as a notebook prints it: the same text on every machine.

    Below ``bound`` a difference is floating-point rounding, whose digits depend on the CPU's
    summation order (2.2e-16 on one machine is 4.4e-16 on another), so it prints as a bound
    that says what it means. Larger values print with three significant digits.

    Parameters
    ----------
    value : float
        A non-negative difference, e.g. ``np.max(np.abs(a - b))``.
    bound : float
        Differences below this are reported as rounding only.

    Returns
    -------
    str

    Examples
    --------
    >>> format_difference(2.2e-16)
    '< 1e-12 (rounding only)'
    >>> format_difference(0.0)
    '< 1e-12 (rounding only)'
    >>> format_difference(4.0349)
    '4.03'
    >>> format_difference(0.05412)
    '0.0541'
    """
    value = check_real("format_difference", "value", value, at_least=0)
    bound = check_real("format_difference", "bound", bound, greater_than=0)
    if value < bound:
        return f"< {bound:.0e} (rounding only)".replace("e-0", "e-")
    return f"{value:.3g}"


def _at_least(version, minimum):
    """Whether ``version`` is at least ``minimum`` by PEP 440 (2.0.0rc1 comes before 2.0.0)."""
    try:
        return Version(version) >= Version(minimum)
    except InvalidVersion:
        return False


def environment_report():
    """Rows (package, installed version, minimum, ok) for Python and each runtime dependency.

    Chapter 0 prints it, so a learner sees at once whether the environment is new enough.

    Returns
    -------
    list of tuple
        (name, installed version or "missing", minimum version, whether it is enough); the
        first row is Python's.

    Examples
    --------
    >>> report = environment_report()
    >>> report[0][0], all(isinstance(ok, bool) for *_, ok in report[1:])
    ('python', True)
    """
    python_minimum = metadata.metadata("posenc-lib")["Requires-Python"].removeprefix(">=")
    rows = [("python", platform.python_version(), python_minimum, None)]
    for name, minimum in minimum_versions().items():
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
            version != "missing" and _at_least(version, minimum),
        )
        for name, version, minimum, _ in rows
    ]


class _LineInPlace:
    """A file for tqdm that shows its latest line as one notebook output, blank when done."""

    def __init__(self):
        from IPython.display import display

        self.handle = display({"text/plain": ""}, raw=True, display_id=True)

    def write(self, text):
        line = text.rsplit("\r", 1)[-1].strip()
        if text.strip() or "\r" in text:  # tqdm clears a finished bar with a blank line
            self.handle.update({"text/plain": line}, raw=True)

    def flush(self):
        pass


@contextlib.contextmanager
def progress_in_place():
    """Show the progress bars opened inside as one line of text, updated in place, gone when done.

    In a notebook, ``train(..., progress=True)`` (and any ``tqdm.auto`` bar opened inside) then
    says what it does and how far it is while the cell runs, and leaves an empty output behind
    instead of a widget or changing text, so the saved notebook and its output check (nbval) see
    the same thing on every run. Outside IPython the bars are tqdm's own.

    Yields
    ------
    None

    Examples
    --------
    >>> from tqdm.auto import tqdm
    >>> with progress_in_place():
    ...     total = sum(tqdm(range(3), disable=True))
    >>> total
    3
    """
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: tqdm's own bars
        get_ipython = None
    shell = get_ipython() if get_ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        yield
        return
    import tqdm.auto
    from tqdm.std import tqdm as text_bar

    original = tqdm.auto.tqdm

    def in_place(*args, **kwargs):
        kwargs.setdefault("file", _LineInPlace())
        kwargs.setdefault("ascii", False)
        return text_bar(*args, **kwargs)

    tqdm.auto.tqdm = in_place
    try:
        yield
    finally:
        tqdm.auto.tqdm = original
