"""Chapter 4: RoPE."""

import numpy as np

from ..rope import apply_rope, convention_permutation
from ._core import FunctionExercise


def _vectors(seed, d):
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=d)


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
    reference=lambda x, angle: apply_rope(np.asarray(x)[None], positions=[angle])[0],
    cases=(
        {"x": np.array([1.0, 0.0]), "angle": np.pi / 2},
        {"x": np.array([0.3, -2.0]), "angle": 1.0},
        {"x": np.array([1.5, 0.5]), "angle": -4.0},
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
    reference=lambda q, k, m, n: (
        apply_rope(q[None], positions=[m])[0] @ apply_rope(k[None], positions=[n])[0]
    ),
    cases=tuple(
        {"q": q, "k": k, "m": m, "n": n}
        for (q, k), (m, n) in (
            (_vectors(0, 8), (3, 7)),
            (_vectors(0, 8), (103, 107)),
            (_vectors(1, 16), (50, 2)),
        )
    ),
)

q3 = FunctionExercise(
    name="to_half_layout",
    prompt=(
        "Write to_half_layout(w): reorder the last axis of a projection's output columns from "
        "the interleaved pairs (0,1), (2,3), ... to the half layout (i, i + d/2): first all even "
        "columns, then all odd ones. This is the permutation a checkpoint conversion applies."
    ),
    hint_text="np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)]) lists the new order.",
    starter="""def to_half_layout(w):
    # YOUR CODE HERE
    return w""",
    solution_code="""def to_half_layout(w):
    d = w.shape[-1]
    order = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])
    return w[..., order]""",
    answer_name="to_half_layout",
    reference=lambda w: w[..., convention_permutation(w.shape[-1])],
    cases=tuple(
        {"w": np.random.default_rng(seed).normal(size=shape)}
        for seed, shape in ((0, (4, 8)), (1, (3, 2)), (2, (5, 16)))
    ),
    success="Queries projected with the reordered weights, rotated the 'half' way, give the "
    "same scores as the original weights rotated the interleaved way.",
)

EXERCISES = [q1, q2, q3]
