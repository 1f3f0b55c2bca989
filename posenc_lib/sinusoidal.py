"""Sinusoidal positional encodings (Vaswani et al. 2017), chapter 2.

Index convention: pair index i = 0, 1, ..., and dimension index 2i (sin) and 2i + 1 (cos).
Pair i turns at angular speed omega_i = base ** (-2i / d_model) radians per position.
"""

import numpy as np

from ._checks import check_array, check_even, check_ids, check_int, check_real, short

BASE = 10000.0


def _check_width_and_base(func, d_model, base, *, even=False):
    """Return checked d_model (even if asked) and base, with errors naming ``func``."""
    if even:
        d_model = check_even(func, "d_model", d_model)
    else:
        d_model = check_int(func, "d_model", d_model, minimum=1)
    return d_model, check_real(func, "base", base, greater_than=1)


def frequencies(d_model, *, base=BASE):
    """Angular speed omega_i = base ** (-2i / d_model) of each pair i (radians per position).

    Parameters
    ----------
    d_model : int
        Width of the encoding; there are ceil(d_model / 2) pairs (odd d_model: the last
        "pair" is a lone sin column).
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, shape (ceil(d_model / 2),)
        From 1 (pair 0) down towards 1 / base.

    Examples
    --------
    >>> frequencies(8).round(4)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    d_model = check_int("frequencies", "d_model", d_model, minimum=1)
    base = check_real("frequencies", "base", base, greater_than=1)
    pair = np.arange((d_model + 1) // 2)  # the one place the library writes this formula
    return base ** (-2.0 * pair / d_model)


def sinusoidal_positions(seq_len, d_model, *, base=BASE, dtype=np.float64):
    """Return the (seq_len, d_model) table of sinusoidal position vectors.

    PE[p, 2i] = sin(p omega_i) and PE[p, 2i+1] = cos(p omega_i).

    Interleaved layout, as in Vaswani et al. and both source articles; omega_i from
    `frequencies`. For odd d_model the last column is a sin, as the double loop of the article
    "09. Positional Encoding" leaves it.

    Parameters
    ----------
    seq_len : int
        Number of positions 0 .. seq_len - 1 (0 gives an empty table).
    d_model : int
        Width of the encoding.
    base : float
        Greater than 1.
    dtype : numpy floating dtype
        Of the table (the angles are computed in float64 either way).

    Returns
    -------
    ndarray, shape (seq_len, d_model)
        Every entry in [-1, 1].

    Examples
    --------
    >>> pe = sinusoidal_positions(50, 16)
    >>> pe[1, :4].round(4)
    array([0.8415, 0.5403, 0.311 , 0.9504])
    """
    func = "sinusoidal_positions"
    seq_len = check_int(func, "seq_len", seq_len, minimum=0)
    d_model, base = _check_width_and_base(func, d_model, base)
    try:
        floating = np.issubdtype(np.dtype(dtype), np.floating)
    except TypeError:
        floating = False
    if not floating:
        raise TypeError(f"{func}: dtype must be a numpy floating type, got {short(dtype)}")
    angles = np.outer(np.arange(seq_len, dtype=np.float64), frequencies(d_model, base=base))
    pe = np.empty((seq_len, d_model), dtype=dtype)
    np.sin(angles, out=pe[:, 0::2], casting="unsafe")
    np.cos(angles[:, : d_model // 2], out=pe[:, 1::2], casting="unsafe")
    return pe


def shift_matrix(k, d_model, *, base=BASE):
    """Return the block-rotation matrix M_k with PE[p + k] == M_k @ PE[p] for every position p.

    Each (sin, cos) pair is a point on a circle; shifting by k positions turns pair i by
    k * omega_i, whatever p is. That is why a linear map can express "k positions later".

    Parameters
    ----------
    k : float
        The shift, in positions; negative and fractional shifts are allowed.
    d_model : int
        Even (a lone final sin column has no cos partner to rotate with).
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, shape (d_model, d_model)
        Block diagonal, one 2 x 2 rotation per pair.

    Examples
    --------
    >>> pe = sinusoidal_positions(20, 6)
    >>> bool(np.allclose(shift_matrix(3, 6) @ pe[5], pe[8]))
    True
    """
    k = check_real("shift_matrix", "k", k)
    d_model, base = _check_width_and_base("shift_matrix", d_model, base, even=True)
    m = np.zeros((d_model, d_model))
    for i, angle in enumerate(k * frequencies(d_model, base=base)):
        c, s = np.cos(angle), np.sin(angle)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


def wavelengths(d_model, *, base=BASE):
    """Wavelength 2 pi / omega_i of each pair, in positions: from 2 pi up to nearly base * 2 pi.

    Parameters
    ----------
    d_model : int
        Width of the encoding.
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, shape (ceil(d_model / 2),)
        Positions per full turn of each pair.

    Examples
    --------
    >>> wavelengths(4).round(2)
    array([  6.28, 628.32])
    """
    d_model, base = _check_width_and_base("wavelengths", d_model, base)
    return 2 * np.pi / frequencies(d_model, base=base)


def sinusoidal_positions_loop(seq_len, d_model, *, base=BASE):
    """Return the same table one entry at a time, as the article "09. Positional Encoding" does.

    A deliberately independent second implementation of the formula: the reference that
    `sinusoidal_positions` is checked against (tests) and timed against (`make bench`).

    Parameters
    ----------
    seq_len : int
        Number of positions.
    d_model : int
        Width of the encoding.
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, shape (seq_len, d_model)
        Equal to ``sinusoidal_positions(seq_len, d_model, base=base)`` up to rounding.

    Examples
    --------
    >>> bool(np.allclose(sinusoidal_positions_loop(7, 5), sinusoidal_positions(7, 5)))
    True
    """
    func = "sinusoidal_positions_loop"
    seq_len = check_int(func, "seq_len", seq_len, minimum=0)
    d_model, base = _check_width_and_base(func, d_model, base)
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for dim in range(0, d_model, 2):  # dim = 2i, the dimension index of pair i
            angle = pos / base ** (dim / d_model)
            pe[pos, dim] = np.sin(angle)
            if dim + 1 < d_model:
                pe[pos, dim + 1] = np.cos(angle)
    return pe


def _band(func, distances, d_model, base, pairs):
    """Return checked shifts k and the angular speeds of the chosen pairs."""
    d_model, base = _check_width_and_base(func, d_model, base, even=True)
    omega = frequencies(d_model, base=base)
    if pairs is not None:
        if isinstance(pairs, slice):
            omega = omega[pairs]
        else:
            omega = omega[check_ids(func, "pairs", pairs, high=d_model // 2, ndim=1)]
        if omega.size == 0:
            raise ValueError(f"{func}: pairs selects no pair of the {d_model // 2}, got {pairs!r}")
    return check_array(func, "distances", distances), omega


def similarity_by_distance(distances, d_model, *, base=BASE, pairs=None):
    """Dot product PE[p] . PE[p + k] for each distance k, which is the same for every p.

    Pair i contributes cos(k omega_i), so the sum depends on k alone. ``pairs`` (an index
    array or slice) restricts the sum to some pairs, to compare fast and slow bands.

    Parameters
    ----------
    distances : array_like of float
        The shifts k, in positions.
    d_model : int
        Even (every pair has its sin and its cos).
    base : float
        Greater than 1.
    pairs : slice or array_like of int, optional
        Pair indices 0 .. d_model/2 - 1 to sum over (default: all).

    Returns
    -------
    ndarray, same shape as ``distances``
        At most the number of pairs summed (at k = 0).

    Examples
    --------
    >>> similarity_by_distance([0, 1], 4).round(4)   # d/2 = 2 at distance 0
    array([2.    , 1.5403])
    """
    k, omega = _band("similarity_by_distance", distances, d_model, base, pairs)
    return np.cos(k[..., None] * omega).sum(axis=-1)


def distance_by_shift(distances, d_model, *, base=BASE, pairs=None):
    """Euclidean distance |PE[p + k] - PE[p]| for each distance k, the same for every p.

    Pair i moves its point round a unit circle by the angle k omega_i, a chord of length
    2 |sin(k omega_i / 2)|, so the distance is ``2 * sqrt(sum_i sin^2(k omega_i / 2))``
    (written this way it keeps full precision for slow pairs, where 1 - cos would not).
    ``pairs`` restricts the sum to some pairs, to ask what one frequency band can tell apart.

    Parameters
    ----------
    distances : array_like of float
        The shifts k, in positions.
    d_model : int
        Even (every pair has its sin and its cos).
    base : float
        Greater than 1.
    pairs : slice or array_like of int, optional
        Pair indices 0 .. d_model/2 - 1 to sum over (default: all).

    Returns
    -------
    ndarray, same shape as ``distances``
        Non-negative distances.

    Examples
    --------
    >>> distance_by_shift([0, 1], 4).round(4)
    array([0.    , 0.9589])
    >>> d = np.linalg.norm(sinusoidal_positions(8, 4)[7] - sinusoidal_positions(8, 4)[6])
    >>> bool(np.isclose(d, distance_by_shift(1, 4)))
    True
    """
    k, omega = _band("distance_by_shift", distances, d_model, base, pairs)
    return 2.0 * np.sqrt(np.sum(np.sin(k[..., None] * omega / 2.0) ** 2, axis=-1))
