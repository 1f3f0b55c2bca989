"""Chapter 1: attention can't see order."""

from dataclasses import dataclass

import numpy as np

from ..attention import permutation_matrix, self_attention, softmax
from ._core import ChoiceExercise, FunctionExercise, Mistake


def _layer_case(seed, t, d_model, d_k, d_v):
    """Random tokens and a layer scaled like a trained one.

    The scaled scores have spread about 1, so the softmax is not saturated and a missing or wrong
    scale changes every output.
    """
    rng = np.random.default_rng(seed)
    return {
        "x": rng.normal(size=(t, d_model)),
        "w_q": rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        "w_k": rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        "w_v": rng.normal(size=(d_model, d_v)) / np.sqrt(d_model),
    }


def _attention(x, w_q, w_k, w_v, *, scale=None, axis=-1, scores_kq=False, softmax_=True):
    """One head of attention with the usual slips switched on by the keywords."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = (k @ q.T if scores_kq else q @ k.T) / np.sqrt(w_k.shape[1] if scale is None else scale)
    weights = softmax(scores, axis=axis) if softmax_ else scores
    return weights @ v


def _flat_softmax(x, w_q, w_k, w_v, *, flat_max, flat_sum):
    """One head whose hand-written softmax drops keepdims=True from its row maximum or row sum.

    Without keepdims a row statistic has shape (T,), which numpy lines up with the columns: entry
    (i, j) gets row j's maximum or sum instead of row i's.
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(w_k.shape[1])
    scores = scores - (scores.max(axis=-1) if flat_max else scores.max(axis=-1, keepdims=True))
    e = np.exp(scores)
    return (e / (e.sum(axis=-1) if flat_sum else e.sum(axis=-1, keepdims=True))) @ v


q1 = FunctionExercise(
    name="attention",
    prompt=(
        "Write attention(x, w_q, w_k, w_v) for one head without a mask: q, k, v = x w_q, x w_k, "
        "x w_v; weights = softmax(q k^T / sqrt(d_k)) row by row; return only the output "
        "weights @ v, shape (T, d_v)."
    ),
    hint_text=(
        "Work with whole matrices, as in the worked example but for every query at once: one "
        "matrix product gives every query against every key, one row per query. Each row then "
        "becomes a row of weights, and the weights mix the rows of v.",
        "q = x @ w_q (likewise k and v); d_k is w_k.shape[1]; the scores are q @ k.T divided by "
        "np.sqrt(d_k). For the softmax of each row: subtract the row's maximum (axis=-1, "
        "keepdims=True), take np.exp, divide by the row sums (axis=-1, keepdims=True). Return "
        "the weights times v.",
    ),
    starter="""def attention(x, w_q, w_k, w_v):
    # YOUR CODE HERE: q, k, v; scores; a softmax over each row; the weighted sum of values
    raise NotImplementedError""",
    solution_code="""def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    return weights @ v""",
    answer_name="attention",
    reference=lambda **case: self_attention(**case)[0],
    cases=(_layer_case(1, 6, 8, 8, 8), _layer_case(2, 5, 6, 4, 3), _layer_case(3, 1, 2, 2, 3)),
    returns="the output weights @ v (the library's self_attention also returns the weights; "
    "this exercise asks for the output alone)",
    mistakes=(
        Mistake(
            "your output is what attention gives without the 1/sqrt(d_k) scale. Divide the "
            "scores q k^T by sqrt(d_k) before the softmax, or wide heads saturate it.",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, scale=1.0),
        ),
        Mistake(
            "your scores are divided by d_k; divide by its square root, sqrt(d_k).",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, scale=w_k.shape[1] ** 2),
        ),
        Mistake(
            "your scores are divided by sqrt(d_model), the width of x; the scale is "
            "sqrt(d_k), the width of the queries and keys (w_k.shape[1]).",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, scale=x.shape[1]),
        ),
        Mistake(
            "your scores are divided by sqrt(d_v), the width of the values; the scale is "
            "sqrt(d_k), the width of the queries and keys (w_k.shape[1]).",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, scale=w_v.shape[1]),
        ),
        Mistake(
            "your softmax runs down each column (axis=0), so each key's weights sum to 1. "
            "Each query's row must sum to 1: take the softmax over the keys, axis=-1.",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, axis=0),
        ),
        Mistake(
            "your scores are transposed (k q^T): row i must hold query i against every key, "
            "q k^T, before the row-wise softmax.",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, scores_kq=True),
        ),
        Mistake(
            "your function uses the scaled scores as weights: turn them into weights with a "
            "softmax over each row first.",
            lambda x, w_q, w_k, w_v: _attention(x, w_q, w_k, w_v, softmax_=False),
        ),
        Mistake(
            "your function returns the attention weights; return their weighted sum of the "
            "values, weights @ v.",
            lambda x, w_q, w_k, w_v: self_attention(x, w_q, w_k, w_v)[1],
        ),
        Mistake(
            "your softmax divides by the row sums without keepdims=True. e.sum(axis=-1) has "
            "shape (T,), and numpy lines it up with the columns, so entry (i, j) is divided by "
            "row j's sum instead of row i's. Keep the axis, e.sum(axis=-1, keepdims=True) (shape "
            "(T, 1)), and each row is divided by its own sum.",
            lambda x, w_q, w_k, w_v: _flat_softmax(x, w_q, w_k, w_v, flat_max=False, flat_sum=True),
        ),
        Mistake(
            "your softmax subtracts the row maxima without keepdims=True. s.max(axis=-1) has "
            "shape (T,), and numpy lines it up with the columns, so entry (i, j) loses row j's "
            "maximum: the entries of one row are shifted by different amounts, which changes "
            "the weights (a softmax only ignores one constant per row). Use "
            "s.max(axis=-1, keepdims=True).",
            lambda x, w_q, w_k, w_v: _flat_softmax(x, w_q, w_k, w_v, flat_max=True, flat_sum=False),
        ),
        Mistake(
            "your softmax leaves out keepdims=True twice, in the row maxima and in the row sums. "
            "A row statistic of shape (T,) lines up with the columns, so entry (i, j) gets row "
            "j's maximum and sum instead of row i's. Write axis=-1, keepdims=True in both.",
            lambda x, w_q, w_k, w_v: _flat_softmax(x, w_q, w_k, w_v, flat_max=True, flat_sum=True),
        ),
    ),
    success="This is exactly what posenc_lib.self_attention computes (plus masks and biases).",
    goal=1,
)


