"""Bad input never gives a silent wrong answer or a numpy traceback from deep inside.

Every public function of the library's math, model and helper modules is called once with valid
arguments and then with each argument replaced by a wrong value: it must raise a TypeError or
ValueError whose message starts with the name of the function the learner called, names the
argument, and stays short (a value is shown cut to a bounded length, never a whole array). Then the
cases the course has been bitten by, with their exact messages.
"""

import inspect

import numpy as np
import pytest

from posenc_lib import (
    alibi,
    attention,
    display,
    learned,
    model,
    pipeline,
    rope,
    sinusoidal,
    t5,
    tasks,
    word_order,
)
from posenc_lib.model import ModelConfig, forward, init_params, loss_fn, train
from posenc_lib.widgets import _live, ch00, ch01, ch02, ch03, ch04, ch05, ch06

MODULES = [
    alibi,
    attention,
    display,
    learned,
    model,
    pipeline,
    rope,
    sinusoidal,
    t5,
    tasks,
    word_order,
]
# The explorers check their constructors' arguments too (plots.py's drawing helpers take matplotlib
# objects, which matplotlib checks, and are not listed).
MODULES += [_live, ch00, ch01, ch02, ch03, ch04, ch05, ch06]
MAX_MESSAGE = 300  # characters: an error explains, it does not dump data

CONFIG = ModelConfig(vocab_size=5, d_model=4)
PARAMS = init_params(CONFIG)
TASK = tasks.lookback(1, vocab_size=5)
COS, SIN = rope.rope_tables([0.0, 1.0], 4)
EYE = np.eye(3)

