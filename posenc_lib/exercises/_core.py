"""Exercise checkers in the style of Kaggle's learntools.

A learner calls ``q.check(answer)``, ``q.hint()`` and ``q.solution()``.

A checker never raises on a learner's answer: wrong types, wrong shapes, NaN, and functions that
raise or call ``sys.exit`` all come back as feedback that says what to fix. A learner's function is
called with its arguments by position, in the order the prompt states, so any parameter names
work; a result that matches a known mistake (a `Mistake`) gets that mistake named.
"""

import copy
import inspect
import math
import re
import textwrap
import warnings
from dataclasses import dataclass, field

import numpy as np

CORRECT = "Correct!"
NOT_YET = "Not yet."


@dataclass(frozen=True)
class Feedback:
    """The outcome of checking one answer: ``passed`` and a message for the learner.

    Parameters
    ----------
    passed : bool
        Whether the answer is right.
    message : str
        What is right, or what to fix.

    Examples
    --------
    >>> print(Feedback(False, "your answer is None."))
    Not yet. Your answer is None.
    """

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
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name} ({text})"


def _arg(value):
    """Return a short description of an argument for feedback.

    Arrays are described by shape, long lists by length.

    Examples
    --------
    >>> _arg(np.zeros((2, 3))), _arg(0.1 + 0.2), _arg([{"seed": k} for k in range(4)])
    ('<array of shape (2, 3)>', '0.3', '<list of 4 items>')
    """
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    if isinstance(value, (float, np.floating)):
        return _fmt(value)
    text = repr(value)
    if isinstance(value, (list, tuple, dict)) and len(text) > 40:
        return f"<{type(value).__name__} of {len(value)} items>"
    return text


def _fmt(x, digits=6):
    """Return a number as a learner would write it: 0.540302, 786432, True."""
    x = x.item() if isinstance(x, np.generic) else x
    return f"{x:.{digits}g}" if isinstance(x, float) else repr(x)


def _fmt_pair(yours, expected, atol=0.0):
    """Two numbers with enough significant digits (6 at least) that they read differently.

    A value smaller than ``atol`` in magnitude is rounding residue (cos(pi / 2) is 6.1e-17, not
    0), which has no stable digits: it is shown as 0.

    Examples
    --------
    >>> _fmt_pair(-2.1134201, -2.1134213)
    ('-2.1134201', '-2.1134213')
    >>> _fmt_pair(0.5, 0.25)
    ('0.5', '0.25')
    >>> _fmt_pair(1.0, np.cos(np.pi / 2), atol=1e-9)
    ('1', '0')
    """
    yours, expected = (
        0 if isinstance(x, (float, np.floating)) and abs(x) < atol else x for x in (yours, expected)
    )
    for digits in (6, 8, 10, 12, 17):
        shown = _fmt(yours, digits), _fmt(expected, digits)
        if shown[0] != shown[1]:
            return shown
    return shown


SMALL = 16  # answers of at most this many numbers: the feedback never prints them


