"""Every exercise of every chapter: the starter fails, the solution passes, no malformed answer
makes a checker raise, a correct answer passes however its parameters are named, and every known
mistake is named when a learner makes it. Then the quiz: its coverage, and each answer key checked
against evidence computed with the library."""

import ast
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from posenc_lib import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    causal_mask,
    interpolate_positions,
    ntk_base,
    rope_frequencies,
    self_attention,
    sinusoidal_positions,
    softmax,
    wavelengths,
)
from posenc_lib.exercises import (
    ChoiceExercise,
    Feedback,
    FunctionExercise,
    Mistake,
    ValueExercise,
    all_exercises,
    ch08,
)
from posenc_lib.exercises._core import _fmt_pair, compare_arrays
from posenc_lib.learned import LearnedPositions, cosine_similarity
from posenc_lib.realtext import load_sweep, position_bits, windows
from posenc_lib.rope import dynamic_ntk_frequencies, llama3_frequencies
from posenc_lib.tasks import lookback

EXERCISES = list(all_exercises())
IDS = [f"{chapter}.{ex.name}" for chapter, ex in EXERCISES]


def _raises(*args, **kwargs):
    raise RuntimeError("boom from the learner")


def _exits(*args, **kwargs):
    sys.exit("bye")


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
    _exits,
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
    assert re.search(r"^Hint( 1 of \d+)?:", out, flags=re.M)  # one hint, or the first of tiers
    assert "Solution:" in out


def test_shape_feedback_names_both_shapes():
    feedback = compare_arrays(np.zeros((10, 511)), np.zeros((10, 512)))
    assert "(10, 511)" in feedback.message and "(10, 512)" in feedback.message


def test_value_feedback_shows_the_first_differing_entries_and_tolerance():
    answer = np.arange(20.0)
    answer[4] = 40.0
    feedback = compare_arrays(answer, np.arange(20.0), rtol=1e-6, atol=1e-9)
    assert "1 of 20 entries" in feedback.message
    assert "at (4,) you have 40, expected 4" in feedback.message
    assert "rtol=1e-06" in feedback.message


def test_value_feedback_never_prints_the_expected_values_of_a_small_answer():
    """A 2x2 matrix's four expected entries would be the answer (chapter 02's pair_shift starter printed
    its cos, sin, -sin pattern): up to SMALL numbers, the feedback names only your entries."""
    from posenc_lib.exercises._core import SMALL

    for size in (1, 4, SMALL):
        expected = np.linspace(0.1, 0.9, size)
        message = compare_arrays(np.zeros(size), expected).message
        assert f"{size} of {size} entries" in message and "you have 0" in message
        assert "expected 0." not in message and "hint()" in message
    message = compare_arrays(np.zeros(SMALL + 1), np.ones(SMALL + 1)).message
    assert "you have 0, expected 1" in message


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
    assert "learner(3) raised KeyError" in feedback.message
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


# -- calling the learner's function ----------------------------------------------------------------

FUNCTIONS = [(c, e) for c, e in EXERCISES if isinstance(e, FunctionExercise)]
FUNCTION_IDS = [f"{c}.{e.name}" for c, e in FUNCTIONS]


def _renamed_solution(exercise):
    """The exercise's own solution with every parameter of its function renamed."""
    tree = ast.parse(exercise.solution_code)
    func = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == exercise.answer_name
    )
    new = {a.arg: f"renamed_{k}" for k, a in enumerate(func.args.args)}

    class Rename(ast.NodeTransformer):
        def visit_arg(self, node):
            node.arg = new.get(node.arg, node.arg)
            return node

        def visit_Name(self, node):
            node.id = new.get(node.id, node.id)
            return node

    Rename().visit(func)
    code = ast.unparse(tree)
    assert not {a.arg for a in func.args.args} & set(exercise.parameters)
    return run_code(code)[exercise.answer_name]


@pytest.mark.parametrize(("chapter", "exercise"), FUNCTIONS, ids=FUNCTION_IDS)
def test_a_correct_solution_with_other_parameter_names_passes(chapter, exercise):
    feedback = exercise.evaluate(_renamed_solution(exercise))
    assert feedback.passed, feedback.message


@pytest.mark.parametrize(("chapter", "exercise"), FUNCTIONS, ids=FUNCTION_IDS)
def test_the_prompt_states_the_order_the_checker_calls_in(chapter, exercise):
    assert exercise.signature in exercise.prompt
    assert all(tuple(case) == exercise.parameters for case in exercise.cases)


