"""Chapter 8: the course quiz.

Each question is data: a prompt, labelled options, the right one, an explanation for every option
(right or wrong), a hint that points at the idea without naming the answer, the chapter it
reviews and its kind: "predict" (what will happen if ...), "reason" (why does ...) or "recall".
Questions about chapters 6 and 7 rest on the mechanisms the chapters explain, not on measured
numbers.
"""

from dataclasses import dataclass

from ._core import ChoiceExercise

KINDS = ("predict", "reason", "recall")


@dataclass(repr=False)
class QuizQuestion(ChoiceExercise):
    """A multiple-choice question of the course quiz, with the chapter it reviews and its kind.

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
    options, correct, labels
        As in `ChoiceExercise`.
    chapter : str
        The chapter it reviews ("01" .. "08").
    kind : str
        What it asks for: one of `KINDS`.

    Examples
    --------
    >>> question = QUESTIONS[0]
    >>> question.evaluate(question.correct).passed
    True
    """

    chapter: str = ""
    kind: str = "recall"


def _question(name, chapter, kind, prompt, options, correct, hint):
    """options: {key: (label, explanation)}."""
    return QuizQuestion(
        name=name,
        prompt=prompt,
        hint_text=hint,
        starter=f'answer_{name} = "?"',
        solution_code=f'answer_{name} = "{correct}"',
        answer_name=f"answer_{name}",
        options={key: explanation for key, (_, explanation) in options.items()},
        labels={key: label for key, (label, _) in options.items()},
        correct=correct,
        chapter=chapter,
        kind=kind,
    )


