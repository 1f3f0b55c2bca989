"""Argument checks shared by the public functions.

Every message names the function the learner called, the argument, the value received (cut to a
bounded length, never a whole array) and what is allowed, so a mistake is explained at the call
the learner wrote, not deep inside numpy.
"""

import numbers

import numpy as np

#: The longest a value is shown in an error message, in characters.
VALUE_LIMIT = 60


def short(value, limit=VALUE_LIMIT):
    """``repr(value)`` cut to at most ``limit`` characters (arrays show their shape instead).

    Parameters
    ----------
    value : object
        What the learner passed.
    limit : int
        The longest text returned.

    Returns
    -------
    str

    Examples
    --------
    >>> short(list(range(100)))
    '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16...'
    >>> short(np.zeros((3, 4)))
    'an array of shape (3, 4)'
    """
    if isinstance(value, np.ndarray):
        if value.size > 8:
            return f"an array of shape {value.shape}"
        value = value.tolist()  # [1.0, 2.0] rather than array([1., 2.])
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def described(value, array):
    """Return ``value`` as an error shows it: small ones in full with their shape, others by shape.

    Parameters
    ----------
    value : object
        What the learner passed.
    array : ndarray
        ``value`` as an array.

    Returns
    -------
    str

    Examples
    --------
    >>> described(3.5, np.asarray(3.5))
    '3.5 (shape ())'
    >>> described(np.zeros((4, 5)), np.zeros((4, 5)))
    'an array of shape (4, 5)'
    """
    if array.size > 8:
        return f"an array of shape {array.shape}"
    return f"{short(value)} (shape {array.shape})"


