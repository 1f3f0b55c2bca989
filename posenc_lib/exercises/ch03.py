"""Chapter 3: learned positions."""

import numpy as np

from ..learned import cosine_similarity
from ._core import ChoiceExercise, FunctionExercise, Mistake

q1 = FunctionExercise(
    name="table_parameters",
    prompt=(
        "Write table_parameters(max_len, d_model): how many trainable numbers a learned position "
        "table of max_len positions and width d_model holds."
    ),
    hint_text=(
        "Picture the table as a matrix: how many rows does it have, and how many numbers are in "
        "each row?",
        "One trainable vector of d_model numbers for each of max_len positions: multiply the "
        "number of rows by the width of a row.",
    ),
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
    mistakes=(
        Mistake(
            "you added the two sizes; a table holds a whole row of d_model numbers for each of "
            "the max_len positions, so the sizes multiply.",
            lambda max_len, d_model: max_len + d_model,
        ),
    ),
    success="GPT-2's 1024 x 768 table is 786,432 numbers; GPT-3's 2048 x 12288 is 25 million.",
    goal=1,
)

q2 = ChoiceExercise(
    name="rows_with_gradient",
    prompt=(
        "Predict before you read the printout: the model above has a learned table of max_len = "
        "64 rows and is trained only on sequences of 32 tokens. Which rows receive gradient, so "
        "that training can change them? (a) all 64; (b) rows 0-31; (c) rows 32-63; (d) only "
        "row 31."
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
    goal=2,
)

q3 = FunctionExercise(
    name="cosine_matrix",
    prompt=(
        "Write cosine_matrix(table): for a (N, d) table, the (N, N) matrix whose entry (a, b) "
        "is the cosine between rows a and b."
    ),
    hint_text=(
        "The cosine of two vectors is their dot product divided by both their lengths. Make every "
        "row of the table unit length first; then one matrix product gives every pair's dot "
        "product at once.",
        "Divide each row by its length (np.linalg.norm with axis=1, keepdims=True), then take the "
        "matrix product of the result with its transpose.",
    ),
    starter="""def cosine_matrix(table):
    # YOUR CODE HERE
    return None""",
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
            "your matrix holds the dot products of the rows, not their cosines: a cosine also "
            "divides by both rows' lengths.",
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
    goal=2,
)

q4 = ChoiceExercise(
    name="late_rows",
    prompt=(
        "Predict before you run the next cell: the model trained at 32 is run at 64, and on "
        "positions 32-63 it does badly. Keep the trained model and replace its untrained rows "
        "32-63 by copies of row 30, a trained late row. What happens to its loss on positions "
        "32-63? (a) nothing: those rows were near zero, so any small change does nothing; "
        "(b) it falls: the positions now carry part of the position signal training wrote; "
        "(c) it rises: 32 identical rows confuse the model more than untrained ones."
    ),
    hint_text=(
        "Ask what rows 32-63 gave the model before the swap, and what row 30 gives it.",
        "Rows 32-63 never moved from their small start, so they carry no position signal; "
        "row 30 carries what training wrote for position 30. Which option follows?",
    ),
    starter='answer_late = "?"  # "a", "b" or "c"',
    solution_code='answer_late = "b"',
    answer_name="answer_late",
    options={
        "a": "No: the swap is not small. Row 30 is a trained row, far longer than the untrained "
        "ones (the cells around this one print their norms), and it carries the signal "
        "training wrote for a late position; the next cell shows the loss on positions 32-63 "
        "falling.",
        "b": "Right: the next cell prints it, the loss on positions 32-63 falls. The harm was "
        "what the untrained rows lack, the position signal of rows 0-31, not noise they add; "
        "the next cell also shows that not every trained row gives it back.",
        "c": "No: identical rows make positions 32-63 look alike to each other, but each looks "
        "late, which is what the model learnt to read there; the next cell shows the loss "
        "falling.",
    },
    correct="b",
    goal=2,
)

q5 = ChoiceExercise(
    name="untrained_strips",
    prompt=(
        "Predict, then step through the frames: rows 32-63 never move in training. What happens, "
        "from frame to frame, to the strips where an untrained row meets a trained one (rows "
        "32-63 against rows 0-31)? (a) they never change, since one of the two rows never "
        "moves; (b) they change, since a cosine compares two rows and the trained one moves; "
        "(c) they turn into copies of the trained block; (d) they fade to exactly 0."
    ),
    hint_text="A cosine depends on both of the rows it compares: which of the two moves?",
    starter='answer_strips = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_strips = "b"',
    answer_name="answer_strips",
    options={
        "a": "No: the untrained row stays put, but the trained row it is compared with moves, "
        "and the cosine follows it. Only the untrained-against-untrained block stays the same.",
        "b": "Right: each entry compares an untrained row with a trained one, and the trained "
        "one moves, so the strips change; the untrained-against-untrained block does not.",
        "c": "No: an untrained row is still random, so its cosines with the trained rows follow "
        "no ramp; they change only because the trained rows do.",
        "d": "No: random rows of 32 numbers are not at right angles to the trained rows; their "
        "cosines change with the trained rows, but do not vanish.",
    },
    correct="b",
    goal=2,
)

q6 = ChoiceExercise(
    name="why_sinusoids",
    prompt=(
        "Vaswani et al. (2017) tried a learned table and chapter 2's sinusoids on the same "
        "translation task. Recall chapter 2: which property of the sinusoidal table could make it "
        "the better choice past the training length? (a) every position p has a vector, and "
        "PE_(p+k) = M_k PE_p with one matrix M_k for every p; (b) its vectors have fewer entries "
        "than a learned table's rows; (c) its vectors are at right angles to each other, so no "
        "two positions are alike; (d) it is learnt faster than a learned table."
    ),
    hint_text=(
        "Past the training length a learned table has no row at all. What did chapter 2 show "
        "about sinusoidal vectors k positions apart?"
    ),
    starter='answer_sinusoids = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_sinusoids = "a"',
    answer_name="answer_sinusoids",
    options={
        "a": "Right: a sinusoid gives every position a vector, and one fixed rotation moves any "
        "position k steps on, so the relation between positions is the same everywhere. "
        "Vaswani et al. kept sinusoids for this reason.",
        "b": "No: both tables have d_model numbers per position; the sinusoidal one has no "
        "parameters to learn, but its vectors are as long.",
        "c": "No: section 3 printed the sinusoidal cosines, all positive (the smallest 0.33): "
        "neighbouring positions are alike, and far ones still point the same way.",
        "d": "No: the sinusoidal table is not learnt at all; it is computed by a formula.",
    },
    correct="a",
    goal=3,
    reuses=("02",),
)

EXERCISES = [q1, q2, q3, q4, q5, q6]
