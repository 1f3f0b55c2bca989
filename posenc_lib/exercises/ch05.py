"""Chapter 5: ALiBi."""

import numpy as np

from ..alibi import alibi_slopes
from ._core import FunctionExercise

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
)

q2 = FunctionExercise(
    name="bias_matrix",
    prompt="Write bias_matrix(seq_len, slope): the (seq_len, seq_len) ALiBi bias of one head, "
    "-slope * |i - j| for query i and key j.",
    hint_text="np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :] gives i - j for every pair.",
    starter="""def bias_matrix(seq_len, slope):
    # YOUR CODE HERE
    return np.zeros((seq_len, seq_len))""",
    solution_code="""def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return -slope * np.abs(i[:, None] - i[None, :])""",
    answer_name="bias_matrix",
    reference=lambda seq_len, slope: (
        -slope * np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])
    ),
    cases=(
        {"seq_len": 5, "slope": 0.5},
        {"seq_len": 8, "slope": 2**-8},
        {"seq_len": 1, "slope": 1.0},
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
    success="Head 1 of 8 (slope 1/2) halves a weight every 1.4 positions; head 8 (1/256) every "
    "177: from very local to nearly global.",
)

EXERCISES = [q1, q2, q3]
