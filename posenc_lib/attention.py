"""Scaled dot-product self-attention in numpy (chapter 1).

Shapes: T tokens, d_model input width, d_k query/key width, d_v value width. Leading axes
(batch, heads) broadcast.
"""

import numpy as np

from ._checks import check_array, check_callable, check_ids, check_int, check_weights, short
from ._numerics import stable_log_softmax, stable_softmax


def _check_scores(func, x, axis):
    """Check scores for a softmax.

    A real array of at least one axis where -inf (a masked score) is allowed, NaN and +inf are not,
    and ``axis`` exists.
    """
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: x must be a numeric array, got {short(x)}") from None
    if x.ndim == 0:
        raise ValueError(f"{func}: x must have at least 1 axis, got a scalar {short(x.item())}")
    bad = np.isnan(x) | (x == np.inf)
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0].tolist())
        raise ValueError(
            f"{func}: x must be finite or -inf (a masked score), got {x[index]} at index {index}"
        )
    axis = check_int(func, "axis", axis)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"{func}: axis must be in {-x.ndim}..{x.ndim - 1} for x of shape {x.shape}, got {axis}"
        )
    if x.shape[axis] == 0:
        raise ValueError(f"{func}: axis {axis} of x is empty (shape {x.shape}): nothing to weigh")
    if np.any(np.all(x == -np.inf, axis=axis)):
        raise ValueError(f"{func}: some slice along axis {axis} is all -inf: no finite score")
    return x, axis


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``: ``exp(x) / sum(exp(x))``.

    The maximum along ``axis`` is subtracted first (a softmax ignores a constant per slice), so
    large scores do not overflow.

    Parameters
    ----------
    x : array_like
        Scores; ``-inf`` entries (masked scores) get weight exactly 0.
    axis : int
        The axis that sums to 1.

    Returns
    -------
    ndarray
        Same shape as ``x``.

    Examples
    --------
    >>> softmax([1.0, 2.0, 3.0]).round(4)
    array([0.09  , 0.2447, 0.6652])
    >>> softmax([1000.0, 1000.0])  # no overflow: the row maximum is subtracted first
    array([0.5, 0.5])
    """
    x, axis = _check_scores("softmax", x, axis)
    return stable_softmax(x, axis)


def log_softmax(x, axis=-1):
    """Numerically stable ``log(softmax(x))`` along ``axis``: ``x - logsumexp(x)``.

    Parameters
    ----------
    x : array_like
        Scores (logits); ``-inf`` entries get log-probability ``-inf``.
    axis : int
        The axis whose probabilities sum to 1.

    Returns
    -------
    ndarray
        Same shape as ``x``: log-probabilities, all <= 0.

    Examples
    --------
    >>> log_softmax([0.0, 0.0]).round(4)       # two equal scores: log(1/2) each
    array([-0.6931, -0.6931])
    >>> log_softmax([1000.0, 0.0]).round(4)    # no overflow
    array([    0., -1000.])
    """
    x, axis = _check_scores("log_softmax", x, axis)
    return stable_log_softmax(x, axis)


def causal_mask(seq_len):
    """Boolean (T, T) mask, True where query i may attend to key j, that is j <= i.

    Parameters
    ----------
    seq_len : int
        Number of positions T.

    Returns
    -------
    ndarray of bool, shape (seq_len, seq_len)
        Lower triangular, diagonal included.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    seq_len = check_int("causal_mask", "seq_len", seq_len, minimum=0)
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))


def _check_broadcast(name, value, scores_shape, dtype):
    value = check_array("self_attention", name, value, dtype=dtype)
    try:
        np.broadcast_shapes(value.shape, scores_shape)
    except ValueError:
        raise ValueError(
            f"self_attention: {name} must broadcast to the scores' shape {scores_shape} "
            f"(..., T, T), got {value.shape}"
        ) from None
    return value


def _check_mask(mask, scores_shape):
    mask = _check_broadcast("mask", mask, scores_shape, None)
    if mask.dtype != bool:
        raise TypeError(f"self_attention: mask must be boolean, got dtype {mask.dtype}")
    if not np.all(np.any(mask, axis=-1)):
        raise ValueError("self_attention: mask leaves a query with no key to attend to")
    return mask


def _rotated(rotate, z):
    rotate = check_callable("self_attention", "rotate", rotate)
    out = rotate(z)
    if np.shape(out) != z.shape:
        raise ValueError(
            f"self_attention: rotate must return an array of the shape it is given, "
            f"got {np.shape(out)} for an input of shape {z.shape}"
        )
    return np.asarray(out, dtype=float)


def self_attention(x, w_q, w_k, w_v, *, mask=None, bias=None, rotate=None):
    """One head of scaled dot-product self-attention.

    ``weights = softmax(q k^T / sqrt(d_k) + bias)`` with masked-out scores set to ``-inf``,
    ``out = weights v``, where ``q, k, v = x w_q, x w_k, x w_v``.

    Parameters
    ----------
    x : array_like, shape (..., T, d_model)
        Token vectors.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key projections.
    w_v : array_like, shape (d_model, d_v)
        Value projection.
    mask : array_like of bool, broadcastable to (..., T, T), optional
        True where query i may attend to key j (see `causal_mask`).
    bias : array_like, broadcastable to (..., T, T), optional
        Added to the scaled scores before the softmax (ALiBi and T5's bias feed in here).
    rotate : callable, optional
        Applied to the queries and to the keys before the scores (RoPE: ``rotate=apply_rope``);
        it must return an array of the shape it is given.

    Returns
    -------
    out : ndarray, shape (..., T, d_v)
        The weighted sums of the values.
    weights : ndarray, shape (..., T, T)
        Each row sums to 1; masked entries are exactly 0.

    Examples
    --------
    >>> x = np.eye(3)
    >>> out, w = self_attention(x, np.eye(3), np.eye(3), np.eye(3), mask=causal_mask(3))
    >>> w.round(3)
    array([[1.   , 0.   , 0.   ],
           [0.36 , 0.64 , 0.   ],
           [0.264, 0.264, 0.471]])
    """
    x = check_array("self_attention", "x", x, min_ndim=2)
    w_q, w_k, w_v = check_weights("self_attention", x, w_q, w_k, w_v)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    if rotate is not None:
        q, k = _rotated(rotate, q), _rotated(rotate, k)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(w_k.shape[1])
    if bias is not None:
        scores = scores + _check_broadcast("bias", bias, scores.shape, float)
    if mask is not None:
        scores = np.where(_check_mask(mask, scores.shape), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def permutation_matrix(order):
    """Return the matrix P with ``(P @ x)[i] == x[order[i]]``: a shuffle as a matrix.

    Parameters
    ----------
    order : array_like of int, shape (n,)
        Each of 0 .. n-1 exactly once.

    Returns
    -------
    ndarray, shape (n, n)
        One 1 in every row and every column.

    Examples
    --------
    >>> permutation_matrix([2, 0, 1]).astype(int)
    array([[0, 0, 1],
           [1, 0, 0],
           [0, 1, 0]])
    """
    order = check_ids("permutation_matrix", "order", order, ndim=1)
    n = order.size
    if not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError(
            f"permutation_matrix: order must list each of 0..n-1 exactly once, got {short(order.tolist())}"
        )
    return np.eye(n)[order]
