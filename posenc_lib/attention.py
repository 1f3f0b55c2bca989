"""Scaled dot-product self-attention in numpy (chapter 1).

Shapes: T tokens, d_model input width, d_k query/key width, d_v value width. Leading axes
(batch, heads) broadcast.
"""

import re
import zlib
from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_int
from .sinusoidal import sinusoidal_positions


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


def split_words(sentence):
    """Lower-case words and punctuation marks of ``sentence``, in order.

    Examples
    --------
    >>> split_words("The dog bit the man.")
    ['the', 'dog', 'bit', 'the', 'man', '.']
    """
    if not isinstance(sentence, str):
        raise TypeError(f"split_words: sentence must be a str, got {type(sentence).__name__}")
    return re.findall(r"[a-z0-9']+|[^\sa-z0-9']", sentence.lower())


def toy_embeddings(words, d_model=8, *, seed=0):
    """Deterministic toy embeddings: the same word always gets the same vector.

    Each word's vector is drawn from a generator seeded by ``seed`` and the word's CRC-32, so
    it does not depend on the other words or on Python's hash randomisation.

    Parameters
    ----------
    words : str or list of str
        A sentence (split with `split_words`) or a list of tokens.
    d_model : int
    seed : int

    Returns
    -------
    ndarray, shape (T, d_model)

    Examples
    --------
    >>> x = toy_embeddings("the dog bit the man", d_model=4)
    >>> x.shape, bool(np.all(x[0] == x[3]))
    ((5, 4), True)
    """
    if isinstance(words, str):
        words = split_words(words)
    d_model = check_int("toy_embeddings", "d_model", d_model, minimum=1)
    seed = check_int("toy_embeddings", "seed", seed, minimum=0)
    rows = [
        np.random.default_rng([seed, zlib.crc32(w.encode())]).standard_normal(d_model)
        for w in words
    ]
    return np.array(rows).reshape(len(rows), d_model)


def match_order(words_a, words_b):
    """The order with ``words_b[i] == words_a[order[i]]``, or None if b is no shuffle of a.

    Repeated words are matched first to first, which is all a shuffle needs: equal words have
    equal embeddings.

    Examples
    --------
    >>> match_order(["the", "dog", "bit", "the", "man"], ["the", "man", "bit", "the", "dog"])
    [0, 4, 2, 3, 1]
    >>> match_order(["a", "b"], ["a", "c"]) is None
    True
    """
    unused = {}
    for index, word in enumerate(words_a):
        unused.setdefault(word, []).append(index)
    order = []
    for word in words_b:
        if not unused.get(word):
            return None
        order.append(unused[word].pop(0))
    return order if len(order) == len(words_a) else None


@dataclass(frozen=True)
class OrderComparison:
    """Two sentences through the same attention layer (see `compare_orders`)."""

    words_a: list
    words_b: list
    weights_a: np.ndarray
    weights_b: np.ndarray
    pooled_a: np.ndarray
    pooled_b: np.ndarray
    order: list | None
    token_gap: float | None
    pooled_gap: float


def compare_orders(sentence_a, sentence_b, w_q, w_k, w_v, *, positions=False, causal=False, seed=0):
    """Run two sentences through one attention layer and measure how their outputs differ.

    Parameters
    ----------
    sentence_a, sentence_b : str
        Embedded with `toy_embeddings` (width ``w_q.shape[0]``, ``seed``).
    w_q, w_k, w_v : array_like
        The layer, as in `self_attention`.
    positions : bool
        Add `sinusoidal_positions` to the embeddings first.
    causal : bool
        Apply `causal_mask`.

    Returns
    -------
    OrderComparison
        ``token_gap`` is max |out_b - out_a[order]| when b is a shuffle of a (else None);
        ``pooled_gap`` is max |mean(out_a) - mean(out_b)| over the mean-pooled sentence vectors.

    Examples
    --------
    >>> w = np.eye(4)
    >>> c = compare_orders("the dog bit the man", "the man bit the dog", w, w, w)
    >>> c.order, c.token_gap < 1e-12, c.pooled_gap < 1e-12
    ([0, 4, 2, 3, 1], True, True)
    """
    d_model = np.shape(w_q)[0]
    words_a, words_b = split_words(sentence_a), split_words(sentence_b)
    outs, weights = [], []
    for words in (words_a, words_b):
        if not words:
            raise ValueError("compare_orders: a sentence has no words")
        x = toy_embeddings(words, d_model, seed=seed)
        if positions:
            x = x + sinusoidal_positions(len(words), d_model)
        out, w = self_attention(x, w_q, w_k, w_v, mask=causal_mask(len(words)) if causal else None)
        outs.append(out)
        weights.append(w)
    order = match_order(words_a, words_b)
    token_gap = None if order is None else float(np.max(np.abs(outs[1] - outs[0][order])))
    pooled_a, pooled_b = outs[0].mean(axis=0), outs[1].mean(axis=0)
    return OrderComparison(
        words_a,
        words_b,
        weights[0],
        weights[1],
        pooled_a,
        pooled_b,
        order,
        token_gap,
        float(np.max(np.abs(pooled_a - pooled_b))),
    )


def embed_token_ids(ids, d_model, *, seed=0):
    """Toy embedding-table lookup for integer token ids, shape (T, d_model).

    Row ``id`` is drawn from a generator seeded by (``seed``, id), so the table never has to
    exist in full: a 50,257 x 768 table would take 300 MB. Entries have standard deviation
    1 / sqrt(d_model), as a freshly initialised table would.

    Examples
    --------
    >>> embed_token_ids([1024, 8453, 291], 768).shape
    (3, 768)
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer) or np.any(ids < 0):
        raise ValueError(
            f"embed_token_ids: ids must be a 1-D list of non-negative integers, got {ids.tolist()}"
        )
    d_model = check_int("embed_token_ids", "d_model", d_model, minimum=1)
    rows = [np.random.default_rng([seed, int(i)]).normal(0, d_model**-0.5, d_model) for i in ids]
    return np.array(rows).reshape(len(rows), d_model)