def compare_arrays(answer, expected, *, rtol=1e-6, atol=1e-9, what="your answer"):
    """Compare a learner's array with the expected one; return a failing Feedback or None.

    Parameters
    ----------
    answer : object
        The learner's answer (anything: it is described, never trusted).
    expected : array_like
        The right values.
    rtol, atol : float
        Tolerances, as in `numpy.isclose`.
    what : str
        How the feedback names the answer.

    Returns
    -------
    Feedback or None
        A failing Feedback saying what differs (type, shape, dtype, NaN, the first differing
        entries), or None when the arrays agree. The expected values of an answer of at most
        ``SMALL`` numbers are never printed: they would be the answer.

    Examples
    --------
    >>> print(compare_arrays(np.zeros((2, 3)), np.zeros((2, 4))))
    Not yet. Your answer has shape (2, 3), but shape (2, 4) was expected.
    >>> print(compare_arrays(None, np.zeros(3)))
    Not yet. Your answer is still None: replace None with a numpy array.
    >>> print(compare_arrays("2", 2.0))
    Not yet. Your answer is a str ('2'); expected a number.
    >>> compare_arrays([1.0, 2.0], np.array([1.0, 2.0])) is None
    True
    >>> print(compare_arrays(np.eye(2), [[0.0, 1.0], [-1.0, 0.0]]))  # doctest: +NORMALIZE_WHITESPACE
    Not yet. Your answer differs from the expected values in 4 of 4 entries (tolerance
    rtol=1e-06, atol=1e-09): at (0, 0) you have 1; at (0, 1) you have 0; at (1, 0) you have 0; at
    (1, 1) you have 1; `hint()` says how to get there.
    """
    expected = np.asarray(expected)
    kind = "a number" if expected.ndim == 0 else "a numpy array"
    if answer is None and what.startswith("the result of"):
        return Feedback(False, f"{what} is None: did you forget to `return` the result?")
    if answer is None:
        return Feedback(False, f"{what} is still None: replace None with {kind}.")
    if isinstance(answer, (str, bytes, dict, set)) or callable(answer):
        return Feedback(False, f"{what} is {_describe(answer)}; expected {kind}.")
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
        kind = "whole numbers" if np.issubdtype(expected.dtype, np.integer) else "real numbers"
        return Feedback(False, f"{what} is boolean; expected {kind}.")
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
    bad = [tuple(i.tolist()) for i in np.argwhere(~close)]
    precision = _precision_note(array, expected, what, rtol, atol)
    if precision and precision[0]:  # right to the answer's own precision: name only the dtype
        return Feedback(False, precision[1])
    if expected.ndim == 0:  # one number: printing the expected value would give the answer away
        return Feedback(
            False,
            f"{what} is {_fmt_pair(array[()], expected[()], atol)[0]}, not the expected value "
            f"(tolerance rtol={rtol:g}, atol={atol:g}); `hint()` says how to get there.",
        )

    if expected.size <= SMALL:  # a few numbers: their expected values would be the answer
        shown = "; ".join(
            f"at {index} you have {_fmt_pair(array[index], expected[index], atol)[0]}"
            for index in bad
        )
        return Feedback(
            False,
            f"{what} differs from the expected values in {len(bad)} of {array.size} entries "
            f"(tolerance rtol={rtol:g}, atol={atol:g}): {shown}; `hint()` says how to get "
            f"there.{precision[1] if precision else ''}",
        )

    def entry(index, separator=""):
        return "at {}{} you have {}, expected {}".format(
            index, separator, *_fmt_pair(array[index], expected[index], atol)
        )

    shown = "; ".join(entry(index) for index in bad[:3])
    yours, wanted = array.astype(float), expected.astype(float)
    excess = np.abs(yours - wanted) - rtol * np.abs(wanted)
    worst = tuple(int(k) for k in np.unravel_index(np.argmax(excess), array.shape))
    if worst not in bad[:3]:
        shown += f"; the largest difference is {entry(worst, ':')}"
    return Feedback(
        False,
        f"{what} differs from the expected values in {len(bad)} of {array.size} entries "
        f"(tolerance rtol={rtol:g}, atol={atol:g}): {shown}.{precision[1] if precision else ''}",
    )


