"""Chapter 7: the course quiz. Each question is data: prompt, labelled options, the right one,
and an explanation for every option, right or wrong."""

from ._core import ChoiceExercise


def _question(name, prompt, options, correct, hint):
    """options: {key: (label, explanation)}."""
    return ChoiceExercise(
        name=name,
        prompt=prompt,
        hint_text=hint,
        starter=f'answer_{name} = "?"',
        solution_code=f'answer_{name} = "{correct}"',
        answer_name=f"answer_{name}",
        options={key: explanation for key, (_, explanation) in options.items()},
        labels={key: label for key, (label, _) in options.items()},
        correct=correct,
    )


QUESTIONS = [
    _question(
        "need",
        "Why does a transformer need positional information?",
        {
            "a": (
                "Without it, self-attention treats the tokens as a set: shuffle them and each "
                "output is merely shuffled",
                "Right: chapter 1 measured it, a max difference of about 1e-16 after un-shuffling.",
            ),
            "b": (
                "Attention is too slow without it",
                "No: positions cost a little time, they do "
                "not save any. The problem is that attention cannot tell orders apart.",
            ),
            "c": (
                "Token embeddings cannot represent words without positions",
                "No: embeddings represent words fine; what is lost is the order of the words.",
            ),
        },
        "a",
        "Think of chapter 1's dog and man.",
    ),
    _question(
        "invariant",
        "True or false: a self-attention layer without positions is permutation-invariant.",
        {
            "true": (
                "True",
                "Not precisely: the layer is equivariant (outputs move with the "
                "inputs). Only an order-blind summary, such as the mean over tokens, is "
                "invariant.",
            ),
            "false": (
                "False",
                "Right: the layer is permutation-equivariant; mean-pooling its "
                "outputs gives an invariant sentence vector.",
            ),
        },
        "false",
        "Does the output of the layer stay the same, or move with the shuffle?",
    ),
    _question(
        "index",
        "In PE(p, 2i) = sin(p / 10000^(2i/d)), what does i count?",
        {
            "dimension": (
                "Dimensions 0, 2, 4, ...",
                "No: that reading puts 2i = 0, 4, 8 in the "
                "exponent, bug A of chapter 2, whose slow half is frozen.",
            ),
            "pair": (
                "Pairs 0, 1, 2, ... (columns 2i and 2i+1)",
                "Right: i is the pair index; 2i "
                "and 2i+1 are the dimension indices of that pair's sin and cos.",
            ),
        },
        "pair",
        "Columns 2i and 2i + 1 hold one sin and one cos.",
    ),
    _question(
        "wavelength",
        "How many positions does pair 0 of a sinusoidal encoding take to turn once round its clock?",
        {
            "1": ("1", "No: pair 0 turns 1 radian per position, not one full turn."),
            "6.28": (
                "2 pi, about 6.28",
                "Right: omega_0 = 1 radian per position, and a turn is 2 pi radians.",
            ),
            "10000": (
                "10000",
                "No: 10000 is the base; the slowest pair's wavelength is close to 10000 * 2 pi.",
            ),
        },
        "6.28",
        "omega_0 = 10000^0 = 1 radian per position.",
    ),
    _question(
        "rope",
        "Why does the RoPE score q_m . k_n depend only on n - m?",
        {
            "rotation": (
                "Rotating q by m theta and k by n theta leaves a dot product that depends "
                "only on the angle between them, (n - m) theta",
                "Right: rotations keep "
                "lengths and only the angle difference survives the dot product.",
            ),
            "bias": (
                "RoPE subtracts a penalty proportional to |n - m|",
                "No: that is ALiBi. RoPE adds nothing to the scores; it rotates q and k.",
            ),
            "norm": (
                "RoPE normalises q and k to unit length",
                "No: rotations keep lengths, but "
                "no normalisation happens; the angle difference is what matters.",
            ),
        },
        "rotation",
        "What does a dot product of two rotated vectors depend on?",
    ),
    _question(
        "recency",
        "In chapter 6 (4 heads of width 8, trained at 32 tokens), which scheme kept its "
        "recent-marker accuracy up to 256 tokens?",
        {
            "sinusoidal": ("sinusoidal", "No: sinusoidal fell from 0.99 to below 0.5."),
            "rope": (
                "RoPE",
                "No: RoPE degraded past 32 tokens in that configuration (it did "
                "better with one wide head).",
            ),
            "alibi": (
                "ALiBi",
                "Right: 'the most recent marker' is exactly a recency bias, and the "
                "penalty means the same at every length.",
            ),
            "learned": ("learned", "No: a 32-row table cannot even run at 64 tokens."),
        },
        "alibi",
        "Which scheme's bias prefers the most recent tokens?",
    ),
    _question(
        "models",
        "Which of these models uses RoPE and no absolute position embeddings?",
        {
            "bert": ("BERT", "No: BERT adds a learned table of 512 positions."),
            "gpt2": ("GPT-2", "No: GPT-2 adds a learned table of 1024 positions."),
            "llama": (
                "LLaMA",
                "Right: LLaMA rotates queries and keys in every layer and adds "
                "nothing to the embeddings.",
            ),
            "transformer": (
                "The original Transformer",
                "No: it adds sinusoidal positions to the embeddings.",
            ),
        },
        "llama",
        "Which of them is the newest?",
    ),
    _question(
        "wall",
        "A model with a learned position table of 1024 rows receives 1500 tokens. What happens?",
        {
            "degrades": (
                "It runs, but quality drops slowly with length",
                "No: there is nothing to degrade gracefully; rows 1024 and up do not exist.",
            ),
            "cannot": (
                "It cannot run past position 1023 without a longer, trained table",
                "Right: the table has no row for position 1024 (chapter 3's hard wall).",
            ),
            "wraps": (
                "Positions wrap around to the start of the table",
                "No: nothing wraps; code "
                "that indexes past the table fails (or, worse, is cut off silently).",
            ),
        },
        "cannot",
        "How many rows does the table have?",
    ),
]

EXERCISES = QUESTIONS
