"""Argument checks shared by the public functions.

Every message names the function, the argument, the value received and what is allowed, so a
learner's mistake is explained at the call they wrote, not deep inside numpy.
"""

import numbers

import numpy as np


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_int(func, name, value, *, minimum=None):
    """Return ``value`` as a Python int, or raise naming ``func`` and ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{func}: {name} must be an integer, got {_short(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{func}: {name} must be an integer >= {minimum}, got {value}")
    return value


def check_real(func, name, value, *, greater_than=None):
    """Return ``value`` as a finite float, or raise naming ``func`` and ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{func}: {name} must be a real number, got {_short(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{func}: {name} must be finite, got {value}")
    if greater_than is not None and value <= greater_than:
        raise ValueError(f"{func}: {name} must be > {greater_than}, got {value}")
    return value


def check_array(func, name, value, *, min_ndim=0, dtype=float):
    """Return ``value`` as a finite numeric array of at least ``min_ndim`` axes."""
    try:
        array = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: {name} must be a numeric array, got {_short(value)}") from None
    if array.ndim < min_ndim:
        raise ValueError(
            f"{func}: {name} must have at least {min_ndim} axes, got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        bad = np.argwhere(~np.isfinite(array))[0]
        raise ValueError(
            f"{func}: {name} must be finite, got {array[tuple(bad)]} at index {tuple(bad.tolist())}"
        )
    return array


def check_choice(func, name, value, allowed):
    """Return ``value`` if it is one of ``allowed``, else raise listing the choices."""
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{func}: {name} must be one of {choices}, got {_short(value)}")
    return value