@dataclass(repr=False)
class _PermutationExercise(FunctionExercise):
    """A matrix exercise that takes a boolean matrix as its 0/1 numbers.

    ``P @ x`` with a boolean ``P`` multiplies by True as 1 and False as 0, so
    ``np.eye(T, dtype=bool)[order]`` is as good a permutation matrix as a float one.

    Examples
    --------
    >>> q3.evaluate(lambda order: np.eye(len(order), dtype=bool)[list(order)]).passed
    True
    """

    def _result_problem(self, result, expected, case, call):
        if isinstance(result, np.ndarray) and result.dtype == bool:
            result = result.astype(float)  # True is 1 and False is 0 in P @ x
        return super()._result_problem(result, expected, case, call)


q3 = _PermutationExercise(
    name="perm_matrix",
    prompt=(
        "Write perm_matrix(order) returning the (T, T) matrix P with (P @ x)[i] == x[order[i]], "
        "so that P @ x is the shuffled sentence."
    ),
    hint_text=(
        "(P @ x)[i] is row i of P times x: it picks out x[order[i]] when row i of P is all "
        "zeros except for a single 1. In which column does that 1 go?",
        "Row i of P is the unit vector e_{order[i]}, with its 1 in column order[i]: set "
        "P[i, order[i]] = 1 for every i, or take the rows of np.eye(T) in the order given.",
    ),
    starter="""def perm_matrix(order):
    T = len(order)
    P = np.zeros((T, T))
    # YOUR CODE HERE: put one 1 in each row
    return P""",
    solution_code="""def perm_matrix(order):
    return np.eye(len(order))[list(order)]""",
    answer_name="perm_matrix",
    reference=lambda order: permutation_matrix(order),
    # The chapter's shuffle swaps two words, so its matrix equals its transpose; the 3-cycle
    # and the 5-token shuffle are not their own inverses, so a transposed P shows.
    cases=(
        {"order": [0, 4, 2, 3, 1, 5]},
        {"order": [2, 0, 1]},
        {"order": [3, 0, 4, 1, 2]},
        {"order": [0]},
    ),
    mistakes=(
        Mistake(
            "your matrix is the transpose of P, the inverse shuffle: (P.T @ x)[order[i]] == "
            "x[i]. Row i of P needs its 1 in column order[i], so that (P @ x)[i] == x[order[i]].",
            lambda order: permutation_matrix(order).T,
        ),
        Mistake(
            "your matrix is still all zeros: put one 1 in each row.",
            lambda order: np.zeros((len(order), len(order))),
        ),
    ),
    success="Now check attn(P x) == P attn(x) with it, as the next cell does. (A boolean P "
    "passes too: P @ x counts True as 1 and False as 0.)",
    goal=3,
)

