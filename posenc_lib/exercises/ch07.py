"""Chapter 7: real text, the ALiBi paper's headline figure in miniature."""

import math

import numpy as np

from ..corpus import bits_per_char
from ..rope import rope_frequencies
from ._core import ChoiceExercise, FunctionExercise, Mistake, ValueExercise


class _RoundedFactor(Mistake):
    """The loss times a rounded 1 / ln 2 (1.4427, or divided by 0.6931): within 1%, not to 1e-6.

    ``answer`` is unused: the answer matches when its ratio to ``loss`` is one constant within 1%
    of 1 / ln 2 (the exact factor passes before any mistake is looked at).

    Examples
    --------
    >>> rounded = q2.mistakes[4]
    >>> rounded.matches(2 * 1.4427, {"loss": 2.0}), rounded.matches(2 * 0.5, {"loss": 2.0})
    (True, False)
    """

    def matches(self, result, arguments, *, rtol=1e-6, atol=1e-9):
        """Whether ``result`` is ``loss`` times one constant within 1% of 1 / ln 2."""
        try:
            loss = np.asarray(arguments["loss"], dtype=float)
            ratio = np.asarray(result, dtype=float) / loss
        except (TypeError, ValueError, KeyError):
            return False
        if ratio.shape != loss.shape or not np.all(np.isfinite(ratio)):
            return False
        return bool(np.allclose(ratio, 1 / math.log(2), rtol=1e-2))


class _ScalarOnly(Mistake):
    """An answer right for one number that raises TypeError on a numpy array (math.log2, float).

    ``answer`` is the scalar-only answer; no result matches (it is right on a number); an error
    matches when it is a TypeError and an argument is an array of one or more dimensions.

    Examples
    --------
    >>> scalar = q4.mistakes[2]
    >>> scalar.matches_error(TypeError("only length-1 arrays"), {"perplexity": np.ones(3)})
    True
    >>> scalar.matches_error(TypeError("only length-1 arrays"), {"perplexity": 2.0})
    False
    """

    def matches(self, result, arguments, *, rtol=1e-6, atol=1e-9):
        """Never: this mistake is named by its error."""
        return False

    def matches_error(self, error, arguments):
        """Whether ``error`` is a TypeError raised for an array argument."""
        return isinstance(error, TypeError) and any(
            np.ndim(value) > 0 for value in arguments.values()
        )


q2 = FunctionExercise(
    name="bits_per_char",
    prompt=(
        "Write bits_per_char(loss): the model's loss is a mean cross-entropy in nats per "
        "character (natural logarithm); return it in bits per character. It should work for a "
        "number and for a numpy array of losses."
    ),
    hint_text=(
        "A bit is a logarithm to base 2, a nat one to base e: the loss is the same quantity, "
        "measured with another base of logarithm. How does a logarithm change its base?",
        "Changing the base of a logarithm multiplies it by a constant: log2(x) = ln(x) / ln(2) "
        "for every x. The loss is a sum of ln's, so the same constant converts all of it.",
    ),
    starter="""def bits_per_char(loss):
    # YOUR CODE HERE: a loss in nats per character, in bits per character
    return None""",
    solution_code="""def bits_per_char(loss):
    return loss / np.log(2)""",
    answer_name="bits_per_char",
    reference=lambda loss: bits_per_char(loss),
    cases=(
        {"loss": 1.0},
        {"loss": math.log(8)},
        {"loss": np.array([0.5, 1.7, 2.3])},
    ),
    mistakes=(
        Mistake(
            "you multiplied by ln 2; a bit is a smaller unit than a nat (one bit is ln 2 = 0.693 nats), so "
            "the same loss is a larger number of bits: divide by ln 2.",
            lambda loss: loss * math.log(2),
        ),
        Mistake(
            "you took log2 of the loss. The loss is already a logarithm (of a probability); only "
            "its base changes: divide it by ln 2.",
            lambda loss: np.log2(loss),
        ),
        Mistake(
            "that is the perplexity, e to the loss (the number of equally likely characters the "
            "model hesitates between). Bits per character is the loss divided by ln 2.",
            lambda loss: np.exp(loss),
        ),
        Mistake(
            "you divided by ln 10, which gives the loss in decimal digits (bans). Bits use "
            "base 2: divide by ln 2.",
            lambda loss: loss / math.log(10),
        ),
        _RoundedFactor(
            "you used a rounded constant (1.4427 for 1 / ln 2, or 0.6931 for ln 2): close, but "
            "the check wants six significant digits. Divide by math.log(2) (or np.log(2)) instead "
            "of typing the constant.",
            None,
        ),
        _ScalarOnly(
            "your function must also take a numpy array: math functions and float() take one "
            "number only, while loss / np.log(2) (or / math.log(2)) divides an array entry by "
            "entry.",
            lambda loss: float(loss) / math.log(2),
        ),
    ),
    success=(
        "A model that knew nothing would pay log2(103) = 6.69 bits for each of the corpus's 103 "
        "characters; 2 to the bits per character is the perplexity per character."
    ),
    goal=2,
)