@pytest.mark.parametrize(("chapter", "exercise"), FUNCTIONS, ids=FUNCTION_IDS)
def test_a_function_with_too_few_parameters_is_told_the_expected_order(chapter, exercise):
    solution = exercise.solution_answer({"np": np})
    n = len(exercise.parameters)
    short = run_code(
        f"def {exercise.answer_name}({', '.join(f'a{k}' for k in range(n - 1))}):\n    return None"
    )[exercise.answer_name]
    for learner in (short, lambda *args, extra: solution(*args)):
        feedback = exercise.evaluate(learner)
        assert not feedback.passed
        assert f"calls your function as {exercise.signature}" in feedback.message
        assert "any names will do" in feedback.message


def test_the_issues_examples_of_correct_answers_pass():
    from posenc_lib.exercises import ch01, ch02, ch03, ch04, ch05

    def attention(X, Wq, Wk, Wv):
        q, k = X @ Wq, X @ Wk
        s = q @ k.T / np.sqrt(Wk.shape[1])
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True) @ (X @ Wv)

    def cosine_matrix(m):
        u = m / np.linalg.norm(m, axis=1, keepdims=True)
        return u @ u.T

    def wavelength(pair, d):
        return 2 * np.pi * 10000 ** (2 * pair / d)

    def halving_distance(m):
        return math.log(2) / m

    def rotate_pair(v, theta):
        return np.array(
            [
                v[0] * np.cos(theta) - v[1] * np.sin(theta),
                v[0] * np.sin(theta) + v[1] * np.cos(theta),
            ]
        )

    for exercise, answer in [
        (ch01.q1, attention),
        (ch03.q3, cosine_matrix),
        (ch02.q2, wavelength),
        (ch05.q4, halving_distance),
        (ch04.q1, rotate_pair),
    ]:
        feedback = exercise.evaluate(answer)
        assert feedback.passed, feedback.message


def test_parameters_named_as_in_the_prompt_but_swapped_get_a_note():
    from posenc_lib import sinusoidal_positions
    from posenc_lib.exercises import ch02

    def positions(d_model, seq_len):
        return sinusoidal_positions(seq_len, d_model)

    feedback = ch02.q1.evaluate(positions)
    assert not feedback.passed
    assert "in the order positions(seq_len, d_model)" in feedback.message
    assert "your parameters are in the order (d_model, seq_len)" in feedback.message


def test_keyword_only_arguments_are_passed_by_keyword():
    exercise = FunctionExercise(
        name="f",
        prompt="Write f(x, *, scale).",
        hint_text="",
        solution_code="",
        answer_name="f",
        reference=lambda x, scale: x * scale,
        cases=({"x": np.arange(3.0), "scale": 2.0},),
        keyword_only=("scale",),
    )
    assert exercise.signature == "f(x, *, scale)"
    assert exercise.evaluate(lambda y, *, scale: y * scale).passed
    feedback = exercise.evaluate(lambda y, factor: y * factor)
    assert "then scale by keyword" in feedback.message


def test_sys_exit_inside_the_learners_function_is_feedback():
    from posenc_lib.exercises import ch02

    def positions(seq_len, d_model):
        sys.exit(2)

    feedback = ch02.q1.evaluate(positions)
    assert not feedback.passed
    assert "ran sys.exit(2)" in feedback.message


def test_other_base_exceptions_inside_the_learners_function_are_feedback():
    from posenc_lib.exercises import ch02

    def positions(seq_len, d_model):
        raise GeneratorExit("closed")

    feedback = ch02.q1.evaluate(positions)
    assert not feedback.passed
    assert "raised GeneratorExit: closed" in feedback.message


def test_ctrl_c_inside_the_learners_function_still_interrupts():
    from posenc_lib.exercises import ch02

    def positions(seq_len, d_model):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ch02.q1.evaluate(positions)


def test_a_learner_who_changes_the_arguments_in_place_cannot_corrupt_the_cases():
    from posenc_lib.exercises import ch01

    def attention(x, w_q, w_k, w_v):
        x *= 0.0
        w_q[:] = np.nan
        return x @ w_v

    assert not ch01.q1.evaluate(attention).passed
    assert ch01.q1.evaluate(ch01.q1.solution_answer({"np": np})).passed


def test_returning_output_and_weights_is_told_to_return_only_the_output():
    from posenc_lib import self_attention
    from posenc_lib.exercises import ch01

    for wrap in (tuple, list):
        feedback = ch01.q1.evaluate(
            lambda x, w_q, w_k, w_v, wrap=wrap: wrap(self_attention(x, w_q, w_k, w_v))
        )
        assert not feedback.passed
        assert "returned 2 values" in feedback.message
        assert "return only the output" in feedback.message