_KEEPS_BREAKS = "Answer 'keeps' or 'breaks'."


def _symmetry(name, change, correct, why_keeps, why_breaks, goal):
    return ChoiceExercise(
        name=name,
        prompt=f"{change} Does the layer still treat a shuffled sentence as the same bag of words "
        f"(outputs merely shuffled, or an identical sentence vector)? {_KEEPS_BREAKS}",
        hint_text="Ask whether anything in the computation depends on where a token sits.",
        starter=f'answer_{name} = "?"  # "keeps" or "breaks"',
        solution_code=f'answer_{name} = "{correct}"',
        answer_name=f"answer_{name}",
        options={"keeps": why_keeps, "breaks": why_breaks},
        correct=correct,
        goal=goal,
    )


q4a = _symmetry(
    "pooling",
    "Mean-pool the attention outputs into one sentence vector (no positions, no mask).",
    "keeps",
    "Right: the outputs are only shuffled, and a mean doesn't care about order, so the sentence "
    "vector is identical: pooling turns equivariance into invariance.",
    "Look again: shuffling the input only shuffles the outputs, and the mean of a shuffled set "
    "of vectors is the same mean. The sentence vector is identical.",
    goal=3,
)
q4b = _symmetry(
    "causal",
    "Apply a causal mask (query i sees keys j <= i), still without positions.",
    "breaks",
    "Look again: swap 'dog' and 'man' under the mask, and each moved word sees other words than "
    "before (A's 'dog' saw only 'the' and itself; B's 'dog', now at position 4, also sees 'man'). The "
    "outputs are built from other keys, not merely shuffled.",
    "Right: no shuffle that moves a word carries the causal mask onto itself, so a moved word "
    "sees other words than before, and position leaks in even without position vectors.",
    goal=4,
)
q4c = _symmetry(
    "positions",
    "Add sinusoidal position vectors to the embeddings before attention.",
    "breaks",
    "Look again: after the addition, 'dog' at position 1 and 'dog' at position 4 are different "
    "vectors, so shuffling changes the vectors themselves, not just their order.",
    "Right: a word's vector now depends on where it stands, so a shuffle changes the inputs.",
    goal=4,
)
q4d = _symmetry(
    "temperature",
    "Multiply every attention score by 2 before the softmax (a sharper softmax).",
    "keeps",
    "Right: the scaling treats every score alike; nothing depends on position, so the outputs "
    "are still merely shuffled.",
    "Look again: multiplying every score by the same number knows nothing about positions; "
    "the outputs are still merely shuffled.",
    goal=4,
)

q2 = ChoiceExercise(
    name="prediction",
    prompt=(
        "Both sentences go through the same layer, and B's outputs are put back into A's order "
        "(out_B against out_A[order], token by token: 'dog' with 'dog'). Predict the largest "
        "difference, max |out_B - out_A[order]|: (a) about the size of the outputs themselves, "
        "since 'dog' as subject and 'dog' as object come out different; (b) below 1e-12, "
        "rounding only: B's outputs are A's, the same vectors shuffled; (c) nothing can be "
        "compared, since the sentences hold different words at each position. Answer 'a', 'b' "
        "or 'c'."
    ),
    hint_text=(
        "Nothing in the formula of section 1 depends on where a token sits: token j only ever "
        "appears as 'some other token'. What does that leave to differ?"
    ),
    starter='prediction = "?"  # "a", "b" or "c"',
    solution_code='prediction = "b"',
    answer_name="prediction",
    options={
        "a": "Not so: the layer treats every token by the same formula, and each token sees the "
        "same set of tokens in both sentences, only listed in another order. Run the next cell.",
        "b": "Right: the next cell prints a difference below 1e-12. That is floating-point "
        "rounding (the sums are added up in another order), so read it as zero: each token's "
        "output is the same, merely shuffled.",
        "c": "They can be compared token by token once B's outputs are put back into A's order "
        "(out_A[order]): 'dog' in A with 'dog' in B. Run the next cell.",
    },
    correct="b",
    goal=2,
)

EXERCISES = [q1, q2, q3, q4a, q4b, q4c, q4d]
