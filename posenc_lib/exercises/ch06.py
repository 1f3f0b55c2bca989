"""Chapter 6: train short, test long."""

import numpy as np

from ..experiments import extrapolation_gap
from ._core import ChoiceExercise, Feedback, FunctionExercise, Mistake


def _records(
    values, task="t", scheme="s", metric="accuracy", lengths=(32, 64, 128, 256), train_len=None
):
    """Return records of one configuration from one row per seed: (all, unseen) at each length.

    A value is a pair (region "all", region "unseen"), or one number at the training length
    (region "all" only: no position there is unseen).
    """
    train_len = lengths[0] if train_len is None else train_len
    out = []
    for seed, row in enumerate(values):
        for n, v in zip(lengths, row, strict=True):
            pairs = [("all", v)] if n <= train_len else [("all", v[0]), ("unseen", v[1])]
            out += [
                {
                    "task": task,
                    "scheme": scheme,
                    "seed": seed,
                    "train_len": train_len,
                    "eval_len": n,
                    "region": region,
                    "metric": metric,
                    "value": value,
                }
                for region, value in pairs
            ]
    return out


def _mean(rows, length, regions):
    values = [r["value"] for r in rows if r["eval_len"] == length and r["region"] in regions]
    if not values or None in values:  # no such length, or cannot run: this variant cannot match
        raise ValueError("no value to average at that length")
    return float(np.mean(values))


def _variant(records, task, scheme, *, short="train", long="longest", regions=("unseen",)):
    """Return a gap computed a wrong way: another reference length, longest length or region."""
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    lengths = sorted({r["eval_len"] for r in rows})
    start = {"train": rows[0]["train_len"], "shortest": lengths[0]}.get(short, short)
    stop = lengths[-1] if long == "longest" else long
    return _mean(rows, stop, regions) - _mean(rows, start, ("all",))


def _every_longer_length(records, task, scheme):
    """Return the gap with the 'unseen' values averaged over every longer length, not the longest."""
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    train_len = rows[0]["train_len"]
    longer = [r["value"] for r in rows if r["eval_len"] > train_len and r["region"] == "unseen"]
    if not longer or None in longer:
        raise ValueError("no value to average past the training length")
    return float(np.mean(longer)) - _mean(rows, train_len, ("all",))


def _medians(records, task, scheme):
    """Return the gap with the median over seeds at each of the two lengths instead of the mean."""
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    if None in at_train + at_longest:
        raise ValueError("no value at that length")
    return float(np.median(at_longest) - np.median(at_train))


