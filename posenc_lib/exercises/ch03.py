"""Chapter 3: learned positions."""

import numpy as np

from ..learned import cosine_similarity
from ._core import ChoiceExercise, FunctionExercise, Mistake

q1 = FunctionExercise(
    name="table_parameters",
    prompt="Write table_parameters(max_len, d_model): how many numbers a learned position table holds.",
    hint_text="One trainable vector of d_model numbers for each of max_len positions.",
    starter="""def table_parameters(max_len, d_model):
    # YOUR CODE HERE
    return 0""",
    solution_code="""def table_parameters(max_len, d_model):
    return max_len * d_model""",
    answer_name="table_parameters",
    reference=lambda max_len, d_model: max_len * d_model,
    cases=(
        {"max_len": 1024, "d_model": 768},
        {"max_len": 512, "d_model": 768},
        {"max_len": 2048, "d_model": 12288},
    ),
    success="GPT-2's 1024 x 768 table is 786,432 numbers; GPT-3's 2048 x 12288 is 25 million.",
)

q2 = ChoiceExercise(
    name="rows_with_gradient",
    prompt=(
        "A model has a learned table of max_len = 64 rows and is trained only on sequences of "
        "32 tokens. Which rows receive gradient? (a) all 64; (b) rows 0-31; (c) rows 32-63; "
        "(d) only row 31."
    ),
    hint_text="A row changes only if it took part in some forward pass: which positions exist?",
    starter='answer_rows = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_rows = "b"',
    answer_name="answer_rows",
    options={
        "a": "No: rows 32-63 are never added to any input, so no gradient reaches them.",
        "b": "Right: only positions 0-31 ever occur, so rows 32-63 keep their random start.",
        "c": "No, the other way round: rows 32-63 are the ones no input ever uses.",
        "d": "No: every position of every training sequence uses its own row, 0 to 31.",
    },
    correct="b",
)

q3 = FunctionExercise(
    name="cosine_matrix",
    prompt=(
        "Write cosine_matrix(table): for a (N, d) table, the (N, N) matrix whose entry (a, b) "
        "is the cosine between rows a and b."
    ),
    hint_text="Divide each row by its length (np.linalg.norm with axis=1, keepdims=True), then "
    "take the matrix product of the result with its transpose.",
    starter="""def cosine_matrix(table):
    # YOUR CODE HERE
    return table @ table.T""",
    solution_code="""def cosine_matrix(table):
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ unit.T""",
    answer_name="cosine_matrix",
    reference=cosine_similarity,
    cases=tuple(
        {"table": np.random.default_rng(seed).normal(size=shape)}
        for seed, shape in ((0, (6, 4)), (1, (3, 8)), (2, (10, 2)))
    ),
    mistakes=(
        Mistake(
            "your matrix holds the dot products of the rows, not their cosines: divide each "
            "row by its length first (np.linalg.norm(table, axis=1, keepdims=True)).",
            lambda table: table @ table.T,
        ),
        Mistake(
            "your rows were divided by the lengths of the columns (axis=0): each row must be "
            "divided by its own length, axis=1 with keepdims=True.",
            lambda table: (
                (table / np.linalg.norm(table, axis=0)) @ (table / np.linalg.norm(table, axis=0)).T
            ),
        ),
        Mistake(
            "your matrix compares the columns (dimensions) with each other, unit.T @ unit. "
            "Entry (a, b) compares rows a and b: unit @ unit.T, shape (N, N).",
            lambda table: cosine_similarity(table.T),
        ),
        Mistake(
            "your matrix is np.corrcoef(table), the Pearson correlation of the rows: it subtracts "
            "each row's mean before comparing, and the cosine does not. Divide each row by its "
            "length and take unit @ unit.T, without centring.",
            lambda table: np.corrcoef(table),
        ),
    ),
)

EXERCISES = [q1, q2, q3]