# -- mistakes: never named when the answer is right, and visible ---------------------------------
# (That each is named when a learner makes it is tested in test_exercise_mistakes.py, on wrong
# answers written there as a learner writes them, not built from the mistake's own answer.)

MISTAKES = [(c, e, m) for c, e in EXERCISES if getattr(e, "mistakes", ()) for m in e.mistakes]
MISTAKE_IDS = [f"{c}.{e.name}.{e.mistakes.index(m)}" for c, e, m in MISTAKES]


def _arguments(exercise):
    return exercise.cases if isinstance(exercise, FunctionExercise) else ({},)


def _reference(exercise, case):
    if isinstance(exercise, FunctionExercise):
        return exercise.reference(**case)
    return exercise.expected() if callable(exercise.expected) else exercise.expected


def _wrong(mistake, case):
    try:
        return mistake.answer(**case)
    except Exception:  # a variant undefined for this case (e.g. an odd head width)
        return None


def _error(mistake, case):
    """The exception a wrong variant raises for ``case`` (type and message), or None."""
    try:
        mistake.answer(**case)
    except Exception as error:
        return type(error).__name__, str(error)
    return None


def _visibly_different(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape != b.shape or not np.allclose(a, b, rtol=1e-3, atol=1e-6)


def test_every_function_exercise_with_a_known_wrong_variant_has_a_mistake_detector():
    named = {e.name for _, e, _ in MISTAKES}
    without = {e.name for _, e in FUNCTIONS} - named
    assert without == set()


@pytest.mark.parametrize(("chapter", "exercise", "mistake"), MISTAKES, ids=MISTAKE_IDS)
def test_the_mistake_detector_does_not_fire_on_the_solution(chapter, exercise, mistake):
    answer = exercise.solution_answer({"np": np})
    for case in _arguments(exercise):
        right = answer(*case.values()) if callable(answer) else answer
        wrong = _wrong(mistake, case)
        if wrong is not None and _visibly_different(wrong, _reference(exercise, case)):
            assert not mistake.matches(right, case, rtol=exercise.rtol, atol=exercise.atol)
    assert mistake.message not in exercise.evaluate(answer).message


@pytest.mark.parametrize(("chapter", "exercise", "mistake"), MISTAKES, ids=MISTAKE_IDS)
def test_the_cases_show_the_mistake_as_a_visible_difference(chapter, exercise, mistake):
    """On each case a wrong variant is either indistinguishable (within the checker's tolerance)
    or off by far more than it (0.1% relative), never in between, and it shows on some case (a
    mistake named by the error it raises shows as that error)."""
    visible = 0
    for case in _arguments(exercise):
        wrong, right = _wrong(mistake, case), _reference(exercise, case)
        if wrong is None:
            visible += 1
            continue
        if _visibly_different(wrong, right):
            visible += 1
        else:
            np.testing.assert_allclose(wrong, right, rtol=exercise.rtol, atol=exercise.atol)
    assert visible


@pytest.mark.parametrize(("chapter", "exercise"), FUNCTIONS, ids=FUNCTION_IDS)
def test_mistakes_of_one_exercise_are_told_apart(chapter, exercise):
    for a in exercise.mistakes:
        for b in exercise.mistakes:
            if a is not b:
                assert any(
                    (_wrong(a, case) is None) != (_wrong(b, case) is None)  # one raises
                    or (
                        _wrong(a, case) is not None
                        and _visibly_different(_wrong(a, case), _wrong(b, case))
                    )
                    or _error(a, case) != _error(b, case)  # both raise, each its own error
                    for case in exercise.cases
                ), (a.message, b.message)


def test_attention_cases_keep_the_softmax_soft():
    """The issue: one case used unit-variance weights, so the softmax saturated (nearly one-hot
    rows) and a missing 1/sqrt(d_k) hardly changed the output."""
    from posenc_lib.exercises import ch01

    for case in ch01.q1.cases:
        _, weights = self_attention(**case)
        if weights.shape[-1] > 1:
            assert weights.max() < 0.9


def test_a_missing_scale_shows_in_the_printed_digits():
    """Feedback printed 'you have -2.11342, expected -2.11342' for a missing 1/sqrt(d_k): numbers
    now get the digits that tell them apart, and the largest difference is always shown."""
    from posenc_lib.exercises import ch01

    unscaled = ch01.q1.mistakes[0]
    assert "sqrt(d_k)" in unscaled.message
    for case in ch01.q1.cases[:2]:
        wrong, right = unscaled.answer(**case), ch01.q1.reference(**case)
        assert np.max(np.abs(wrong - right)) > 0.05
    assert _fmt_pair(-2.1134201, -2.1134213) == ("-2.1134201", "-2.1134213")
    assert _fmt_pair(0.5, 0.25) == ("0.5", "0.25")
    answer = np.ones(20)
    answer[0] += 3e-6
    message = compare_arrays(answer, np.ones(20)).message
    assert "you have 1.000003, expected 1" in message
    answer = np.arange(100.0)
    answer[:5] += 1e-5
    answer[50] += 7.0
    message = compare_arrays(answer, np.arange(100.0)).message
    assert "the largest difference is at (50,): you have 57, expected 50" in message


def test_rounding_residue_in_an_expected_value_is_shown_as_zero():
    expected = np.zeros(20)
    expected[0], expected[1] = np.cos(np.pi / 2), 1.0
    answer = np.zeros(20)
    answer[0] = 1.0
    message = compare_arrays(answer, expected).message
    assert "at (0,) you have 1, expected 0;" in message
    assert "e-17" not in message


def test_rope_layout_conversion_works_head_by_head():
    """The success message's claim: weights converted per head, rotated the half way in each
    head, give the scores of the original weights rotated the interleaved way."""
    from posenc_lib import apply_rope
    from posenc_lib.exercises import ch04

    rng = np.random.default_rng(0)
    n_heads, d_head, d_model = 3, 8, 12
    x = rng.normal(size=(10, d_model))
    w_q, w_k = rng.normal(size=(2, d_model, n_heads * d_head))
    answer = ch04.q4.solution_answer({"np": np})

    def scores(wq, wk, convention):
        q = (x @ wq).reshape(10, n_heads, d_head).transpose(1, 0, 2)
        k = (x @ wk).reshape(10, n_heads, d_head).transpose(1, 0, 2)
        q, k = apply_rope(q, convention=convention), apply_rope(k, convention=convention)
        return q @ k.transpose(0, 2, 1)

    original = scores(w_q, w_k, "interleaved")
    converted = scores(answer(w_q, n_heads), answer(w_k, n_heads), "half")
    np.testing.assert_allclose(converted, original, atol=1e-10)
    whole_axis = ch04.q4.mistakes[0].answer(w=w_q, n_heads=n_heads)
    assert not np.allclose(scores(whole_axis, answer(w_k, n_heads), "half"), original)


def test_a_mistake_that_cannot_be_computed_for_an_answer_does_not_match():
    undefined = Mistake("never", lambda n: 1 / 0)
    assert not undefined.matches(1.0, {"n": 3})


def test_chapter_00_asks_for_floats_and_says_so_to_right_integers():
    """00: the prompt asks for a float array; np.arange(10) holds the right numbers as integers."""
    from posenc_lib.exercises import ch00

    for integers in (np.arange(10), list(range(10)), np.arange(10, dtype=np.int32)):
        feedback = ch00.q2.evaluate(integers)
        assert not feedback.passed and "integers" in feedback.message
        assert "dtype=float" in feedback.message
    for floats in (np.arange(10.0), np.arange(10, dtype=np.float32), [float(p) for p in range(10)]):
        assert ch00.q2.evaluate(floats).passed


def test_chapter_01_takes_a_boolean_permutation_matrix():
    """01: P @ x with a boolean P counts True as 1, so np.eye(T, dtype=bool)[order] is a right P;
    its transpose is still named as the inverse shuffle."""
    from posenc_lib.exercises import ch01

    assert ch01.q3.evaluate(lambda order: np.eye(len(order), dtype=bool)[list(order)]).passed
    transposed = ch01.q3.evaluate(lambda order: np.eye(len(order), dtype=bool)[list(order)].T)
    assert not transposed.passed and ch01.q3.mistakes[0].message in transposed.message


def test_chapter_02_names_the_textbook_rotation_without_handing_over_the_shift_matrix():
    """02 q3: the textbook rotation [[c, -s], [s, c]] is M_k's transpose under the (sin, cos) order;
    the feedback says so and leaves the derivation to the learner (no rows of the answer)."""
    from posenc_lib.exercises import ch02

    def pair_shift(k, omega):
        c, s = np.cos(k * omega), np.sin(k * omega)
        return np.array([[c, -s], [s, c]])

    message = ch02.q5.evaluate(pair_shift).message
    assert "textbook rotation" in message and "(sin, cos)" in message
    assert "[cos kw, sin kw]" not in message and "[-sin kw, cos kw]" not in message
    assert all(line not in ch02.q5.hints[0] for line in ("[c, s]", "[-s, c]"))


def test_a_float32_answer_is_told_its_precision_is_the_problem():
    """A table computed in float32 agrees only to float32's digits: the feedback names the dtype
    and the fix, not "differs in N entries"; a wrong float32 answer gets a note beside the usual."""
    from posenc_lib.exercises import ch02

    def positions(seq_len, d_model):
        omega = np.float32(10000.0) ** (-np.arange(0, d_model, 2, dtype=np.float32) / d_model)
        angles = np.arange(seq_len, dtype=np.float32)[:, None] * omega[None, :]
        pe = np.zeros((seq_len, d_model), dtype=np.float32)
        pe[:, 0::2] = np.sin(angles)
        pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
        return pe

    feedback = ch02.q1.evaluate(positions)
    assert not feedback.passed
    assert "float32 (single precision)" in feedback.message and "float64" in feedback.message
    assert "differs from the expected values" not in feedback.message
    wrong = ch02.q1.evaluate(lambda seq_len, d_model: positions(seq_len, d_model) + 0.5)
    assert "differs from the expected values" in wrong.message and "Note:" in wrong.message


# -- the quiz ------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
QUIZ = {q.name: q for q in ch08.QUESTIONS}


def test_the_quiz_covers_chapters_01_to_07_and_mostly_asks_to_predict_or_reason():
    questions = ch08.QUESTIONS
    assert len(QUIZ) == len(questions) >= 16
    per_chapter = Counter(q.chapter for q in questions)
    assert all(per_chapter[f"{n:02d}"] >= 2 for n in range(1, 8)), per_chapter
    kinds = Counter(q.kind for q in questions)
    assert set(kinds) <= set(ch08.KINDS)
    assert kinds["predict"] + kinds["reason"] >= len(questions) / 2, kinds


def test_the_right_answers_follow_no_pattern():
    letters = Counter(q.correct for q in ch08.QUESTIONS if q.correct in ("a", "b", "c", "d"))
    assert len(letters) == 4
    assert max(letters.values()) <= 0.4 * sum(letters.values()), letters


@pytest.mark.parametrize("question", ch08.QUESTIONS, ids=lambda q: q.name)
def test_every_option_is_explained_and_only_the_right_one_says_so(question):
    assert set(question.labels) == set(question.options)
    assert len(set(question.options.values())) == len(question.options)
    for key, explanation in question.options.items():
        assert len(explanation) >= 40, (key, explanation)
        right = key == question.correct
        assert explanation.startswith("Right") == right, (key, explanation)
        assert right or explanation.startswith(("No", "Not")), (key, explanation)


def _words(text):
    return re.findall(r"[\w^.,+-]+", text.lower())


@pytest.mark.parametrize("question", ch08.QUESTIONS, ids=lambda q: q.name)
def test_no_hint_gives_the_answer_away(question):
    hint = " ".join(question.hints).lower()  # every tier
    label = question.labels[question.correct].lower()
    prompt = question.prompt.lower()
    assert label not in hint
    assert not re.search(rf"['\"]{re.escape(str(question.correct))}['\"]", hint)
    number = r"\d[\d,.^-]*\d"  # numbers of two or more characters: 0.75, 54,000, 2^-0.5
    numbers = set(re.findall(number, label)) - set(re.findall(number, prompt))
    assert not [n for n in numbers if n in hint], numbers
    words = _words(label)
    for k in range(len(words) - 2):
        run = " ".join(words[k : k + 3])
        assert run not in " ".join(_words(hint)) or run in " ".join(_words(prompt)), run


# Each answer key is checked against evidence computed here with the library (or, for the one
# question about real models, against the literature), independently of the solution code: the
# evidence names a phrase that the right option's label must contain and no other label may.

EVIDENCE = {}


def evidence(name):
    def register(func):
        EVIDENCE[name] = func
        return func

    return register


def _layer(seed=0, t=6, d=8):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(t, d)), *(rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))


