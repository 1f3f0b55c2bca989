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


q1 = FunctionExercise(
    name="attention",
    prompt=(
        "Write attention(x, w_q, w_k, w_v) for one head without a mask: q, k, v = x w_q, x w_k, "
        "x w_v; weights = softmax(q k^T / sqrt(d_k)) row by row; return only the output "
        "weights @ v, shape (T, d_v)."
    ),
    hint_text=(
        "d_k is w_k.shape[1]. For a stable softmax subtract each row's maximum before np.exp, "
        "then divide by the row sums (axis=-1, keepdims=True)."
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
    ),
    success="This is exactly what posenc_lib.self_attention computes (plus masks and biases).",
)


@dataclass(repr=False)
class _PermutationExercise(FunctionExercise):
    """A matrix exercise that takes a boolean matrix as its 0/1 numbers.

    ``P @ x`` with a boolean ``P`` multiplies by True as 1 and False as 0, so
    ``np.eye(T, dtype=bool)[order]`` is as good a permutation matrix as a float one.

    Examples
    --------
    >>> q2.evaluate(lambda order: np.eye(len(order), dtype=bool)[list(order)]).passed
    True
    """

    def _result_problem(self, result, expected, case, call):
        if isinstance(result, np.ndarray) and result.dtype == bool:
            result = result.astype(float)  # True is 1 and False is 0 in P @ x
        return super()._result_problem(result, expected, case, call)


q2 = _PermutationExercise(
    name="perm_matrix",
    prompt=(
        "Write perm_matrix(order) returning the (T, T) matrix P with (P @ x)[i] == x[order[i]], "
        "so that P @ x is the shuffled sentence."
    ),
    hint_text=(
        "Row i of P picks row order[i] of x, so row i of P is the unit vector e_{order[i]}: "
        "start from np.eye(T) and index its rows."
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
)

_KEEPS_BREAKS = "Answer 'keeps' or 'breaks'."


def _symmetry(name, change, correct, why_keeps, why_breaks):
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
    )


q3a = _symmetry(
    "pooling",
    "Mean-pool the attention outputs into one sentence vector (no positions, no mask).",
    "keeps",
    "Right: the outputs are only shuffled, and a mean doesn't care about order, so the sentence "
    "vector is identical: pooling turns equivariance into invariance.",
    "Look again: shuffling the input only shuffles the outputs, and the mean of a shuffled set "
    "of vectors is the same mean. The sentence vector is identical.",
)
q3b = _symmetry(
    "causal",
    "Apply a causal mask (query i sees keys j <= i), still without positions.",
    "breaks",
    "Look again: the first token can now see only itself, the last token sees everything. Which "
    "token sits first changes what each output is built from.",
    "Right: a causal mask gives each position a different set of visible keys, so position leaks "
    "in even without position vectors (the NoPE observation).",
)
q3c = _symmetry(
    "positions",
    "Add sinusoidal position vectors to the embeddings before attention.",
    "breaks",
    "Look again: after the addition, 'dog' at position 1 and 'dog' at position 4 are different "
    "vectors, so shuffling changes the vectors themselves, not just their order.",
    "Right: a word's vector now depends on where it stands, so a shuffle changes the inputs.",
)
q3d = _symmetry(
    "temperature",
    "Multiply every attention score by 2 before the softmax (a sharper softmax).",
    "keeps",
    "Right: the scaling treats every score alike; nothing depends on position, so the outputs "
    "are still merely shuffled.",
    "Look again: multiplying every score by the same number knows nothing about positions; "
    "the outputs are still merely shuffled.",
)

EXERCISES = [q1, q2, q3a, q3b, q3c, q3d]
