"""Chapter 0: one demonstration exercise, to learn how checking works."""

import numpy as np

from ._core import Mistake, ValueExercise

q1 = ValueExercise(
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