def _precision_note(array, expected, what, rtol, atol):
    """For an answer in a lower float precision than the expected values: (close, message).

    ``close`` says whether the answer agrees to the precision of its own dtype (100 of its
    machine epsilons, relative to the values' scale), and the message then names the dtype as
    the only problem; otherwise the message is a note to add. None for any other answer.

    Examples
    --------
    >>> table = np.sin(np.arange(50.0))
    >>> close, message = _precision_note(table.astype(np.float32), table, "your answer", 1e-6, 1e-9)
    >>> close, message[:44]
    (True, 'your answer is float32 (single precision): i')
    >>> _precision_note(table, table, "your answer", 1e-6, 1e-9) is None
    True
    """
    if not (
        array.dtype.kind == "f"
        and expected.dtype.kind == "f"
        and array.dtype.itemsize < expected.dtype.itemsize
    ):
        return None
    name = {2: "half precision", 4: "single precision"}.get(array.dtype.itemsize, "lower precision")
    yours, wanted = array.astype(float), expected.astype(float)
    tolerance = 100 * float(np.finfo(array.dtype).eps)
    scale = max(1.0, float(np.max(np.abs(wanted))))
    fix = (
        f"compute in {expected.dtype}, numpy's default (leave out dtype=np.{array.dtype}; "
        f"converting the finished result with .astype(np.{expected.dtype}) cannot bring the "
        "lost digits back)"
    )
    if np.allclose(yours, wanted, rtol=tolerance, atol=tolerance * scale):
        largest = float(np.max(np.abs(yours - wanted)))
        return True, (
            f"{what} is {array.dtype} ({name}): it agrees with the expected values as far as "
            f"{array.dtype} can (largest difference {largest:.1e}), but the checker compares to "
            f"{expected.dtype} precision (rtol={rtol:g}, atol={atol:g}). To pass, {fix}."
        )
    return False, (
        f" Note: {what} is {array.dtype} ({name}); the checker compares to {expected.dtype} "
        "precision."
    )