q3 = ChoiceExercise(
    name="which_mode",
    prompt=(
        "Predict before you look: the models trained at L = 64 characters are scored at 2L = "
        "128 characters, once in non-overlapping chunks and once with sliding windows (every "
        "scored character sees at least 96 characters before it). Which mode gives which "
        "scheme the lower, better, bits per character? (One of the two differences is small: "
        "the question is its sign.) "
        "(a) non-overlapping is better for both sinusoidal and ALiBi; "
        "(b) sliding is better for both; "
        "(c) non-overlapping is better for sinusoidal, sliding is better for ALiBi; "
        "(d) sliding is better for sinusoidal, non-overlapping is better for ALiBi."
    ),
    hint_text=(
        "Ask at which positions of its window each scored character sits in the two modes, and "
        "which positions each scheme was trained on. Then ask which characters of a chunk a "
        "scheme that only looks at distances still finds hard."
    ),
    starter='answer_mode = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_mode = "c"',
    answer_name="answer_mode",
    options={
        "a": "Not for ALiBi: non-overlapping chunks start with characters that have almost no "
        "context (the early-token curse), while in sliding windows every scored character has "
        "at least 96 characters before it, and ALiBi reads distances the same way at every "
        "position.",
        "b": "Not for sinusoidal: in sliding windows every scored character sits at position 96 "
        "or later, past the 64 positions the model was trained on; non-overlapping chunks also "
        "score positions 0-63, which it knows.",
        "c": "Right: sliding windows put every scored character past the trained positions, the "
        "worst case for a model that learnt absolute positions, and spare every character the "
        "starved start of a chunk. For ALiBi the starved starts cost more than the little it "
        "loses when its windows grow longer: a small difference, below zero seed by seed "
        "(section 8 prints it; section 7 measures both causes).",
        "d": "No: it is the other way round. Sliding windows score only positions 96-127 of each "
        "window, none of which the sinusoidal model saw in training, and they spare ALiBi the "
        "starved first characters of each chunk.",
    },
    correct="c",
    goal=3,
)

q4 = FunctionExercise(
    name="perplexity_to_bits",
    prompt=(
        "Press et al.'s WikiText-103 models are word-level: they report perplexity per token "
        "(a word or a punctuation mark), 2 ** (bits per token). Write "
        "perplexity_to_bits(perplexity): the cross-entropy in bits per token of a model with "
        "that perplexity (a number or a numpy array), the first step "
        "to putting the paper's table beside ours."
    ),
    hint_text=(
        "Perplexity is 2 to the cross-entropy in bits: which function undoes a power of 2?",
        "A power is undone by the logarithm of the same base. Pick numpy's version of it, so "
        "that an array works too.",
    ),
    starter="""def perplexity_to_bits(perplexity):
    # YOUR CODE HERE
    return perplexity""",
    solution_code="""def perplexity_to_bits(perplexity):
    return np.log2(perplexity)""",
    answer_name="perplexity_to_bits",
    reference=lambda perplexity: np.log2(perplexity),
    cases=(
        {"perplexity": 20.05},
        {"perplexity": np.array([19.73, 18.73, 18.41, 18.31])},
        {"perplexity": 406.01},
    ),
    mistakes=(
        Mistake(
            "that is the natural logarithm, the cross-entropy in nats; bits need log base 2 "
            "(np.log2).",
            lambda perplexity: np.log(perplexity),
        ),
        Mistake(
            "that is log base 10; bits need log base 2 (np.log2).",
            lambda perplexity: np.log10(perplexity),
        ),
        _ScalarOnly(
            "your function must also take a numpy array: use np.log2 (math.log2 takes one "
            "number only).",
            lambda perplexity: math.log2(perplexity),
        ),
        Mistake(
            "that is 2 to the power of the perplexity: the power goes from bits to perplexity. "
            "Going back from perplexity to bits undoes the power, with a logarithm.",
            lambda perplexity: 2.0**perplexity,
        ),
    ),
    success=(
        "The paper's sinusoidal model goes from 4.33 to 8.67 bits per token between 512 and "
        "15,512 tokens; its ALiBi model from 4.30 to 4.19. To compare with our bits per "
        "character, multiply ours by the characters per WikiText-style token (section 6)."
    ),
    goal=4,
)

