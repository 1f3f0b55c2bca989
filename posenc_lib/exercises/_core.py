"""Exercise checkers in the style of Kaggle's learntools: ``q.check(answer)``, ``q.hint()``,
``q.solution()``.

A checker never raises on a learner's answer: wrong types, wrong shapes, NaN, and functions that
raise all come back as feedback that says what to fix.
"""

import math
import textwrap
import warnings
from dataclasses import dataclass, field

import numpy as np

CORRECT = "Correct!"
NOT_YET = "Not yet."


@dataclass(frozen=True)
class Feedback:
    """The outcome of checking one answer: ``passed`` and a message for the learner."""

    passed: bool
    message: str

    def __str__(self):
        message = self.message[:1].upper() + self.message[1:]
        return f"{CORRECT if self.passed else NOT_YET} {message}"


def _describe(value):
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"a {type(value).__name__} ({text})"


def _arg(value):
    """A short description of an argument for feedback: arrays by shape, the rest by repr."""
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"<{type(value).__name__} of {len(value)} items>"
    return repr(value)


def _fmt(x):
    """A number as a learner would write it: 0.540302, 786432, True."""
    x = x.item() if isinstance(x, np.generic) else x
    return f"{x:.6g}" if isinstance(x, float) else repr(x)


def compare_arrays(answer, expected, *, rtol=1e-6, atol=1e-9, what="your answer"):
    """Compare a learner's array with the expected one; return a failing Feedback or None.

    Examples
    --------
    >>> print(compare_arrays(np.zeros((2, 3)), np.zeros((2, 4))))
    Not yet. Your answer has shape (2, 3), but shape (2, 4) was expected.
    >>> compare_arrays([1.0, 2.0], np.array([1.0, 2.0])) is None
    True
    """
    expected = np.asarray(expected)
    if answer is None:
        return Feedback(False, f"{what} is None: did you forget to `return` the result?")
    if isinstance(answer, (str, bytes, dict, set)) or callable(answer):
        return Feedback(False, f"{what} is {_describe(answer)}; expected a numpy array.")
    try:
        with warnings.catch_warnings():  # numpy < 1.24 warns on ragged lists; the feedback says it
            warnings.simplefilter("ignore")
            array = np.asarray(answer)
    except Exception as err:  # ragged lists and exotic objects
        return Feedback(False, f"{what} could not be turned into an array ({err}).")
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        return Feedback(False, f"{what} is {_describe(array)}; expected numbers.")
    if array.shape != expected.shape:
        return Feedback(
            False, f"{what} has shape {array.shape}, but shape {expected.shape} was expected."
        )
    if array.dtype == bool and expected.dtype != bool:
        return Feedback(False, f"{what} is boolean; expected {expected.dtype} numbers.")
    if np.iscomplexobj(array) and not np.iscomplexobj(expected):
        return Feedback(False, f"{what} is complex; expected real numbers.")
    if not np.all(np.isfinite(array)):
        where = tuple(np.argwhere(~np.isfinite(array))[0].tolist())
        return Feedback(
            False, f"{what} holds a non-finite value ({array[where]}) at index {where}."
        )
    close = np.isclose(array, expected, rtol=rtol, atol=atol)
    if np.all(close):
        return None
    bad = np.argwhere(~close)
    shown = "; ".join(
        f"at {tuple(i.tolist())} you have {_fmt(array[tuple(i)])}, "
        f"expected {_fmt(expected[tuple(i)])}"
        for i in bad[:3]
    )
    return Feedback(
        False,
        f"{what} differs from the expected values in {len(bad)} of {array.size} entries "
        f"(tolerance rtol={rtol:g}, atol={atol:g}): {shown}.",
    )


def _call(func, args, kwargs):
    """Call the learner's function; return (result, None) or (None, Feedback on the exception)."""
    call = ", ".join([_arg(a) for a in args] + [f"{k}={_arg(v)}" for k, v in kwargs.items()])
    name = getattr(func, "__name__", "your function")
    try:
        return func(*args, **kwargs), None
    except NotImplementedError:
        return None, Feedback(False, f"{name} is not implemented yet: replace the placeholder.")
    except Exception as err:  # the learner's own error, reported with their message
        return None, Feedback(False, f"calling {name}({call}) raised {type(err).__name__}: {err}")