@evidence("shuffle")
def _():
    x, *w = _layer()
    order = [0, 4, 2, 3, 1, 5]
    np.testing.assert_allclose(self_attention(x[order], *w)[0], self_attention(x, *w)[0][order])
    return "same vector"


@evidence("invariant")
def _():
    x, *w = _layer()
    order = [2, 0, 1, 5, 3, 4]
    out, shuffled = self_attention(x, *w)[0], self_attention(x[order], *w)[0]
    np.testing.assert_allclose(shuffled, out[order])  # equivariant
    assert np.max(np.abs(shuffled - out)) > 0.1  # not invariant
    return "False"


def _middle_change(**options):
    x, *w = _layer(t=3)
    swapped = x[[2, 1, 0]]
    return np.max(
        np.abs(
            self_attention(x, *w, **options)[0][1] - self_attention(swapped, *w, **options)[0][1]
        )
    )


@evidence("causal_swap")
def _():
    assert _middle_change(mask=causal_mask(3)) > 0.01
    # the middle query's visible keys: the first token and itself, never the last one
    assert causal_mask(3)[1].tolist() == [True, True, False]
    return "first token and itself"


@evidence("index")
def _():
    d = 8
    pe = sinusoidal_positions(20, d)
    p = np.arange(20)
    # column 2 is the sine of pair i = 1, whose exponent is 2i/d = 2/d (not 2 * 2/d)
    np.testing.assert_allclose(pe[:, 2], np.sin(p * 10000.0 ** (-2 * 1 / d)))
    np.testing.assert_allclose(pe[:, 3], np.cos(p * 10000.0 ** (-2 * 1 / d)))
    return "Pairs"


