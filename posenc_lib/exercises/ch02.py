"""Chapter 2: sinusoidal positions."""

import numpy as np

from ..sinusoidal import frequencies, shift_matrix, sinusoidal_positions, wavelengths
from ._core import ChoiceExercise, FunctionExercise, Mistake, ValueExercise


def _angles(seq_len, d_model, *, base=10000.0, start=0):
    """Every (position, pair) angle, positions counted from ``start``."""
    return np.arange(start, start + seq_len)[:, None] * frequencies(d_model, base=base)[None, :]


def _concatenated(seq_len, d_model):
    """All sines first, then all cosines: the other common layout."""
    angles = _angles(seq_len, d_model)
    return np.concatenate([np.sin(angles), np.cos(angles[:, : d_model // 2])], axis=1)


def _swapped(seq_len, d_model):
    """Cosines in the even columns, sines in the odd ones."""
    angles = _angles(seq_len, d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.cos(angles)
    pe[:, 1::2] = np.sin(angles[:, : d_model // 2])
    return pe


def _from_one(seq_len, d_model):
    """Positions 1 .. seq_len instead of 0 .. seq_len - 1."""
    return sinusoidal_positions(seq_len + 1, d_model)[1:]


def _lone_column_zero(seq_len, d_model):
    """Odd d_model with the last column left at 0."""
    pe = sinusoidal_positions(seq_len, d_model)
    if d_model % 2:
        pe[:, -1] = 0.0
    return pe


def _cosines_for_every_pair(seq_len, d_model):
    """Compute a cosine for every pair, as the PyTorch tutorial does (breaks for odd d_model)."""
    angles = _angles(seq_len, d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def _sines_for_half_the_pairs(seq_len, d_model):
    """Angles for d_model // 2 pairs only: for odd d_model the sine columns want one more."""
    angles = _angles(seq_len, d_model)[:, : d_model // 2]
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def _column_exponent(seq_len, d_model):
    """Column j with its own exponent j / d_model: the cosine column 2i + 1 gets (2i + 1) / d."""
    j = np.arange(d_model)
    angles = np.arange(seq_len)[:, None] * 10000.0 ** (-j / d_model)
    return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))


def _copied_loop(seq_len, d_model):
    """Fill the table as the widely copied loop does (even d_model only).

    Its i steps through 0, 2, 4, ... (dimension indices); the sine's exponent is 2i / d_model and
    the cosine's 2(i + 1) / d_model.
    """
    pos = np.arange(seq_len)
    pe = np.zeros((seq_len, d_model))
    for i in range(0, d_model, 2):
        pe[:, i] = np.sin(pos / 10000.0 ** (2 * i / d_model))
        pe[:, i + 1] = np.cos(pos / 10000.0 ** (2 * (i + 1) / d_model))
    return pe


def _tensor2tensor(seq_len, d_model):
    """Build the table as tensor2tensor's get_timing_signal_1d does.

    Speeds 10000^(-i / (d/2 - 1)), all sines, then all cosines, and a zero column for odd d_model.
    """
    n = d_model // 2
    speeds = np.exp(-np.arange(n) * np.log(10000.0) / max(n - 1, 1))
    angles = np.arange(seq_len)[:, None] * speeds[None, :]
    signal = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    return np.pad(signal, [(0, 0), (0, d_model % 2)])


q1 = FunctionExercise(
    name="positions",
    prompt=(
        "Write positions(seq_len, d_model) returning the (seq_len, d_model) sinusoidal table: "
        "PE[p, 2i] = sin(p / 10000**(2i/d_model)), PE[p, 2i+1] = cos(same angle), where i is "
        "the pair index. For odd d_model the last column is a sin. Try it without Python loops."
    ),
    hint_text=(
        "Compute every angle at once: a column of positions times a row of the pair speeds "
        "broadcasts to one angle per (position, pair). Then the sines go to the even columns and "
        "the cosines to the odd ones (a slice with step 2 picks every other column). For odd "
        "d_model there is one more sine column than cosine columns.",
        "The speeds are 10000 ** (-np.arange(0, d_model, 2) / d_model), one per pair, "
        "ceil(d_model / 2) of them; the angles are np.arange(seq_len)[:, None] times the speeds "
        "as a row. Fill pe[:, 0::2] with the sines of all the angles and pe[:, 1::2] with the "
        "cosines of the first d_model // 2 columns of angles.",
    ),
    starter="""def positions(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    # YOUR CODE HERE: angles for every (position, pair), then sines and cosines
    return pe""",
    solution_code="""def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)   # one speed per pair i
    angles = np.arange(seq_len)[:, None] * omega[None, :]       # (seq_len, ceil(d/2))
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe""",
    answer_name="positions",
    reference=lambda seq_len, d_model: sinusoidal_positions(seq_len, d_model),
    cases=(
        {"seq_len": 50, "d_model": 16},
        {"seq_len": 10, "d_model": 512},
        {"seq_len": 7, "d_model": 5},
    ),
    mistakes=(
        Mistake(
            "your table matches the formula with i in place of 2i in the exponent, "
            "10000^(-i/d_model) with i the pair index (bug B of this chapter's section 5, base 100 in disguise). "
            "The exponent uses the dimension index 2i of the pair's sine column.",
            lambda seq_len, d_model: sinusoidal_positions(seq_len, d_model, base=100.0),
        ),
        Mistake(
            "your table matches the exponent 2·dim/d_model with dim = 0, 2, 4, ... (bug A "
            "of this chapter's section 5, base 10^8): the dimension index was doubled again. Use 2i/d_model with i the "
            "pair index, which is dim/d_model.",
            lambda seq_len, d_model: sinusoidal_positions(seq_len, d_model, base=1e8),
        ),
        Mistake(
            "your table has all the sines first and then all the cosines (the concatenated "
            "layout). This course interleaves them: column 2i holds pair i's sine and column "
            "2i + 1 its cosine (pe[:, 0::2] and pe[:, 1::2]).",
            _concatenated,
        ),
        Mistake(
            "your sines and cosines are swapped: even columns 2i hold the sine, odd columns "
            "2i + 1 the cosine, so position 0 reads [0, 1, 0, 1, ...].",
            _swapped,
        ),
        Mistake(
            "your positions run from 1 to seq_len; they count from 0, so row 0 is "
            "[0, 1, 0, 1, ...].",
            _from_one,
        ),
        Mistake(
            "for odd d_model your last column is 0: it is a lone sine, sin(p * omega) for the "
            "last pair, with no cosine partner. Compute angles for all ceil(d_model / 2) pairs.",
            _lone_column_zero,
        ),
        Mistake(
            "For odd d_model there is one more pair than cosine columns: pair ceil(d_model / 2) - 1 "
            "has a sine column and no cosine partner, so pe[:, 1::2] has only d_model // 2 "
            "columns. Take the cosines of the first d_model // 2 pairs: "
            "np.cos(angles[:, : d_model // 2]).",
            _cosines_for_every_pair,
        ),
        Mistake(
            "your sine columns are right, but each cosine column uses its own column index in "
            "the exponent, 10000^((2i + 1)/d_model). The two columns of pair i share one angle, "
            "p / 10000^(2i/d_model): the exponent is the sine column's index 2i over d_model, "
            "for the cosine too.",
            _column_exponent,
        ),
        Mistake(
            "your table is the loop copied widely from tutorials, with i stepping 0, 2, 4, ... "
            "over dimension indices: its sine's exponent 2i/d_model doubles an index that is "
            "already 2 x the pair index (bug A), and its cosine's 2(i + 1)/d_model gives the "
            "cosine another angle than its sine. Both columns of a pair share one angle, "
            "p / 10000^(dim/d_model) with dim = 0, 2, 4, ... the sine column's index (that is "
            "2i/d_model with i the pair index).",
            _copied_loop,
        ),
        Mistake(
            "your table is tensor2tensor's recipe (the going-deeper box of the chapter's section "
            "1): all the sines, "
            "then all the cosines, with speeds 10000^(-i/(d_model/2 - 1)). This exercise asks for "
            "the paper's formula: speeds 10000^(-2i/d_model), interleaved, pair i's sine in "
            "column 2i and its cosine in column 2i + 1.",
            _tensor2tensor,
        ),
        Mistake(
            "For odd d_model there is one more sine column than cosine columns: d_model = 5 has "
            "sines in columns 0, 2 and 4 (pairs 0, 1, 2) and cosines in columns 1 and 3. "
            "Compute angles for all ceil(d_model / 2) pairs, fill pe[:, 0::2] with their sines "
            "and pe[:, 1::2] with the cosines of the first d_model // 2.",
            _sines_for_half_the_pairs,
        ),
    ),
    success="Compare with posenc_lib.sinusoidal_positions: the same idea, plus argument checks.",
    goal=2,
)

q2 = FunctionExercise(
    name="wavelength",
    prompt=(
        "Write wavelength(i, d_model) returning how many positions pair i takes to turn once "
        "round its clock (base 10000)."
    ),
    hint_text=(
        "Pair i turns by the same angle at every step, omega_i radians per position: how many "
        "steps make one full turn?",
        "Pair i turns by omega_i = 10000 ** (-2i / d_model) radians per position; one turn is "
        "2 pi radians: divide.",
    ),
    starter="""def wavelength(i, d_model):
    # YOUR CODE HERE
    return 0.0""",
    solution_code="""def wavelength(i, d_model):
    return 2 * np.pi * 10000.0 ** (2 * i / d_model)""",
    answer_name="wavelength",
    reference=lambda i, d_model: wavelengths(d_model)[i],
    # i = 2 first: at i = 1 a 1-based pair index, 2(i + 1), equals 4i and could not be told apart.
    cases=({"i": 2, "d_model": 16}, {"i": 255, "d_model": 512}, {"i": 0, "d_model": 512}),
    mistakes=(
        Mistake(
            "your answer is 1 / omega_i, the number of positions per radian. A full turn is "
            "2 pi radians: multiply by 2 pi.",
            lambda i, d_model: 1 / frequencies(d_model)[i],
        ),
        Mistake(
            "your answer is omega_i itself, the speed in radians per position. The wavelength "
            "is the number of positions per turn, 2 pi / omega_i.",
            lambda i, d_model: frequencies(d_model)[i],
        ),
        Mistake(
            "your answer uses i in place of 2i in the exponent, 2 pi * 10000^(i/d_model): i is "
            "the pair index, and the exponent is 2i/d_model.",
            lambda i, d_model: 2 * np.pi * 10000.0 ** (i / d_model),
        ),
        Mistake(
            "your answer uses 4i/d_model in the exponent, as if i were the dimension index "
            "2i and then doubled: i is the pair index, and the exponent is 2i/d_model.",
            lambda i, d_model: 2 * np.pi * 10000.0 ** (4 * i / d_model),
        ),
        Mistake(
            "your answer uses 2(i + 1)/d_model in the exponent, as if pairs were counted from 1: "
            "the pair index i starts at 0, where pair 0 turns once every 2 pi positions. The "
            "exponent is 2i/d_model.",
            lambda i, d_model: 2 * np.pi * 10000.0 ** (2 * (i + 1) / d_model),
        ),
    ),
    success="From 2 pi positions for pair 0 to almost 10000 * 2 pi for the last pair.",
    goal=1,
)

#: Chapter 2's mystery table: 1,000 positions of width 48, drawn by one of the three formulas.
MYSTERY = sinusoidal_positions(1000, 48, base=1e8)

q4 = ChoiceExercise(
    name="bug_table",
    prompt=(
        "ex.MYSTERY is a table of 1,000 positions and width d_model = 48, built by one of the "
        "three formulas of this section: (a) the correct one, 10000^(-2i/d); (b) bug A, "
        "10000^(-2 dim/d); (c) bug B, 10000^(-i/d). Which? Measure it (a heatmap, or a count of "
        "its nearly constant columns, or the speed of its last pair) rather than guess, and "
        "answer 'a', 'b' or 'c'."
    ),
    hint_text=(
        "What told the three tables apart in the figure above? Count the columns whose values "
        "hardly change over the 1,000 positions: np.ptp(table, axis=0) is each column's range.",
        "Over 1,000 positions the correct formula and bug B leave at most one column of width "
        "48 nearly still (range under 0.01; their slowest pairs still turn far enough); bug A "
        "freezes nearly half of them. Compare your count with the width.",
    ),
    starter='diagnosis = "?"  # "a", "b" or "c"',
    solution_code="""from posenc_lib.exercises.ch02 import MYSTERY

frozen = np.sum(np.ptp(MYSTERY, axis=0) < 0.01)
print(frozen, "of", MYSTERY.shape[1], "columns nearly constant")
diagnosis = "b"  # nearly half the columns frozen: bug A""",
    answer_name="diagnosis",
    options={
        "a": "Not the correct formula: at width 48 it leaves at most one column nearly constant "
        "over 1,000 positions (its slowest pair still turns about a seventh of a radian), and this "
        "table freezes nearly half of them. Count with np.ptp(ex.MYSTERY, axis=0) < 0.01.",
        "b": "Right: bug A's speeds fall twice as steeply, so nearly half the columns of this "
        "table barely move over 1,000 positions (the same table as the correct formula with "
        "base 10^8).",
        "c": "Not bug B: its speeds fall half as steeply, so no column of its table stays still "
        "over 1,000 positions, and this one has many that do. Count with "
        "np.ptp(ex.MYSTERY, axis=0) < 0.01.",
    },
    correct="b",
    goal=2,
)

q5 = FunctionExercise(
    name="pair_shift",
    prompt=(
        "Write pair_shift(k, omega) returning the 2x2 matrix M with "
        "[sin((p+k) w), cos((p+k) w)] == M @ [sin(p w), cos(p w)] for every p (w = omega)."
    ),
    hint_text=(
        "Call a = p w and b = k w. The shifted pair is (sin(a + b), cos(a + b)), sine first: "
        "write each as a combination of sin a and cos a whose coefficients depend on b only.",
        "Expand sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b. "
        "Row 1 of M holds the coefficients of sin a and cos a, in that order, in sin(a + b); row "
        "2 holds them in cos(a + b).",
    ),
    starter="""def pair_shift(k, omega):
    # YOUR CODE HERE
    return np.eye(2)""",
    solution_code="""def pair_shift(k, omega):
    c, s = np.cos(k * omega), np.sin(k * omega)
    return np.array([[c, s], [-s, c]])""",
    answer_name="pair_shift",
    # A width-2 encoding has one pair with omega = 1, so a shift by k * omega does it.
    reference=lambda k, omega: shift_matrix(k * omega, 2),
    cases=({"k": 3, "omega": 0.1}, {"k": 1, "omega": 1.0}, {"k": -2, "omega": 0.5}),
    mistakes=(
        Mistake(
            "your matrix shifts by -k: it is the textbook rotation [[c, -s], [s, c]], which turns "
            "a pair written (cos, sin) counter-clockwise. This pair is written (sin, cos), sine "
            "first, and its hand turns clockwise, so the two signs of s sit the other way round. "
            "Expand sin(a + b) and cos(a + b) and read off the coefficients of sin a and cos a, "
            "in that order.",
            lambda k, omega: shift_matrix(-k * omega, 2),
        ),
        Mistake(
            "your matrix turns by k radians, not k * omega: pair i turns by omega per position, "
            "so k positions are an angle of k * omega.",
            lambda k, omega: shift_matrix(k, 2),
        ),
        Mistake(
            "your matrix turns by omega, one position's angle, whatever k is: k positions are "
            "an angle of k * omega.",
            lambda k, omega: shift_matrix(omega, 2),
        ),
    ),
    success="It doesn't involve p: one matrix shifts every position by k.",
    goal=3,
)

q3 = ChoiceExercise(
    name="slider",
    prompt=(
        "In the explorer below (d_model = 16), pick pair i = 5 and move the position p from 0 to "
        "30. Predict how far pair 5's clock hand turns on the way: (a) several full turns, as "
        "pair 0's hand does; (b) a few degrees, so that it barely leaves 12 o'clock; (c) about "
        "half a turn. Answer 'a', 'b' or 'c'."
    ),
    hint_text=(
        "How far does pair 5's hand turn in one position step? The clocks figure of section 1 "
        "printed each pair's degrees per position; 30 steps turn it 30 times as far.",
        "Pair 0 turns one radian (57.3 degrees) per position; in a 16-dimensional encoding each "
        "later pair turns 10000^(2/16), about 3.2 times, slower than the one before.",
    ),
    starter='prediction = "?"  # "a", "b" or "c"',
    solution_code='prediction = "b"',
    answer_name="prediction",
    options={
        "a": "Not pair 5: each pair turns slower than the one before by a constant factor, and "
        "pair 5 of 8 is one of the slow ones. Move the slider with pair 0, then with pair 5.",
        "b": "Right: pair 5 turns by 10000^(-10/16), about 0.0032 rad per position, so 30 "
        "positions turn it by about 0.095 rad, 5.4 degrees (one whole turn takes it 1,987 "
        "positions). Move the slider and see.",
        "c": "Half a turn would take pair 5 about 1,000 positions: it turns by 10000^(-10/16), "
        "about 0.0032 rad per position. Move the slider and see how little it moves.",
    },
    correct="b",
    goal=1,
)

q6 = ChoiceExercise(
    name="before_after",
    prompt=(
        "Predict before you run the next cell: with d_model = 128, compare the dot products "
        "PE_37 . PE_42 (the position 5 later) and PE_37 . PE_32 (the position 5 earlier). "
        "(a) the later one is larger; (b) they are equal; (c) the earlier one is larger. Answer "
        "'a', 'b' or 'c'."
    ),
    hint_text=(
        "Write one pair's part of the dot product, sin a sin b + cos a cos b, as a single "
        "cosine. What does it depend on?",
        "Pair i contributes cos((b - a) omega_i), and the cosine of -x equals the cosine of x.",
    ),
    starter='before_after = "?"  # "a", "b" or "c"',
    solution_code='before_after = "b"',
    answer_name="before_after",
    options={
        "a": "No: each pair contributes cos(k omega_i), which depends on the offset k only through "
        "the cosine, and cos(-x) = cos(x): 5 later and 5 earlier give the same number.",
        "b": "Right: each pair contributes cos(k omega_i) and cosine is even, so a plain dot "
        "product cannot tell before from after. The next cell prints both.",
        "c": "No: the dot product is a sum of cos(k omega_i) over the pairs, and cos(-x) = cos(x): "
        "5 earlier and 5 later give the same number.",
    },
    correct="b",
    goal=3,
)

q7 = ValueExercise(
    name="pe_length",
    prompt=(
        "Chapter 1 (section 4) added sinusoidal position vectors of width d_model = 8 to its "
        "token vectors. Every row of that table has the same length (Euclidean norm). Set length "
        "to it, worked out from the formula rather than by building the table."
    ),
    hint_text=(
        "A pair holds the sine and the cosine of one angle: what is sin^2 + cos^2?",
        "The squared length is the sum, over the d_model / 2 = 4 pairs, of sin^2 + cos^2 = 1; "
        "the length is its square root.",
    ),
    starter="length = None  # the length of one position vector of width 8",
    solution_code="length = np.sqrt(8 / 2)",
    answer_name="length",
    expected=2.0,
    mistakes=(
        Mistake(
            "your length is sqrt(d_model) = sqrt(8), as if each of the 8 numbers added 1 to the "
            "squared length. They do not: what do the two numbers of one pair, the sine and the "
            "cosine of one angle, add up to together?",
            lambda: np.sqrt(8.0),
        ),
        Mistake(
            "4 is the squared length (1 for each of the 4 pairs): take its square root.",
            lambda: 4.0,
        ),
        Mistake(
            "1 is the length of one pair, (sin, cos) of one angle; a row of width 8 holds 4 such "
            "pairs, each adding 1 to the squared length.",
            lambda: 1.0,
        ),
    ),
    success="Every row has length sqrt(d_model / 2) at every position: the next cell checks it "
    "for d_model = 512.",
    goal=4,
    reuses=("01",),
)

EXERCISES = [q1, q2, q3, q4, q5, q6, q7]
