"""Scaled dot-product self-attention in numpy (chapter 1).

Shapes: T tokens, d_model input width, d_k query/key width, d_v value width. Leading axes
(batch, heads) broadcast.
"""

import numpy as np

from ._checks import check_array, check_int


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``.

    Parameters
    ----------
    x : array_like
        Scores; ``-inf`` entries get weight exactly 0.
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
    x = np.asarray(x, dtype=float)
    shift = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(shift), shift, 0.0))
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(seq_len):
    """Boolean (T, T) mask, True where query i may attend to key j, that is j <= i.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    seq_len = check_int("causal_mask", "seq_len", seq_len, minimum=0)
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))


def _check_weights(x, w_q, w_k, w_v):
    d_model = x.shape[-1]
    mats = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        w = check_array("self_attention", name, w)
        if w.ndim != 2 or w.shape[0] != d_model:
            raise ValueError(
                f"self_attention: {name} must have shape (d_model, width) = ({d_model}, ...) "
                f"to multiply x of shape {x.shape}, got {w.shape}"
            )
        mats[name] = w
    if mats["w_q"].shape[1] != mats["w_k"].shape[1]:
        raise ValueError(
            "self_attention: w_q and w_k must have the same width d_k (queries meet keys in a dot "
            f"product), got {mats['w_q'].shape} and {mats['w_k'].shape}"
        )
    return mats["w_q"], mats["w_k"], mats["w_v"]


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


def self_attention(x, w_q, w_k, w_v, *, mask=None, bias=None, rotate=None):
    """One head of scaled dot-product self-attention.

    ``weights = softmax(q k^T / sqrt(d_k) + bias)`` with masked-out scores set to ``-inf``,
    ``out = weights v``, where ``q, k, v = x w_q, x w_k, x w_v``.

    Parameters
    ----------
    x : array_like, shape (..., T, d_model)
        Token vectors.
    w_q, w_k : array_like, shape (d_model, d_k)
    w_v : array_like, shape (d_model, d_v)
    mask : array_like of bool, broadcastable to (..., T, T), optional
        True where query i may attend to key j (see `causal_mask`).
    bias : array_like, broadcastable to (..., T, T), optional
        Added to the scaled scores before the softmax (ALiBi feeds in here).
    rotate : callable, optional
        Applied to the queries and to the keys before the scores (RoPE: ``rotate=apply_rope``).

    Returns
    -------
    out : ndarray, shape (..., T, d_v)
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
    w_q, w_k, w_v = _check_weights(x, w_q, w_k, w_v)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    if rotate is not None:
        q, k = rotate(q), rotate(k)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(w_k.shape[1])
    if bias is not None:
        scores = scores + _check_broadcast("bias", bias, scores.shape, float)
    if mask is not None:
        mask = _check_broadcast("mask", mask, scores.shape, None)
        if mask.dtype != bool:
            raise TypeError(f"self_attention: mask must be boolean, got dtype {mask.dtype}")
        if not np.all(np.any(mask, axis=-1)):
            raise ValueError("self_attention: mask leaves a query with no key to attend to")
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def permutation_matrix(order):
    """The matrix P with ``(P @ x)[i] == x[order[i]]``.

    Examples
    --------
    >>> permutation_matrix([2, 0, 1]).astype(int)
    array([[0, 0, 1],
           [1, 0, 0],
           [0, 1, 0]])
    """
    order = np.asarray(order)
    n = order.size
    if order.ndim != 1 or not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError(
            f"permutation_matrix: order must list each of 0..n-1 exactly once, got {order.tolist()}"
        )
    return np.eye(n)[order]
