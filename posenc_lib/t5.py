"""T5's relative position bias, chapter 5.

Raffel et al., "Exploring the Limits of Transfer Learning with a Unified Text-to-Text
Transformer", 2020.

No position vectors: every head adds one learned scalar to the score of query i and key j, chosen
by the *bucket* of their relative position j - i. Small distances get a bucket each; larger ones
share buckets whose width grows logarithmically up to ``max_distance``, beyond which every distance
falls in the last bucket. A bidirectional model (an encoder) spends half of its buckets on keys
after the query; a causal model (a decoder) only ever looks back and uses all of them for the past.

Shaw, Uszkoreit and Vaswani (2018) introduced learned relative position *vectors* clipped at a
maximum distance; T5 reduced them to one scalar per head per bucket.
"""

import numpy as np

from ._checks import (
    check_array,
    check_buckets,
    check_ids,
    check_int,
    check_real,
    check_rng,
    short,
)


def t5_bucket(relative_position, *, bidirectional=True, n_buckets=32, max_distance=128):
    """Return the bucket of each relative position ``key - query``, as T5's code assigns them.

    Let n = |key - query| (bidirectional) or n = max(query - key, 0) (causal: keys after the query
    are masked anyway and share bucket 0). With B buckets for that direction (``n_buckets``, or
    half of it when bidirectional) and E = B // 2:

    - n < E: bucket n (exact);
    - E <= n: bucket E + floor(ln(n / E) / ln(max_distance / E) * (B - E)), at most B - 1,
      so every n >= ``max_distance`` shares the last bucket.

    Bidirectional: keys after the query (key - query > 0) use buckets B .. 2B - 1.

    Parameters
    ----------
    relative_position : array_like of int
        key position minus query position (negative: the key is in the past).
    bidirectional : bool
        True for an encoder (T5's default), False for a causal decoder.
    n_buckets : int
        Total number of buckets (T5: 32).
    max_distance : int
        Distances from here on share one bucket (T5: 128).

    Returns
    -------
    ndarray of int, same shape as ``relative_position``, values in 0 .. n_buckets - 1

    Examples
    --------
    >>> t5_bucket([0, -1, -7, -8, -15, -16, -64, -127, -128, -1000], bidirectional=False)
    array([ 0,  1,  7,  8, 15, 16, 26, 31, 31, 31])
    >>> t5_bucket([-3, 3])   # bidirectional: the future has its own buckets
    array([ 3, 19])
    """
    func = "t5_bucket"
    n_buckets, per_direction, max_distance = check_buckets(
        func, n_buckets, max_distance, bidirectional
    )
    relative = check_array(func, "relative_position", relative_position)
    if np.any(relative != np.round(relative)):
        bad = relative[relative != np.round(relative)].flat[0]
        raise ValueError(f"{func}: relative_position must hold whole numbers, got {bad}")
    relative = relative.astype(np.int64)
    if bidirectional:
        offset = np.where(relative > 0, per_direction, 0)
        n = np.abs(relative)
    else:
        offset = np.zeros_like(relative)
        n = np.maximum(-relative, 0)
    exact = per_direction // 2
    log_ratio = np.log(np.maximum(n, 1) / exact) / np.log(max_distance / exact)
    far = exact + np.floor(log_ratio * (per_direction - exact)).astype(np.int64)
    far = np.minimum(far, per_direction - 1)
    return offset + np.where(n < exact, n, far)


def t5_buckets(seq_len, *, bidirectional=True, n_buckets=32, max_distance=128):
    """Return the (T, T) bucket of every query i (row) and key j (column): ``t5_bucket(j - i)``.

    Parameters
    ----------
    seq_len : int
        Number of positions T.
    bidirectional : bool
        True for an encoder, False for a causal decoder.
    n_buckets : int
        Total number of buckets.
    max_distance : int
        Distances from here on share the last bucket.

    Returns
    -------
    ndarray of int, shape (seq_len, seq_len)
        Each in 0 .. n_buckets - 1.

    Examples
    --------
    >>> t5_buckets(4, bidirectional=False, n_buckets=4, max_distance=4)
    array([[0, 0, 0, 0],
           [1, 0, 0, 0],
           [2, 1, 0, 0],
           [3, 2, 1, 0]])
    """
    seq_len = check_int("t5_buckets", "seq_len", seq_len, minimum=0)
    check_buckets("t5_buckets", n_buckets, max_distance, bidirectional)
    positions = np.arange(seq_len)
    return t5_bucket(
        positions[None, :] - positions[:, None],
        bidirectional=bidirectional,
        n_buckets=n_buckets,
        max_distance=max_distance,
    )


