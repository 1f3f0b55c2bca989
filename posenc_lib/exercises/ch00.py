"""Chapter 0: one demonstration exercise, to learn how checking works."""

from dataclasses import dataclass

import numpy as np

from ._core import ChoiceExercise, Feedback, Mistake, ValueExercise


@dataclass(repr=False)
class _FloatValueExercise(ValueExercise):
    """A value exercise whose prompt asks for floats: right numbers of another dtype are named.

    Examples
    --------
    >>> print(q2.evaluate(np.arange(10)))  # doctest: +NORMALIZE_WHITESPACE
    Not yet. Your positions are the right numbers, but integers; the prompt asks for a float
    array: np.arange(10, dtype=float), or .astype(float).
    """

    def grade(self, answer):
        feedback = super().grade(answer)
        if feedback.passed and not np.issubdtype(np.asarray(answer).dtype, np.floating):
            return Feedback(
                False,
                "your positions are the right numbers, but integers; the prompt asks for a "
                "float array: np.arange(10, dtype=float), or .astype(float).",
            )
        return feedback


q2 = _FloatValueExercise(
    name="positions",
    prompt="Make a float array of the positions 0, 1, ..., 9 of a 10-token sentence.",
    hint_text=(
        "numpy has a function that counts from 0 for you; the prompt asks for floats, not "
        "integers.",
        "`np.arange(n)` counts from 0 up to n - 1; `dtype=float` makes floats.",
    ),
    solution_code="positions = np.arange(10, dtype=float)",
    starter="positions = None  # replace None with your array",
    answer_name="positions",
    expected=np.arange(10, dtype=float),
    mistakes=(
        Mistake(
            "your positions run from 1 to 10; this course counts positions from 0, as numpy "
            "indexes arrays.",
            lambda: np.arange(1, 11, dtype=float),
        ),
    ),
    success="You have seen the whole cycle: check, read the feedback, fix, check again.",
)

q1 = ChoiceExercise(
    name="hand",
    prompt=(
        "The hand starts at 12 o'clock at position 0 and turns clockwise by one radian, about "
        "57.3 degrees, per position. Predict where it points at position 6: (a) a little before 12 o'clock; (b) at 6 o'clock, half way round; (c) at "
        "12 o'clock, after six full turns. Answer 'a', 'b' or 'c'."
    ),
    hint_text=(
        "How many degrees has the hand turned after 6 positions, and how does that compare with "
        "a full turn?",
        "Multiply: 6 positions times 57.3 degrees; a full turn is 360 degrees.",
    ),
    starter='prediction = "?"  # "a", "b" or "c"',
    solution_code='prediction = "a"',
    answer_name="prediction",
    options={
        "a": "Right: 6 rad is 6 x 57.3 = 344 degrees, 16 degrees short of a full turn. Drag the "
        "slider to 6 and read the label.",
        "b": "Six positions are not half a turn: each turns the hand by one radian, 57.3 degrees, "
        "so position 6 is 344 degrees. Drag the slider to 6 and read the label.",
        "c": "A full turn is 2 pi = 6.28 radians, not 1: six positions turn the hand by 6 "
        "radians, 344 degrees, a little less than one turn. Drag the slider to 6.",
    },
    correct="a",
)

EXERCISES = [q1, q2]