QUESTIONS = [
    # -- chapter 01: attention can't see order ----------------------------------------------------
    _question(
        "shuffle",
        "01",
        "predict",
        "You shuffle the tokens of a sentence and pass both orders through the same "
        "self-attention layer, with no position information and no mask. What happens to the "
        "output vector of the word 'dog'?",
        {
            "a": (
                "It is the same vector as before; it has only moved to dog's new place",
                "Right: chapter 1 measured it, a difference below 1e-12 (rounding only) after "
                "un-shuffling. Each output depends on its own token and on the set of all tokens, never on "
                "where they sit (permutation equivariance).",
            ),
            "b": (
                "It changes a little, because dog has different neighbours now",
                "No: a layer without positions has no notion of neighbours. Every token scores "
                "every other token wherever it sits, so dog sees the same set of tokens as "
                "before.",
            ),
            "c": (
                "It changes completely, because attention mixes the tokens in a new order",
                "No: dog's output is a weighted sum over all tokens, and a sum does not depend "
                "on the order of its terms.",
            ),
        },
        "a",
        (
            "Look for anything in the attention formula that depends on where a token sits.",
            "dog's output is softmax(q_dog . k_j) over every key j, times the values: a sum over "
            "the set of tokens. Does reordering the terms of a sum change it?",
        ),
    ),
    _question(
        "invariant",
        "01",
        "recall",
        "True or false: a self-attention layer without positions is permutation-invariant.",
        {
            "true": (
                "True",
                "Not precisely: the layer is equivariant (outputs move with the inputs). Only "
                "an order-blind summary, such as the mean over tokens, is invariant.",
            ),
            "false": (
                "False",
                "Right: the layer is permutation-equivariant; mean-pooling its outputs gives an "
                "invariant sentence vector.",
            ),
        },
        "false",
        (
            "Does the output of the layer stay the same, or move with the shuffle?",
            "Invariant means the output is unchanged by the shuffle; equivariant means the output "
            "is shuffled the same way. Which did chapter 1 measure for the layer's outputs?",
        ),
    ),
    _question(
        "causal_swap",
        "01",
        "predict",
        "Still no position vectors, but now a causal mask: token i sees only tokens j <= i. In "
        "a 3-token input you swap the first and the last token (two different words). Does the "
        "output of the middle token change?",
        {
            "a": (
                "No: the mask is the same for both orders, so the middle token attends with the "
                "same weights to the same places",
                "No: the mask lets the middle token see the same places, but not the same words: "
                "it sees the first token and itself, and a different word sits first now.",
            ),
            "b": (
                "Yes: it sees the first token and itself, and a different word is first now",
                "Right: a causal mask gives each position a different set of visible keys, so "
                "order leaks in without any position vector (the NoPE observation).",
            ),
            "c": (
                "No: the middle token is one step from both ends, so the swap is symmetric for it",
                "No: that symmetry holds without a mask (and for ALiBi without a mask), but the "
                "mask hides the last token from the middle one, so the two ends are not "
                "interchangeable.",
            ),
            "d": (
                "Yes: the last token is a different word now, and its output feeds the middle "
                "token's",
                "No: under a causal mask nothing reaches a token from the tokens after it; the "
                "middle token cannot see the last one. The change comes from the first token.",
            ),
        },
        "b",
        (
            "List the tokens the middle token can see before and after the swap.",
            "Under the mask the middle token sees positions 0 and 1. Which word sits at position 0"
            " before the swap, and which after?",
        ),
    ),
    # -- chapter 02: sinusoidal positions ---------------------------------------------------------
    _question(
        "index",
        "02",
        "recall",
        "In PE(p, 2i) = sin(p / 10000^(2i/d)), what does i count?",
        {
            "a": (
                "Dimensions 0, 2, 4, ... (the sine columns)",
                "No: that reading puts 2i = 0, 4, 8, ... in the exponent, chapter 2's bug A, "
                "whose slow half is frozen.",
            ),
            "b": (
                "Pairs 0, 1, 2, ... (pair i fills columns 2i and 2i + 1)",
                "Right: i is the pair index; 2i and 2i + 1 are the dimension indices of that "
                "pair's sine and cosine.",
            ),
        },
        "b",
        (
            "Work out the speed of column 2 under each reading and compare it with "
            "frequencies(d)[1] from the library.",
            "Column 2 is the sine of pair 1. If i counts pairs, its exponent is 2 x 1 / d; if i "
            "counts dimensions, it is 2 x 2 / d. Which matches the library's speed of pair 1?",
        ),
    ),
    _question(
        "base",
        "02",
        "predict",
        "A sinusoidal encoding with d_model = 128: what happens to the wavelength of the "
        "slowest pair when you double the base from 10000 to 20000?",
        {
            "a": (
                "It stays about 54,000 positions: the base sets how fast the fast pairs turn, "
                "and the slowest pair is fixed by d_model",
                "No, the other way round: pair 0 turns at base^0 = 1 radian per position "
                "whatever the base, while the slowest pair's speed base^(-126/128) depends on "
                "it most.",
            ),
            "b": (
                "It halves, to about 27,000 positions: a larger base makes the angles p x base "
                "grow faster",
                "No: the position is divided by a power of the base, not multiplied, so a "
                "larger base makes the slow pairs turn more slowly and their wavelengths grow.",
            ),
            "c": (
                "It almost doubles, from about 54,000 to about 108,000 positions: it is 2 pi "
                "times base^(126/128)",
                "Right: doubling the base multiplies the slowest wavelength by 2^(126/128), "
                "just under 2. Pair 0 keeps its 2 pi.",
            ),
            "d": (
                "It doubles exactly, to about 109,000 positions: every wavelength is "
                "proportional to the base",
                "No: pair i's wavelength is 2 pi * base^(2i/d), proportional to a power of the "
                "base; for the slowest pair the power is 126/128, so the factor is "
                "2^(126/128), just under 2, and pair 0 does not change at all.",
            ),
        },
        "c",
        (
            "Write the slowest pair's wavelength as a power of the base.",
            "The slowest pair turns base^(-2i/d) radians per position with 2i/d just under 1, so "
            "its wavelength grows with the base raised to a power just under 1. What does "
            "doubling the base do to that?",
        ),
    ),
    _question(
        "direction",
        "02",
        "predict",
        "Compare the dot products of sinusoidal position vectors PE_p . PE_(p+3) and "
        "PE_p . PE_(p-3), for some position p >= 3.",
        {
            "a": (
                "PE_p . PE_(p+3) is larger, because later positions have larger angles",
                "No: each pair contributes the cosine of an angle difference, which depends on "
                "the shift alone, not on which position comes later.",
            ),
            "b": (
                "They differ by an amount that depends on p",
                "No: the dot product of two sinusoidal vectors depends only on their distance, "
                "not on p (chapter 2, section 7).",
            ),
            "c": (
                "They have opposite signs",
                "No: cos(-x) = cos(x), so nothing changes sign.",
            ),
            "d": (
                "They are equal: the dot product cannot tell 3 before from 3 after",
                "Right: pair i contributes cos(3 omega_i) either way, since cosine is even. "
                "Direction has to come from elsewhere: RoPE rotates q and k, which come from "
                "different projections, and a causal mask hides the future.",
            ),
        },
        "d",
        (
            "Try it with numbers: one pair turning 1 radian per position, p = 5.",
            "For one pair, PE_p . PE_(p+k) = sin(p) sin(p + k) + cos(p) cos(p + k) = cos(k). "
            "Compare cos(3) with cos(-3).",
        ),
    ),
    # -- chapter 03: learned positions -------------------------------------------------------------
    _question(
        "wall",
        "03",
        "predict",
        "A model with a learned position table of 1024 rows receives a 1500-token input. What "
        "happens?",
        {
            "a": (
                "It runs, but its quality drops slowly as the input grows longer",
                "No: there is nothing to degrade gracefully; rows 1024 and up do not exist.",
            ),
            "b": (
                "It has no vector for positions 1024 and up, so it cannot run on them",
                "Right: chapter 3's hard wall; the ways out are a longer table trained on longer "
                "inputs, or a scheme defined at every position. The library raises an error "
                "that names max_len.",
            ),
            "c": (
                "Positions past 1023 wrap around to the start of the table",
                "No: nothing wraps; code that indexes past the table fails (or, worse, cuts "
                "the input short without saying so).",
            ),
        },
        "b",
        (
            "What would the model add to the token at position 1200?",
            "The table has rows 0 to 1023 and nothing else; a learned table has no formula to make"
            " row 1200.",
        ),
    ),
    _question(
        "unseen_rows",
        "03",
        "predict",
        "A learned table has 64 rows, and the model is trained only on 32-token sequences, "
        "starting from small random rows. After training, how similar are rows 40 and 41 "
        "(their cosine)?",
        {
            "a": (
                "About as similar as two random vectors: they still hold their random start",
                "Right: rows 32-63 never took part in a forward pass, so no gradient ever "
                "reached them. Chapter 3 measured that they had not moved at all.",
            ),
            "b": (
                "Very similar, like trained neighbours",
                "No: neighbouring rows became alike only where training reached them, rows "
                "0-31. Rows 40 and 41 were never used, so nothing made them alike.",
            ),
            "c": (
                "The same as rows 8 and 9: the table repeats every 32 rows",
                "No: nothing ties row 40 to row 8; every row is its own set of parameters.",
            ),
        },
        "a",
        (
            "Think about what makes a row of the table change during training.",
            "A row changes only through the gradient, and only positions that occur in training "
            "send gradient to their row. Do positions 40 and 41 ever occur in 32-token sequences?",
        ),
    ),
    _question(
        "table_size",
        "03",
        "recall",
        "GPT-2 small has 1024 positions and d_model = 768. How many trained numbers does its "
        "position table hold, and how many does a sinusoidal table of the same shape hold?",
        {
            "a": (
                "786,432 and 786,432",
                "No: the sinusoidal table has the same shape, but its entries come from a "
                "formula; none of them is trained.",
            ),
            "b": (
                "1,792 and 0",
                "No: that is 1024 + 768. The table holds a vector of 768 numbers for each of "
                "1024 positions.",
            ),
            "c": (
                "786,432 and 0",
                "Right: 1024 x 768 learnt numbers; the sinusoidal table is computed, so it has "
                "no parameters.",
            ),
        },
        "c",
        (
            "One row per position, one column per dimension; and which of the two tables is "
            "trained?",
            "Multiply the rows by the columns for the learned table. A sinusoidal table is "
            "computed from a formula: how many of its numbers does training set?",
        ),
    ),
    # -- chapter 04: RoPE ------------------------------------------------------------------------
    _question(
        "offset",
        "04",
        "predict",
        "With RoPE, which of these scores must equal score(q at position 3, k at position 7), "
        "whatever the vectors q and k are?",
        {
            "a": (
                "score(q at 7, k at 3)",
                "No: that is the offset -4, a rotation the other way; it differs in general "
                "(chapter 4 printed both).",
            ),
            "b": (
                "score(q at 103, k at 107)",
                "Right: the same offset, +4. Turning both vectors by 100 more positions leaves "
                "the angle between them unchanged, and the dot product sees only that angle.",
            ),
            "c": (
                "score(q at 6, k at 14)",
                "No: doubling both positions doubles the offset, to 8.",
            ),
            "d": (
                "None of them: scores decay with the absolute position",
                "No: RoPE's long-term decay is an upper bound that depends on the distance "
                "n - m, not on how far the tokens are from the start.",
            ),
        },
        "b",
        (
            "What does the dot product of two rotated vectors depend on?",
            "Rotating q by m theta and k by n theta gives a score that depends on n - m only. "
            "Compute n - m for each option and compare it with 7 - 3.",
        ),
    ),
    _question(
        "layout",
        "04",
        "predict",
        "You load weights trained with interleaved RoPE pairs (0,1), (2,3), ... into code that "
        "rotates the rotate_half way, pairs (i, i + d/2), without permuting the query and key "
        "weights. What happens?",
        {
            "a": (
                "It stops with an error, because the two layouts need different shapes",
                "No: both conventions work on the same shapes, and nothing in the code records "
                "which dimensions were paired in training.",
            ),
            "b": (
                "Nothing changes, because both conventions apply the same rotation",
                "No: they are the same rotation only after the dimensions are reordered. "
                "Without the permutation, chapter 4 measured outputs that differ by amounts as "
                "large as the vectors themselves.",
            ),
            "c": (
                "It runs without an error, but dimensions turn with the wrong partners",
                "Right: nothing fails, the model just gets quietly worse. That is why "
                "checkpoint conversions permute the query and key weights inside every head.",
            ),
        },
        "c",
        (
            "Which dimensions does each convention turn together, and what in the code could "
            "notice the difference?",
            "Both layouts keep the shapes of the weights; they only pair different dimensions. "
            "Would a shape check fail, and would the rotation still pair the dimensions the "
            "model trained together?",
        ),
    ),
    _question(
        "ntk",
        "04",
        "predict",
        "NTK-aware scaling for a context 4 times longer raises RoPE's base from b to "
        "b * 4^(d/(d-2)). What happens to the speed of the fastest pair (i = 0) and of the "
        "slowest pair (i = d/2 - 1)?",
        {
            "a": (
                "The fastest keeps its speed; the slowest becomes exactly 4 times slower",
                "Right: theta_0 = base^0 = 1 for any base, and for the last pair "
                "(b * 4^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / 4. The pairs between are "
                "slowed by amounts between 1 and 4.",
            ),
            "b": (
                "Both become 4 times slower",
                "No: that is position interpolation, which divides every angle by 4 and so "
                "also squeezes neighbouring tokens closer.",
            ),
            "c": (
                "The fastest becomes 4 times slower; the slowest keeps its speed",
                "No, the other way round: a larger base cannot change base^0 = 1.",
            ),
        },
        "a",
        (
            "Which pair's speed can a change of base not touch?",
            "Write theta_i = base^(-2i/d) for i = 0 and for i = d/2 - 1 with the new base.",
        ),
    ),
    _question(
        "dynamic_short",
        "04",
        "predict",
        "A model trained at 4,096 tokens runs with dynamic NTK (Hugging Face's rope_type "
        "'dynamic', factor 2) on a fresh layer. A user sends a prompt of 1,000 tokens. Predict "
        "each pair's speed while that prompt is read.",
        {
            "a": (
                "Every pair slowed by 2, the factor",
                "No: that is position interpolation by 2. Dynamic NTK computes its base from "
                "the current length, and below the trained length it keeps the trained base.",
            ),
            "b": (
                "The slow pairs slowed and the fast ones kept, as NTK-aware scaling by 2",
                "No: static NTK scaling would do that at every length; dynamic NTK only starts "
                "to raise the base once the sequence is longer than 4,096 tokens.",
            ),
            "c": (
                "Faster than trained: a prompt shorter than 4,096 shrinks the base",
                "No: the length it uses is never below the trained one, so the base never "
                "falls below the trained base.",
            ),
            "d": (
                "The speeds it was trained with, unchanged",
                "Right: at n <= L the base is the trained one, so a short prompt reads exactly "
                "as in training; the base grows only as the sequence passes 4,096 (chapter 4).",
            ),
        },
        "d",
        (
            "Dynamic NTK recomputes the base from the sequence's length: what is that length "
            "here, next to the trained one?",
            "Chapter 4's going-deeper block on today's recipes gives the base at n tokens; try "
            "n = 1,000 and L = 4,096.",
        ),
    ),
    _question(
        "llama3_fast",
        "04",
        "predict",
        "Llama 3.1's scaling with factor 8, low_freq_factor 1, high_freq_factor 4 and an "
        "original context of 8,192. One pair has a wavelength of 1,000 positions: it turns about "
        "8 times over the original context. Predict the speed it keeps.",
        {
            "a": (
                "1/8 of its speed: the factor slows every pair",
                "No: that is position interpolation. Llama 3.1's recipe slows by the whole "
                "factor only the pairs that turn less than once over 8,192 positions.",
            ),
            "b": (
                "A blend between 1/8 and its full speed",
                "No: the blend is for pairs that turn between 1 and 4 times over 8,192 "
                "positions (wavelengths from 2,048 to 8,192); this one turns about 8 times.",
            ),
            "c": (
                "1/4 of its speed, from the high_freq_factor",
                "No: the two factors are thresholds in turns over the original context, not "
                "slow-downs.",
            ),
            "d": (
                "All of it: the pair is left as trained",
                "Right: its wavelength, 1,000, is below 8,192 / 4 = 2,048, so it turns more "
                "than 4 times in the original context and keeps its speed (chapter 4, q8).",
            ),
        },
        "d",
        (
            "Count the pair's turns over the original context and compare them with the two "
            "thresholds.",
            "Pairs with a wavelength below L / high_freq_factor keep their speed; above "
            "L / low_freq_factor they are slowed by the factor; in between they blend.",
        ),
    ),
    # -- chapter 05: ALiBi -----------------------------------------------------------------------
    _question(
        "slopes12",
        "05",
        "recall",
        "ALiBi with 12 heads, not a power of two. Which slopes does the official recipe give "
        "the heads after the first 8?",
        {
            "a": (
                "2^-9, 2^-10, 2^-11, 2^-12: the sequence continues",
                "No: the recipe never goes below 2^-8; the extra heads take slopes the first "
                "8 heads do not have, one steeper than all of them and the others between them.",
            ),
            "b": (
                "The rest of the 12-head geometric sequence 2^(-8k/12)",
                "No: the official code does not use the 12-head sequence at all; the first 8 "
                "heads keep the 8-head slopes 2^-1 ... 2^-8.",
            ),
            "c": (
                "2^(-1/2), 2^(-3/2), 2^(-5/2), 2^(-7/2): every other slope of the 16-head sequence",
                "Right: the first 8 heads keep 2^-1 ... 2^-8, and the extra 4 take the first "
                "four of 2^(-1/2), 2^(-3/2), ...: one steeper than all of them, three between them.",
            ),
        },
        "c",
        (
            "List the 8-head slopes as powers of two: where could four more slopes go?",
            "The official recipe keeps the 8 slopes of the closest power of two, 2^-1 ... 2^-8, "
            "and takes the other heads' slopes from the sequence for twice as many heads, "
            "whose slopes are twice as dense: one between each two of the 8-head slopes and one "
            "steeper than all of them. Which of those can it use without repeating a slope?",
        ),
    ),
    _question(
        "exact_offset",
        "05",
        "predict",
        "A task needs the token exactly 3 back, and the keys' content says nothing about "
        "position. With ALiBi under a causal mask, which key gets the most weight from the "
        "bias alone?",
        {
            "a": (
                "The query's own token, at distance 0, in every head",
                "Right: every slope gives a penalty that grows with distance, so every head "
                "weights distance 0 most. So ALiBi suits recency; that this is why it learns exact "
                "offsets slowly is chapter 6's hypothesis.",
            ),
            "b": (
                "The key 3 back, in the head whose slope fits",
                "No: no slope makes -m * 3 larger than -m * 0. A monotone penalty cannot "
                "single out one distance.",
            ),
            "c": (
                "All keys equally, since ALiBi adds no position vectors",
                "No: the bias alone makes the weights fall with distance, by a factor e^(-m) "
                "per step back.",
            ),
        },
        "a",
        (
            "Sketch the bias -m * d against the distance d for a few slopes m.",
            "-m x d is zero at d = 0 and falls with the distance, for every positive slope m. "
            "Which distance gets the largest bias, whatever the slope?",
        ),
    ),
    _question(
        "sign",
        "05",
        "predict",
        "A bug flips ALiBi's sign: the code adds +m * |i - j| instead of -m * |i - j|. Under a "
        "causal mask, which keys do the heads now favour?",
        {
            "a": (
                "None: a softmax ignores constants, so nothing changes",
                "No: a softmax ignores a constant added to a whole row, but this bias differs "
                "from key to key within a row.",
            ),
            "b": (
                "The most distant ones: the first tokens of the sequence",
                "Right: each step back now multiplies a key's weight by e^(+m), so the oldest "
                "tokens win, more and more strongly as inputs grow.",
            ),
            "c": (
                "No key: attention becomes uniform",
                "No: uniform weights need equal scores, and the flipped bias makes them "
                "unequal in the other direction.",
            ),
        },
        "b",
        (
            "A softmax turns a score difference D into a weight ratio e^D.",
            "With +m |i - j| the bias grows with the distance, so the farthest key gets the "
            "largest score. Under a causal mask, which keys are the farthest?",
        ),
    ),
    # -- chapter 06: train short, test long ------------------------------------------------------
    _question(
        "recency",
        "06",
        "predict",
        "Models are trained on 32-token inputs and evaluated on 256-token ones, on 'predict the "
        "most recent marker token seen so far'. Which scheme's mechanism suits this task at "
        "every length?",
        {
            "a": (
                "A learned table",
                "No: a 32-row table has no vector for position 32, so the model cannot run at "
                "256 tokens at all.",
            ),
            "b": (
                "Sinusoidal positions",
                "No: the vectors exist at every position, but those past 31 were never seen in "
                "training; being defined is not being learnt.",
            ),
            "c": (
                "RoPE",
                "Not by construction: scores depend on the offset only, but offsets past 31 "
                "never occurred in training, and there the slow pairs reach angles the model "
                "never saw (chapter 4).",
            ),
            "d": (
                "ALiBi",
                "Right: its penalty prefers nearer keys, which is what 'most recent' asks for, "
                "and the penalty for a given distance is the same at every length, provided its "
                "slopes are steep enough to matter within the training length (chapter 6: one "
                "head with the recipe's slope 2^-8 learnt no recency at the training length and stayed "
                "just above no positions past it).",
            ),
        },
        "d",
        (
            "For each scheme, ask what is new to the model when the input grows from 32 to 256 "
            "tokens.",
            "The most recent marker is the nearest one. Which scheme prefers near keys by "
            "construction, with nothing new to learn at 256 tokens?",
        ),
    ),
    _question(
        "defined",
        "06",
        "reason",
        "Sinusoidal positions and RoPE both have a formula for position 10,000. Does it follow "
        "that a model trained on 32-token inputs works on 256-token inputs?",
        {
            "a": (
                "Yes, as long as the formula is used unchanged: every position has a "
                "well-defined encoding, so what the model learnt carries over",
                "No: defined is not trained. Past position 31 the model meets vectors (or "
                "rotation angles) it never saw, and nothing guarantees what it does with them.",
            ),
            "b": (
                "No: a model cannot be run on inputs longer than those it was trained on",
                "No: that is the learned table's hard wall. Sinusoidal and RoPE models run at "
                "any length; the question is how well.",
            ),
            "c": (
                "No: a formula defines the inputs at 256, not what the trained model does with "
                "them; that takes a measurement",
                "Right: 'defined everywhere' and 'generalises' are different claims; chapter 6 "
                "measures the second.",
            ),
            "d": (
                "Yes for RoPE, if not for sinusoidal: RoPE's scores depend only on the offset, "
                "so what it learnt about offsets applies at any position",
                "No: the scores depend only on the offset, but at 256 tokens the offsets reach "
                "255, and the model was trained on offsets up to 31 only.",
            ),
        },
        "c",
        (
            "What did the model see during training, and what does it see at position 200?",
            "A formula gives position 200 an encoding, but the trained weights never met it. Does "
            "being defined tell you how the model behaves there, or does that take a measurement?",
        ),
    ),
    _question(
        "interpolation",
        "06",
        "predict",
        "A RoPE model trained at 32 tokens runs on 128 tokens with position interpolation: every "
        "position is divided by 4. A query and a key 3 tokens apart: what offset does the "
        "rotation now see?",
        {
            "a": (
                "0.75",
                "Right: both positions are divided by 4, so their difference is too. A head "
                "that learnt 'exactly 3 back' no longer lines up: in chapter 6, interpolated "
                "models stayed at chance on the exact offset after 40 fine-tuning steps.",
            ),
            "b": (
                "3, as in training",
                "No: the rotation uses the divided positions, and the offset between them is "
                "divided as well.",
            ),
            "c": (
                "12",
                "No: interpolation squeezes positions together; it does not stretch them.",
            ),
        },
        "a",
        (
            "Take two positions 3 apart, say 10 and 13, and follow both through the interpolation.",
            "Divide 10 and 13 by 4, then subtract.",
        ),
    ),
    # -- chapter 07: real text ------------------------------------------------------------------
    _question(
        "units",
        "07",
        "reason",
        "Two models are scored on the same English text, which has 5 characters per word (the "
        "space after a word included). On longer inputs a word-level model that spells every "
        "word (no <unk> token) sees its cross-entropy "
        "fall by 0.20 bits per word, and a character-level model's falls by 0.05 bits per "
        "character. Which model gained more?",
        {
            "a": (
                "The word-level model, 4 times more: 0.20 bits against 0.05 bits",
                "No: a bit per word and a bit per character are not the same amount of text. A "
                "text holds a fixed number of bits whatever the unit: per word is per character "
                "times the characters in a word, 5 x 0.05: a quarter of a bit.",
            ),
            "b": (
                "The word-level model: 0.05 bits per character is 0.01 bits per word",
                "No: that divides by the characters per word where it should multiply. A word "
                "is 5 characters, so it carries 5 times the bits of one character: a quarter of a "
                "bit.",
            ),
            "c": (
                "The character-level model: 0.05 bits per character is a quarter of a bit per word",
                "Right: the whole text costs the same number of bits counted either way, so "
                "bits per word = bits per character x characters per word (chapter 7, "
                "section 6).",
            ),
            "d": (
                "Neither can be said: bits per word and bits per character are different "
                "units that do not convert",
                "No: on the same text, for a word model that spells every word (no <unk>), "
                "they convert exactly through the number of characters per word, which you can "
                "count.",
            ),
        },
        "c",
        (
            "Write the bits of the whole text twice: once counted in words, once in characters.",
            "Convert one fall into the other's unit: a word is 5 characters, so multiply the "
            "per-character fall by 5 and set it beside the per-word fall.",
        ),
    ),
    _question(
        "chunk_starts",
        "07",
        "reason",
        "You score a model on text in non-overlapping chunks and double the chunk length from 64 "
        "to 128 characters. Its bits per character can fall a little even if it makes no use of "
        "more than 64 characters of context. Why?",
        {
            "a": (
                "More text before a character always helps, so it uses the longer context anyway",
                "No: the question rules that out. And in chapter 7 it does not happen: in "
                "sliding windows, where every scored character has at least 48 before it, "
                "hundreds more characters of context did not lower ALiBi's bits per character.",
            ),
            "b": (
                "Longer chunks hold easier text",
                "No: both chunk lengths score exactly the same characters of the validation "
                "text; only where the chunks are cut differs.",
            ),
            "c": (
                "Fewer characters start a chunk with little or no context before them",
                "Right: a chunk's first few characters are predicted almost blind (the "
                "early-token curse of chapter 5), and chunks of 128 have half as many starts "
                "per scored character as chunks of 64.",
            ),
            "d": (
                "A longer chunk averages over more characters, which lowers the mean",
                "No: averaging over more numbers does not by itself make a mean smaller; what "
                "changes is at which positions of their chunks the characters sit.",
            ),
        },
        "c",
        (
            "Compare, character by character, what each one has before it in a chunk of 64 and "
            "in a chunk of 128.",
            "In chunks of 64, characters 0, 64, 128, ... have nothing before them; in chunks of "
            "128 only 0, 128, ... do. Which characters gain context, and is any of it more "
            "than 64 characters back?",
        ),
    ),
    _question(
        "content",
        "07",
        "reason",
        "Scored in chunks of 1,024 characters, every model's bits per character rise in the "
        "same bin of positions, the no-positions model's included. Before you call it an "
        "effect of the positions, what rules out the other cause?",
        {
            "a": (
                "More seeds: a rise that every seed shows is an effect of the positions",
                "No: every seed reads the same text in that bin, so a rise the text causes "
                "shows in every seed too.",
            ),
            "b": (
                "Sliding windows: every scored character has a long stretch of text before it",
                "No: sliding windows score only the far end of each window, so hard text there "
                "still looks like a bad position; they change which positions are scored, not "
                "what text sits in the bin.",
            ),
            "c": (
                "Nothing: a rise that every scheme shows at once must come from the positions",
                "No: schemes that use positions differently, and one that has none, would not "
                "break at the same place; a rise they all share points at the text.",
            ),
            "d": (
                "Each character scored again in a chunk of 64, at a position the model trained "
                "on, and the two scores subtracted",
                "Right: the same character, scored twice; hard text costs in both chunks and "
                "cancels, so what is left is what the long chunk adds: the position and the "
                "longer context together (chapter 7, section 7).",
            ),
        },
        "d",
        (
            "Which comparison holds the scored character and its text fixed?",
            "The same characters in the same text can be scored at a trained position and at an "
            "unseen one: subtracting the two leaves only the position's effect.",
        ),
    ),
    # -- chapter 08: putting it together ---------------------------------------------------------
    _question(
        "models",
        "08",
        "recall",
        "Which of these models uses RoPE and no absolute position embeddings?",
        {
            "a": ("BERT", "No: BERT adds a learned table of 512 positions."),
            "b": (
                "LLaMA",
                "Right: LLaMA rotates queries and keys in every layer and adds nothing to the "
                "embeddings.",
            ),
            "c": ("GPT-2", "No: GPT-2 adds a learned table of 1024 positions."),
            "d": (
                "The original Transformer",
                "No: it adds sinusoidal positions to the embeddings.",
            ),
        },
        "b",
        (
            "Which of the four adds something to the token vectors before the first layer?",
            "RoPE adds nothing to the token vectors: it turns queries and keys inside every "
            "attention layer (chapter 4). Look for the model whose embeddings enter the first "
            "block unchanged.",
        ),
    ),
    _question(
        "cost",
        "08",
        "predict",
        "Inputs grow from 512 to 2,048 tokens, 4 times longer. By what factor does the work a "
        "position scheme adds to one attention head grow?",
        {
            "a": (
                "4 times for every scheme: each one touches every token once",
                "No: ALiBi and T5 add a number to every query-key score, and there are T x T "
                "of those: 16 times as many.",
            ),
            "b": (
                "16 times for RoPE, which turns every query against every key; 4 times for "
                "ALiBi and T5",
                "No: RoPE turns each query and each key once, by its own position (T x d "
                "numbers); the scores come out relative by themselves. ALiBi and T5 are the "
                "ones that touch every score.",
            ),
            "c": (
                "4 times for added vectors and RoPE's turns; 16 times for ALiBi's and T5's biases",
                "Right: vectors and rotations cost T x d, biases one addition per score, T x T "
                "per head, which grows as the scores themselves do; the bias must also be "
                "built and held in memory.",
            ),
            "d": (
                "Nothing for ALiBi and T5: their bias is a fixed table, computed once",
                "No: ALiBi's slopes are fixed and T5's table is small, but the bias they make "
                "has one entry per query-key pair, T x T per head, so it grows 16 times.",
            ),
        },
        "c",
        (
            "Recall where each scheme acts: on the token vectors, on the queries and keys, or on "
            "the scores (chapters 2-5).",
            "Write down the shape of what each scheme adds or changes for an input of T tokens.",
        ),
    ),
    _question(
        "layer_mix",
        "08",
        "predict",
        "Two-layer models are trained at 32 tokens with different positions in each layer, then "
        "read at 256 tokens. Which of these mixes was ahead of RoPE in both layers on all three "
        "of chapter 6's tasks, in every seed?",
        {
            "a": (
                "RoPE in both layers, as chapter 6's models",
                "No: that is the mix the others are compared with; it fell on every task past the "
                "training length (ledger 08.8).",
            ),
            "b": (
                "RoPE in the bottom layer and no positions in the top one, with no chunks",
                "No: without Llama 4's chunks below it, leaving RoPE out of the top layer was not "
                "ahead on all three: it cost 0.015 on lookback-3, though it gained 0.035 on "
                "recent-marker (ledger 08.9).",
            ),
            "c": (
                "A sliding window of 8 at base 10,000 under a global layer at base 1,000,000, "
                "as Gemma 3",
                "Right: ahead by 0.681, 0.450 and 1.557 nats in every seed, though it degraded "
                "too (0.79, 0.84 and 2.01 nats at 256 tokens). Llama 4's chunks under a layer "
                "without positions were ahead in every seed as well (ledger 08.8, 08.9).",
            ),
            "d": (
                "No positions in either layer",
                "No: without positions in either layer the models were not ahead on lookback-3, "
                "which two layers without positions learnt only partly even at the training "
                "length (0.47, chapter 6), though they were on the other two tasks (ledger 06.7).",
            ),
        },
        "c",
        (
            "Look for the mix whose bottom layer sees only a few positions back.",
            "Section 4 of chapter 8 compares each mix with RoPE in both layers, seed by seed, at "
            "256 tokens; read its first block of comparisons.",
        ),
    ),
]

EXERCISES = QUESTIONS