@evidence("base")
def _():
    before, after = wavelengths(128)[-1], wavelengths(128, base=20000.0)[-1]
    assert 1.97 < after / before < 1.99
    assert wavelengths(128, base=20000.0)[0] == wavelengths(128)[0] == 2 * np.pi
    label = QUIZ["base"].labels[QUIZ["base"].correct]
    assert f"{round(before, -3):,.0f}" in label and f"{round(after, -3):,.0f}" in label
    return "almost doubles"


@evidence("direction")
def _():
    pe = sinusoidal_positions(40, 64)
    p = 20
    assert np.isclose(pe[p] @ pe[p + 3], pe[p] @ pe[p - 3])
    return "equal"


@evidence("wall")
def _():
    with pytest.raises(ValueError, match="max_len=1024"):
        LearnedPositions(1024, 8)(1500)
    return "no vector"


@evidence("unseen_rows")
def _():
    from autograd import grad

    from posenc_lib.model import ModelConfig, init_params, loss_fn

    config = ModelConfig(vocab_size=16, scheme="learned", d_model=16, max_len=64)
    params = init_params(config, seed=0)
    tokens, targets = lookback(3).sample(0, 4, 32)
    gradient = grad(loss_fn)(params, tokens, targets, config)["pos"]
    assert np.all(gradient[32:] == 0) and np.any(gradient[:32] != 0)
    rows = LearnedPositions(64, 32, rng=0).table
    assert abs(cosine_similarity(rows)[40, 41]) < 0.5
    return "random"