# One valid call of every public callable (keyword arguments, so each can be replaced).
VALID = {
    "softmax": {"x": [1.0, 2.0]},
    "log_softmax": {"x": [1.0, 2.0]},
    "causal_mask": {"seq_len": 3},
    "self_attention": {"x": EYE, "w_q": EYE, "w_k": EYE, "w_v": EYE, "mask": np.eye(3, dtype=bool)},
    "permutation_matrix": {"order": [1, 0]},
    "alibi_slopes": {"n_heads": 8},
    "alibi_bias": {"seq_len": 3, "n_heads": 2},
    "frequencies": {"d_model": 8, "base": 100.0},
    "sinusoidal_positions": {"seq_len": 4, "d_model": 8, "base": 100.0, "dtype": np.float32},
    "shift_matrix": {"k": 1.0, "d_model": 4, "base": 100.0},
    "wavelengths": {"d_model": 4, "base": 100.0},
    "sinusoidal_positions_loop": {"seq_len": 3, "d_model": 4, "base": 100.0},
    "similarity_by_distance": {"distances": [0, 1], "d_model": 4, "base": 100.0, "pairs": [0]},
    "distance_by_shift": {"distances": [0, 1], "d_model": 4, "base": 100.0, "pairs": [1]},
    "table_too_short": {"max_len": 4, "seq_len": 5},
    "LearnedPositions": {"max_len": 4, "d_model": 2, "rng": 1, "init_std": 0.1},
    "cosine_similarity": {"table": [[1.0, 0.0], [0.0, 1.0]]},
    "principal_axis": {"table": [[1.0, 0.0], [0.0, 1.0]]},
    "rope_frequencies": {"d": 4, "base": 100.0},
    "rope_tables": {"positions": [0.0, 1.0], "d": 4, "base": 100.0, "convention": "half"},
    "partner_matrix": {"d": 4, "convention": "half"},
    "rope_rotate": {"x": np.ones((2, 4)), "cos": COS, "sin": SIN, "convention": "half"},
    "apply_rope": {
        "x": np.ones((2, 4)),
        "positions": [0.0, 1.0],
        "base": 100.0,
        "convention": "half",
        "frequencies": [1.0, 0.5],
    },
    "convention_permutation": {"d": 4},
    "interpolate_positions": {"positions": [0, 1], "scale": 2.0},
    "ntk_base": {"base": 1e4, "scale": 2.0, "d": 8},
    "rope_wavelengths": {"d": 4, "base": 100.0},
    "rope_angles": {"offsets": [1.0], "d": 4, "base": 100.0},
    "pairs_completing_a_turn": {"d": 4, "length": 8, "base": 100.0},
    "yarn_frequencies": {
        "d": 8,
        "scale": 2.0,
        "original_len": 16,
        "base": 100.0,
        "alpha": 1.0,
        "beta": 8.0,
    },
    "yarn_attention_factor": {"scale": 2.0},
    "rope_decay_bound": {"distances": [0.0, 1.0], "d": 8, "base": 100.0},
    "t5_bucket": {
        "relative_position": [0, -1],
        "bidirectional": False,
        "n_buckets": 8,
        "max_distance": 16,
    },
    "t5_buckets": {"seq_len": 3, "bidirectional": True, "n_buckets": 8, "max_distance": 16},
    "t5_bias": {"table": np.zeros((2, 8)), "seq_len": 3, "bidirectional": True, "max_distance": 16},
    "t5_bias_traced": {"table": np.zeros((2, 4)), "buckets": np.zeros((3, 3), int)},
    "T5RelativeBias": {
        "n_heads": 2,
        "n_buckets": 8,
        "max_distance": 16,
        "bidirectional": False,
        "rng": 0,
        "init_std": 0.1,
    },
    "has_target": {"targets": [[-1, 2]]},
    "Task": {"name": "t", "vocab_size": 4, "metric": "loss", "sampler": TASK.sampler},
    "lookback": {"k": 2, "vocab_size": 8},
    "recent_marker": {"n_markers": 2, "vocab_size": 8, "density": 0.5},
    "markov_transitions": {"vocab_size": 4, "concentration": 0.5, "seed": 1},
    "markov": {"vocab_size": 4, "concentration": 0.5, "seed": 1},
    "markov_entropy": {"vocab_size": 4, "concentration": 0.5, "seed": 1},
    "split_words": {"sentence": "the dog"},
    "toy_embeddings": {"words": ["the", "dog"], "d_model": 4, "seed": 1},
    "match_order": {"words_a": ["a", "b"], "words_b": ["b", "a"]},
    "compare_orders": {
        "sentence_a": "a b",
        "sentence_b": "b a",
        "w_q": EYE,
        "w_k": EYE,
        "w_v": EYE,
        "positions": True,
        "causal": True,
        "seed": 1,
    },
    "embed_token_ids": {"ids": [1, 2], "d_model": 4, "seed": 1},
    "ModelConfig": {"vocab_size": 4, "scheme": "rope", "d_model": 4, "n_heads": 2},
    "parameter_shapes": {"config": CONFIG},
    "init_params": {"config": CONFIG, "seed": 1},
    "n_parameters": {"params": PARAMS},
    "length_problem": {"config": CONFIG, "length": 4},
    "forward": {"params": PARAMS, "tokens": [[0, 4]], "config": CONFIG, "return_attention": True},
    "token_losses": {"logits": np.zeros((2, 3)), "targets": [0, -1]},
    "accuracy": {"logits": np.zeros((2, 3)), "targets": [0, -1]},
    "loss_fn": {"params": PARAMS, "tokens": [[0, 4]], "targets": [[-1, 2]], "config": CONFIG},
    "train": {
        "config": CONFIG,
        "task": TASK,
        "steps": 1,
        "batch_size": 2,
        "length": 4,
        "lr": 0.01,
        "seed": 1,
        "snapshot_every": 1,
        "progress": False,
        "init": PARAMS,
    },
    "evaluate_positions": {
        "params": PARAMS,
        "config": CONFIG,
        "task": TASK,
        "length": 4,
        "n_tokens": 8,
        "seed": 1,
        "batch_size": 2,
    },
    "evaluate": {
        "params": PARAMS,
        "config": CONFIG,
        "task": TASK,
        "length": 4,
        "n_tokens": 8,
        "seed": 1,
        "batch_size": 2,
    },
    "region_value": {"totals": [1.0, 2.0], "counts": [1, 2], "start": 1},
    "attention_maps": {"params": PARAMS, "config": CONFIG, "tokens": [[0, 1]]},
    "attention_peak_offsets": {"params": PARAMS, "config": CONFIG, "tokens": [[0, 1]], "layer": 0},
    "attention_at_offset": {
        "params": PARAMS,
        "config": CONFIG,
        "tokens": [[0, 1]],
        "offset": 1,
        "layer": 0,
    },
    "minimum_versions": {},
    "show_source": {"obj": np.eye},
    "format_difference": {"value": 0.5, "bound": 1e-12},
    "environment_report": {},
    "LiveFigure": {"figsize": (2, 2), "dpi": 40},
    "Explorer": {},
    "HelloSlider": {},
    "draw_order_comparison": {
        "axes": __import__("matplotlib.figure").figure.Figure().subplots(1, 3),
        "comparison": word_order.compare_orders("a b", "b a", EYE, EYE, EYE),
        "title_a": "A",
        "title_b": "B",
    },
    "describe_comparison": {"comparison": word_order.compare_orders("a b", "b a", EYE, EYE, EYE)},
    "OrderExplorer": {
        "w_q": np.eye(8),
        "w_k": np.eye(8),
        "w_v": np.eye(8),
        "sentence": "a b",
        "other": "b a",
        "seed": 1,
    },
    "SinusoidalExplorer": {"seq_len": 50, "d_model": 16, "base": 100.0, "position": 3, "pair": 1},
    "SimilarityExplorer": {"d_model": 16, "base": 100.0, "max_shift": 20, "shift": 3},
    "FrameSlider": {"frames": {0: np.eye(2)}, "title": "step {key}", "label": "step"},
    "RopeExplorer": {"d": 4, "base": 100.0, "seed": 1, "max_offset": 10},
    "AlibiExplorer": {"seq_len": 4, "n_heads": 2, "d_k": 2, "seed": 1},
    "AttentionInspector": {
        "models": {
            ("lookback-3", "none", 0): train(
                ModelConfig(vocab_size=16, d_model=4), tasks.lookback(3), steps=0, progress=False
            )
        },
        "tasks": tasks.TASKS,
        "lengths": (8,),
        "seed": 0,
    },
}

