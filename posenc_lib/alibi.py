"""ALiBi, attention with linear biases (Press, Smith and Lewis, ICLR 2022), chapter 5.

No position vectors: head h adds -slope_h * |i - j| to the score of query i and key j. The bias
is added after the 1/sqrt(d_k) scaling and is not scaled itself; masking stays separate.
"""

import math

import numpy as np

from ._checks import check_array, check_int, described
from ._limits import check_memory


def _geometric_slopes(n):
    start = 2.0 ** (-8.0 / n)
    return start ** np.arange(1, n + 1)


def alibi_slopes(n_heads):
    """One slope per head, as the official implementation computes them.

    A power of two n: the geometric sequence 2^(-8/n), 2^(-16/n), ..., 2^-8. Otherwise: the
    slopes for the largest power of two c below n, then every other slope of the 2c-head
    sequence, the first n - c of them.

    Parameters
    ----------
    n_heads : int
        Number of attention heads (1 or more).

    Returns
    -------
    ndarray, shape (n_heads,)
        Head h's slope m_h, all in (0, 1).

    Examples
    --------
    >>> alibi_slopes(8) * 256
    array([128.,  64.,  32.,  16.,   8.,   4.,   2.,   1.])
    >>> np.log2(alibi_slopes(12))
    array([-1. , -2. , -3. , -4. , -5. , -6. , -7. , -8. , -0.5, -1.5, -2.5, -3.5])
    """
    n_heads = check_int("alibi_slopes", "n_heads", n_heads, minimum=1)
    closest = 2 ** math.floor(math.log2(n_heads))
    slopes = _geometric_slopes(closest)
    if closest == n_heads:
        return slopes
    extra = _geometric_slopes(2 * closest)[0::2][: n_heads - closest]
    return np.concatenate([slopes, extra])


def alibi_bias(seq_len, n_heads, *, slopes=None):
    """Return the (n_heads, T, T) bias -slope_h * |i - j|.

    Pass head h's slice as ``self_attention(..., bias=bias[h])``; the causal mask stays separate.

    Parameters
    ----------
    seq_len : int
        Number of positions T.
    n_heads : int
        Number of heads, each with its slope from `alibi_slopes`.
    slopes : array_like, shape (n_heads,), optional
        Other slopes than `alibi_slopes`'s, one positive finite number per head: an
        intervention (chapter 6 gives a one-head model the slope of a steeper head).

    Returns
    -------
    ndarray, shape (n_heads, seq_len, seq_len)
        Entry (h, i, j) is -m_h * |i - j|: 0 on the diagonal, more negative further away.

    Raises
    ------
    ValueError
        If the bias would need more memory than the machine has (it says how much), or
        ``slopes`` does not hold ``n_heads`` positive numbers.

    Examples
    --------
    >>> bias = alibi_bias(3, 8)
    >>> bias.shape
    (8, 3, 3)
    >>> bias[0]   # head 0 of 8 has slope 1/2
    array([[ 0. , -0.5, -1. ],
           [-0.5,  0. , -0.5],
           [-1. , -0.5,  0. ]])
    >>> alibi_bias(3, 1, slopes=[0.5])[0, 0]
    array([ 0. , -0.5, -1. ])
    """
    func = "alibi_bias"
    seq_len = check_int(func, "seq_len", seq_len, minimum=0)
    n_heads = check_int(func, "n_heads", n_heads, minimum=1)
    if slopes is not None:
        slopes = check_array(func, "slopes", slopes, ndim=1)
        if slopes.shape != (n_heads,) or np.any(slopes <= 0):
            raise ValueError(
                f"{func}: slopes must hold n_heads={n_heads} positive numbers, one per head, "
                f"got {described(slopes, slopes)}"
            )
    # the (T, T) distances and the (H, T, T) bias, in float64
    check_memory(
        func,
        8 * (n_heads + 1) * seq_len * seq_len,
        f"seq_len={seq_len} and n_heads={n_heads} (the ({n_heads}, {seq_len}, {seq_len}) bias "
        f"and the ({seq_len}, {seq_len}) distances)",
    )
    slopes = alibi_slopes(n_heads) if slopes is None else slopes
    positions = np.arange(seq_len, dtype=np.float64)
    distance = np.abs(positions[:, None] - positions[None, :])
    return 0.0 - slopes[:, None, None] * distance  # 0.0 - avoids printing -0.
