"""Chapter 4: RoPE."""

import copy
from dataclasses import dataclass

import numpy as np

from ..rope import (
    apply_rope,
    convention_permutation,
    dynamic_ntk_lengths,
    ntk_base,
    rope_decay_bound,
    rope_frequencies,
)
from ._core import ChoiceExercise, Feedback, FunctionExercise, Mistake, compare_arrays


@dataclass(repr=False)
class _TwoArgumentExercise(FunctionExercise):
    """A `FunctionExercise` of two arguments that also tries a failing answer with them swapped.

    A learner who writes ``rotate_pair(angle, x)`` for a prompt that asks for
    ``rotate_pair(x, angle)`` gets whatever error their code raises on a vector where it expects
    a number. When the same function is right on every case with its two arguments swapped, the
    feedback says so and names the order the checker uses.

    Examples
    --------
    >>> feedback = q1.evaluate(lambda angle, x: np.array([[np.cos(angle), -np.sin(angle)],
    ...                                                    [np.sin(angle), np.cos(angle)]]) @ x)
    >>> feedback.passed, "called as rotate_pair(angle, x)" in feedback.message
    (False, True)
    """

    def grade(self, answer):
        """Grade as `FunctionExercise` does; a failing answer right when swapped is told so."""
        feedback = super().grade(answer)
        if feedback.passed or "Note: arguments arrive" in feedback.message:
            return feedback
        if not callable(answer) or not self._right_when_swapped(answer):
            return feedback
        first, second = self.parameters
        return Feedback(
            False,
            f"{feedback.message.rstrip('.')}. Your function gives the right answer when called as "
            f"{self.answer_name}({second}, {first}): the checker calls {self.signature}, "
            f"{first} first and {second} second, as the prompt writes it. Swap your parameters.",
        )

    def _right_when_swapped(self, answer):
        for case in self.cases:
            first, second = (copy.deepcopy(v) for v in case.values())
            try:  # the learner's function, swapped: any failure (even sys.exit) means "no"
                result = answer(second, first)
            except (Exception, SystemExit):
                return False
            expected = self.reference(**case)
            if compare_arrays(result, expected, rtol=self.rtol, atol=self.atol) is not None:
                return False
        return True


def _vectors(seed, d):
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=d)


def _rotated(x, position, convention="interleaved"):
    return apply_rope(
        np.asarray(x, dtype=float)[None], positions=[position], convention=convention
    )[0]


def _score(q, k, m, n, convention="interleaved"):
    return _rotated(q, m, convention) @ _rotated(k, n, convention)


def _score_with_speeds(q, k, m, n, exponents):
    """Return the score with pair i turning at 10000 ** -exponents(i, d): a learner's own speeds."""
    d = len(q)
    speeds = 10000.0 ** -exponents(np.arange(d // 2), d)
    q_m = apply_rope(np.asarray(q, dtype=float)[None], positions=[m], frequencies=speeds)[0]
    k_n = apply_rope(np.asarray(k, dtype=float)[None], positions=[n], frequencies=speeds)[0]
    return q_m @ k_n


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


q1 = _TwoArgumentExercise(
    name="rotate_pair",
    prompt=(
        "Chapter 2's M_k moved the pair (sin p w, cos p w) k positions on with the block "
        "[[cos kw, sin kw], [-sin kw, cos kw]]. RoPE turns a pair (a, b) = (x_2i, x_2i+1) "
        "counter-clockwise in the (a, b) plane, the way mathematics measures angles (the figure "
        "above). Write rotate_pair(x, angle): the 2-vector x = (a, b) turned counter-clockwise by "
        "angle radians."
    ),
    hint_text=(
        "Chapter 2's block, read in the (a, b) plane (a across, b up), turns clockwise. A "
        "counter-clockwise turn by the same angle undoes it: for a rotation, undoing is "
        "transposing. Check your matrix on (1, 0) and a quarter turn: it must give (0, 1).",
        "c, s = np.cos(angle), np.sin(angle); the counter-clockwise matrix is [[c, -s], [s, c]], "
        "so the result is (a c - b s, a s + b c).",
    ),
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
            "your vector turns clockwise, by -angle: the matrix [[cos, sin], [-sin, cos]] is "
            "chapter 2's block as it stands. It moves chapter 2's (sin, cos) clock hand forward, "
            "but in the (a, b) plane it turns clockwise. RoPE turns counter-clockwise, with its "
            "transpose: (a cos - b sin, a sin + b cos), so (1, 0) turned a quarter turn becomes "
            "(0, 1).",
            lambda x, angle: _rotated(x, -angle),
        ),
        Mistake(
            "your angle was read as degrees; numpy's np.cos and np.sin, and RoPE, use radians.",
            lambda x, angle: _rotated(x, np.deg2rad(angle)),
        ),
    ),
    success="With base 10000 and d = 2 the single pair turns 1 radian per position: this is RoPE. "
    "Its matrix is the transpose of chapter 2's block: the same turn, measured the other way.",
    goal=1,
    reuses=("02",),
)