# Containers with no behaviour of their own: their fields are checked where they are made.
CONTAINERS = {"OrderComparison", "Scheme", "TrainResult"}
# Arguments for which any string is a valid value (a sentence, a name).
ANY_STRING = {
    ("split_words", "sentence"),
    ("toy_embeddings", "words"),
    ("match_order", "words_a"),
    ("match_order", "words_b"),
    ("compare_orders", "sentence_a"),
    ("compare_orders", "sentence_b"),
    ("Task", "name"),
    ("draw_order_comparison", "title_a"),
    ("draw_order_comparison", "title_b"),
    ("OrderExplorer", "sentence"),
    ("OrderExplorer", "other"),
    ("FrameSlider", "title"),
    ("FrameSlider", "label"),
}
# Arguments that take any object by design.
ANY_VALUE = {("Task", "description")}


def public_callables():
    found = {}
    for module in MODULES:
        for name, obj in vars(module).items():
            if name.startswith("_") or not callable(obj) or name.isupper():
                continue
            if getattr(obj, "__module__", None) != module.__name__:
                continue  # imported from elsewhere
            found[name] = obj
    return found


CALLABLES = public_callables()


def test_every_public_callable_has_a_valid_call_listed_here():
    missing = set(CALLABLES) - set(VALID) - CONTAINERS
    assert not missing, f"add a valid call of {sorted(missing)} to VALID"


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_valid_call_succeeds(name):
    CALLABLES[name](**VALID[name])


def bad_values(name, parameter):
    """Wrong values for one argument: a string where none is meant, an object, a NaN."""
    values = [object(), float("nan")]
    if (name, parameter) not in ANY_STRING:
        values.append("nonsense")
    return values


CASES = [
    (name, parameter, k)
    for name, kwargs in sorted(VALID.items())
    for parameter in kwargs
    if (name, parameter) not in ANY_VALUE
    for k in range(3)
]


@pytest.mark.parametrize(("name", "parameter", "k"), CASES)
def test_a_wrong_argument_raises_an_error_that_names_the_function_and_the_argument(
    name, parameter, k
):
    values = bad_values(name, parameter)
    if k >= len(values):
        pytest.skip("no third wrong value for an argument that takes any string")
    value = values[k]
    if parameter == "obj" and isinstance(value, float):
        pytest.skip("show_source shows any function; a float is caught by the object case")
    call = {**VALID[name], parameter: value}
    with pytest.raises((TypeError, ValueError)) as error:
        CALLABLES[name](**call)
    message = str(error.value)
    owner = inspect.unwrap(CALLABLES[name]).__name__
    assert message.startswith(f"{owner}:"), message
    assert len(message) <= MAX_MESSAGE, len(message)
    assert parameter in message, message


