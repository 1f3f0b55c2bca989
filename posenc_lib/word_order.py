"""Chapter 1's experiment: two sentences with the same words through one attention layer.

How far their outputs differ once the order is undone, with or without positions or a causal
mask.
"""

import re
import zlib
from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_bool, check_int, check_weights, short
from .attention import causal_mask, self_attention
from .sinusoidal import sinusoidal_positions


def split_words(sentence):
    """Lower-case words and punctuation marks of ``sentence``, in order.

    Parameters
    ----------
    sentence : str
        Any text.

    Returns
    -------
    list of str
        Words (letters, digits, apostrophes) and single punctuation marks.

    Examples
    --------
    >>> split_words("The dog bit the man.")
    ['the', 'dog', 'bit', 'the', 'man', '.']
    """
    if not isinstance(sentence, str):
        raise TypeError(f"split_words: sentence must be a str, got {type(sentence).__name__}")
    return re.findall(r"[a-z0-9']+|[^\sa-z0-9']", sentence.lower())


def _check_words(func, name, words):
    """Return a list of str (a str is split into words), or raise a TypeError naming ``func``."""
    if isinstance(words, str):
        return split_words(words)
    if not isinstance(words, list | tuple) or not all(isinstance(w, str) for w in words):
        raise TypeError(f"{func}: {name} must be a str or a list of str, got {short(words)}")
    return list(words)


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
    words = _check_words("toy_embeddings", "words", words)
    d_model = check_int("toy_embeddings", "d_model", d_model, minimum=1)
    seed = check_int("toy_embeddings", "seed", seed, minimum=0)
    return _embeddings(words, d_model, seed)


def _embeddings(words, d_model, seed):
    rows = [
        np.random.default_rng([seed, zlib.crc32(w.encode())]).standard_normal(d_model)
        for w in words
    ]
    return np.array(rows).reshape(len(rows), d_model)


def match_order(words_a, words_b):
    """Return the order with ``words_b[i] == words_a[order[i]]``, or None if b is no shuffle of a.

    Repeated words are matched first to first, which is all a shuffle needs: equal words have
    equal embeddings.

    Parameters
    ----------
    words_a, words_b : list of str
        Two lists of words (a str is split with `split_words`).

    Returns
    -------
    list of int or None
        The order, or None when ``words_b`` does not hold exactly the words of ``words_a``.

    Examples
    --------
    >>> match_order(["the", "dog", "bit", "the", "man"], ["the", "man", "bit", "the", "dog"])
    [0, 4, 2, 3, 1]
    >>> match_order(["a", "b"], ["a", "c"]) is None
    True
    """
    words_a = _check_words("match_order", "words_a", words_a)
    words_b = _check_words("match_order", "words_b", words_b)
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
    """Two sentences through the same attention layer (see `compare_orders`).

    Parameters
    ----------
    words_a, words_b : list of str
        The two sentences' words.
    weights_a, weights_b : ndarray, shape (T, T)
        Their attention weights.
    pooled_a, pooled_b : ndarray, shape (d_model,)
        Their mean-pooled outputs (sentence vectors).
    order : list of int or None
        ``words_b[i] == words_a[order[i]]``, or None when b is no shuffle of a.
    token_gap : float or None
        max |out_b - out_a[order]|: 0 up to rounding when attention only reorders (None: no shuffle).
    pooled_gap : float
        max |pooled_a - pooled_b|.

    Examples
    --------
    >>> c = compare_orders("a b c", "c b a", np.eye(4), np.eye(4), np.eye(4))
    >>> c.order, c.pooled_gap < 1e-12
    ([2, 1, 0], True)
    """

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
    seed : int
        Seeds the toy embeddings (`toy_embeddings`).

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
    func = "compare_orders"
    for name, sentence in (("sentence_a", sentence_a), ("sentence_b", sentence_b)):
        if not isinstance(sentence, str):
            raise TypeError(f"{func}: {name} must be a str, got {short(sentence)}")
    w_q = check_array(func, "w_q", w_q, ndim=2)
    d_model = w_q.shape[0]  # the embedding width the layer reads
    if d_model == 0:
        raise ValueError(
            f"{func}: w_q must have shape (d_model, d_k) with d_model >= 1, got {w_q.shape}"
        )
    positions = check_bool(func, "positions", positions)
    causal = check_bool(func, "causal", causal)
    seed = check_int(func, "seed", seed, minimum=0)
    words_a, words_b = split_words(sentence_a), split_words(sentence_b)
    outs, weights = [], []
    for name, words in (("sentence_a", words_a), ("sentence_b", words_b)):
        if not words:
            raise ValueError(f"{func}: {name} has no words")
        x = _embeddings(words, d_model, seed)
        if positions:
            x = x + sinusoidal_positions(len(words), d_model)
        mask = causal_mask(len(words)) if causal else None
        check_weights(func, x, w_q, w_k, w_v)  # errors name the function called, not ours
        out, w = self_attention(x, w_q, w_k, w_v, mask=mask)
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