def _call(func, args, kwargs, call):
    """Call the learner's function; return (result, None, None) or (None, Feedback, exception).

    ``call`` is the call as the feedback shows it. The learner's own exceptions, and a
    ``sys.exit()`` inside their function, become feedback (the learner's exception is returned too,
    so a known mistake can be named by it); Ctrl-C (KeyboardInterrupt) still interrupts.
    """
    name = getattr(func, "__name__", "your function")
    try:
        return func(*args, **kwargs), None, None
    except NotImplementedError:
        return (
            None,
            Feedback(
                False, f"your function {name} is not implemented yet: replace the placeholder."
            ),
            None,
        )
    except SystemExit as err:
        code = "" if err.code is None else f"({err.code!r})"
        return (
            None,
            Feedback(
                False,
                f"calling {call} ran sys.exit{code}, which would stop the whole program: a "
                "function should return its result (or raise an exception) instead.",
            ),
            None,
        )
    except KeyboardInterrupt:  # Ctrl-C: the learner wants to stop, not to read feedback
        raise
    except BaseException as err:  # the learner's own error, reported with their message
        return None, Feedback(False, f"calling {call} raised {type(err).__name__}: {err}"), err


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer, named for the learner when theirs matches it.

    ``answer`` computes the wrong answer from the same arguments as the exercise's reference
    (passed by keyword); ``message`` says what went wrong and how to fix it.

    Parameters
    ----------
    message : str
        What went wrong and how to fix it, shown when the learner's answer matches.
    answer : callable
        Computes the wrong answer from the exercise's arguments (by keyword).

    Examples
    --------
    >>> forgot_two_pi = Mistake("that is 1/omega, in radians: multiply by 2 pi", lambda w: 1 / w)
    >>> forgot_two_pi.matches(2.0, {"w": 0.5})
    True
    >>> forgot_two_pi.matches(4 * np.pi, {"w": 0.5})
    False
    """

    message: str
    answer: object

    def matches(self, result, arguments, *, rtol=1e-6, atol=1e-9):
        """Whether ``result`` equals this wrong answer for ``arguments`` (a dict), within tolerance."""
        try:
            wrong = self.answer(**arguments)
        except Exception:  # a variant undefined for these arguments cannot match
            return False
        return compare_arrays(result, wrong, rtol=rtol, atol=atol) is None

    def matches_error(self, error, arguments):
        """Whether ``error`` is the exception this wrong answer raises for ``arguments`` (a dict).

        A mistake that breaks a function for some arguments (a shape that cannot broadcast)
        is named by its error: same exception type, same message.

        Examples
        --------
        >>> no_odd = Mistake("handle odd widths", lambda d: [0][: d % 2][0])
        >>> no_odd.matches_error(IndexError("list index out of range"), {"d": 4})
        True
        >>> no_odd.matches_error(IndexError("list index out of range"), {"d": 5})
        False
        """
        try:
            self.answer(**arguments)
        except Exception as wrong:
            return type(wrong) is type(error) and str(wrong) == str(error)
        return False


def named_mistake(result, mistakes, arguments, *, rtol=1e-6, atol=1e-9):
    """Return the first of ``mistakes`` whose wrong answer ``result`` matches, or None.

    Parameters
    ----------
    result : object
        The learner's answer.
    mistakes : sequence of Mistake
        Known wrong answers, tried in order.
    arguments : dict
        The arguments the answer was computed from.
    rtol, atol : float
        Tolerances for a match.

    Returns
    -------
    Mistake or None
        The first mistake the answer matches.

    Examples
    --------
    >>> sign = Mistake("the sign is flipped", lambda x: -x)
    >>> named_mistake(np.array([-1.0]), [sign], {"x": np.array([1.0])}).message
    'the sign is flipped'
    >>> named_mistake(np.array([1.0]), [sign], {"x": np.array([1.0])}) is None
    True
    """
    for mistake in mistakes:
        if mistake.matches(result, arguments, rtol=rtol, atol=atol):
            return mistake
    return None


@dataclass
class Exercise:
    """One exercise: a prompt, a grader, a hint and a solution (as code).

    ``grade(answer)`` returns a Feedback; subclasses below build it for common answer kinds.
    ``starter`` is the code the notebook hands the learner; ``solution_code`` is the model
    answer, runnable as it stands (tests execute it and check it passes).

    Parameters
    ----------
    name : str
        Identifies the exercise (``ch02.q1`` is named in test ids).
    prompt : str
        The task as the learner reads it.
    hint_text : str or tuple of str
        What `hint` prints: one hint, or hints in tiers (a nudge first, then the recipe);
        each call of `hint` prints the next tier. The solution is never a tier: `solution`
        prints it, on request.
    solution_code : str
        The model answer as runnable code (what `solution` prints).
    starter : str
        The code the notebook hands the learner.
    success : str
        A sentence added to the feedback of a right answer.
    answer_name : str
        The name the starter and the solution define.
    goal : int
        The chapter's learning goal it checks (1 = the first of the header's list; 0: none).
    reuses : tuple of str
        Earlier chapters whose idea it asks for again ("02", ...).

    Examples
    --------
    >>> from posenc_lib.exercises import ch03
    >>> ch03.q1.evaluate(lambda max_len, d_model: max_len * d_model).passed
    True
    >>> q = ValueExercise(name="third", prompt="Compute 1/3.", solution_code="answer = 1 / 3",
    ...                   hint_text=("One part of three.", "Divide 1 by 3."), expected=lambda: 1 / 3)
    >>> q.hint(); q.hint(); q.hint()
    Hint 1 of 2: One part of three.
    Hint 2 of 2: Divide 1 by 3.
    No more hints: q.solution() prints a model answer.
    >>> q.hint(1)
    Hint 1 of 2: One part of three.
    """

    name: str
    prompt: str
    hint_text: str
    solution_code: str
    starter: str = ""
    success: str = ""
    answer_name: str = field(default="answer")
    goal: int = 0
    reuses: tuple = ()

    def grade(self, answer):  # pragma: no cover - subclasses define it
        raise NotImplementedError

    def evaluate(self, answer):
        """Return the Feedback for ``answer``; never raises."""
        try:
            feedback = self.grade(answer)
        except SystemExit:  # e.g. an answer whose __array__ exits; Ctrl-C still interrupts
            return Feedback(False, "your answer ran sys.exit() while it was being checked.")
        except Exception as err:  # a checker bug must not look like the learner's fault
            return Feedback(False, f"the checker could not grade this answer ({err!r}).")
        if feedback.passed and self.success:
            return Feedback(True, f"{feedback.message} {self.success}".strip())
        return feedback

    def check(self, answer):
        """Print whether ``answer`` is right and, if not, what to fix."""
        print(self.evaluate(answer))

    def ask(self):
        """Print the task, as the learner reads it where it is asked."""
        print(textwrap.fill(f"Exercise {self.name}: {self.prompt}", 100))
        for key, label in getattr(self, "labels", {}).items():
            print(
                textwrap.fill(
                    f"{key!r}: {label}", 100, initial_indent="  ", subsequent_indent="     "
                )
            )

    @property
    def hints(self):
        """The hints in the order `hint` gives them (a tuple of str)."""
        return (self.hint_text,) if isinstance(self.hint_text, str) else tuple(self.hint_text)

    def hint(self, tier=None):
        """Print the next hint (or hint number ``tier``, counting from 1).

        Parameters
        ----------
        tier : int, optional
            Which hint to print again; default: the one after the last printed.
        """
        hints = self.hints
        if tier is None:
            shown = getattr(self, "_hints_shown", 0)
            if shown >= len(hints):
                print("No more hints: q.solution() prints a model answer.")
                return
            tier = min(shown + 1, len(hints))
        elif isinstance(tier, bool) or not isinstance(tier, int) or not 1 <= tier <= len(hints):
            print(f"hint(tier): tier must be a whole number from 1 to {len(hints)}, got {tier!r}.")
            return
        self._hints_shown = max(getattr(self, "_hints_shown", 0), tier)
        label = "Hint:" if len(hints) == 1 else f"Hint {tier} of {len(hints)}:"
        print(label, hints[tier - 1])

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

    Each case is a dict of the arguments by name, in the order the prompt states them. The
    learner's function receives them **by position**, so it may name its parameters as it likes;
    only the names in ``keyword_only`` (which the prompt must ask for as keyword-only) are passed
    by keyword. ``reference`` receives the case by keyword. ``mistakes`` are known wrong answers
    (`Mistake`), named when the learner's result matches one; ``returns`` says what the function
    returns, for the feedback when it returns several values.

    Parameters
    ----------
    name : str
        Identifies the exercise (``ch02.q1`` is named in test ids).
    prompt : str
        The task as the learner reads it.
    hint_text : str
        What `hint` prints.
    solution_code : str
        The model answer as runnable code (what `solution` prints).
    starter : str
        The code the notebook hands the learner.
    success : str
        A sentence added to the feedback of a right answer.
    answer_name : str
        The name the starter and the solution define.
    goal, reuses
        The learning goal it checks and the earlier chapters it reuses, as in `Exercise`.
    reference : callable
        Computes the right result from a case, by keyword.
    cases : tuple of dict
        The arguments, by name, in the prompt's order.
    keyword_only : tuple of str
        Arguments passed by keyword (the prompt asks for them so).
    mistakes : tuple of Mistake
        Known wrong answers, named when made.
    returns : str
        What the function returns, for feedback about its result.
    rtol, atol : float
        Tolerances of the comparison.

    Examples
    --------
    >>> double = FunctionExercise(
    ...     name="double", prompt="Write f(x) returning 2 x.", hint_text="Multiply.",
    ...     solution_code="def f(x): return 2 * x", answer_name="f",
    ...     reference=lambda x: 2 * x, cases=({"x": 1.0}, {"x": -3.0}))
    >>> double.evaluate(lambda value: value + value).passed
    True
    >>> double.evaluate(lambda value: value + 2).message[:45]
    'the result of <lambda>(1) is 3, not the expec'
    """

    reference: object = None
    cases: tuple = ()
    keyword_only: tuple = ()
    mistakes: tuple = ()
    returns: str = "the result"
    rtol: float = 1e-6
    atol: float = 1e-9

    @property
    def parameters(self):
        """The argument names, in the order the checker passes them."""
        return tuple(self.cases[0]) if self.cases else ()

    @property
    def signature(self):
        """How the checker calls the learner's function, e.g. ``wavelength(i, d_model)``."""
        positional = [n for n in self.parameters if n not in self.keyword_only]
        keywords = [n for n in self.parameters if n in self.keyword_only]
        names = positional + (["*", *keywords] if keywords else [])
        return f"{self.answer_name}({', '.join(names)})"

    def _split(self, case):
        args = [v for k, v in case.items() if k not in self.keyword_only]
        return args, {k: v for k, v in case.items() if k in self.keyword_only}

    def _call_text(self, func, case):
        args, kwargs = self._split(case)
        shown = [_arg(a) for a in args] + [f"{k}={_arg(v)}" for k, v in kwargs.items()]
        return f"{getattr(func, '__name__', self.answer_name)}({', '.join(shown)})"

    def _learner_parameters(self, func):
        try:
            return inspect.signature(func).parameters
        except (TypeError, ValueError):  # builtins and other callables without a signature
            return None

    def _signature_problem(self, func):
        """Feedback if ``func`` cannot be called the way the checker calls it, else None."""
        parameters = self._learner_parameters(func)
        if parameters is None:
            return None
        args, kwargs = self._split(dict.fromkeys(self.parameters))
        try:
            inspect.signature(func).bind(*args, **kwargs)
        except TypeError as err:
            count = len(args)
            keywords = f", then {', '.join(kwargs)} by keyword" if kwargs else ""
            yours = f"{getattr(func, '__name__', 'your function')}{inspect.signature(func)}"
            return Feedback(
                False,
                f"the checker calls your function as {self.signature}: {count} argument"
                f"{'s' if count != 1 else ''} by position, in this order{keywords} (any names "
                f"will do). Yours is {yours}, which cannot take them ({err}).",
            )
        return None

    def _order_note(self, func):
        """Return a note when the learner used the prompt's names in another order."""
        parameters = self._learner_parameters(func)
        if parameters is None:
            return ""
        positional = [n for n in self.parameters if n not in self.keyword_only]
        theirs = list(parameters)[: len(positional)]
        if sorted(theirs) == sorted(positional) and theirs != positional:
            return (
                f" Note: arguments arrive by position in the order {self.signature}; your "
                f"parameters are in the order ({', '.join(theirs)})."
            )
        return ""

    def _result_problem(self, result, expected, case, call):
        what = f"the result of {call}"
        problem = compare_arrays(result, expected, rtol=self.rtol, atol=self.atol, what=what)
        if problem is None:
            return None
        if (
            isinstance(result, (tuple, list))
            and len(result) > 1
            and compare_arrays(result[0], expected, rtol=self.rtol, atol=self.atol) is None
        ):
            return Feedback(
                False,
                f"your function returned {len(result)} values for {call}, and the first is "
                f"right: return only {self.returns}.",
            )
        mistake = named_mistake(result, self.mistakes, case, rtol=self.rtol, atol=self.atol)
        if mistake is not None:
            return Feedback(False, f"for {call}: {mistake.message}")
        return problem

    def grade(self, answer):
        if not callable(answer):
            return Feedback(False, f"pass your function itself, got {_describe(answer)}.")
        problem = self._signature_problem(answer)
        if problem is not None:
            return problem
        for case in self.cases:
            expected = self.reference(**case)  # before the learner's function sees the arguments
            args, kwargs = self._split(copy.deepcopy(case))  # it may change them in place
            call = self._call_text(answer, case)
            result, error, raised = _call(answer, args, kwargs, call)
            if error is not None:
                for mistake in self.mistakes if raised is not None else ():
                    if mistake.matches_error(raised, case):
                        return Feedback(False, f"{error.message}. {mistake.message}")
                return error
            problem = self._result_problem(result, expected, case, call)
            if problem is not None:
                return Feedback(False, problem.message + self._order_note(answer))
        return Feedback(True, f"your function matches the library on {len(self.cases)} cases.")