def _ratio(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    return _mean(rows, longest, ("unseen",)) / _mean(rows, rows[0]["train_len"], ("all",))


_CASES = (
    {  # other lengths, and a value at the training length that is not 1
        "records": _records(
            [[0.8, (0.7, 0.6), (0.4, 0.3), (0.3, 0.2)], [0.6, (0.5, 0.4), (0.3, 0.25), (0.2, 0.1)]],
            lengths=(16, 32, 256, 512),
        ),
        "task": "t",
        "scheme": "s",
    },
    {"records": _records([[1.0, (0.9, 0.8), (0.7, 0.5), (0.5, 0.4)]]), "task": "t", "scheme": "s"},
    {
        "records": _records(
            [[1.0, (0.8, 0.6), (0.6, 0.45), (0.4, 0.3)], [0.9, (0.9, 0.9), (0.9, 0.85), (0.9, 0.8)]]
        ),
        "task": "t",
        "scheme": "s",
    },
    {
        "records": _records([[2.0, (2.2, 2.4), (2.5, 2.8), (3.0, 3.3)]], metric="loss")
        + _records([[0.5, (0.5, 0.4), (0.5, 0.4), (0.5, 0.4)]], task="u"),
        "task": "t",
        "scheme": "s",
    },
    {  # evaluated below the training length too, and three seeds whose median is not the mean
        "records": _records(
            [
                [1.0, 0.9, (0.7, 0.5), (0.6, 0.5)],
                [1.0, 0.8, (0.5, 0.3), (0.2, 0.1)],
                [0.9, 0.3, (0.2, 0.1), (0.1, 0.05)],
            ],
            lengths=(16, 32, 64, 128),
            train_len=32,
        ),
        "task": "t",
        "scheme": "s",
    },
    {  # listed first: another task, trained at another length and evaluated longer
        "records": _records(
            [[0.9, (0.5, 0.4), (0.3, 0.2), (0.2, 0.1)]], task="u", lengths=(16, 64, 256, 1024)
        )
        + _records(
            [[0.8, (0.6, 0.5), (0.7, 0.6), (0.5, 0.35)], [0.7, (0.7, 0.6), (0.6, 0.5), (0.3, 0.2)]]
        ),
        "task": "t",
        "scheme": "s",
    },
    {  # two schemes of one task, both runnable: an answer must keep the scheme asked for
        "records": _records([[1.0, (0.6, 0.3), (0.5, 0.2), (0.4, 0.1)]], scheme="rope")
        + _records([[0.9, (0.9, 0.85), (0.9, 0.8), (0.85, 0.8)]] * 2, scheme="alibi"),
        "task": "t",
        "scheme": "alibi",
    },
    {  # last: a learned table, which cannot run past its rows (None), beside a scheme that can
        "records": _records([[1.0, (0.6, 0.3), (0.5, 0.2), (0.4, 0.1)]], scheme="rope")
        + _records([[1.0, (None, None), (None, None), (None, None)]] * 2, scheme="learned"),
        "task": "t",
        "scheme": "learned",
    },
    {  # the same records, asking for the scheme that runs: the table's None is not its gap
        "records": _records([[1.0, (0.6, 0.3), (0.5, 0.2), (0.4, 0.1)]], scheme="rope")
        + _records([[1.0, (None, None), (None, None), (None, None)]] * 2, scheme="learned"),
        "task": "t",
        "scheme": "rope",
    },
)

_CANNOT_RUN = (
    " A value of None means the scheme cannot run at that length (a learned table has no row "
    "past its training length): return None for it instead of averaging."
)


class _GapExercise(FunctionExercise):
    """q2: the reference's None (the scheme cannot run that long) must come back as None."""

    def _result_problem(self, result, expected, case, call):
        if expected is None:
            if result is None:
                return None
            return Feedback(
                False,
                f"{call} should return None: the scheme cannot run at the longest length "
                f"(its values there are None), so it has no gap; yours returned {result!r}.",
            )
        if result is None:  # a gap where the scheme can run: None is a wrong reading, not a slip
            return Feedback(
                False,
                f"{call} returned None, but this scheme can run at the longest length and has a "
                "gap. Return None only when its values there are None; and take the longest "
                "length from this task's and scheme's own records, not from every record.",
            )
        return super()._result_problem(result, expected, case, call)

    def grade(self, answer):
        feedback = super().grade(answer)
        message = feedback.message
        if not feedback.passed and "raised TypeError" in message and "NoneType" in message:
            return Feedback(False, message + _CANNOT_RUN)
        return feedback


q2 = _GapExercise(
    name="gap",
    prompt=(
        "Write gap(records, task, scheme): how far a scheme's score moves past the training "
        "length, for one task and scheme of one configuration. Records are dicts with keys "
        "task, scheme, seed, train_len, eval_len, region, metric, value. At the training length "
        "a model has one record (region 'all'); at every longer length two: region 'all' (every "
        "query position, most of them trained) and region 'unseen' (only the positions >= "
        "train_len). Return the mean over seeds of the 'unseen' value at the longest evaluation "
        "length minus the mean over seeds at the training length; return None if the scheme "
        "cannot run at the longest length (its value there is None)."
    ),
    hint_text=(
        "Two numbers, each a mean over seeds: the score at the training length, and the score at "
        "the longest length on the positions the model never saw. Which field of a record names "
        "the training length, and which region holds only the unseen positions? And what comes "
        "back when a scheme cannot run that long?",
        "Keep the records of that task and scheme; the training length is in r['train_len'] and "
        "the longest length is max(r['eval_len']). At the longest length keep only "
        "r['region'] == 'unseen'. Average each group with np.mean, after checking for None.",
    ),
    starter="""def gap(records, task, scheme):
    # YOUR CODE HERE: keep this task's and scheme's records, then compare two means
    return 0.0""",
    solution_code="""def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [
        r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"
    ]
    if None in at_train + at_longest:  # the scheme cannot run that long
        return None
    return np.mean(at_longest) - np.mean(at_train)""",
    answer_name="gap",
    reference=extrapolation_gap,
    goal=2,
    cases=_CASES,
    mistakes=(
        Mistake(
            "your gap has the opposite sign: it is the value at the longest length minus the "
            "value at the training length, so a model that got worse has a negative accuracy "
            "gap. Did you subtract the other way round, or take abs()? The sign is the point: "
            "it says whether the model got better or worse.",
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
        Mistake(
            "your gap is a ratio (value at the longest length / value at the training length); "
            "the exercise asks for the difference of the two means.",
            lambda records, task, scheme: _ratio(records, task, scheme),
        ),
        Mistake(
            "your gap reads the lengths 256 and 32 by name: records can have other lengths. "
            "Take the training length from r['train_len'] and the longest from "
            "max(r['eval_len']).",
            lambda records, task, scheme: _variant(records, task, scheme, short=32, long=256),
        ),
        Mistake(
            "your gap starts from the shortest evaluation length, which is the training length "
            "only when no model was evaluated on shorter inputs. Take the training length from "
            "r['train_len'].",
            lambda records, task, scheme: _variant(records, task, scheme, short="shortest"),
        ),
        Mistake(
            "your gap averages both regions at the longest length: there a model has a record "
            "for all positions and one for the unseen positions only, and their mean counts the "
            "trained positions in. Keep only r['region'] == 'unseen' at the longest length.",
            lambda records, task, scheme: _variant(
                records, task, scheme, regions=("all", "unseen")
            ),
        ),
        Mistake(
            "your gap reads every position at the longest length (region 'all'), so most of "
            "what it averages are positions the model was trained on: the average section 2 "
            "warns against. Keep only r['region'] == 'unseen' at the longest length.",
            lambda records, task, scheme: _variant(records, task, scheme, regions=("all",)),
        ),
        Mistake(
            "your gap averages the 'unseen' values over every length past the training length; "
            "the exercise asks for the longest length only (max(r['eval_len'])), where the "
            "unseen positions lie furthest from the trained ones.",
            _every_longer_length,
        ),
        Mistake(
            "your gap takes the median over seeds at each length; the exercise asks for the mean "
            "(np.mean), the average the chapter reads and the paired intervals are built on.",
            _medians,
        ),
    ),
    success=(
        "On the study, take one configuration first (never average three): "
        "gap(select(study, config='4x8+mlp'), 'lookback-3', 't5') is what the library's "
        "experiments.extrapolation_gap(study, 'lookback-3', 't5', config='4x8+mlp') returns, "
        "and the library refuses records of several configurations. Which scheme moves least "
        "on each task, and does that hold in the 1x32 configuration?"
    ),
)

q4 = ChoiceExercise(
    name="flat_line",
    prompt=(
        "After the study's 400 training steps, ALiBi's lookback-3 accuracy is about the same at "
        "every length, but far below what the other schemes reach at the training length. What "
        "does that flat line tell you? "
        "(a) ALiBi extrapolates this task perfectly; "
        "(b) at this budget ALiBi had not learnt the task, so there was nothing to lose at "
        "longer lengths; "
        "(c) the evaluation at long lengths is broken."
    ),
    hint_text=(
        "What would a model have to do at the training length before keeping it up at longer "
        "lengths means anything?",
        "Compare its accuracy at the training length, 32, with the other schemes'.",
    ),
    starter='answer_flat = "?"  # "a", "b" or "c"',
    solution_code='answer_flat = "b"',
    answer_name="answer_flat",
    goal=3,
    options={
        "a": "Not quite: a flat line only means no loss. At the training length ALiBi already "
        "scores far below the schemes that solve the task, so there was nothing to keep.",
        "b": "Right: flat is not the same as good. 'Extrapolates' only means something for a "
        "model that solved the task at the training length, and at 400 steps ALiBi had not: its "
        "validation curve was still rising (section 3), and the same models trained to 2,000 "
        "steps reach 0.52 at the training length and 0.40 at 256, still improving.",
        "c": "No: the same evaluation scores the other schemes at every length, and they solve "
        "the task at length 32. Look at ALiBi's value at the training length.",
    },
    correct="b",
)

q6 = ChoiceExercise(
    name="interpolation",
    prompt=(
        "Position interpolation divides every position by 4 so that a 128-token input spans the "
        "angles of 32 trained positions. Why can that hurt lookback-3 before any fine-tuning? "
        "(a) the offsets shrink: a key 3 tokens back now sits at offset 0.75, and what the model "
        "learnt for offset 3 now fires 12 tokens back; "
        "(b) at 128 tokens the pairs reach angles the model never met in training; "
        "(c) the fast pairs now turn 4 times faster than in training."
    ),
    hint_text=(
        "Divide two positions 3 apart by 4: what offset does RoPE's score now see?",
        "RoPE scores depend on the difference of the (now divided) positions: a key k tokens "
        "back sits at offset k / 4. Which key sits at offset 3?",
    ),
    starter='answer_interpolation = "?"  # "a", "b" or "c"',
    solution_code='answer_interpolation = "a"',
    answer_name="answer_interpolation",
    goal=5,
    options={
        "a": "Right: the problem is displacement, not unseen angles: a query and key 3 tokens "
        "apart now differ by 0.75 positions, and the learnt 'exactly 3 back' fires at the key "
        "whose divided offset is 3, 12 tokens back (section 7 prints where the head looks and "
        "which token the model copies). In this study 40 fine-tuning steps at "
        "128 tokens did not undo that: interpolation stays near chance after them.",
        "b": "No: that is plain RoPE's problem. Dividing by 4 brings position 127 back to 31.75, "
        "so every angle lies inside the range of the 32 trained positions.",
        "c": "No, the other way round: dividing positions by 4 makes every pair turn 4 times "
        "slower per token.",
    },
    correct="a",
)

q5 = ChoiceExercise(
    name="turning_pairs",
    prompt=(
        "Predict before you look (chapter 4, section 7): the RoPE model has heads of width 8, so "
        "4 pairs, pair i turning 10000^(-2i/8) radians per position (pair 0: one radian per "
        "position, pair 1: a tenth of one). Over the 32 training positions, which pairs complete "
        "at least one full turn (2 pi radians)? "
        "(a) all four pairs; "
        "(b) only pair 0; "
        "(c) pairs 0 and 1; "
        "(d) none of them, 32 positions are too few."
    ),
    hint_text=(
        "How far does each pair turn over the training positions, and how far is one full turn?",
        "A pair completes a turn when its speed times the largest offset, 31, reaches 2 pi, "
        "about 6.3: work it out for pair 0 and for pair 1.",
    ),
    starter='answer_turns = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_turns = "b"',
    answer_name="answer_turns",
    options={
        "a": "No: the pairs slow down by a factor of 10 from one to the next. Pair 1 turns 0.1 "
        "radians per position, so 3.1 radians over 31 positions, half a turn, and pairs 2 and 3 "
        "far less.",
        "b": "Right: pair 0 turns 31 radians over the training positions, about five turns, and "
        "pair 1 only 3.1 radians, half a turn. Past 32, pair 0 has been everywhere, while pair 1 "
        "reaches angles it never saw: the next cells look for that in the model's attention.",
        "c": "Not pair 1: at 0.1 radians per position it reaches 3.1 radians at offset 31, half "
        "of the 6.3 a turn needs.",
        "d": "Not pair 0: at one radian per position it passes 6.3 radians at offset 7 and makes "
        "about five turns over 32 positions.",
    },
    correct="b",
    goal=4,
    reuses=("04",),
)

q1 = ChoiceExercise(
    name="fair_test",
    prompt=(
        "You want to know whether RoPE keeps lookback-3 past the length it was trained on. "
        "Which experiment answers that question? "
        "(a) train one RoPE model on 32 tokens and another on 256 tokens, and score each at its "
        "own training length; "
        "(b) train on 32 tokens, then score the same trained model on fresh sequences of the same "
        "task at 64, 128 and 256 tokens, nothing else changed, reading the positions from 32 on; "
        "(c) train on 32 tokens, fine-tune on 256 tokens and score at 256; "
        "(d) train on 32 tokens and score at 32 tokens on ten times more sequences."
    ),
    hint_text=(
        "What must differ between training and scoring, and what must stay the same, for the "
        "score to say something about length alone?",
        "Compare the four against that: which one changes nothing but the length it scores at?",
    ),
    starter='answer_setup = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_setup = "b"',
    answer_name="answer_setup",
    options={
        "a": "No: each model is scored only on lengths it was trained on, so neither ever meets "
        "an unseen position. This compares two trainings, not one model past its length.",
        "b": "Right: one trained model, one task, and only the evaluation length changes. Its "
        "positions from 32 on are the ones it never saw, so they carry the answer (section 2 "
        "reads them apart from the trained ones).",
        "c": "No: after fine-tuning at 256 tokens the model has seen those positions, so the "
        "score says how well it learns long inputs, not how far it extrapolates (section 7 "
        "fine-tunes as a separate step, after scoring before it).",
        "d": "No: more sequences at 32 tokens make the score at the training length more exact, "
        "but no position past 31 is ever scored.",
    },
    correct="b",
    goal=1,
)

q3 = ChoiceExercise(
    name="read_interval",
    prompt=(
        "Ten seeds give ten paired differences, scheme A minus scheme B, each on the unseen "
        "positions at 256 tokens. Their mean is +0.030 and its 95% interval runs from -0.010 to "
        "+0.070. What do you write? "
        "(a) A beats B, by 0.030 on average; "
        "(b) A and B are equally good; "
        "(c) that A beats B is not established, since these seeds cannot tell the two apart; "
        "(d) B beats A, since the interval reaches below zero."
    ),
    hint_text=(
        "Section 3's worked example reads two intervals; which of them does this one resemble?",
        "An interval that crosses zero excludes neither sign. Does that show equality?",
    ),
    starter='answer_interval = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_interval = "c"',
    answer_name="answer_interval",
    options={
        "a": "The interval includes zero, so these ten seeds are also compatible with no "
        "difference at all, or with B slightly ahead.",
        "b": "No: the seeds do not show the two equal either. An interval from -0.010 to +0.070 "
        "allows A ahead by 0.07 as well as no difference; 'not established' is not 'equal'.",
        "c": "Right: the interval includes zero, so the order of A and B is not established at "
        "95% under these conditions. It is not shown to be zero either: more seeds, or another "
        "region, might settle it.",
        "d": "No: most of the interval lies above zero. An interval across zero establishes "
        "neither order.",
    },
    correct="c",
    goal=3,
)

q7 = ChoiceExercise(
    name="deployed_at_32",
    prompt=(
        "Llama 3.1's scaling and dynamic NTK are both given the factor 4. Scored at "
        "the training length itself, 32 tokens, before any fine-tuning, which of them changes "
        "what a trained RoPE model gets right? "
        "(a) both; "
        "(b) only Llama 3.1's scaling; "
        "(c) only dynamic NTK; "
        "(d) neither."
    ),
    hint_text=(
        "Which of the two looks at the length of the sequence it scores, and which only at the "
        "factor and the original context?",
        "Dynamic NTK's base at n tokens is b (4 n / 32 - 3)^(d / (d - 2)), with n raised to 32 "
        "when shorter: what is it at n = 32? Llama 3.1's pair speeds have no n in them.",
    ),
    starter='answer_deployed = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_deployed = "b"',
    answer_name="answer_deployed",
    goal=5,
    options={
        "a": "Not quite: dynamic NTK takes its base from the length of the sequence, and at the "
        "training length that is the trained base, so nothing changes. Llama 3.1's scaling does "
        "change the model there.",
        "b": "Right: Llama 3.1's speeds depend on the factor and the original context, not on "
        "the sequence, so its slow pairs turn at a quarter of their speed at 32 tokens too. "
        "Before fine-tuning that costs lookback-3 0.03 on average in 4x8+mlp and raises the Markov "
        "chain's loss by 0.51 nats. Dynamic NTK's base at 32 tokens is the trained one: scored in "
        "one pass, the same score as plain RoPE on all 60 models (Hugging Face's layer can keep a "
        "grown base after a longer call, chapter 4).",
        "c": "No, the other way round: at the training length dynamic NTK's formula gives back "
        "the trained base (4 x 32 / 32 - 3 = 1), while Llama 3.1's speeds do not depend on the "
        "length at all.",
        "d": "Not quite: dynamic NTK does leave the model alone there, but Llama 3.1's scaling "
        "slows the slow pairs at every length, the trained one included.",
    },
    correct="b",
)

q8 = ChoiceExercise(
    name="t5_stripe",
    prompt=(
        "Predict, then move the explorer to T5 and length 256: inside the training length T5's "
        "lookback head draws a stripe 3 below the diagonal. What becomes of it past query 32? "
        "(a) it stays at offset 3 to the end but grows fainter; "
        "(b) it stays as sharp as inside the training length; "
        "(c) it breaks up past query 32, as RoPE's does."
    ),
    hint_text=(
        "Distance 3 has a bucket of its own: does its bias change with the length? And what else "
        "changes for a late query?",
        "The bias on distance 3 is the same at every length, but a softmax shares the weight among "
        "all the keys a query sees, and a late query sees many more.",
    ),
    starter='answer_stripe = "?"  # "a", "b" or "c"',
    solution_code='answer_stripe = "a"',
    answer_name="answer_stripe",
    options={
        "a": "Right: the peak stays on the key 3 back (the learnt bucket is the same at every "
        "length), but its weight falls as a late query spreads the rest over many more keys: the "
        "static twin's printout below gives 0.45 on queries 3-31 and 0.13 on 64-127 for head 0.",
        "b": "No: the bias on distance 3 is the same, but the softmax shares the weight among "
        "every key the query sees; a query at position 100 sees about three times as many keys "
        "as one at 31, so the stripe fades while staying in place.",
        "c": "No: RoPE's stripe breaks because its slow pairs meet angles they never saw; T5's "
        "distance 3 has a bucket of its own, used at every length, so its peak stays on offset 3.",
    },
    correct="a",
    goal=4,
    reuses=("05",),
)


EXERCISES = [q1, q2, q3, q4, q5, q6, q7, q8]
