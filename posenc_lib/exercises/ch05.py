"""Chapter 5: ALiBi."""

import numpy as np

from ..alibi import alibi_slopes
from ._core import FunctionExercise, Mistake


def _geometric(m, start=1):
    """2^(-8k/m) for k = start .. start + m - 1."""
    return 2.0 ** (-8 * np.arange(start, start + m) / m)


def _below(n):
    """Return the largest power of two not above n."""
    return 2 ** int(np.floor(np.log2(n)))


def _extra_slopes(n, pick):
    """Return the official recipe with another choice of the 2c-head slopes for the extra heads."""
    c = _below(n)
    if c == n:
        return _geometric(n)
    return np.concatenate([_geometric(c), pick(_geometric(2 * c))[: n - c]])


def _distance(seq_len, signed=False):
    i = np.arange(seq_len)
    return i[:, None] - i[None, :] if signed else np.abs(i[:, None] - i[None, :])


q1 = FunctionExercise(
    name="slopes",
    prompt=(
        "Write slopes(n): ALiBi's slope for each of n heads. For n a power of two, the geometric "
        "sequence 2^(-8/n), 2^(-16/n), ..., 2^-8. Otherwise take the slopes for the largest power "
        "of two c below n, then every other slope of the 2c-head sequence, the first n - c."
    ),
    hint_text=(
        "Write a helper geometric(m) = 2 ** (-8 * np.arange(1, m + 1) / m). The largest power of "
        "two not above n is 2 ** int(np.floor(np.log2(n)))."
    ),
    starter="""def slopes(n):
    # YOUR CODE HERE
    return np.ones(n)""",
    solution_code="""def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.concatenate([geometric(c), geometric(2 * c)[0::2][: n - c]])""",
    answer_name="slopes",
    reference=lambda n: alibi_slopes(n),
    cases=({"n": 8}, {"n": 12}, {"n": 5}, {"n": 1}),
    mistakes=(
        Mistake(
            "your slopes are negative. Slopes are positive rates; the minus sign belongs in the "
            "bias, -slope * |i - j|.",
            lambda n: -alibi_slopes(n),
        ),
        Mistake(
            "your sequence starts at 2^0 = 1: the first slope is 2^(-8/n), and the last 2^-8.",
            lambda n: _geometric(n, start=0),
        ),
        Mistake(
            "for a head count that is not a power of two you used the geometric sequence for n "
            "heads, 2^(-8k/n). The official recipe keeps the c heads of the power of two below "
            "n and adds every other slope of the 2c-head sequence (for 12 heads: 2^-1 ... 2^-8, "
            "then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5).",
            lambda n: _geometric(n),
        ),
        Mistake(
            "your extra heads take the first n - c slopes of the 2c-head sequence; take every "
            "other one, [0::2], so that they fall between the existing slopes.",
            lambda n: _extra_slopes(n, lambda s: s),
        ),
        Mistake(
            "your extra heads take the odd-numbered slopes [1::2] of the 2c-head sequence, "
            "which repeat slopes you already have; take [0::2].",
            lambda n: _extra_slopes(n, lambda s: s[1::2]),
        ),
        Mistake(
            "you have the right slopes in another order: the official code lists the c "
            "power-of-two heads first and appends the extra heads after them, unsorted.",
            lambda n: np.sort(alibi_slopes(n))[::-1],
        ),
        Mistake(
            "you have the right slopes in another order (ascending): the official code lists "
            "the steepest head first, 2^(-8/c), and the gentlest of the c power-of-two heads "
            "last, 2^-8, then appends the extra heads.",
            lambda n: np.sort(alibi_slopes(n)),
        ),
    ),
)


class _CausalMask(Mistake):
    """A bias with the causal mask folded in: -slope * (i - j) below the diagonal, -inf above."""

    def matches(self, result, arguments, *, rtol=1e-6, atol=1e-9):
        try:
            result = np.asarray(result, dtype=float)
            expected = -arguments["slope"] * _distance(arguments["seq_len"])
            if result.shape != expected.shape or result.shape[0] < 2:
                return False
            upper = np.triu(np.ones(result.shape, dtype=bool), k=1)
            return bool(
                np.all(result[upper] == -np.inf)
                and np.allclose(result[~upper], expected[~upper], rtol=rtol, atol=atol)
            )
        except (TypeError, ValueError):
            return False