@dataclass(repr=False)
class ValueExercise(Exercise):
    """The learner computes a value (number or array) that must match ``expected``.

    ``mistakes`` are known wrong values (`Mistake` with an ``answer`` that takes no arguments).

    Parameters
    ----------
    name : str
        Identifies the exercise (``ch02.q1`` is named in test ids).
    prompt : str
        The task as the learner reads it.
    hint_text : str
        What `hint` prints.
    solution_code : str
        The model answer as runnable code (what `solution` prints).
    starter : str
        The code the notebook hands the learner.
    success : str
        A sentence added to the feedback of a right answer.
    answer_name : str
        The name the starter and the solution define.
    goal, reuses
        The learning goal it checks and the earlier chapters it reuses, as in `Exercise`.
    expected : object
        The right value (number or array).
    mistakes : tuple of Mistake
        Known wrong values (their ``answer`` takes no arguments).
    rtol, atol : float
        Tolerances of the comparison.

    Examples
    --------
    >>> third = ValueExercise(
    ...     name="third", prompt="Compute 1/3.", hint_text="Divide.", solution_code="answer = 1 / 3",
    ...     expected=1 / 3)
    >>> third.evaluate(0.3333333333).passed, third.evaluate(0.33).passed
    (True, False)
    """

    expected: object = None
    mistakes: tuple = ()
    rtol: float = 1e-6
    atol: float = 1e-9

    def grade(self, answer):
        expected = self.expected() if callable(self.expected) else self.expected
        problem = compare_arrays(answer, expected, rtol=self.rtol, atol=self.atol)
        if problem is None:
            return Feedback(True, "that is the right value.")
        mistake = named_mistake(answer, self.mistakes, {}, rtol=self.rtol, atol=self.atol)
        return problem if mistake is None else Feedback(False, mistake.message)


