"""Chapter 5: ALiBi."""

import numpy as np

from ..alibi import alibi_slopes
from ._core import ChoiceExercise, FunctionExercise, Mistake


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


q3 = FunctionExercise(
    name="slopes",
    prompt=(
        "Write slopes(n): ALiBi's slope for each of n heads. For n a power of two, the geometric "
        "sequence 2^(-8/n), 2^(-16/n), ..., 2^-8. Otherwise take the slopes for the largest power "
        "of two c below n, then every other slope of the 2c-head sequence, the first n - c."
    ),
    hint_text=(
        "Write the power-of-two case first, as a helper that takes any head count m: the "
        "exponents run -8/m, -16/m, ..., -8. Then build the other head counts from two calls of "
        "it, for c and for 2c heads.",
        "geometric(m) = 2 ** (-8 * np.arange(1, m + 1) / m); the largest power of two not above "
        "n is c = 2 ** int(np.floor(np.log2(n))); append geometric(2 * c)[0::2][: n - c] to "
        "geometric(c).",
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
            "other one, [0::2], so that none repeats an existing slope (the first is steeper "
            "than all of them, the others fall between them).",
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
    goal=2,
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
    hint_text=(
        "Build the matrix of distances |i - j| for every query row i and key column j at once: "
        "a column of positions minus a row of positions broadcasts to a square.",
        "np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :] gives i - j for every pair; "
        "take np.abs and multiply by -slope.",
    ),
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
    goal=2,
)

q4 = FunctionExercise(
    name="halving_distance",
    prompt=(
        "Write halving_distance(slope): how many positions farther away a key must be for "
        "ALiBi to halve its attention weight, all else equal. Return the exact distance, a real "
        "number (not rounded to whole positions)."
    ),
    hint_text=(
        "A softmax turns a score difference into a ratio of weights: how much does adding "
        "-slope * extra to one score change that key's weight, against a key whose score did "
        "not move?",
        "Adding -slope * extra to a score multiplies its softmax weight by exp(-slope * extra); "
        "solve exp(-slope * extra) = 1/2 for extra.",
    ),
    starter="""def halving_distance(slope):
    # YOUR CODE HERE
    return 0.0""",
    solution_code="""def halving_distance(slope):
    return np.log(2) / slope""",
    answer_name="halving_distance",
    reference=lambda slope: np.log(2) / slope,
    # the gentlest slope first: there a rounded answer differs from every other mistake
    cases=({"slope": 2**-8}, {"slope": 2**-0.5}, {"slope": 0.5}),
    mistakes=(
        Mistake(
            "your answer is 1 / slope, the distance at which the weight falls by a factor e, "
            "not by a factor 2.",
            lambda slope: 1 / slope,
        ),
        Mistake(
            "your answer is negative: a distance is positive. Check the sign when you solve for "
            "the extra distance.",
            lambda slope: -np.log(2) / slope,
        ),
        Mistake(
            "your answer uses log base 10 (np.log10); the softmax's exp needs the natural "
            "logarithm.",
            lambda slope: np.log10(2) / slope,
        ),
        Mistake(
            "your answer multiplies by the slope: a gentler (smaller) slope must give a longer "
            "distance, not a shorter one.",
            lambda slope: np.log(2) * slope,
        ),
        Mistake(
            "you rounded down (or to the nearest) whole position; the prompt asks for the exact "
            "distance, a real number.",
            lambda slope: np.floor(np.log(2) / slope),
        ),
        Mistake(
            "you rounded up to a whole position; the prompt asks for the exact distance, a real "
            "number.",
            lambda slope: np.ceil(np.log(2) / slope),
        ),
    ),
    success="Head 0 of 8 (slope 1/2) halves a weight every 1.4 positions; head 7 (1/256) every "
    "177: from very local to nearly global.",
    goal=2,
)

q1 = ChoiceExercise(
    name="new_buckets",
    prompt=(
        "Predict before reading on: a causal T5 model (32 buckets, maximum distance 128) trained "
        "on 128-token inputs is run on 1,000 tokens. How many buckets does it meet that training "
        "never used? (a) none, since every distance past those of training falls in the last "
        "bucket, which training already used; (b) one new bucket for each new distance; (c) one "
        "new bucket for every 128 new distances; (d) all 32 buckets are new."
    ),
    hint_text=(
        "Read the printed table: from which distance on do all distances share the last bucket, "
        "and does a 128-token input contain such distances?"
    ),
    starter='answer_buckets = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_buckets = "a"',
    answer_name="answer_buckets",
    options={
        "a": "Right: a 128-token input already has distances from 113 to 127, which fill the "
        "last bucket, so longer inputs bring no new bucket, only more keys in the last one.",
        "b": "No: T5's buckets stop growing before the maximum distance: every distance from 113 "
        "on (causal) shares the last bucket, and a 128-token input already fills it.",
        "c": "No: the number of buckets is fixed, 32; past the maximum distance every key falls "
        "in the last one.",
        "d": "No: the bucket of a distance does not depend on the input's length; a 1,000-token "
        "input uses the same 32 buckets, its far keys all in the last one.",
    },
    correct="a",
    goal=1,
)

q5 = ChoiceExercise(
    name="trick_without_mask",
    prompt=(
        "Chapter 1's causal mask hides every key after the query, and a softmax ignores a number "
        "added to a whole row. In a bidirectional encoder (no causal mask, ALiBi's bias "
        "-m |i - j|), would the shortcut +m j still give the same weights? (a) yes, since a "
        "softmax ignores anything added to a row; (b) no, since for keys after the query "
        "|i - j| = j - i, so -m |i - j| and +m j no longer differ by a constant along a row; (c) "
        "yes, as long as the slope is small; (d) no, since without a mask the softmax is not "
        "taken row by row."
    ),
    hint_text=(
        "Write -m |i - j| for a key before the query (j < i) and for one after it (j > i): is "
        "the difference from +m j the same number for both?"
    ),
    starter='answer_trick = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_trick = "b"',
    answer_name="answer_trick",
    options={
        "a": "No: the softmax does ignore a constant per row, but -m |i - j| - m j is -m i only "
        "for keys before the query; for keys after it, it is m i - 2 m j, which changes along "
        "the row.",
        "b": "Right: |i - j| is linear in j only on one side of the query. The causal mask "
        "removes the other side, which is why the official code can use the shortcut there.",
        "c": "No: the two biases differ by -2 m (j - i) on keys after the query, which changes "
        "the weights for any slope above 0; a small slope only makes the change small.",
        "d": "No: a softmax over keys is always taken row by row, one row per query; the mask "
        "only sets some entries of a row to minus infinity.",
    },
    correct="b",
    goal=4,
    reuses=("01",),
)

q6 = ChoiceExercise(
    name="gentle_head",
    prompt=(
        "Predict, then move the sliders: choose head 7 (slope 1/256, the gentlest of 8) and "
        "query 31. With ALiBi, the 4 nearest keys get (a) nearly the same share of the weight as "
        "without ALiBi; (b) almost all of it, as for head 0; (c) none of it; (d) exactly a "
        "quarter of it."
    ),
    hint_text=(
        "Head 7 halves a key's weight only every 177 positions: how much does it tilt 32 keys?"
    ),
    starter='answer_gentle = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_gentle = "a"',
    answer_name="answer_gentle",
    options={
        "a": "Right: over 32 keys a slope of 1/256 lowers the farthest key's weight, against the "
        "nearest, by a factor exp(-31/256), about 0.89, so the line with ALiBi lies almost on the "
        "line without it.",
        "b": "No: that is head 0, slope 1/2, which halves a weight every 1.4 positions. Head 7 "
        "halves it only every 177 positions.",
        "c": "No: ALiBi never removes the nearest keys; it lowers the far ones, and for head 7 "
        "only a little.",
        "d": "No: the share depends on the content scores of this query's keys, and head 7 "
        "barely changes it.",
    },
    correct="a",
    goal=3,
)

q7 = ChoiceExercise(
    name="one_head_offset",
    prompt=(
        "Predict, before the cell runs: the task is to copy the token exactly 3 back, and the "
        "content scores of all keys are equal, so ALiBi's bias alone sets the weights. Where "
        "does one head put its largest weight? (a) at distance 0, for every head; (b) at "
        "distance 3, for a head whose slope is near 1/3; (c) at the farthest key, for the "
        "gentlest head; (d) equally on every key, for every head."
    ),
    hint_text=(
        "With equal content every key gets the same score apart from the bias: write the bias "
        "of the keys at distances 0, 1, 2 and 3 for slope 1/2, and see which one the softmax "
        "weights most.",
        "The bias -m |i - j| is largest where |i - j| is smallest, and a softmax keeps the order "
        "of the scores.",
    ),
    starter='answer_offset = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_offset = "a"',
    answer_name="answer_offset",
    options={
        "a": "Right: with equal content, a key's score is -m |i - j|, largest at distance 0 for "
        "any slope m > 0, so every head prefers the query's own position.",
        "b": "No: the slope sets how fast the weight falls, not where it peaks; -m |i - j| is "
        "largest at distance 0 for every m > 0.",
        "c": "No: every slope is positive, so even the gentlest head penalises distance, a "
        "little; its largest weight is at distance 0.",
        "d": "No: only a slope of exactly 0 would do that; every ALiBi slope is positive, so "
        "each head tilts its weight, more or less, towards distance 0.",
    },
    correct="a",
    goal=5,
)

EXERCISES = [q1, q2, q3, q4, q5, q6, q7]
