"""Chapter 6: train short, test long."""

from ..experiments import extrapolation_gap
from ._core import ChoiceExercise, FunctionExercise, Mistake


def _records(values, task="t", scheme="s", metric="accuracy"):
    return [
        {
            "task": task,
            "scheme": scheme,
            "seed": seed,
            "train_len": 32,
            "eval_len": n,
            "metric": metric,
            "value": v,
        }
        for seed, row in enumerate(values)
        for n, v in zip((32, 64, 128, 256), row, strict=True)
    ]


_CASES = (
    {"records": _records([[1.0, 0.9, 0.7, 0.5]]), "task": "t", "scheme": "s"},
    {"records": _records([[1.0, 0.8, 0.6, 0.4], [0.9, 0.9, 0.9, 0.9]]), "task": "t", "scheme": "s"},
    {
        "records": _records([[2.0, 2.2, 2.5, 3.0]], metric="loss")
        + _records([[0.5] * 4], task="u"),
        "task": "t",
        "scheme": "s",
    },
)

q1 = FunctionExercise(
    name="gap",
    prompt=(
        "Write gap(records, task, scheme): the mean value (over seeds) at the longest evaluation "
        "length minus the mean value at the training length, for one task and scheme. Records "
        "are dicts with keys task, scheme, seed, train_len, eval_len, metric, value."
    ),
    hint_text=(
        "Keep the records of that task and scheme; the training length is in r['train_len'] and "
        "the longest length is max(r['eval_len']). Average each group with np.mean."
    ),
    starter="""def gap(records, task, scheme):
    # YOUR CODE HERE: keep this task's and scheme's records, then compare two means
    return 0.0""",
    solution_code="""def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest]
    return np.mean(at_longest) - np.mean(at_train)""",
    answer_name="gap",
    reference=extrapolation_gap,
    cases=_CASES,
    mistakes=(
        Mistake(
            "your gap has the opposite sign: it is the value at the longest length minus the "
            "value at the training length, so a model that got worse has a negative accuracy "
            "gap.",
            lambda records, task, scheme: -extrapolation_gap(records, task, scheme),
        ),
        Mistake(
            "your gap mixes in records of other tasks or schemes: keep only the records whose "
            "task and scheme are the ones asked for.",
            lambda records, task, scheme: extrapolation_gap(
                [{**r, "task": task, "scheme": scheme} for r in records], task, scheme
            ),
        ),
        Mistake(
            "your gap uses one seed only: average the values of every seed at each length "
            "(np.mean), then subtract.",
            lambda records, task, scheme: extrapolation_gap(
                [r for r in records if r["seed"] == 0], task, scheme
            ),
        ),
    ),
    success="Use it on the study's records: which scheme has the smallest gap on each task?",
)

q2 = ChoiceExercise(
    name="flat_line",
    prompt=(
        "ALiBi's lookback-3 accuracy is about the same at every length, but far below what the "
        "other schemes reach at the training length. What does that flat line tell you? "
        "(a) ALiBi extrapolates this task perfectly; "
        "(b) ALiBi never learnt the task, so there was nothing to lose at longer lengths; "
        "(c) the evaluation at long lengths is broken."
    ),
    hint_text="Compare its accuracy at the training length, 32, with the other schemes'.",
    starter='answer_flat = "?"  # "a", "b" or "c"',
    solution_code='answer_flat = "b"',
    answer_name="answer_flat",
    options={
        "a": "Not quite: a flat line only means no loss. At the training length ALiBi already "
        "scores far below the schemes that solve the task, so there was nothing to keep.",
        "b": "Right: flat is not the same as good. A monotone distance penalty makes copying "
        "exactly 3 back hard to learn in the first place; 'extrapolates' only means something "
        "for a model that solved the task at the training length.",
        "c": "No: the same evaluation scores the other schemes at every length, and they solve "
        "the task at length 32. Look at ALiBi's value at the training length.",
    },
    correct="b",
)

q3 = ChoiceExercise(
    name="interpolation",
    prompt=(
        "Position interpolation divides every position by 4 so that a 128-token input spans the "
        "angles of 32 trained positions. Why can that hurt lookback-3 before any fine-tuning? "
        "(a) the offset 3 becomes 0.75 in rotation angle, which the model never saw; "
        "(b) interpolation changes the token embeddings; (c) it removes the causal mask."
    ),
    hint_text="RoPE scores depend on the difference of the (now divided) positions.",
    starter='answer_interpolation = "?"  # "a", "b" or "c"',
    solution_code='answer_interpolation = "a"',
    answer_name="answer_interpolation",
    options={
        "a": "Right: a query and key 3 tokens apart now differ by 0.75 positions, an offset the "
        "model never saw, and the learnt 'exactly 3 back' fires at the key whose squeezed offset "
        "is 3: about 12 tokens back (section 7 prints it). In this study 40 fine-tuning steps at "
        "128 tokens did not undo that: interpolation stays near chance after them.",
        "b": "No: only the rotation angles of queries and keys change; the embeddings are the same.",
        "c": "No: the mask is untouched; only positions inside the rotation are divided.",
    },
    correct="a",
)

EXERCISES = [q1, q2, q3]
