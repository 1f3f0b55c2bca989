"""Chapter 4: RoPE."""

import numpy as np

from ..rope import apply_rope, convention_permutation
from ._core import FunctionExercise, Mistake


def _vectors(seed, d):
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=d)


def _rotated(x, position, convention="interleaved"):
    return apply_rope(
        np.asarray(x, dtype=float)[None], positions=[position], convention=convention
    )[0]


def _score(q, k, m, n, convention="interleaved"):
    return _rotated(q, m, convention) @ _rotated(k, n, convention)


def _per_head(w, n_heads, order):
    """Reorder the columns of every head of ``w`` (width n_heads * d_head) by ``order``."""
    d_head = w.shape[-1] // n_heads
    heads = w.reshape(*w.shape[:-1], n_heads, d_head)
    return heads[..., order].reshape(w.shape)


def half_layout_columns(w, n_heads):
    """Return the output columns of a projection ``w``, reordered for the half layout head by head.

    ``w`` has shape (..., n_heads * d_head); inside each head the columns go from interleaved pairs
    (2i, 2i + 1) to the half layout (i, i + d_head / 2).

    Parameters
    ----------
    w : array_like, shape (..., n_heads * d_head)
        A query or key projection.
    n_heads : int
        Heads, each of an even width d_head.

    Returns
    -------
    ndarray, same shape as ``w``
        The columns in the half layout, head by head.

    Examples
    --------
    >>> half_layout_columns(np.arange(8.0), 2)   # two heads of width 4: (0 1 2 3), (4 5 6 7)
    array([0., 2., 1., 3., 4., 6., 5., 7.])
    """
    return _per_head(w, n_heads, convention_permutation(w.shape[-1] // n_heads))


q1 = FunctionExercise(
    name="rotate_pair",
    prompt=(
        "Write rotate_pair(x, angle): rotate the 2-vector x = (a, b) counter-clockwise by angle "
        "radians, as RoPE does to each pair: (a cos - b sin, a sin + b cos)."
    ),
    hint_text="Build the 2x2 matrix [[cos, -sin], [sin, cos]] and multiply it with x.",
    starter="""def rotate_pair(x, angle):
    # YOUR CODE HERE
    return x""",
    solution_code="""def rotate_pair(x, angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]]) @ x""",
    answer_name="rotate_pair",
    reference=lambda x, angle: _rotated(x, angle),
    cases=(
        {"x": np.array([1.0, 0.0]), "angle": np.pi / 2},
        {"x": np.array([0.3, -2.0]), "angle": 1.0},
        {"x": np.array([1.5, 0.5]), "angle": -4.0},
    ),
    mistakes=(
        Mistake(
            "your vector turns clockwise, by -angle: the matrix is [[cos, sin], [-sin, cos]]. "
            "RoPE turns counter-clockwise: (a cos - b sin, a sin + b cos), so (1, 0) turned a "
            "quarter turn becomes (0, 1).",
            lambda x, angle: _rotated(x, -angle),
        ),
        Mistake(
            "your angle was read as degrees; numpy's np.cos and np.sin, and RoPE, use radians.",
            lambda x, angle: _rotated(x, np.deg2rad(angle)),
        ),
    ),
    success="With base 10000 and d = 2 the single pair turns 1 radian per position: this is RoPE.",
)

q2 = FunctionExercise(
    name="rope_score",
    prompt=(
        "Write rope_score(q, k, m, n): the dot product of q rotated to position m and k rotated "
        "to position n, using posenc_lib.apply_rope (q and k are 1-D vectors of even length). "
        "Then check that rope_score(q, k, 3, 7) equals rope_score(q, k, 103, 107)."
    ),
    hint_text="apply_rope wants shape (T, d): pass q[None] with positions=[m], take row 0.",
    starter="""def rope_score(q, k, m, n):
    # YOUR CODE HERE
    return float(q @ k)""",
    solution_code="""from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    q_m = apply_rope(q[None], positions=[m])[0]
    k_n = apply_rope(k[None], positions=[n])[0]
    return float(q_m @ k_n)""",
    answer_name="rope_score",
    reference=_score,
    cases=tuple(
        {"q": q, "k": k, "m": m, "n": n}
        for (q, k), (m, n) in (
            (_vectors(0, 8), (3, 7)),
            (_vectors(0, 8), (103, 107)),
            (_vectors(1, 16), (50, 2)),
        )
    ),
    mistakes=(
        Mistake(
            "your score has not rotated q or k: it is the plain dot product q . k. Rotate q to "
            "position m and k to position n first.",
            lambda q, k, m, n: q @ k,
        ),
        Mistake(
            "your score rotates q to position n and k to position m, the offset in the "
            "opposite direction. q goes to m, k to n.",
            lambda q, k, m, n: _score(q, k, n, m),
        ),
        Mistake(
            "only q is rotated; rotate k to position n as well, so that only the offset n - m "
            "survives the dot product.",
            lambda q, k, m, n: _rotated(q, m) @ k,
        ),
        Mistake(
            "your score pairs dimensions the 'half' way (i, i + d/2). This exercise uses "
            "apply_rope's default interleaved pairs (0, 1), (2, 3), ...",
            lambda q, k, m, n: _score(q, k, m, n, "half"),
        ),
    ),
)

q3 = FunctionExercise(
    name="to_half_layout",
    prompt=(
        "Write to_half_layout(w, n_heads): w is a query or key projection of shape "
        "(d_model, n_heads * d_head), whose output columns are n_heads heads of d_head columns "
        "each. Inside every head, reorder the columns from the interleaved pairs (0,1), (2,3), "
        "... to the half layout (i, i + d_head/2): first the head's even columns, then its odd "
        "ones. Heads keep their places. This is the permutation a checkpoint conversion applies."
    ),
    hint_text=(
        "Reshape w to (d_model, n_heads, d_head), so that the last axis is one head; "
        "np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)]) lists the new "
        "order of a head's columns. Index the last axis with it and reshape back."
    ),
    starter="""def to_half_layout(w, n_heads):
    # YOUR CODE HERE
    return w""",
    solution_code="""def to_half_layout(w, n_heads):
    d_head = w.shape[-1] // n_heads
    order = np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])
    heads = w.reshape(w.shape[0], n_heads, d_head)
    return heads[:, :, order].reshape(w.shape)""",
    answer_name="to_half_layout",
    reference=half_layout_columns,
    cases=tuple(
        {"w": np.random.default_rng(seed).normal(size=shape), "n_heads": n_heads}
        for seed, shape, n_heads in (
            (0, (16, 16), 2),
            (1, (6, 24), 3),
            (2, (5, 8), 1),
            (3, (4, 12), 2),  # heads of 6: not the 8 of the other cases
        )
    ),
    mistakes=(
        Mistake(
            "your function reorders the whole last axis as if it were one head, which moves "
            "columns from one head into another. Reorder inside each head: reshape the last "
            "axis to (n_heads, d_head) first.",
            lambda w, n_heads: half_layout_columns(w, 1),
        ),
        Mistake(
            "your reordering goes the other way, from the half layout back to interleaved "
            "pairs: you used the inverse permutation. The new column j of a head is old column "
            "order[j], with order = [0, 2, 4, ..., 1, 3, 5, ...].",
            lambda w, n_heads: _per_head(
                w, n_heads, np.argsort(convention_permutation(w.shape[-1] // n_heads))
            ),
        ),
        Mistake(
            "your function reorders the rows of w, the input side. The pairs RoPE rotates are "
            "the output columns, the last axis.",
            lambda w, n_heads: half_layout_columns(w.T, n_heads).T,
        ),
    ),
    success="Queries projected with the reordered weights and rotated the 'half' way, head by "
    "head, give the same scores as the original weights rotated the interleaved way.",
)

EXERCISES = [q1, q2, q3]