@evidence("table_size")
def _():
    n = LearnedPositions(1024, 768).n_parameters
    return f"{n:,} and 0"


@evidence("offset")
def _():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 1, 16))

    def score(m, n):
        return (apply_rope(q, positions=[m]) @ apply_rope(k, positions=[n]).T).item()

    assert np.isclose(score(3, 7), score(103, 107))
    assert not np.isclose(score(3, 7), score(7, 3))
    assert not np.isclose(score(3, 7), score(6, 14))
    return "q at 103"


@evidence("layout")
def _():
    x = np.random.default_rng(0).normal(size=(10, 16))
    half, interleaved = apply_rope(x, convention="half"), apply_rope(x)
    assert half.shape == interleaved.shape
    assert np.max(np.abs(half - interleaved)) > 1.0
    return "wrong partners"


@evidence("ntk")
def _():
    d = 64
    slowdown = rope_frequencies(d) / rope_frequencies(d, base=ntk_base(10000.0, 4.0, d))
    assert np.isclose(slowdown[0], 1.0) and np.isclose(slowdown[-1], 4.0)
    return "fastest keeps"


@evidence("dynamic_short")
def _():
    d = 64  # a prompt shorter than the trained 4,096 tokens: dynamic NTK keeps the trained speeds
    assert np.array_equal(dynamic_ntk_frequencies(d, 2.0, 4096, 1000), rope_frequencies(d))
    assert not np.allclose(dynamic_ntk_frequencies(d, 2.0, 4096, 8192), rope_frequencies(d))
    return "trained with, unchanged"


@evidence("llama3_fast")
def _():
    d, base = 128, 500000.0
    theta = rope_frequencies(d, base=base)
    kept = llama3_frequencies(d, 8.0, 8192, base=base) / theta
    wavelengths = 2 * np.pi / theta
    assert np.all(kept[wavelengths < 2048] == 1.0)  # more than 4 turns over 8,192: kept
    assert np.any((wavelengths > 900) & (wavelengths < 1100))  # a pair near 1,000 exists
    return "left as trained"