q2 = FunctionExercise(
    name="rope_score",
    prompt=(
        "Write rope_score(q, k, m, n): the dot product of q rotated to position m and k rotated "
        "to position n. q and k are 1-D vectors of the same even length d; pair i (dimensions "
        "2i, 2i + 1) turns at theta_i = 10000^(-2i/d) radians per position. Use "
        "posenc_lib.apply_rope, or your rotate_pair on every pair. Return one number (a float: "
        "`.item()` turns a 1 x 1 array into one). Then check that rope_score(q, k, 3, 7) equals "
        "rope_score(q, k, 103, 107)."
    ),
    hint_text=(
        "Rotate each vector to its own position first, then take the dot product. apply_rope "
        "works on a 2-D array, positions down and dimensions across, so a single vector is one "
        "row of it.",
        "Give apply_rope a 2-D array of one row (q[None] has shape (1, d)) and its one "
        "position, and take row 0 of what comes back; rotate k to n the same way, then take "
        "the dot product as one number.",
    ),
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
            "your score is RoPE's score for the opposite offset, m - n instead of n - m. "
            "Three slips give exactly this: q rotated to position n and k to "
            "m; both vectors turned clockwise (by -m and -n: the rotation matrix transposed, or "
            "the sin terms with the wrong sign); or only k turned, by m - n. RoPE turns q "
            "counter-clockwise to m and k to n.",
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
        Mistake(
            "your pairs turn at 10000^(-2(i+1)/d): you counted the pairs from 1, so each pair turns "
            "at the speed of RoPE's next pair and none at 1 radian per position. "
            "Counting pairs from 0, pair i turns at 10000^(-2i/d) (RoFormer writes 2(i-1)/d with "
            "i from 1: the same speeds). apply_rope has them built in.",
            lambda q, k, m, n: _score_with_speeds(q, k, m, n, lambda i, d: 2 * (i + 1) / d),
        ),
        Mistake(
            "your pairs turn at 10000^(-i/d): the exponent lacks its factor 2. Pair i covers "
            "dimensions 2i and 2i + 1 and turns at 10000^(-2i/d), so your slow pairs turn too "
            "fast. apply_rope has the speeds built in.",
            lambda q, k, m, n: _score_with_speeds(q, k, m, n, lambda i, d: i / d),
        ),
        Mistake(
            "every pair of your vectors turns at the same speed, 1 radian per position (each pair "
            "rotated by m, or n, itself). RoPE gives each pair its own speed: pair i turns by "
            "m * theta_i with theta_i = 10000^(-2i/d), fast for pair 0 and ever slower after. "
            "apply_rope has the speeds built in; with rotate_pair, pass m * theta_i as the angle.",
            lambda q, k, m, n: _score_with_speeds(q, k, m, n, lambda i, d: 0 * i),
        ),
        Mistake(
            "apply_rope takes a 2-D array, positions down and dimensions across: a single "
            "vector is one row of it. Pass q[None] (shape (1, d)) with positions=[m], and take "
            "row 0 of the result.",
            lambda q, k, m, n: float(apply_rope(q, positions=[m]) @ apply_rope(k, positions=[n])),
        ),
    ),
    goal=2,
)