def check_int(func, name, value, *, minimum=None):
    """Return ``value`` as a Python int, or raise naming ``func`` and ``name``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{func}: {name} must be an integer, got {short(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{func}: {name} must be an integer >= {minimum}, got {value}")
    return value


def check_real(func, name, value, *, greater_than=None, at_least=None):
    """Return ``value`` as a finite float, or raise naming ``func`` and ``name``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{func}: {name} must be a real number, got {short(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{func}: {name} must be finite, got {value}")
    if greater_than is not None and value <= greater_than:
        raise ValueError(f"{func}: {name} must be > {greater_than}, got {value}")
    if at_least is not None and value < at_least:
        raise ValueError(f"{func}: {name} must be >= {at_least}, got {value}")
    return value


def check_bool(func, name, value):
    """Return ``value`` if it is True or False, else raise naming ``func`` and ``name``."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{func}: {name} must be True or False, got {short(value)}")
    return bool(value)


def check_array(func, name, value, *, min_ndim=0, ndim=None, dtype=float):
    """Return ``value`` as a finite numeric array with the axes asked for.

    At least ``min_ndim`` axes, or exactly ``ndim`` when it is given.
    """
    try:
        array = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: {name} must be a numeric array, got {short(value)}") from None
    if array.dtype == object or array.dtype.kind in "USV":
        raise TypeError(f"{func}: {name} must be a numeric array, got {short(value)}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{func}: {name} must have {ndim} axes, got {described(value, array)}")
    if array.ndim < min_ndim:
        raise ValueError(
            f"{func}: {name} must have at least {min_ndim} axes, got {described(value, array)}"
        )
    if array.dtype.kind in "fc" and not np.all(np.isfinite(array)):
        bad = np.argwhere(~np.isfinite(array))[0]
        raise ValueError(
            f"{func}: {name} must be finite, got {array[tuple(bad)]} at index {tuple(bad.tolist())}"
        )
    return array


def check_ids(func, name, value, *, high=None, ndim=None):
    """Return ``value`` as an int64 array of ids in 0 .. high - 1 (any size when ``high`` is None).

    The first offending entry is named with its index, never the whole array.
    """
    array = np.asarray(value)
    if array.dtype == bool or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise TypeError(f"{func}: {name} must hold integer ids, got {short(value)}")
    array = array.astype(np.int64)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{func}: {name} must have {ndim} axes, got {described(value, array)}")
    allowed = "0 or more" if high is None else f"0..{high - 1}"
    bad = (array < 0) if high is None else (array < 0) | (array >= high)
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0].tolist())
        raise ValueError(
            f"{func}: {name} must hold ids {allowed}, got {array[index]} at index {index}"
        )
    return array


def check_choice(func, name, value, allowed):
    """Return ``value`` if it is one of ``allowed``, else raise listing the choices."""
    try:
        ok = value in allowed
    except TypeError:  # an unhashable value asked of a dict or set
        ok = False
    if not ok:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{func}: {name} must be one of {choices}, got {short(value)}")
    return value


def check_even(func, name, value, *, minimum=2):
    """Return ``value`` as an int if it is even and >= ``minimum``, else raise."""
    value = check_int(func, name, value, minimum=minimum)
    if value % 2:
        raise ValueError(f"{func}: {name} must be even (it is split into pairs), got {value}")
    return value


def check_rng(func, name, value):
    """Return a numpy Generator from ``value``: None (seed 0), an int seed >= 0 or a Generator."""
    if value is None:
        return np.random.default_rng(0)
    if isinstance(value, np.random.Generator):
        return value
    return np.random.default_rng(check_int(func, name, value, minimum=0))


def check_callable(func, name, value):
    """Return ``value`` if it can be called, else raise naming ``func`` and ``name``."""
    if not callable(value):
        raise TypeError(f"{func}: {name} must be a function, got {short(value)}")
    return value


def check_buckets(func, n_buckets, max_distance, bidirectional, names=None):
    """Return T5's bucket settings checked: (n_buckets, buckets per direction, max_distance).

    At least 2 buckets per direction, and ``max_distance`` beyond the exact buckets.
    """
    buckets_name, distance_name = names or ("n_buckets", "max_distance")
    check_bool(func, "bidirectional", bidirectional)
    n_buckets = check_int(func, buckets_name, n_buckets, minimum=2)
    per_direction = n_buckets // 2 if bidirectional else n_buckets
    if per_direction < 2:
        raise ValueError(
            f"{func}: {buckets_name} must leave at least 2 buckets per direction, got "
            f"{buckets_name}={n_buckets} with bidirectional={bidirectional}"
        )
    max_distance = check_int(func, distance_name, max_distance, minimum=1)
    exact = per_direction // 2
    if max_distance <= exact:
        raise ValueError(
            f"{func}: {distance_name} must exceed the {exact} exact buckets (half of the "
            f"{per_direction} buckets per direction), got {distance_name}={max_distance}"
        )
    return n_buckets, per_direction, max_distance


def check_weights(func, x, w_q, w_k, w_v):
    """Return checked projections for input ``x``, with errors naming ``func``.

    Functions that build on `self_attention` (chapter 1's `~posenc_lib.word_order.compare_orders`)
    check the layer under their own name first.

    Parameters
    ----------
    func : str
        The name of the function the learner called.
    x : ndarray, shape (..., T, d_model)
        The checked input.
    w_q, w_k, w_v : array_like
        As in `self_attention`.

    Returns
    -------
    w_q, w_k, w_v : ndarray
        As float arrays.

    Examples
    --------
    >>> check_weights("my_layer", np.ones((2, 3)), np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 2)))
    Traceback (most recent call last):
    ...
    ValueError: my_layer: w_q must have shape (d_model, width) = (3, ...) to multiply x of shape (2, 3), got (2, 2)
    """
    d_model = x.shape[-1]
    mats = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        w = check_array(func, name, w)
        if w.ndim != 2 or w.shape[0] != d_model:
            raise ValueError(
                f"{func}: {name} must have shape (d_model, width) = ({d_model}, ...) "
                f"to multiply x of shape {x.shape}, got {w.shape}"
            )
        mats[name] = w
    if mats["w_q"].shape[1] != mats["w_k"].shape[1]:
        raise ValueError(
            f"{func}: w_q and w_k must have the same width d_k (queries meet keys in a dot "
            f"product), got {mats['w_q'].shape} and {mats['w_k'].shape}"
        )
    return mats["w_q"], mats["w_k"], mats["w_v"]