q1 = ChoiceExercise(
    name="split_by_topic",
    prompt=(
        "Predict before reading on: every tenth help topic is held out as validation text, and "
        "the help page of `else` (held out) is, character for character, the help page of `if` "
        "(a training topic). A model trained on the training topics is scored on the validation "
        "topics. What do its bits per character on the characters of `else` measure? (a) the "
        "same as on any new text, since the model never saw the topic `else`; (b) less than on "
        "new text: the model has read those characters in training, so the score there "
        "measures memory, and flatters it; (c) more than on new text, since text seen twice "
        "confuses a model; (d) nothing different, since a model trained on windows of 64 "
        "characters cannot remember a whole page."
    ),
    hint_text=(
        "Ask what held-out text is for: to score the model on text it has not read. Has it read "
        "these characters, under another topic's name?"
    ),
    starter='answer_split = "?"  # "a", "b", "c" or "d"',
    solution_code='answer_split = "b"',
    answer_name="answer_split",
    options={
        "a": "No: the topic's name is new, but its characters are not. The model trained on the "
        "page of `if`, which is the same text, so on `else` it is scored on text it has read.",
        "b": "Right: a held-out score is only honest on text the model has not read. Pydoc's "
        "topics repeat each other, so the split also cuts every passage shared with the "
        "validation text out of the training text.",
        "c": "No: a model has no trouble with text it has seen; it predicts it better, which is "
        "why the score there would be too good, not too bad.",
        "d": "No: it does not need to remember the whole page. Every window of 64 characters of "
        "`else` is a window it trained on, so each next character is one it has learnt there.",
    },
    correct="b",
    goal=1,
)

q5 = ValueExercise(
    name="rope_pairs_turning",
    prompt=(
        "Chapter 4: RoPE turns pair i of a head of width d by theta_i = "
        "10000 ** (-2 i / d) radians per position, i = 0 .. d/2 - 1. This chapter's heads are "
        "16 wide, so they have 8 pairs. How many of the 8 pairs turn at least one full circle "
        "(2 pi radians) within the 64 positions of training? Set answer_turning to that whole "
        "number."
    ),
    hint_text=(
        "How far does pair i turn over the 64 training positions, and how many radians make a "
        "full circle?",
        "Pair i turns theta_i radians per position, so 64 theta_i over training; a circle is 2 pi "
        "radians. Work out the turn of each of the 8 pairs (i = 0 to 7) and count those of at "
        "least one circle.",
    ),
    starter="answer_turning = None  # a whole number of pairs",
    solution_code="""theta = 10000 ** (-2 * np.arange(8) / 16)
answer_turning = int(np.sum(64 * theta / (2 * np.pi) >= 1))""",
    answer_name="answer_turning",
    expected=int(np.sum(64 * rope_frequencies(16) / (2 * np.pi) >= 1)),
    mistakes=(
        Mistake(
            "you left out the 2 of the exponent (10000 ** (-i / 16)): the speeds fall twice as "
            "slowly, so too many pairs turn. The exponent is -2 i / d with d = 16.",
            lambda: 5,
        ),
        Mistake(
            "you counted pairs that turn at least one radian (64 * theta >= 1), not one full "
            "circle: divide the turn by 2 pi before comparing it with 1.",
            lambda: 4,
        ),
        Mistake(
            "not every pair turns a circle: the speeds fall geometrically, from 1 radian per "
            "position for pair 0 to 10000 ** (-14 / 16) for pair 7, which turns far less than "
            "a circle in 64 positions.",
            lambda: 8,
        ),
        Mistake(
            "you counted the pairs from 1 (i = 1 .. 8): the pair index starts at 0, where pair 0 "
            "turns 1 radian per position, about 10 circles in 64 positions.",
            lambda: 2,
        ),
    ),
    success=(
        "Pairs 0, 1 and 2 turn about 10, 3.2 and 1.02 circles; the other five turn less than "
        "half a circle, so in training they never show the model what lies past half a turn. "
        "Wider heads have more pairs per head; the variant of section 7 (2 heads of 32) has 5 "
        "turning pairs per head but 10 per layer against 12, so it tests wider heads, not more "
        "turning pairs."
    ),
    goal=4,
    reuses=("04",),
)

EXERCISES = [q1, q2, q3, q4, q5]