def _bound_with(r, d, *, exponent=2, inclusive=True, part=None, reduce="mean"):
    """RoFormer's relative bound computed with one change: the named mistakes of q3."""
    theta = 10000.0 ** (-exponent * np.arange(d // 2) / d)
    terms = np.exp(1j * r * theta)
    if part == "real":
        terms = terms.real
    sums = np.cumsum(terms)
    if not inclusive:
        sums = sums - terms
    if part == "abs_first":
        sums = np.cumsum(np.abs(terms))
    if reduce == "abs_of_mean":
        return np.abs(sums.mean())
    values = np.abs(sums)
    return values.sum() if reduce == "sum" else values.mean()


q3 = FunctionExercise(
    name="decay_bound",
    prompt=(
        "Write decay_bound(r, d): RoFormer's relative upper bound at distance r for a head of "
        "even width d. With theta_k = 10000^(-2k/d) for the pairs k = 0 .. d/2 - 1, the partial "
        "sums are S_j = e^(i r theta_0) + ... + e^(i r theta_j) (the first j + 1 terms, complex "
        "numbers), and the bound is the mean of |S_j| over j = 0 .. d/2 - 1. r is a number; "
        "return a number."
    ),
    hint_text=(
        "Build the d/2 complex terms as one array (1j is the imaginary unit in Python); the "
        "running sums of an array are one numpy call, and np.abs gives a complex number's length.",
        "theta = 10000.0 ** (-2 * np.arange(d // 2) / d); the terms are np.exp(1j * r * theta); "
        "np.cumsum of the terms gives every S_j; the bound is the mean of their np.abs.",
    ),
    starter="""def decay_bound(r, d):
    # YOUR CODE HERE
    return 0.0""",
    solution_code="""def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    partial_sums = np.cumsum(np.exp(1j * r * theta))
    return np.abs(partial_sums).mean()""",
    answer_name="decay_bound",
    reference=lambda r, d: rope_decay_bound(r, d),
    cases=({"r": 5, "d": 128}, {"r": 50, "d": 16}, {"r": 250, "d": 64}),
    mistakes=(
        Mistake(
            "your bound is 1 at every distance: you took the length of each term before adding "
            "(each e^(i r theta_k) has length 1). Add the complex terms first, S_j, then take "
            "the length of each partial sum.",
            lambda r, d: 1.0,
        ),
        Mistake(
            "your partial sums are running sums of lengths, 1, 2, 3, ...: that is the bound at "
            "distance 0, whatever r. Add the complex terms, then take lengths: np.abs(np.cumsum("
            "terms)).",
            lambda r, d: _bound_with(r, d, part="abs_first"),
        ),
        Mistake(
            "your bound is the length of the mean of the partial sums; it is the mean of their "
            "lengths, np.abs(partial_sums).mean().",
            lambda r, d: _bound_with(r, d, reduce="abs_of_mean"),
        ),
        Mistake(
            "your bound is the sum of the |S_j|; the relative bound is their mean, the sum "
            "divided by d/2.",
            lambda r, d: _bound_with(r, d, reduce="sum"),
        ),
        Mistake(
            "your partial sums stop one term short (S_j with k < j, starting from S_0 = 0). Here "
            "S_j holds the first j + 1 terms: S_0 is e^(i r theta_0) and the last S_j sums all "
            "d/2 terms, as np.cumsum gives them.",
            lambda r, d: _bound_with(r, d, inclusive=False),
        ),
        Mistake(
            "your terms are real: you kept only the cosine. Each term is the complex number "
            "e^(i r theta_k) = cos(r theta_k) + i sin(r theta_k); write np.exp(1j * r * theta).",
            lambda r, d: _bound_with(r, d, part="real"),
        ),
        Mistake(
            "your speeds are 10000^(-k/d): the exponent lacks its factor 2. Pair k turns at "
            "theta_k = 10000^(-2k/d).",
            lambda r, d: _bound_with(r, d, exponent=1),
        ),
    ),
    success="This is posenc_lib.rope.rope_decay_bound: 32.5 at distance 0 for d = 128 (the mean "
    "of 1, 2, ..., 64), falling overall with distance, but not at every step.",
    goal=3,
)

q4 = FunctionExercise(
    name="to_half_layout",
    prompt=(
        "Write to_half_layout(w, n_heads): w is a query or key projection of shape "
        "(d_model, n_heads * d_head), whose output columns are n_heads heads of d_head columns "
        "each. Inside every head, reorder the columns from the interleaved pairs (0,1), (2,3), "
        "... to the half layout (i, i + d_head/2): first the head's even columns, then its odd "
        "ones. Heads keep their places. This is the permutation a checkpoint conversion applies."
    ),
    hint_text=(
        "Work head by head: give each head its own axis with a reshape, so that reordering the "
        "last axis cannot move a column into another head. Then list the new order of one "
        "head's columns: its even columns, then its odd ones.",
        "Reshape w to (d_model, n_heads, d_head); "
        "np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)]) lists the new "
        "order of a head's columns. Index the last axis with it and reshape back.",
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
    goal=4,
)

q5 = ChoiceExercise(
    name="pair_slider",
    prompt=(
        "Predict, then move the sliders: set (m, n) = (3, 7), then slide pair i from 0 up to 7, "
        "the slowest pair of this width-16 head. What happens? (a) the angles the arrows have "
        "turned through from their faint start shrink from pair to pair (pair 0's 7 radians "
        "wrap past a full turn, so read the angle, not the picture), and the black marker stays "
        "where it is; (b) the angles shrink, and the marker moves along the curve; (c) the "
        "angles grow, and the marker stays where it is; (d) nothing changes in either panel."
    ),
    hint_text=(
        "Pair i turns by m * theta_i, and theta_i falls with i. Which pairs does the score add "
        "up: the pair drawn, or all of them?"
    ),
    starter='answer_pair = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_pair = "a"',
    answer_name="answer_pair",
    options={
        "a": "Right: the higher the pair, the slower it turns (pair 7 barely moves at all), but "
        "the score sums all 8 pairs whichever one is drawn, so the marker stays at offset 4.",
        "b": "No: the arrows do turn less for higher pairs, but the score (right panel) sums "
        "all 8 pairs; the pair slider only chooses which pair is drawn, so the marker stays.",
        "c": "No: theta_i = 10000^(-2i/16) falls with i, so higher pairs turn less: pair 0 by "
        "3 and 7 radians, pair 7 by less than a hundredth of that.",
        "d": "No: the left panel changes, since each pair has its own vectors and its own "
        "speed; only the right panel's marker stays.",
    },
    correct="a",
    goal=1,
)

q6 = ChoiceExercise(
    name="unseen_angles",
    prompt=(
        "Predict, before the figure: a RoPE head of width 128 trained on 2,048 positions is run "
        "on 8,192. Which of its pairs meet angles they never met in training? (a) the fast "
        "pairs, which turn fastest; (b) the slow pairs, which never completed a turn in "
        "training; (c) every pair alike, since every angle is 4 times larger; (d) none, since "
        "RoPE gives an angle for every position."
    ),
    hint_text=(
        "An angle is a direction: a pair that has turned through full circles in training has "
        "already seen every direction. Which pairs have not?"
    ),
    starter='answer_unseen = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_unseen = "b"',
    answer_name="answer_unseen",
    options={
        "a": "No: a fast pair has turned through many full circles in training, so every "
        "direction it meets later is one it has seen.",
        "b": "Right: a slow pair never completed a turn in 2,048 positions, so its angles at "
        "8,192 point in directions it never saw; the fixes below slow those pairs down.",
        "c": "No: every angle is 4 times larger, but a fast pair's directions repeat every "
        "turn, so only the slow pairs, which never completed one, meet new directions.",
        "d": "No: RoPE gives an angle everywhere, but a trained model has only met the "
        "angles of its training length; being defined is not being trained.",
    },
    correct="b",
    goal=5,
)


def _llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    """Each pair's speed kept, theta' / theta, under Llama 3.1's scaling, from its wavelength."""
    wavelengths = np.asarray(wavelengths, dtype=float)
    blend = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mixed = blend + (1 - blend) / factor
    return np.where(
        wavelengths < original_len / high_freq_factor,
        1.0,
        np.where(wavelengths > original_len / low_freq_factor, 1 / factor, mixed),
    )


def _llama3_case(wavelengths, factor, original_len, low, high):
    return {
        "wavelengths": np.asarray(wavelengths, dtype=float),
        "factor": factor,
        "original_len": original_len,
        "low_freq_factor": low,
        "high_freq_factor": high,
    }


def _wrong_llama3(keep, slow, mix, slow_first=False):
    """Return a wrong version of `_llama3_speeds`.

    ``keep`` and ``slow`` give the two thresholds from (L, low, high), ``mix`` the blend from
    (s, factor), or None for a blend linear in the wavelength; ``slow_first`` tests the slow
    threshold before the keep one.
    """

    def answer(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
        wavelengths = np.asarray(wavelengths, dtype=float)
        low, high = low_freq_factor, high_freq_factor
        s = (original_len / wavelengths - low) / (high - low)
        kept = wavelengths < keep(original_len, low, high)
        slowed = wavelengths > slow(original_len, low, high)
        if mix is None:  # the blend linear in the wavelength between the thresholds
            short, long = keep(original_len, low, high), slow(original_len, low, high)
            s = (long - wavelengths) / (long - short)
            return np.where(kept, 1.0, np.where(slowed, 1 / factor, s + (1 - s) / factor))
        if slow_first:
            return np.where(slowed, 1 / factor, np.where(kept, 1.0, mix(s, factor)))
        return np.where(kept, 1.0, np.where(slowed, 1 / factor, mix(s, factor)))

    return answer


_RIGHT = {
    "keep": lambda L, low, high: L / high,
    "slow": lambda L, low, high: L / low,
    "mix": lambda s, f: s + (1 - s) / f,
}

q7 = FunctionExercise(
    name="ntk_speeds",
    prompt=(
        "NTK-aware scaling replaces RoPE's base b by b' = b * s ** (d / (d - 2)) for a context s "
        "times the trained one. Write ntk_speeds(i, d, s): the speed pair i keeps, theta'_i / "
        "theta_i (1: unchanged, 1 / s: slowed as interpolation slows every pair), for an array "
        "i of pair indices 0 .. d/2 - 1; return an array."
    ),
    hint_text=(
        "Write pair i's speed theta_i = b ** (-2i / d) (chapter 2's formula) once with b and "
        "once with b', and divide: b itself cancels.",
        "theta'_i / theta_i = (b' / b) ** (-2i / d), and b' / b = s ** (d / (d - 2)): "
        "multiply the two exponents.",
    ),
    starter="""def ntk_speeds(i, d, s):
    # YOUR CODE HERE
    return np.ones(len(i))""",
    solution_code="""def ntk_speeds(i, d, s):
    return s ** (-2 * np.asarray(i) / (d - 2))""",
    answer_name="ntk_speeds",
    reference=lambda i, d, s: (
        rope_frequencies(d, base=ntk_base(10000.0, s, d))[i] / rope_frequencies(d)[i]
    ),
    cases=(
        {"i": np.arange(64), "d": 128, "s": 4.0},
        {"i": np.arange(4), "d": 8, "s": 2.0},
        {"i": np.array([0, 5, 31]), "d": 64, "s": 8.0},
    ),
    mistakes=(
        Mistake(
            "every pair keeps 1 / s: that is position interpolation. NTK-aware scaling changes "
            "the base, and a new base slows each pair by its own amount.",
            lambda i, d, s: np.full(len(i), 1.0 / s),
        ),
        Mistake(
            "your speeds use b' = b * s: the exponent d / (d - 2) is missing, so the last pair "
            "keeps a little more than 1 / s. With it, the last pair, i = d/2 - 1, keeps exactly "
            "1 / s.",
            lambda i, d, s: s ** (-2 * np.asarray(i) / d),
        ),
        Mistake(
            "your ratios are above 1, as if the pairs sped up: a larger base slows every pair "
            "but the first. Divide the new speed by the old one, theta'_i / theta_i, and check "
            "the sign of the exponent.",
            lambda i, d, s: s ** (2 * np.asarray(i) / (d - 2)),
        ),
    ),
    success="Pair 0 keeps its speed whatever the base, and the last pair keeps exactly 1 / s; "
    "each pair between keeps s ** (-2i / (d - 2)), more than 1 / s, which is why the slow "
    "pairs between the ends still overshoot their largest trained angle in the figure above.",
    goal=5,
    reuses=("02",),
)


q8 = FunctionExercise(
    name="llama3_speeds",
    prompt=(
        "Write llama3_speeds(wavelengths, factor, original_len, low_freq_factor, "
        "high_freq_factor): for each pair's wavelength (positions per full turn, a 1-D array), "
        "the speed Llama 3.1's scaling keeps, theta' / theta. A pair whose wavelength is below "
        "original_len / high_freq_factor keeps its speed (1); one above original_len / "
        "low_freq_factor is slowed by factor (1 / factor); in between, with "
        "s = (original_len / wavelength - low_freq_factor) / (high_freq_factor - "
        "low_freq_factor), it keeps s + (1 - s) / factor. Return an array like wavelengths."
    ),
    hint_text=(
        "Sort the pairs into three groups by their wavelength first: which pairs turn often "
        "during training, which turn less than once, and which lie between?",
        "Compute the two thresholds, original_len / high_freq_factor and original_len / "
        "low_freq_factor, and s for every pair; then choose per pair with np.where: 1 below the "
        "first threshold, 1 / factor above the second, s + (1 - s) / factor between.",
    ),
    starter="""def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    # YOUR CODE HERE
    return np.ones_like(wavelengths)""",
    solution_code="""def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    wavelengths = np.asarray(wavelengths, dtype=float)
    s = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = s + (1 - s) / factor
    slowed = np.where(wavelengths > original_len / low_freq_factor, 1 / factor, blended)
    return np.where(wavelengths < original_len / high_freq_factor, 1.0, slowed)""",
    answer_name="llama3_speeds",
    reference=_llama3_speeds,
    cases=(
        _llama3_case(2 * np.pi * 10000.0 ** (np.arange(8) / 8), 8.0, 100, 1.0, 4.0),
        _llama3_case([6.0, 20.0, 30.0, 50.0, 90.0, 150.0, 400.0], 4.0, 200, 2.0, 8.0),
        _llama3_case([3.0, 12.0, 40.0, 64.0, 70.0, 1000.0], 2.0, 64, 1.0, 3.0),
    ),
    mistakes=(
        Mistake(
            "your thresholds are original_len times the factors, not divided by them: a pair is "
            "kept when its wavelength is below original_len / high_freq_factor (it turns more "
            "than high_freq_factor times in training) and slowed above original_len / "
            "low_freq_factor.",
            _wrong_llama3(
                keep=lambda L, low, high: L * low,
                slow=lambda L, low, high: L * high,
                mix=_RIGHT["mix"],
            ),
        ),
        Mistake(
            "your pairs jump from full speed straight to 1 / factor at one wavelength: there is "
            "no blend (swapping the two thresholds does this too). Keep pairs below "
            "original_len / high_freq_factor, slow those above original_len / low_freq_factor, "
            "and blend the ones between.",
            _wrong_llama3(
                keep=lambda L, low, high: L / low,
                slow=lambda L, low, high: L / high,
                mix=_RIGHT["mix"],
                slow_first=True,
            ),
        ),
        Mistake(
            "your blend is the wrong way round: s is 1 at the short threshold, where the pair "
            "must keep its full speed, so the blend is s + (1 - s) / factor.",
            _wrong_llama3(
                keep=_RIGHT["keep"], slow=_RIGHT["slow"], mix=lambda s, f: (1 - s) + s / f
            ),
        ),
        Mistake(
            "your blended pairs keep their full speed: between the thresholds the speed falls "
            "smoothly from 1 to 1 / factor, s + (1 - s) / factor.",
            _wrong_llama3(
                keep=_RIGHT["keep"], slow=_RIGHT["slow"], mix=lambda s, f: np.ones_like(s)
            ),
        ),
        Mistake(
            "your slow pairs are sped up by the factor: slowing a pair divides its speed, so "
            "they keep 1 / factor.",
            lambda wavelengths, factor, original_len, low_freq_factor, high_freq_factor: (
                _llama3_speeds(
                    wavelengths, 1 / factor, original_len, low_freq_factor, high_freq_factor
                )
            ),
        ),
        Mistake(
            "your blend is linear in the wavelength; Llama 3.1's is linear in the number of "
            "turns, original_len / wavelength: s = (original_len / wavelength - "
            "low_freq_factor) / (high_freq_factor - low_freq_factor).",
            _wrong_llama3(
                keep=_RIGHT["keep"],
                slow=_RIGHT["slow"],
                mix=None,
            ),
        ),
    ),
    success="This is posenc_lib.rope.llama3_frequencies divided by rope_frequencies, and "
    "Hugging Face's _compute_llama3_parameters. A pair that turns exactly once (wavelength = "
    "original_len) has s = 0: it is slowed by the whole factor; the blend meets both thresholds "
    "without a jump.",
    goal=5,
)


def _lengths(seq_lens, original_len, *, grow=True, reset=lambda n, L: n < L):
    """Return a wrong version of `dynamic_ntk_lengths`: the switches make the named mistakes."""
    cached, used = original_len, []
    for n in seq_lens:
        if grow and n > cached:
            cached = n
        if not grow:
            cached = max(n, original_len)
        if reset(n, original_len) and cached > original_len:
            cached = original_len
        used.append(cached)
    return used


q9 = FunctionExercise(
    name="dynamic_lengths",
    prompt=(
        "Hugging Face's dynamic-NTK layer starts at the trained length original_len and caches "
        "one length, whose base it uses. On each call of seq_len tokens: if seq_len is longer than "
        "the cached length, it caches seq_len (growth); then, if seq_len is shorter than "
        "original_len and the cached length is longer than original_len, it caches "
        "original_len again (reset). Write dynamic_lengths(seq_lens, original_len): the cached "
        "length each call in seq_lens (a list of ints, in order) runs with, as a list."
    ),
    hint_text=(
        "The answer for a call depends on the calls before it: keep one variable for the "
        "cached length, starting at original_len, and walk the calls in order.",
        "For each n in seq_lens: if n is longer than the cached length, cache n; then, if n is "
        "shorter than original_len and the cached length is longer than original_len, cache "
        "original_len; append the cached length to the list you return.",
    ),
    starter="""def dynamic_lengths(seq_lens, original_len):
    # YOUR CODE HERE
    return list(seq_lens)""",
    solution_code="""def dynamic_lengths(seq_lens, original_len):
    cached, used = original_len, []
    for n in seq_lens:
        if n > cached:  # growth
            cached = n
        if n < original_len and cached > original_len:  # reset
            cached = original_len
        used.append(cached)
    return used""",
    answer_name="dynamic_lengths",
    reference=dynamic_ntk_lengths,
    cases=(
        {"seq_lens": [64, 48, 16, 48, 32], "original_len": 32},
        {"seq_lens": [8192, 4096, 1024, 4096, 2048], "original_len": 2048},
        {"seq_lens": [10, 100, 20, 200, 150, 50, 60], "original_len": 50},
        {"seq_lens": [64, 31, 40], "original_len": 32},  # a short call just below original_len
    ),
    mistakes=(
        Mistake(
            "your layer never caches: each call uses its own length (or original_len when "
            "shorter). The deployed layer keeps the longest length since the last reset, so a "
            "call can run with an earlier, longer call's base.",
            lambda seq_lens, original_len: _lengths(seq_lens, original_len, grow=False),
        ),
        Mistake(
            "your layer never resets: a call shorter than original_len restores the trained "
            "length, so the cached length can shrink again.",
            lambda seq_lens, original_len: _lengths(
                seq_lens, original_len, reset=lambda n, L: False
            ),
        ),
        Mistake(
            "your layer also resets on a call of exactly original_len: the reset is for calls "
            "shorter than original_len only (seq_len < original_len).",
            lambda seq_lens, original_len: _lengths(
                seq_lens, original_len, reset=lambda n, L: n <= L
            ),
        ),
    ),
    success="This is posenc_lib.rope.dynamic_ntk_lengths and Hugging Face's growth-and-reset rule: "
    "the same prompt can run with another base depending on the calls before it.",
    goal=5,
)


EXERCISES = [q1, q2, q3, q4, q5, q6, q7, q8, q9]