def t5_bias(table, seq_len, *, bidirectional=True, max_distance=128):
    """Return the (n_heads, T, T) bias ``table[h, bucket(j - i)]``, to add to head h's scores.

    Parameters
    ----------
    table : array_like, shape (n_heads, n_buckets)
        One learned scalar per head per bucket.
    seq_len : int
    bidirectional : bool
    max_distance : int

    Returns
    -------
    ndarray, shape (n_heads, seq_len, seq_len)

    Examples
    --------
    >>> table = np.array([[0.0, -1.0, -2.0, -3.0]])          # one head, 4 causal buckets
    >>> t5_bias(table, 3, bidirectional=False, max_distance=4)[0]
    array([[ 0.,  0.,  0.],
           [-1.,  0.,  0.],
           [-2., -1.,  0.]])
    """
    table = check_array("t5_bias", "table", table, min_ndim=2)
    if table.ndim != 2:
        raise ValueError(
            f"t5_bias: table must have shape (n_heads, n_buckets), got shape {table.shape}"
        )
    seq_len = check_int("t5_bias", "seq_len", seq_len, minimum=0)
    check_buckets("t5_bias", table.shape[1], max_distance, bidirectional)
    buckets = t5_buckets(
        seq_len, bidirectional=bidirectional, n_buckets=table.shape[1], max_distance=max_distance
    )
    return table[:, buckets]


def t5_bias_traced(table, buckets):
    """``table[:, buckets]`` for the trainer: a gather that autograd differentiates.

    It works on autograd's traced arrays (the gradient adds each bucket's share back). Its
    checks read shapes and the integer buckets, never the table's values; `t5_bias` checks
    everything. (A one-hot matrix product gives the same values but builds a (T * T, n_buckets)
    matrix: at T = 1024 several times slower and about ten times the memory.)

    Parameters
    ----------
    table : ndarray or autograd ArrayBox, shape (n_heads, n_buckets)
        One learned scalar per head per bucket.
    buckets : ndarray of int, shape (T, T)
        From `t5_buckets`, each in 0 .. n_buckets - 1.

    Returns
    -------
    ndarray, shape (n_heads, T, T)
        Equal to ``table[:, buckets]``.

    Examples
    --------
    >>> t5_bias_traced(np.array([[0.0, -1.0]]), np.array([[0, 0], [1, 0]]))
    array([[[ 0.,  0.],
            [-1.,  0.]]])
    """
    func = "t5_bias_traced"
    if not hasattr(table, "shape"):
        raise TypeError(f"{func}: table must be an array, got {short(table)}")
    if len(np.shape(table)) != 2:
        raise ValueError(
            f"{func}: table must have shape (n_heads, n_buckets), got shape {np.shape(table)}"
        )
    n_buckets = np.shape(table)[1]
    buckets = check_ids(func, "buckets", buckets, high=n_buckets)
    return table[:, buckets]


class T5RelativeBias:
    """A learned (n_heads, n_buckets) table of T5 relative position biases.

    Parameters
    ----------
    n_heads : int
    n_buckets : int
        T5 uses 32.
    max_distance : int
        T5 uses 128.
    bidirectional : bool
        T5's encoder: True; its decoder (causal): False.
    rng : numpy.random.Generator or int, optional
        Seeds the initial values (default: seed 0).
    init_std : float
        Standard deviation of the initial entries.

    Examples
    --------
    >>> bias = T5RelativeBias(4, n_buckets=8, max_distance=16, bidirectional=False, rng=0)
    >>> bias.table.shape, bias(20).shape
    ((4, 8), (4, 20, 20))
    >>> bool(np.all(bias(20)[:, 19, 0] == bias.table[:, 7]))   # distance 19 >= 16: last bucket
    True
    """

    def __init__(
        self,
        n_heads,
        n_buckets=32,
        max_distance=128,
        *,
        bidirectional=True,
        rng=None,
        init_std=0.1,
    ):
        func = "T5RelativeBias"
        self.n_heads = check_int(func, "n_heads", n_heads, minimum=1)
        self.n_buckets, _, self.max_distance = check_buckets(
            func, n_buckets, max_distance, bidirectional
        )
        self.bidirectional = bool(bidirectional)
        init_std = check_real(func, "init_std", init_std)
        if init_std < 0:
            raise ValueError(f"{func}: init_std must be >= 0, got {init_std}")
        rng = check_rng(func, "rng", rng)
        self.table = rng.normal(0.0, init_std, size=(self.n_heads, self.n_buckets))

    def __call__(self, seq_len):
        """Return the (n_heads, seq_len, seq_len) bias for a sequence of ``seq_len`` tokens."""
        return t5_bias(
            self.table, seq_len, bidirectional=self.bidirectional, max_distance=self.max_distance
        )

    def __repr__(self):
        """Show the table's shape and settings, not its values."""
        return (
            f"T5RelativeBias(n_heads={self.n_heads}, n_buckets={self.n_buckets}, "
            f"max_distance={self.max_distance}, bidirectional={self.bidirectional})"
        )