@dataclass(repr=False)
class ChoiceExercise(Exercise):
    """The learner picks one of ``options`` (a dict: option -> explanation); ``correct`` is right.

    Options are compared case-insensitively as strings, so ``True``/"true" or 2/"2" both work,
    and an option written as a prompt lists it, "(b)" or "b)", counts as "b".

    Parameters
    ----------
    name : str
        Identifies the exercise (``ch02.q1`` is named in test ids).
    prompt : str
        The task as the learner reads it.
    hint_text : str
        What `hint` prints.
    solution_code : str
        The model answer as runnable code (what `solution` prints).
    starter : str
        The code the notebook hands the learner.
    success : str
        A sentence added to the feedback of a right answer.
    answer_name : str
        The name the starter and the solution define.
    goal, reuses
        The learning goal it checks and the earlier chapters it reuses, as in `Exercise`.
    options : dict
        Option -> the explanation shown when it is chosen (the right one starts "Right").
    correct : object
        The right option.
    labels : dict
        Option -> the text a quiz widget shows for it.

    Examples
    --------
    >>> coin = ChoiceExercise(
    ...     name="coin", prompt="Heads or tails?", hint_text="Look.", solution_code='answer = "heads"',
    ...     options={"heads": "Right: heads.", "tails": "No: it landed heads."}, correct="heads")
    >>> coin.evaluate("Heads").passed, coin.evaluate("tails").message
    (True, 'No: it landed heads.')
    >>> coin.evaluate("(heads)").passed, coin.evaluate("heads)").passed  # as a prompt lists options
    (True, True)
    """

    options: dict = field(default_factory=dict)
    correct: object = None
    labels: dict = field(default_factory=dict)  # option -> text shown in a quiz widget

    def grade(self, answer):
        key = {str(k).strip().lower(): k for k in self.options}
        if isinstance(answer, float) and math.isnan(answer):
            answer = None
        text = str(answer).strip().lower() if answer is not None else None
        chosen = key.get(text) if text is not None else None
        if chosen is None and text is not None:  # written as the prompt lists it: "(b)", "b)"
            chosen = key.get(re.sub(r"^\((.*)\)$|^(.*)\)$", r"\1\2", text).strip())
        if chosen is None:
            listed = ", ".join(repr(k) for k in self.options)
            return Feedback(False, f"answer with one of {listed}; got {_describe(answer)}.")
        return Feedback(chosen == self.correct, self.options[chosen])
