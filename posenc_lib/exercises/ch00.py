"""Chapter 0: one demonstration exercise, to learn how checking works."""

from dataclasses import dataclass

import numpy as np

from ._core import Feedback, Mistake, ValueExercise


@dataclass(repr=False)
class _FloatValueExercise(ValueExercise):
    """A value exercise whose prompt asks for floats: right numbers of another dtype are named.

    Examples
    --------
    >>> print(q1.evaluate(np.arange(10)))  # doctest: +NORMALIZE_WHITESPACE
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


q1 = _FloatValueExercise(
    name="positions",
    prompt="Make a float array of the positions 0, 1, ..., 9 of a 10-token sentence.",
    hint_text="numpy's `np.arange(n)` counts from 0 up to n - 1; `dtype=float` makes floats.",
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

EXERCISES = [q1]
