"""Rotary position embedding, RoPE (Su et al., RoFormer), chapter 4.

Queries and keys are split into pairs; pair i is rotated by the angle position * theta_i with
theta_i = base ** (-2i / d). Two layouts of the pairs exist:

- "interleaved": pairs (0, 1), (2, 3), ... (RoFormer, Meta's LLaMA code, GPT-J);
- "half": pairs (i, i + d/2) (GPT-NeoX and Hugging Face's ``rotate_half``).

Context extension: position interpolation (`interpolate_positions`), NTK-aware scaling
(`ntk_base`), YaRN (`yarn_frequencies` with `yarn_attention_factor`), Llama 3.1's
frequency-dependent scaling (`llama3_frequencies`) and dynamic NTK (`dynamic_ntk_frequencies`,
whose base grows with the sequence, and `dynamic_ntk_lengths`, the deployed layer's cache). YaRN's ramp exists in two
versions (`yarn_ramp`): the deployed one of the authors' code and Hugging Face transformers, linear
in the pair index (the default), and the paper's equation, linear in the number of turns.
"""

from functools import lru_cache

import numpy as np

from ._checks import check_array, check_bool, check_choice, check_int, check_real, short
from .sinusoidal import BASE
from .sinusoidal import frequencies as _sinusoid_frequencies

CONVENTIONS = ("interleaved", "half")


def _check_even(func, d):
    d = check_int(func, "d", d, minimum=2)
    if d % 2:
        raise ValueError(f"{func}: d must be even to form rotation pairs, got d={d}")
    return d


def _check_base(func, base):
    return check_real(func, "base", base, greater_than=1)


def rope_frequencies(d, *, base=BASE):
    """theta_i = base ** (-2i / d) for pairs i = 0 .. d/2 - 1 (radians per position).

    The same formula as the sinusoidal table's `frequencies`, for the width d of a query or key.

    Parameters
    ----------
    d : int
        Width of the rotated vectors (even).
    base : float
        Greater than 1 (RoFormer: 10000; LLaMA 3: 500000).

    Returns
    -------
    ndarray, shape (d/2,)
        From 1 (pair 0) down towards 1 / base.

    Examples
    --------
    >>> rope_frequencies(4).round(4)
    array([1.  , 0.01])
    """
    d = _check_even("rope_frequencies", d)
    return _sinusoid_frequencies(d, base=_check_base("rope_frequencies", base))