# -- the cases the course was bitten by, with their messages -----------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: rope.apply_rope(np.ones((2, 4)), convention="Interleaved"),
            ValueError,
            "apply_rope: convention must be one of 'interleaved', 'half', got 'Interleaved'",
        ),
        (
            lambda: rope.rope_tables([0.0], 4, convention="neox"),
            ValueError,
            "rope_tables: convention must be one of 'interleaved', 'half', got 'neox'",
        ),
        (
            lambda: rope.rope_rotate(np.ones((2, 4)), COS, SIN, convention="rotate_half"),
            ValueError,
            "rope_rotate: convention must be one of",
        ),
        (
            lambda: sinusoidal.similarity_by_distance([1, 2], 7),
            ValueError,
            r"similarity_by_distance: d_model must be even \(it is split into pairs\), got 7",
        ),
        (
            lambda: sinusoidal.distance_by_shift([1, 2], 8, pairs=[4]),
            ValueError,
            r"distance_by_shift: pairs must hold ids 0..3, got 4 at index \(0,\)",
        ),
        (
            lambda: forward(PARAMS, [[0, -1, 2]], CONFIG),
            ValueError,
            r"forward: tokens must hold ids 0..4, got -1 at index \(0, 1\)",
        ),
        (
            lambda: forward(PARAMS, [[0, 5]], CONFIG),
            ValueError,
            r"forward: tokens must hold ids 0..4, got 5 at index \(0, 1\)",
        ),
        (
            lambda: loss_fn(PARAMS, [[0, 1]], [[0, 7]], CONFIG),
            ValueError,
            r"loss_fn: targets must hold ids 0..4 or -1 \(no target\), got 7 at index \(0, 1\)",
        ),
        (
            lambda: model.attention_maps(PARAMS, CONFIG, [[9]]),
            ValueError,
            "attention_maps: tokens must hold ids 0..4, got 9",
        ),
        (
            lambda: forward(init_params(CONFIG.with_(n_layers=2)), [[0]], CONFIG.with_(mlp=True)),
            ValueError,
            "forward: params has no 'mlp_in0'",
        ),
        (
            lambda: rope.apply_rope(np.ones((2, 4)), base=0.5),
            ValueError,
            "apply_rope: base must be > 1, got 0.5",
        ),
        (
            lambda: sinusoidal.wavelengths(8, base=1.0),
            ValueError,
            "wavelengths: base must be > 1, got 1.0",
        ),
        (
            lambda: rope.yarn_frequencies(8, 2.0, 16, base=-3),
            ValueError,
            "yarn_frequencies: base must be > 1, got -3.0",
        ),
        (
            lambda: word_order.compare_orders("a b", "b a", np.eye(3), np.eye(2), np.eye(3)),
            ValueError,
            r"compare_orders: w_k must have shape \(d_model, width\) = \(3, \.\.\.\)",
        ),
        (
            lambda: model.train(CONFIG.with_(scheme="learned", max_len=8), TASK, length=16),
            ValueError,
            "train: length=16: asked for 16 positions but the table has only max_len=8 rows",
        ),
        (
            lambda: model.attention_at_offset(PARAMS, CONFIG, [[0, 1]], 1, layer=3),
            ValueError,
            "attention_at_offset: layer must be < n_layers = 1, got 3",
        ),
    ],
)
def test_the_known_traps_raise_a_clear_value_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: word_order.toy_embeddings([1, 2]),
            r"toy_embeddings: words must be a str or a list of str, got \[1, 2\]",
        ),
        (
            lambda: rope.apply_rope(np.ones((2, 4)), base="10000"),
            "apply_rope: base must be a real number, got '10000'",
        ),
        (lambda: forward(PARAMS, [[0.5, 1]], CONFIG), r"forward: tokens must hold integer ids"),
        (lambda: model.train(CONFIG, "lookback"), "train: task must be a Task"),
        (lambda: learned.LearnedPositions(4, 2, rng="seed"), "LearnedPositions: rng must be"),
    ],
)
def test_wrong_types_raise_a_type_error_naming_the_argument(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_a_long_id_list_is_not_printed_whole():
    ids = list(range(10_000)) + [-1]
    with pytest.raises(ValueError) as error:
        pipeline.embed_token_ids(ids, 4)
    assert (
        str(error.value) == "embed_token_ids: ids must hold ids 0 or more, got -1 at index (10000,)"
    )
    with pytest.raises(ValueError) as error:
        attention.permutation_matrix(list(range(500)) + [0])
    assert len(str(error.value)) < 160 and str(error.value).endswith("...")