@evidence("slopes12")
def _():
    np.testing.assert_allclose(np.log2(alibi_slopes(12))[8:], [-0.5, -1.5, -2.5, -3.5])
    return "2^(-1/2), 2^(-3/2), 2^(-5/2), 2^(-7/2)"


@evidence("exact_offset")
def _():
    weights = softmax(np.where(causal_mask(16), alibi_bias(16, 8), -np.inf))[:, -1]
    assert np.all(np.argmax(weights[:, ::-1], axis=-1) == 0)  # distance 0 wins in every head
    return "distance 0"


@evidence("sign")
def _():
    weights = softmax(np.where(causal_mask(16), -alibi_bias(16, 8), -np.inf))[:, -1]
    assert np.all(np.argmax(weights, axis=-1) == 0)  # key 0, the farthest back, wins
    return "most distant"


@evidence("recency")
def _():
    short, long = alibi_bias(32, 4)[:, -1], alibi_bias(256, 4)[:, -1, -32:]
    np.testing.assert_array_equal(short, long)  # a distance costs the same at every length
    assert np.all(np.diff(short, axis=-1) > 0)  # nearer keys always score higher
    with pytest.raises(ValueError):
        LearnedPositions(32, 8)(256)
    return "ALiBi"


@evidence("defined")
def _():
    pe = sinusoidal_positions(256, 32)
    assert np.all(np.isfinite(pe))  # defined at every position ...
    nearest = np.min(np.linalg.norm(pe[32:, None] - pe[None, :32], axis=-1), axis=1)
    assert np.all(nearest > 0.1)  # ... but positions past 31 are inputs training never showed
    return "that takes a measurement"


@evidence("interpolation")
def _():
    positions = interpolate_positions([7.0, 10.0], 4.0)
    assert positions[1] - positions[0] == 0.75
    return "0.75"


@evidence("models")
def _():
    # Not computable here: LLaMA uses RoPE only (Touvron et al. 2023; reference.md, claim C15),
    # BERT and GPT-2 learned tables, the original Transformer sinusoids.
    return "LLaMA"


@evidence("chunk_starts")
def _():
    ids = np.arange(4096)
    starved = {}
    for length in (64, 128):
        tokens, targets = windows(ids, length, "nonoverlapping", n_scored=1024, start=1024)
        starved[length] = targets[:, :3].size  # the first three characters of every chunk
        scored = np.sort(targets[targets >= 0])
        np.testing.assert_array_equal(scored, np.arange(1025, 2049))  # the same characters
    assert starved[128] * 2 == starved[64]
    return "Fewer characters start"


@evidence("cost")
def _():
    from posenc_lib.t5 import t5_bias

    def sizes(t):
        added = sinusoidal_positions(t, 64).size  # a vector per token
        rotated = apply_rope(np.zeros((t, 64))).size  # each query (and key) turned once
        biases = alibi_bias(t, 1).size, t5_bias(np.zeros((1, 32)), t, bidirectional=False).size
        return added, rotated, *biases

    short, long = sizes(512), sizes(2048)
    assert [b / a for a, b in zip(short, long, strict=True)] == [4, 4, 16, 16]
    return "16 times for ALiBi"


@evidence("units")
def _():
    chars_per_word, word_gain, char_gain = 5, 0.20, 0.05
    n_chars = 1_000_000  # any text: its bits counted per character and per word agree
    total = char_gain * n_chars
    per_word = total / (n_chars / chars_per_word)
    assert per_word == pytest.approx(0.25) and per_word > word_gain
    assert per_word == pytest.approx(1 / 4)
    return "a quarter of a bit per word"


@evidence("content")
def _():
    # in a chunk of 1,024 a character at position p < 64 has exactly the context it has at
    # position p of its chunk of 64, so the committed excess curves are zero there (up to the
    # rounding of the stored sums): the subtraction cancels the text and leaves the position
    _, curves = load_sweep()
    for scheme in ("none", "sinusoidal", "rope", "alibi", "t5"):
        excess = position_bits(curves, scheme, 1024, field="excess")
        assert np.all(np.abs(excess[1][:64]) < 1e-3) and np.any(np.abs(excess[1][64:]) > 0.01)
    ids = np.arange(4096)
    long_chunks = windows(ids, 1024, "nonoverlapping", n_scored=2048, start=1024)[1].ravel()
    short_chunks = windows(ids, 64, "nonoverlapping", n_scored=2048, start=1024)[1].ravel()
    np.testing.assert_array_equal(long_chunks, short_chunks)  # the same characters, in order
    return "chunk of 64"