@dataclass
class Exercise:
    """One exercise: a prompt, a grader, a hint and a solution (as code).

    ``grade(answer)`` returns a Feedback; subclasses below build it for common answer kinds.
    ``starter`` is the code the notebook hands the learner; ``solution_code`` is the model
    answer, runnable as it stands (tests execute it and check it passes).
    """

    name: str
    prompt: str
    hint_text: str
    solution_code: str
    starter: str = ""
    success: str = ""
    answer_name: str = field(default="answer")

    def grade(self, answer):  # pragma: no cover - subclasses define it
        raise NotImplementedError

    def evaluate(self, answer):
        """Return the Feedback for ``answer``; never raises."""
        try:
            feedback = self.grade(answer)
        except Exception as err:  # a checker bug must not look like the learner's fault
            return Feedback(False, f"the checker could not grade this answer ({err!r}).")
        if feedback.passed and self.success:
            return Feedback(True, f"{feedback.message} {self.success}".strip())
        return feedback

    def check(self, answer):
        """Print whether ``answer`` is right and, if not, what to fix."""
        print(self.evaluate(answer))

    def hint(self):
        """Print a hint."""
        print("Hint:", self.hint_text)

    def solution(self):
        """Print a model solution."""
        print("Solution:\n" + textwrap.indent(self.solution_code.strip(), "    "))

    def solution_answer(self, namespace=None):
        """Run the solution code and return the value it binds to ``answer_name`` (for tests)."""
        scope = dict(namespace or {})
        exec(self.solution_code, scope)
        return scope[self.answer_name]

    def __repr__(self):
        return f"<Exercise {self.name}: {self.prompt}>"


@dataclass(repr=False)
class FunctionExercise(Exercise):
    """The learner writes a function; it is called on ``cases`` and compared with ``reference``.

    Each case is a dict of keyword arguments.
    """

    reference: object = None
    cases: tuple = ()
    rtol: float = 1e-6
    atol: float = 1e-9

    def grade(self, answer):
        if not callable(answer):
            return Feedback(False, f"pass your function itself, got {_describe(answer)}.")
        for case in self.cases:
            result, error = _call(answer, (), case)
            if error is not None:
                return error
            what = f"the result for {', '.join(f'{k}={_arg(v)}' for k, v in case.items())}"
            expected = self.reference(**case)
            problem = compare_arrays(result, expected, rtol=self.rtol, atol=self.atol, what=what)
            if problem is not None:
                return problem
        return Feedback(True, f"your function matches the library on {len(self.cases)} cases.")


@dataclass(repr=False)
class ValueExercise(Exercise):
    """The learner computes a value (number or array) that must match ``expected``."""

    expected: object = None
    rtol: float = 1e-6
    atol: float = 1e-9

    def grade(self, answer):
        expected = self.expected() if callable(self.expected) else self.expected
        problem = compare_arrays(answer, expected, rtol=self.rtol, atol=self.atol)
        return problem if problem is not None else Feedback(True, "that is the right value.")


@dataclass(repr=False)
class ChoiceExercise(Exercise):
    """The learner picks one of ``options`` (a dict: option -> explanation); ``correct`` is right.

    Options are compared case-insensitively as strings, so ``True``/"true" or 2/"2" both work.
    """

    options: dict = field(default_factory=dict)
    correct: object = None
    labels: dict = field(default_factory=dict)  # option -> text shown in a quiz widget

    def grade(self, answer):
        key = {str(k).strip().lower(): k for k in self.options}
        if isinstance(answer, float) and math.isnan(answer):
            answer = None
        chosen = key.get(str(answer).strip().lower()) if answer is not None else None
        if chosen is None:
            listed = ", ".join(repr(k) for k in self.options)
            return Feedback(False, f"answer with one of {listed}; got {_describe(answer)}.")
        return Feedback(chosen == self.correct, self.options[chosen])
