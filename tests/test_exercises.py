"""Every exercise of every chapter: the starter fails, the solution passes, and no malformed
answer makes a checker raise."""

import math

import numpy as np
import pytest

from posenc_lib.exercises import (
    ChoiceExercise,
    Feedback,
    FunctionExercise,
    ValueExercise,
    all_exercises,
)
from posenc_lib.exercises._core import compare_arrays

EXERCISES = list(all_exercises())
IDS = [f"{chapter}.{ex.name}" for chapter, ex in EXERCISES]


def _raises(*args, **kwargs):
    raise RuntimeError("boom from the learner")


MALFORMED = [
    None,
    "a string",
    42,
    3.5,
    math.nan,
    np.array([np.nan, 1.0]),
    np.zeros((3, 7)),
    np.zeros(0),
    [[1, 2], [3]],
    {"a": 1},
    _raises,
    lambda *a, **k: None,
    lambda *a, **k: "text",
    lambda *a, **k: np.full((2, 2), np.nan),
]


def run_code(code):
    scope = {"np": np}
    exec(code, scope)
    return scope


@pytest.mark.parametrize(("chapter", "exercise"), EXERCISES, ids=IDS)
def test_the_starter_fails_with_feedback(chapter, exercise):
    answer = run_code(exercise.starter)[exercise.answer_name]
    feedback = exercise.evaluate(answer)
    assert isinstance(feedback, Feedback)
    assert not feedback.passed
    assert feedback.message


@pytest.mark.parametrize(("chapter", "exercise"), EXERCISES, ids=IDS)
def test_the_solution_passes(chapter, exercise):
    answer = exercise.solution_answer({"np": np})
    feedback = exercise.evaluate(answer)
    assert feedback.passed, feedback.message


@pytest.mark.parametrize(("chapter", "exercise"), EXERCISES, ids=IDS)
@pytest.mark.parametrize("answer", MALFORMED, ids=lambda a: type(a).__name__)
def test_malformed_answers_get_feedback_not_a_traceback(chapter, exercise, answer):
    feedback = exercise.evaluate(answer)
    assert isinstance(feedback, Feedback)
    assert not feedback.passed
    assert "could not grade" not in feedback.message, feedback.message


@pytest.mark.parametrize(("chapter", "exercise"), EXERCISES, ids=IDS)
def test_check_hint_and_solution_print_for_the_learner(chapter, exercise, capsys):
    exercise.check(None)
    exercise.hint()
    exercise.solution()
    out = capsys.readouterr().out
    assert out.startswith("Not yet.")
    assert "Hint:" in out
    assert "Solution:" in out


def test_shape_feedback_names_both_shapes():
    feedback = compare_arrays(np.zeros((10, 511)), np.zeros((10, 512)))
    assert "(10, 511)" in feedback.message and "(10, 512)" in feedback.message


def test_value_feedback_shows_the_first_differing_entries_and_tolerance():
    answer = np.arange(6.0)
    answer[4] = 40.0
    feedback = compare_arrays(answer, np.arange(6.0), rtol=1e-6, atol=1e-9)
    assert "1 of 6 entries" in feedback.message
    assert "at (4,) you have 40, expected 4" in feedback.message
    assert "rtol=1e-06" in feedback.message


def test_nan_feedback_says_where():
    feedback = compare_arrays(np.array([0.0, np.nan]), np.zeros(2))
    assert "non-finite" in feedback.message and "(1,)" in feedback.message


def test_dtype_feedback_for_booleans_and_objects():
    assert "boolean" in compare_arrays(np.ones(2, bool), np.ones(2)).message
    assert "expected numbers" in compare_arrays(np.array(["a", "b"]), np.ones(2)).message


def test_function_exercise_reports_the_learners_own_error_message():
    exercise = FunctionExercise(
        name="f",
        prompt="",
        hint_text="",
        solution_code="",
        reference=lambda n: np.arange(n),
        cases=({"n": 3},),
    )

    def learner(n):
        raise KeyError("my own message")

    feedback = exercise.evaluate(learner)
    assert "learner(n=3) raised KeyError" in feedback.message
    assert "my own message" in feedback.message


def test_function_exercise_says_when_the_placeholder_is_still_there():
    exercise = FunctionExercise(
        name="f",
        prompt="",
        hint_text="",
        solution_code="",
        reference=lambda: np.zeros(1),
        cases=({},),
    )

    def learner():
        raise NotImplementedError

    assert "not implemented yet" in exercise.evaluate(learner).message


def test_a_checker_bug_is_reported_as_the_checkers_not_the_learners():
    exercise = ValueExercise(
        name="v", prompt="", hint_text="", solution_code="", expected=lambda: 1 / 0
    )
    feedback = exercise.evaluate(1.0)
    assert not feedback.passed and "checker could not grade" in feedback.message


def test_choice_answers_are_matched_loosely_and_explained():
    exercise = ChoiceExercise(
        name="c",
        prompt="",
        hint_text="",
        solution_code="",
        options={True: "yes because", False: "no because"},
        correct=True,
    )
    assert exercise.evaluate("true").passed
    assert exercise.evaluate(" TRUE ").message == "yes because"
    assert not exercise.evaluate(False).passed
    assert "answer with one of True, False" in exercise.evaluate("maybe").message


CHOICES = [(c, e) for c, e in EXERCISES if isinstance(e, ChoiceExercise)]


@pytest.mark.parametrize(
    ("chapter", "exercise"), CHOICES, ids=[f"{c}.{e.name}" for c, e in CHOICES]
)
def test_every_question_has_exactly_one_right_answer_and_explains_every_option(chapter, exercise):
    outcomes = {option: exercise.evaluate(option) for option in exercise.options}
    assert [o for o, f in outcomes.items() if f.passed] == [exercise.correct]
    assert all(len(f.message) > 20 for f in outcomes.values())
    assert not exercise.labels or set(exercise.labels) == set(exercise.options)
