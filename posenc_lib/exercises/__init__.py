"""Exercises, one module per chapter (``ch00``, ``ch01``, ...), each listing ``EXERCISES``.

In a notebook::

    from posenc_lib.exercises import ch02 as ex
    ex.q1.check(my_function)   # feedback: what is right, or what to fix
    ex.q1.hint()
    ex.q1.solution()
"""

import importlib
import pkgutil

from ._core import (
    ChoiceExercise,
    Exercise,
    Feedback,
    FunctionExercise,
    Mistake,
    ValueExercise,
    named_mistake,
)
from .quiz import Quiz

__all__ = [
    "ChoiceExercise",
    "Exercise",
    "Feedback",
    "FunctionExercise",
    "Mistake",
    "Quiz",
    "ValueExercise",
    "all_exercises",
    "named_mistake",
]


def all_exercises():
    """Every exercise of every chapter module, as (module name, exercise) pairs.

    Yields
    ------
    tuple of (str, Exercise)
        The chapter module's name ("ch00", "ch01", ...) and one of its exercises.

    Examples
    --------
    >>> chapter, exercise = next(all_exercises())
    >>> chapter, exercise.name
    ('ch00', 'hand')
    """
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("ch"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for exercise in module.EXERCISES:
                yield info.name, exercise