q2 = FunctionExercise(
    name="bias_matrix",
    prompt="Write bias_matrix(seq_len, slope): the (seq_len, seq_len) ALiBi bias of one head, "
    "-slope * |i - j| for query i (row) and key j (column).",
    hint_text="np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :] gives i - j for every pair.",
    starter="""def bias_matrix(seq_len, slope):
    # YOUR CODE HERE
    return np.zeros((seq_len, seq_len))""",
    solution_code="""def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return -slope * np.abs(i[:, None] - i[None, :])""",
    answer_name="bias_matrix",
    reference=lambda seq_len, slope: -slope * _distance(seq_len),
    cases=(
        {"seq_len": 5, "slope": 0.5},
        {"seq_len": 8, "slope": 2**-8},
        {"seq_len": 1, "slope": 1.0},
    ),
    mistakes=(
        Mistake(
            "your bias has the wrong sign: +slope * |i - j| rewards distant keys. ALiBi "
            "subtracts, -slope * |i - j|, so farther keys lose weight.",
            lambda seq_len, slope: slope * _distance(seq_len),
        ),
        Mistake(
            "your bias uses the signed distance i - j: keys after the query (j > i) get a "
            "bonus. Take the absolute distance |i - j|.",
            lambda seq_len, slope: -slope * _distance(seq_len, signed=True),
        ),
        Mistake(
            "your bias uses the signed distance j - i: keys before the query get a bonus that "
            "grows with distance. Take -slope * |i - j|.",
            lambda seq_len, slope: slope * _distance(seq_len, signed=True),
        ),
        Mistake(
            "your bias is the official code's shortcut +slope * j, which gives the same weights "
            "as -slope * |i - j| only under a causal mask (a softmax ignores a constant per "
            "row). Here write the bias itself, -slope * |i - j|.",
            lambda seq_len, slope: slope * np.broadcast_to(np.arange(seq_len), (seq_len, seq_len)),
        ),
        _CausalMask(
            "your bias has the causal mask in it (-inf above the diagonal). The mask is applied "
            "separately, to the scores; the bias itself is -slope * |i - j| for every pair, "
            "keys after the query included.",
            lambda seq_len, slope: np.where(
                np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1),
                -np.inf,
                -slope * _distance(seq_len),
            ),
        ),
    ),
)

q3 = FunctionExercise(
    name="halving_distance",
    prompt=(
        "Write halving_distance(slope): how many positions farther away a key must be for "
        "ALiBi to halve its attention weight, all else equal."
    ),
    hint_text="Adding -slope * extra to a score multiplies its softmax weight by exp(-slope * extra). "
    "Solve exp(-slope * extra) = 1/2.",
    starter="""def halving_distance(slope):
    # YOUR CODE HERE
    return 0.0""",
    solution_code="""def halving_distance(slope):
    return np.log(2) / slope""",
    answer_name="halving_distance",
    reference=lambda slope: np.log(2) / slope,
    cases=({"slope": 0.5}, {"slope": 2**-8}, {"slope": 2**-0.5}),
    mistakes=(
        Mistake(
            "your answer is 1 / slope, the distance at which the weight falls by a factor e. "
            "Halving needs exp(-slope * extra) = 1/2, so extra = ln 2 / slope.",
            lambda slope: 1 / slope,
        ),
        Mistake(
            "your answer is negative: a distance is positive. From exp(-slope * extra) = 1/2, "
            "extra = ln 2 / slope.",
            lambda slope: -np.log(2) / slope,
        ),
        Mistake(
            "your answer uses log base 10 (np.log10); the softmax's exp needs the natural "
            "logarithm, np.log(2) / slope.",
            lambda slope: np.log10(2) / slope,
        ),
        Mistake(
            "your answer multiplies by the slope: a gentler slope (smaller) must give a longer "
            "distance, so divide: ln 2 / slope.",
            lambda slope: np.log(2) * slope,
        ),
    ),
    success="Head 0 of 8 (slope 1/2) halves a weight every 1.4 positions; head 7 (1/256) every "
    "177: from very local to nearly global.",
)

EXERCISES = [q1, q2, q3]