@evidence("layer_mix")
def _():
    from posenc_lib.hybrid_study import load_hybrid_study
    from posenc_lib.records import paired_differences
    from posenc_lib.tasks import TASKS

    records = load_hybrid_study()[0]

    def ahead_in_every_seed(plan):
        for task in TASKS:
            pairs = paired_differences(
                records,
                "layers",
                plan,
                "rope+rope",
                task=task,
                config="2L-4x8+mlp+bos",
                eval_len=256,
                region="unseen",
            )
            sign = -1 if task == "markov" else 1  # the Markov chain's loss: lower is better
            if not all(sign * p["difference"] > 0 for p in pairs):
                return False
        return True

    assert [p for p in ("rope+nope", "local+global", "nope+nope") if ahead_in_every_seed(p)] == [
        "local+global"
    ]
    return "a global layer at base 1,000,000"


def test_every_quiz_question_has_its_own_evidence():
    assert set(EVIDENCE) == set(QUIZ)


@pytest.mark.parametrize("name", sorted(EVIDENCE))
def test_the_answer_key_agrees_with_the_evidence(name):
    phrase = EVIDENCE[name]()
    question = QUIZ[name]
    holding = [key for key, label in question.labels.items() if phrase in label]
    assert holding == [question.correct], (phrase, holding)


def test_chapter_04_rotate_pair_with_angle_first_is_told_the_argument_order():
    """04 q1: rotate_pair(angle, x), the model solution with its parameters swapped (any names),
    raises on a vector where it expects a number; the feedback says it is right when swapped."""
    from posenc_lib.exercises import ch04

    def rotate_pair(angle, x):
        c, s = np.cos(angle), np.sin(angle)
        return np.array([[c, -s], [s, c]]) @ x

    def turn(theta, v):
        a, b = v
        return np.array(
            [a * np.cos(theta) - b * np.sin(theta), a * np.sin(theta) + b * np.cos(theta)]
        )

    for answer in (rotate_pair, turn):
        feedback = ch04.q1.evaluate(answer)
        assert not feedback.passed
        assert "right answer when called as rotate_pair(angle, x)" in feedback.message
        assert "the checker calls rotate_pair(x, angle)" in feedback.message
    wrong = ch04.q1.evaluate(lambda angle, x: np.array([[1.0, 0.0], [0.0, 1.0]]) @ x)
    assert "Swap your parameters" not in wrong.message


def test_chapter_04_both_vectors_turned_clockwise_is_named_among_the_causes():
    """04 q2: turning q and k clockwise gives the score of the swapped positions exactly; the
    feedback names both, and turning only k by m - n."""
    from posenc_lib import apply_rope
    from posenc_lib.exercises import ch04

    def rope_score(q, k, m, n):
        q_m = apply_rope(q[None], positions=[-m])[0]
        return float(q_m @ apply_rope(k[None], positions=[-n])[0])

    def only_k(q, k, m, n):
        return float(q @ apply_rope(k[None], positions=[m - n])[0])

    for answer in (rope_score, only_k):
        feedback = ch04.q2.evaluate(answer)
        assert not feedback.passed and "clockwise" in feedback.message
        assert "q rotated to position n and k to m" in feedback.message


def test_chapter_06_a_gap_of_none_where_the_scheme_runs_names_the_longest_length():
    """06 q2: a gap that takes the longest length from every record (another task's) finds no
    'unseen' value and returns None; the feedback says the scheme can run and where to look,
    not 'did you forget to return'."""
    from posenc_lib.exercises import ch06

    def gap(records, task, scheme):
        rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
        longest = max(r["eval_len"] for r in records)  # every record's, not this task's
        at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
        at_longest = [
            r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"
        ]
        if not at_longest or None in at_train + at_longest:
            return None
        return np.mean(at_longest) - np.mean(at_train)

    feedback = ch06.q2.evaluate(gap)
    assert not feedback.passed
    assert "forget to `return`" not in feedback.message
    assert "this task's and scheme's own records" in feedback.message


def test_the_nats_to_bits_feedback_gets_the_sizes_of_the_units_right():
    """One bit is ln 2 = 0.693 nats: the smaller unit, so a loss counts more bits than nats (a
    review found the feedback calling the bit the bigger unit)."""
    import math

    from posenc_lib.exercises import ch07

    feedback = ch07.q2.evaluate(lambda loss: loss * math.log(2)).message
    assert math.log(2) < 1 and "smaller unit" in feedback and "bigger unit" not in feedback
    assert ch07.q2.reference(2.0) > 2.0  # the same loss is a larger number of bits