def _check_frequencies(func, frequencies, d):
    theta = check_array(func, "frequencies", frequencies)
    if theta.shape != (d // 2,):
        raise ValueError(
            f"{func}: frequencies must have shape (d/2,) = ({d // 2},), got {theta.shape}"
        )
    return theta


def rope_tables(positions, d, *, base=BASE, convention="interleaved", frequencies=None):
    """Cos and sin of every (position, dimension) angle, laid out for ``convention``.

    Parameters
    ----------
    positions : array_like of float, shape (T,)
        The positions to rotate by (may be fractional).
    d : int
        Width of the rotated vectors (even).
    base : float
        Greater than 1.
    convention : {"interleaved", "half"}
        Which dimensions form a pair.
    frequencies : array_like, shape (d/2,), optional
        Replaces ``rope_frequencies(d, base=base)``, e.g. by `yarn_frequencies`.

    Returns
    -------
    cos, sin : ndarray, shape (T, d)
        Each pair's angle appears in both of its dimensions.

    Examples
    --------
    >>> cos, sin = rope_tables([0.0, 1.0], 4)
    >>> cos.round(3)
    array([[1.  , 1.  , 1.  , 1.  ],
           [0.54, 0.54, 1.  , 1.  ]])
    """
    func = "rope_tables"
    positions = check_array(func, "positions", positions, ndim=1)
    d = _check_even(func, d)
    convention = check_choice(func, "convention", convention, CONVENTIONS)
    base = _check_base(func, base)  # checked even when frequencies replace it: no silent pass
    if frequencies is None:
        theta = rope_frequencies(d, base=base)
    else:
        theta = _check_frequencies(func, frequencies, d)
    angles = np.outer(positions, theta)  # (T, d/2): pair i of position m turns by m * theta_i
    if convention == "interleaved":
        angles = np.repeat(angles, 2, axis=-1)  # pairs (0, 1), (2, 3), ...
    else:
        angles = np.concatenate([angles, angles], axis=-1)  # pairs (i, i + d/2)
    return np.cos(angles), np.sin(angles)


@lru_cache(maxsize=64)
def _partner(d, convention):
    """Index and sign with rotate(x) = x[..., index] * sign: each pair (a, b) -> (-b, a)."""
    if convention == "interleaved":
        index = np.arange(d).reshape(-1, 2)[:, ::-1].reshape(-1)
        sign = np.tile([-1.0, 1.0], d // 2)
    elif convention == "half":
        index = np.concatenate([np.arange(d // 2, d), np.arange(d // 2)])
        sign = np.concatenate([-np.ones(d // 2), np.ones(d // 2)])
    else:
        raise ValueError(f"rope: unknown convention {short(convention)}")
    r = np.zeros((d, d))
    r[index, np.arange(d)] = sign
    r.flags.writeable = False
    return r


def partner_matrix(d, convention="interleaved"):
    """Return the signed permutation R with (x @ R) = rotate(x): each pair (a, b) becomes (-b, a).

    Parameters
    ----------
    d : int
        Width of the rotated vectors (even).
    convention : {"interleaved", "half"}
        Which dimensions form a pair.

    Returns
    -------
    ndarray, shape (d, d)
        One entry +1 or -1 in every row and column.

    Examples
    --------
    >>> partner_matrix(2)
    array([[ 0.,  1.],
           [-1.,  0.]])
    """
    d = _check_even("partner_matrix", d)
    convention = check_choice("partner_matrix", "convention", convention, CONVENTIONS)
    return _partner(d, convention).copy()


def rope_rotate(x, cos, sin, convention="interleaved"):
    """X * cos + rotate(x) * sin, for tables from `rope_tables`.

    Uses only arithmetic and a matrix product, so it also works on autograd's traced arrays
    (the trainer of chapter 6 calls it, and a matrix product differentiates faster than a
    gather). Its checks read shapes only, never values; `apply_rope` checks everything.

    Parameters
    ----------
    x : ndarray or autograd ArrayBox, shape (..., T, d)
        Queries or keys.
    cos, sin : ndarray, shape (T, d)
        From `rope_tables` (possibly scaled, as YaRN's temperature does).
    convention : {"interleaved", "half"}
        The layout the tables were made for.

    Returns
    -------
    ndarray, same shape as ``x``

    Examples
    --------
    >>> cos, sin = rope_tables([np.pi / 2], 2)
    >>> rope_rotate(np.array([[1.0, 0.0]]), cos, sin).round(6)
    array([[0., 1.]])
    """
    func = "rope_rotate"
    for name, value in (("x", x), ("cos", cos), ("sin", sin)):
        if not hasattr(value, "shape") or not hasattr(value, "dtype"):
            raise TypeError(f"{func}: {name} must be an array, got {short(value)}")
    convention = check_choice(func, "convention", convention, CONVENTIONS)
    shape, table = tuple(np.shape(x)), tuple(np.shape(cos))
    if table != tuple(np.shape(sin)) or len(table) != 2 or len(shape) < 2 or shape[-2:] != table:
        raise ValueError(
            f"{func}: cos and sin must both have the shape (T, d) of x's last two axes, got "
            f"x {shape}, cos {table}, sin {tuple(np.shape(sin))}"
        )
    d = _check_even(func, table[-1])
    return x * cos + (x @ _partner(d, convention).astype(cos.dtype)) * sin


def apply_rope(x, positions=None, *, base=BASE, convention="interleaved", frequencies=None):
    """Rotate each pair of the last axis of ``x`` by position * theta_i.

    Parameters
    ----------
    x : array_like, shape (..., T, d)
        Queries or keys; d even.
    positions : array_like, shape (T,), optional
        Defaults to 0 .. T-1. May be offset (a decoding cache) or fractional (interpolation).
    base : float
        Greater than 1.
    convention : {"interleaved", "half"}
        Which dimensions form a pair: (0, 1), (2, 3), ... or (i, i + d/2).
    frequencies : array_like, shape (d/2,), optional
        Replaces ``rope_frequencies(d, base=base)``, e.g. by `yarn_frequencies`.

    Returns
    -------
    ndarray, same shape as ``x``
        Each pair turned; lengths unchanged.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]])
    >>> apply_rope(q, positions=[np.pi / 2]).round(6)   # a quarter turn: (1, 0) -> (0, 1)
    array([[0., 1.]])
    """
    func = "apply_rope"
    x = check_array(func, "x", x, min_ndim=2)
    t, d = x.shape[-2], x.shape[-1]
    if d % 2 or d == 0:
        raise ValueError(f"{func}: the last axis must be even to form rotation pairs, got d={d}")
    convention = check_choice(func, "convention", convention, CONVENTIONS)
    if positions is None:
        positions = np.arange(t)
    positions = check_array(func, "positions", positions)
    if positions.shape != (t,):
        raise ValueError(
            f"{func}: positions must have shape (T,) = ({t},) to match x of shape "
            f"{x.shape}, got {positions.shape}"
        )
    base = _check_base(func, base)  # checked even when frequencies replace it: no silent pass
    if frequencies is None:
        frequencies = rope_frequencies(d, base=base)
    frequencies = _check_frequencies(func, frequencies, d)
    cos, sin = rope_tables(positions, d, convention=convention, frequencies=frequencies)
    return rope_rotate(x, cos, sin, convention)


def convention_permutation(d):
    """Return the order of dimensions that turns an interleaved layout into the half layout.

    ``apply_rope(x[..., perm], convention="half") == apply_rope(x)[..., perm]``.

    Parameters
    ----------
    d : int
        Width of the rotated vectors (even).

    Returns
    -------
    ndarray of int, shape (d,)
        The even dimensions, then the odd ones.

    Examples
    --------
    >>> convention_permutation(6)
    array([0, 2, 4, 1, 3, 5])
    """
    d = _check_even("convention_permutation", d)
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def apply_partial_rope(x, rotary_dim, positions=None, *, base=BASE, convention="interleaved"):
    """Rotate only the first ``rotary_dim`` dimensions of each query or key (partial rotary).

    The first ``rotary_dim`` dimensions are rotated as `apply_rope` would rotate a vector of
    that width, so pair i turns at ``base ** (-2i / rotary_dim)``: the speeds span the rotary
    width, not the head. The other dimensions pass through unchanged. GPT-J rotates
    ``rotary_dim = 64`` of its 256 head dimensions, interleaved; GPT-NeoX rotates
    ``int(head_size * rotary_pct)`` of them (rotary_pct 0.25 for GPT-NeoX-20B) in the half
    layout, pairing dimension i with i + rotary_dim / 2.

    Parameters
    ----------
    x : array_like, shape (..., T, d)
        Queries or keys.
    rotary_dim : int
        How many leading dimensions are rotated: even, from 2 to d.
    positions : array_like, shape (T,), optional
        Defaults to 0 .. T-1.
    base : float
        Greater than 1.
    convention : {"interleaved", "half"}
        How the rotated dimensions form pairs, within the first ``rotary_dim``.

    Returns
    -------
    ndarray, same shape as ``x``
        The first ``rotary_dim`` dimensions turned, the rest equal to ``x``'s.

    Examples
    --------
    >>> x = np.ones((3, 6))
    >>> out = apply_partial_rope(x, 4)
    >>> bool(np.allclose(out[:, :4], apply_rope(x[:, :4]))), bool(np.all(out[:, 4:] == 1))
    (True, True)
    """
    func = "apply_partial_rope"
    x = check_array(func, "x", x, min_ndim=2)
    t, d = x.shape[-2], x.shape[-1]
    rotary_dim = check_int(func, "rotary_dim", rotary_dim, minimum=2)
    if rotary_dim % 2 or rotary_dim > d:
        raise ValueError(
            f"{func}: rotary_dim must be even and at most the last axis of x (d={d}), "
            f"got {rotary_dim}"
        )
    convention = check_choice(func, "convention", convention, CONVENTIONS)
    if positions is None:
        positions = np.arange(t)
    positions = check_array(func, "positions", positions)
    if positions.shape != (t,):
        raise ValueError(
            f"{func}: positions must have shape (T,) = ({t},) to match x of shape "
            f"{x.shape}, got {positions.shape}"
        )
    base = _check_base(func, base)
    cos, sin = rope_tables(positions, rotary_dim, base=base, convention=convention)
    rotated = rope_rotate(x[..., :rotary_dim], cos, sin, convention)
    return np.concatenate([rotated, x[..., rotary_dim:]], axis=-1)


def interpolate_positions(positions, scale):
    """Position interpolation (Chen et al. 2023): squeeze positions by ``scale`` = L' / L.

    Parameters
    ----------
    positions : array_like of float
        Positions as the longer input numbers them.
    scale : float
        New length / trained length (> 0).

    Returns
    -------
    ndarray, same shape as ``positions``
        ``positions / scale``: a longer input squeezed into the trained range.

    Examples
    --------
    >>> interpolate_positions([0, 2, 4], 2.0)
    array([0., 1., 2.])
    """
    scale = check_real("interpolate_positions", "scale", scale, greater_than=0)
    return check_array("interpolate_positions", "positions", positions) / scale


def ntk_base(base, scale, d):
    """Return the NTK-aware base for a context ``scale`` times longer.

    A larger base, base * scale ** (d / (d - 2)): the fastest pair keeps its speed, the slowest
    is slowed by ``scale``.

    Parameters
    ----------
    base : float
        The base the model was trained with (> 1).
    scale : float
        New context length / trained context length (> 0).
    d : int
        Width of the rotated vectors (even, at least 4).

    Returns
    -------
    float
        The new base.

    Examples
    --------
    >>> round(ntk_base(10000.0, 4.0, 128), 1)
    40889.9
    """
    base = check_real("ntk_base", "base", base, greater_than=1)
    scale = check_real("ntk_base", "scale", scale, greater_than=0)
    d = _check_even("ntk_base", d)
    if d == 2:
        raise ValueError("ntk_base: d must be at least 4 (the exponent d / (d - 2) needs d > 2)")
    return base * scale ** (d / (d - 2))


def rope_wavelengths(d, *, base=BASE):
    """Positions per full turn of each pair: 2 pi / theta_i.

    Parameters
    ----------
    d : int
        Width of the rotated vectors (even).
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, shape (d/2,)
        From 2 pi (pair 0) up to nearly 2 pi * base.

    Examples
    --------
    >>> rope_wavelengths(8).round(1)
    array([   6.3,   62.8,  628.3, 6283.2])
    """
    d = _check_even("rope_wavelengths", d)
    return 2 * np.pi / rope_frequencies(d, base=_check_base("rope_wavelengths", base))


def rope_angles(offsets, d, *, base=BASE):
    """Return the angle of every pair at every offset, wrapped into [0, 2 pi).

    What the score of a query and a key ``offset`` apart sees, pair by pair.

    Parameters
    ----------
    offsets : array_like of float
        Key position minus query position (any shape).
    d : int
        Width of the rotated vectors (even).
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, shape offsets.shape + (d/2,)
        Angles in [0, 2 pi).

    Examples
    --------
    >>> rope_angles([3, 47], 8).round(2)    # pair 0 is back at its offset-3 angle at 47
    array([[3.  , 0.3 , 0.03, 0.  ],
           [3.02, 4.7 , 0.47, 0.05]])
    """
    func = "rope_angles"
    offsets = check_array(func, "offsets", offsets)
    d = _check_even(func, d)
    return np.mod(
        np.multiply.outer(offsets, rope_frequencies(d, base=_check_base(func, base))), 2 * np.pi
    )


def pairs_completing_a_turn(d, length, *, base=BASE):
    """Return the pairs i whose angle turns a full circle within ``length`` positions.

    A model trained on sequences of ``length`` tokens sees offsets 0 .. length - 1, so pair i
    met every angle of its circle in training only if (length - 1) * theta_i >= 2 pi. The other
    pairs meet angles past their largest trained one at longer inputs (chapter 4, section 7).

    Parameters
    ----------
    d : int
        Width of the rotated vectors (even).
    length : int
        The training length, in tokens.
    base : float
        Greater than 1.

    Returns
    -------
    ndarray of int
        The indices of those pairs (the fastest ones: a prefix 0, 1, ...).

    Examples
    --------
    >>> pairs_completing_a_turn(8, 32)      # a head of width 8 trained at 32 tokens
    array([0])
    >>> pairs_completing_a_turn(32, 32)     # width 32: pair 2 turns once in 19.9 positions
    array([0, 1, 2])
    """
    func = "pairs_completing_a_turn"
    d = _check_even(func, d)
    length = check_int(func, "length", length, minimum=1)
    theta = rope_frequencies(d, base=_check_base(func, base))
    return np.flatnonzero((length - 1) * theta >= 2 * np.pi)


#: YaRN's two ramps: "index", linear in the pair index between whole-number ends (the authors'
#: reference code and Hugging Face transformers, what deployed models run), and "turns", linear
#: in the number of turns r over the original context (the paper's equation).
YARN_RAMPS = ("index", "turns")


def _check_yarn_ramp(func, d, original_len, base, alpha, beta):
    d = _check_even(func, d)
    original_len = check_int(func, "original_len", original_len, minimum=1)
    base = _check_base(func, base)
    alpha = check_real(func, "alpha", alpha)
    beta = check_real(func, "beta", beta)
    if not 0 <= alpha < beta:
        raise ValueError(f"{func}: need 0 <= alpha < beta, got alpha={alpha}, beta={beta}")
    return d, original_len, base, alpha, beta


def yarn_correction_dim(turns, d, original_len, *, base=BASE):
    """Return the (fractional) pair index that turns ``turns`` times over ``original_len`` positions.

    Pair i turns r_i = original_len * theta_i / (2 pi) times; solving for i gives
    i = d ln(original_len / (2 pi r)) / (2 ln base). The YaRN reference code calls it
    ``find_correction_dim``; it is where the deployed ramp starts and ends.

    Parameters
    ----------
    turns : float
        A number of turns (> 0).
    d : int
        Head width (even).
    original_len : int
        The training context length L.
    base : float
        Greater than 1.

    Returns
    -------
    float
        The pair index; negative when even pair 0 turns fewer times.

    Examples
    --------
    >>> round(yarn_correction_dim(32, 128, 2048), 2), round(yarn_correction_dim(1, 128, 2048), 2)
    (16.13, 40.2)
    """
    func = "yarn_correction_dim"
    turns = check_real(func, "turns", turns, greater_than=0)
    d = _check_even(func, d)
    original_len = check_int(func, "original_len", original_len, minimum=1)
    base = _check_base(func, base)
    return float(d * np.log(original_len / (2 * np.pi * turns)) / (2 * np.log(base)))


def yarn_correction_range(d, original_len, *, base=BASE, alpha=1.0, beta=32.0):
    """Return the deployed ramp's ends, whole pair indices (low, high): ``find_correction_range``.

    low = floor of the index of the pair that turns ``beta`` times, high = ceil of the index of
    the pair that turns ``alpha`` times, clamped to 0 .. d - 1 (the reference code clamps to the
    head width d, not d/2). Pairs i <= low keep their speed, pairs i >= high are interpolated.
    ``alpha`` = 0 is the limit alpha -> 0: high = d - 1.

    Parameters
    ----------
    d : int
        Head width (even).
    original_len : int
        The training context length L.
    base : float
        Greater than 1.
    alpha, beta : float
        The turns at which the ramp ends (``beta_slow`` = 1 in the code) and starts
        (``beta_fast`` = 32), 0 <= alpha < beta.

    Returns
    -------
    low, high : int

    Examples
    --------
    >>> yarn_correction_range(128, 2048)     # LLaMA's head at 2,048 tokens
    (16, 41)
    >>> yarn_correction_range(8, 32)         # chapter 6's head of width 8 at 32 tokens
    (0, 1)
    """
    func = "yarn_correction_range"
    d, original_len, base, alpha, beta = _check_yarn_ramp(func, d, original_len, base, alpha, beta)
    low = int(np.floor(yarn_correction_dim(beta, d, original_len, base=base)))
    if alpha == 0:
        high = d - 1
    else:
        high = int(np.ceil(yarn_correction_dim(alpha, d, original_len, base=base)))
    return max(low, 0), min(high, d - 1)


def yarn_index_ramp(d, original_len, *, base=BASE, alpha=1.0, beta=32.0, truncate=True, clamp=True):
    """Return the deployed (index) ramp gamma_i with each step of ``find_correction_range`` a switch.

    Hugging Face's ``_compute_yarn_parameters`` finds the ramp's ends as fractional pair indices
    (`yarn_correction_dim`), rounds them to whole indices (floor the fast end, ceil the slow one)
    when ``truncate`` is true (the config key ``truncate``, default True; gpt-oss sets it False),
    then always clamps them to 0 .. d - 1, and ramps linearly in the index between them.
    ``truncate=True, clamp=True`` is `yarn_ramp` with ``ramp="index"``; ``clamp=False`` is no
    published version: it is the intervention of chapter 6 that shows what the clamp does.

    Parameters
    ----------
    d : int
        Head width (even).
    original_len : int
        The training context length L.
    base : float
        Greater than 1.
    alpha, beta : float
        The ramp's ends in turns over ``original_len`` (0 < alpha < beta).
    truncate : bool
        Round the ends to whole pair indices (floor, ceil), as ``truncate=True`` does.
    clamp : bool
        Clamp the ends to 0 .. d - 1, as the deployed code always does.

    Returns
    -------
    ndarray, shape (d/2,)
        gamma_i in [0, 1]: the share of each pair's own speed kept (1 - gamma of theta_i / scale).

    Examples
    --------
    >>> yarn_index_ramp(8, 32)                              # deployed: = yarn_ramp(8, 32)
    array([1., 0., 0., 0.])
    >>> yarn_index_ramp(8, 32, truncate=False)              # clamped, not rounded: the same
    array([1., 0., 0., 0.])
    >>> yarn_index_ramp(8, 32, clamp=False)                 # rounded to -1 and 1, not clamped
    array([0.5, 0. , 0. , 0. ])
    >>> yarn_index_ramp(8, 32, truncate=False, clamp=False).round(3)
    array([0.47, 0.  , 0.  , 0.  ])
    """
    func = "yarn_index_ramp"
    d, original_len, base, alpha, beta = _check_yarn_ramp(func, d, original_len, base, alpha, beta)
    if alpha == 0:
        raise ValueError(f"{func}: alpha must be > 0 (the slow end is at alpha turns), got {alpha}")
    truncate, clamp = check_bool(func, "truncate", truncate), check_bool(func, "clamp", clamp)
    low = yarn_correction_dim(beta, d, original_len, base=base)
    high = yarn_correction_dim(alpha, d, original_len, base=base)
    if truncate:
        low, high = float(np.floor(low)), float(np.ceil(high))
    if clamp:
        low, high = max(low, 0.0), min(high, d - 1.0)
    high = high + 0.001 if high == low else high  # the reference code's guard
    return 1.0 - np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)


def yarn_ramp(d, original_len, *, base=BASE, alpha=1.0, beta=32.0, ramp="index"):
    """Return YaRN's ramp gamma_i, the share of each pair's own speed it keeps (1: all, 0: / scale).

    Two versions exist; both are linear between their ends and clipped to [0, 1].

    - ``ramp="index"`` (the default, as deployed): linear in the pair *index* i between the whole
      numbers (low, high) of `yarn_correction_range`: gamma_i = 1 - clip((i - low) / (high - low)).
      This is ``linear_ramp_factor`` / ``linear_ramp_mask`` of the authors' reference code
      (github.com/jquesnelle/yarn, ``scaled_rope/LlamaYaRNScaledRotaryEmbedding.py``) and of
      Hugging Face transformers (``_compute_yarn_parameters`` in ``modeling_rope_utils.py``),
      with their guard: high = low + 0.001 when the two meet.
    - ``ramp="turns"``: the paper's equation (Peng et al. 2023, "YaRN", section 3.2), linear in
      the number of turns r_i = original_len / wavelength_i:
      gamma_i = clip((r_i - alpha) / (beta - alpha)).

    At LLaMA's sizes the two agree on which pairs are kept and which interpolated; they differ
    on the ramp, and at small widths and lengths they differ a lot (chapter 6).

    Parameters
    ----------
    d : int
        Head width (even).
    original_len : int
        The training context length L.
    base : float
        Greater than 1.
    alpha, beta : float
        The ramp's ends in turns over ``original_len`` (0 <= alpha < beta; the paper and the code
        use 1 and 32).
    ramp : {"index", "turns"}
        Which version, see above.

    Returns
    -------
    ndarray, shape (d/2,)
        gamma_i in [0, 1], from the fastest pair to the slowest.

    Examples
    --------
    >>> yarn_ramp(8, 32)                        # deployed: pair 0 keeps its speed
    array([1., 0., 0., 0.])
    >>> yarn_ramp(8, 32, ramp="turns").round(3)  # the paper's equation: no pair turns 32 times
    array([0.132, 0.   , 0.   , 0.   ])
    """
    func = "yarn_ramp"
    d, original_len, base, alpha, beta = _check_yarn_ramp(func, d, original_len, base, alpha, beta)
    ramp = check_choice(func, "ramp", ramp, YARN_RAMPS)
    if ramp == "turns":
        turns = original_len / rope_wavelengths(d, base=base)
        return np.clip((turns - alpha) / (beta - alpha), 0.0, 1.0)
    low, high = yarn_correction_range(d, original_len, base=base, alpha=alpha, beta=beta)
    high = high + 0.001 if high == low else high  # the reference code's guard
    return 1.0 - np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)


def yarn_frequencies(d, scale, original_len, *, base=BASE, alpha=1.0, beta=32.0, ramp="index"):
    """YaRN's "NTK-by-parts" frequencies (Peng et al. 2023) for a context ``scale`` times longer.

    theta'_i = (1 - gamma_i) * theta_i / scale + gamma_i * theta_i, with the ramp gamma_i of
    `yarn_ramp`: pairs that turn often over the original context keep their speed, pairs that turn
    less than ``alpha`` times are interpolated (theta_i / scale, as position interpolation does),
    and a linear ramp mixes the two in between. ``ramp="index"`` (default) is the deployed ramp of
    the authors' code and Hugging Face transformers, linear in the pair index between whole-number
    ends; ``ramp="turns"`` is the paper's equation, linear in the number of turns.

    Parameters
    ----------
    d : int
        Head width (even).
    scale : float
        New context length / original context length (s > 0; s <= 1 changes nothing).
    original_len : int
        The training context length L.
    base : float
        Greater than 1.
    alpha, beta : float
        The ramp's ends, in turns over the original context (0 <= alpha < beta); the code's
        ``beta_slow`` and ``beta_fast``.
    ramp : {"index", "turns"}
        The deployed ramp or the paper's equation (`yarn_ramp`).

    Returns
    -------
    ndarray, shape (d/2,)
        Each pair's new speed: theta_i / scale <= theta'_i <= theta_i.

    Examples
    --------
    >>> theta = rope_frequencies(128)
    >>> new = yarn_frequencies(128, 4.0, 2048)
    >>> float(new[0] / theta[0]), float(new[-1] / theta[-1])   # fastest kept, slowest / 4
    (1.0, 0.25)
    >>> (yarn_frequencies(8, 4.0, 32, ramp="turns") / rope_frequencies(8)).round(3)
    array([0.349, 0.25 , 0.25 , 0.25 ])
    """
    func = "yarn_frequencies"
    scale = check_real(func, "scale", scale, greater_than=0)
    d, original_len, base, alpha, beta = _check_yarn_ramp(func, d, original_len, base, alpha, beta)
    ramp = check_choice(func, "ramp", ramp, YARN_RAMPS)
    theta = rope_frequencies(d, base=base)
    if scale <= 1:
        return theta
    gamma = yarn_ramp(d, original_len, base=base, alpha=alpha, beta=beta, ramp=ramp)
    return (1 - gamma) * theta / scale + gamma * theta


def yarn_attention_factor(scale):
    """YaRN's attention temperature as a factor on queries and keys: sqrt(1/t) = 0.1 ln(s) + 1.

    The reference code's ``get_mscale`` and Hugging Face's default ``attention_factor``; both
    multiply the cos and sin tables by it, so both q and k, and every attention logit by its
    square, 1/t. Returns 1.0 for s <= 1 (as ``get_mscale`` does).

    Parameters
    ----------
    scale : float
        New context length / trained context length (> 0).

    Returns
    -------
    float
        0.1 ln(scale) + 1, at least 1.

    Examples
    --------
    >>> round(yarn_attention_factor(4.0), 4), yarn_attention_factor(1.0)
    (1.1386, 1.0)
    """
    scale = check_real("yarn_attention_factor", "scale", scale, greater_than=0)
    return 1.0 if scale <= 1 else 0.1 * float(np.log(scale)) + 1.0


def llama3_frequencies(
    d, factor, original_len, *, base=BASE, low_freq_factor=1.0, high_freq_factor=4.0
):
    """Return Llama 3.1's frequency-dependent pair speeds (Hugging Face ``rope_type: "llama3"``).

    Each pair is judged by its wavelength lambda_i = 2 pi / theta_i against the original context
    L: pairs shorter than L / high_freq_factor keep their speed, pairs longer than
    L / low_freq_factor are slowed by ``factor`` (as position interpolation does), and in between
    the speed is a blend, s * theta_i + (1 - s) * theta_i / factor with
    s = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor). Unlike dynamic
    NTK it does not depend on the sequence length: the slow pairs are slowed at every length.
    This is ``_compute_llama3_parameters`` of transformers' ``modeling_rope_utils.py``; Llama
    3.1 (8B, 70B, 405B) and 3.3 ship factor 8, Llama 3.2's 1B and 3B factor 32, each with
    low 1, high 4 and L = 8192 (their ``config.json``); Llama 4 Scout ships low = high = 1, a step
    with no blend.

    Parameters
    ----------
    d : int
        Head width (even).
    factor : float
        How much longer the new context is (>= 1; the config's ``factor``).
    original_len : int
        The training context length L (``original_max_position_embeddings``).
    base : float
        Greater than 1 (``rope_theta``; Llama 3 uses 500,000).
    low_freq_factor, high_freq_factor : float
        The two thresholds in turns over L: 0 < low <= high (equal: a step, no blend).

    Returns
    -------
    ndarray, shape (d/2,)
        Each pair's new speed: theta_i / factor <= theta'_i <= theta_i.

    Examples
    --------
    >>> new = llama3_frequencies(8, 8.0, 32)      # wavelengths 6.3, 62.8, 628, 6283 vs L = 32
    >>> (new / rope_frequencies(8)).round(3)       # 6.3 < 32/4 kept; the rest beyond 32: / 8
    array([1.   , 0.125, 0.125, 0.125])
    >>> (llama3_frequencies(8, 8.0, 100) / rope_frequencies(8)).round(3)  # 62.8 in [25, 100]
    array([1.   , 0.298, 0.125, 0.125])
    """
    func = "llama3_frequencies"
    d = _check_even(func, d)
    factor = check_real(func, "factor", factor, at_least=1)
    original_len = check_int(func, "original_len", original_len, minimum=1)
    low = check_real(func, "low_freq_factor", low_freq_factor, greater_than=0)
    high = check_real(func, "high_freq_factor", high_freq_factor, greater_than=0)
    if high < low:
        raise ValueError(
            f"{func}: high_freq_factor must be at least low_freq_factor, got "
            f"high_freq_factor={high} and low_freq_factor={low}"
        )
    theta = rope_frequencies(d, base=_check_base(func, base))
    wavelength = 2 * np.pi / theta
    # high == low (Llama 4 Scout's config): no blend band, a step at L / low
    blend = (original_len / wavelength - low) / (high - low) if high > low else 0.0
    mixed = blend * theta + (1 - blend) * theta / factor
    slow = wavelength > original_len / low
    fast = wavelength < original_len / high
    return np.where(fast, theta, np.where(slow, theta / factor, mixed))


def dynamic_ntk_base(base, factor, original_len, seq_len, d):
    """Return the base dynamic NTK scaling uses for a sequence of ``seq_len`` tokens.

    base * (factor * n / L - (factor - 1)) ** (d / (d - 2)) with n = max(seq_len, L): up to the
    original context L nothing changes; beyond it the base grows with the length: at n = k * L it
    is NTK's base (`ntk_base`) for a scale of factor * (k - 1) + 1, so factor 1 is NTK scaled to
    the current length. This is ``_compute_dynamic_ntk_parameters`` of transformers'
    ``modeling_rope_utils.py`` (``rope_type: "dynamic"``).

    Parameters
    ----------
    base : float
        The trained base (> 1).
    factor : float
        The config's ``factor`` (>= 1).
    original_len : int
        The training context length L (``max_position_embeddings``).
    seq_len : int
        The current sequence length n: the largest position + 1 (>= 1).
    d : int
        Head width (even, at least 4).

    Returns
    -------
    float

    Examples
    --------
    >>> dynamic_ntk_base(10000.0, 2.0, 32, 16, 8) == dynamic_ntk_base(10000.0, 2.0, 32, 32, 8)
    True
    >>> round(dynamic_ntk_base(10000.0, 2.0, 32, 64, 8), 1)    # (2 * 2 - 1) ** (8 / 6)
    43267.5
    """
    return _dynamic_ntk_base("dynamic_ntk_base", base, factor, original_len, seq_len, d)


def _dynamic_ntk_base(func, base, factor, original_len, seq_len, d):
    """`dynamic_ntk_base`, its refusals naming ``func``, the function the caller called."""
    base = _check_base(func, base)
    factor = check_real(func, "factor", factor, at_least=1)
    original_len = check_int(func, "original_len", original_len, minimum=1)
    seq_len = check_int(func, "seq_len", seq_len, minimum=1)
    d = _check_even(func, d)
    if d == 2:
        raise ValueError(f"{func}: d must be at least 4 (the exponent d / (d - 2) needs d > 2)")
    n = max(seq_len, original_len)
    return base * (factor * n / original_len - (factor - 1)) ** (d / (d - 2))


def dynamic_ntk_frequencies(d, factor, original_len, seq_len, *, base=BASE):
    """Return dynamic NTK's pair speeds for a sequence of ``seq_len`` tokens (`dynamic_ntk_base`).

    Parameters
    ----------
    d : int
        Head width (even, at least 4).
    factor : float
        The config's ``factor`` (>= 1).
    original_len : int
        The training context length L.
    seq_len : int
        The current sequence length (the largest position + 1).
    base : float
        The trained base (> 1).

    Returns
    -------
    ndarray, shape (d/2,)
        Equal to `rope_frequencies` for seq_len <= L; slower pairs beyond it (pair 0 keeps 1).

    Examples
    --------
    >>> bool(np.all(dynamic_ntk_frequencies(8, 4.0, 32, 20) == rope_frequencies(8)))
    True
    >>> (dynamic_ntk_frequencies(8, 4.0, 32, 64) / rope_frequencies(8)).round(3)
    array([1.   , 0.585, 0.342, 0.2  ])
    """
    func = "dynamic_ntk_frequencies"
    new_base = _dynamic_ntk_base(func, base, factor, original_len, seq_len, d)
    return rope_frequencies(d, base=new_base)


def dynamic_ntk_lengths(seq_lens, original_len):
    """Return the length whose base each call of a deployed dynamic-NTK layer uses, in turn.

    Hugging Face's layer keeps the frequencies of the longest sequence seen so far
    (``_dynamic_frequency_update``): a longer sequence recomputes them ("growth"), a shorter one
    above L keeps the longer one's, and one below L restores the original frequencies ("reset").
    So the same sequence can be scored with other frequencies depending on what came before.

    Parameters
    ----------
    seq_lens : sequence of int
        The lengths of successive calls (each >= 1).
    original_len : int
        L, the trained length (>= 1).

    Returns
    -------
    list of int
        For each call, the n that `dynamic_ntk_base` is evaluated at (L for the original base).

    Examples
    --------
    >>> dynamic_ntk_lengths([64, 48, 16, 48, 32], 32)
    [64, 64, 32, 48, 48]
    """
    func = "dynamic_ntk_lengths"
    original_len = check_int(func, "original_len", original_len, minimum=1)
    if isinstance(seq_lens, str) or not hasattr(seq_lens, "__iter__"):
        raise TypeError(f"{func}: seq_lens must be a sequence of integers, got {short(seq_lens)}")
    cached, used = original_len, []
    for n, seq_len in enumerate(seq_lens):
        seq_len = check_int(func, f"seq_lens[{n}]", seq_len, minimum=1)
        if seq_len > cached:  # growth
            cached = seq_len
        if seq_len < original_len and cached > original_len:  # reset
            cached = original_len
        used.append(cached)
    return used


def rope_decay_bound(distances, d, *, base=BASE):
    """RoFormer's long-term decay bound: mean over j of |S_j|, S_j = sum_{k<j} exp(i r theta_k).

    Up to a factor set by q and k, this bounds |q_m . k_n| at distance r = m - n (Su et al.,
    section 3.4.3).

    Parameters
    ----------
    distances : array_like of float
        The distances r (any shape).
    d : int
        Width of the rotated vectors (even).
    base : float
        Greater than 1.

    Returns
    -------
    ndarray, same shape as ``distances``
        The relative upper bound; d/2 at distance 0.

    Examples
    --------
    >>> rope_decay_bound([0, 5, 50], 128).round(1)
    array([32.5, 20.8, 12.6])
    """
    func = "rope_decay_bound"
    r = check_array(func, "distances", distances)
    d = _check_even(func, d)
    terms = np.exp(1j * r[..., None] * rope_frequencies(d, base=_check_base(func, base)))
    partial_sums = np.cumsum(terms, axis=-1)
    return np.abs(partial_sums).mean(axis=-1)
