"""Bad input never gives a silent wrong answer or a numpy traceback from deep inside.

Every public function of the library's math, model and helper modules is called once with valid
arguments and then with each argument replaced by a wrong value: it must raise a TypeError or
ValueError whose message starts with the name of the function the learner called, names the
argument, and stays short (a value is shown cut to a bounded length, never a whole array). Then the
cases the course has been bitten by, with their exact messages.
"""

import inspect
import re

import numpy as np
import pytest

from posenc_lib import (
    alibi,
    attention,
    corpus,
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
from posenc_lib._checks import short
from posenc_lib.model import ModelConfig, forward, init_params, loss_fn

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
MAX_MESSAGE = 300  # characters: an error explains, it does not dump data

CONFIG = ModelConfig(vocab_size=5, d_model=4)
PARAMS = init_params(CONFIG)
TASK = tasks.lookback(1, vocab_size=5)
COS, SIN = rope.rope_tables([0.0, 1.0], 4)
CONFIG_2L = ModelConfig(vocab_size=5, scheme="rope", d_model=4, n_layers=2)
PARAMS_2L = init_params(CONFIG_2L)
PLAN_2L = (model.Layer(window=2), model.Layer(rope=False))
EYE = np.eye(3)

# One valid call of every public callable (keyword arguments, so each can be replaced).
VALID = {
    "softmax": {"x": [1.0, 2.0], "axis": -1},
    "log_softmax": {"x": [1.0, 2.0], "axis": -1},
    "causal_mask": {"seq_len": 3},
    "self_attention": {
        "x": EYE,
        "w_q": EYE,
        "w_k": EYE,
        "w_v": EYE,
        "mask": np.eye(3, dtype=bool),
        "bias": np.zeros((3, 3)),
        "rotate": lambda z: z,
    },
    "permutation_matrix": {"order": [1, 0]},
    "transformer_block": {
        "x": EYE,
        "w_q": EYE,
        "w_k": EYE,
        "w_v": np.ones((3, 2)),
        "w_o": np.ones((2, 3)),
        "w_in": np.ones((3, 5)),
        "w_out": np.ones((5, 3)),
        "causal": True,
    },
    "alibi_slopes": {"n_heads": 8},
    "alibi_bias": {"seq_len": 3, "n_heads": 2, "slopes": [0.5, 0.25]},
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
    "apply_partial_rope": {
        "x": np.ones((2, 6)),
        "rotary_dim": 4,
        "positions": [0.0, 1.0],
        "base": 100.0,
        "convention": "half",
    },
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
        "ramp": "turns",
    },
    "yarn_correction_dim": {"turns": 2.0, "d": 8, "original_len": 16, "base": 100.0},
    "llama3_frequencies": {
        "d": 8,
        "factor": 4.0,
        "original_len": 16,
        "base": 100.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    },
    "dynamic_ntk_base": {"base": 1e4, "factor": 2.0, "original_len": 16, "seq_len": 40, "d": 8},
    "dynamic_ntk_frequencies": {
        "d": 8,
        "factor": 2.0,
        "original_len": 16,
        "seq_len": 40,
        "base": 100.0,
    },
    "dynamic_ntk_lengths": {"seq_lens": [40, 8, 20], "original_len": 16},
    "yarn_correction_range": {
        "d": 8,
        "original_len": 16,
        "base": 100.0,
        "alpha": 1.0,
        "beta": 8.0,
    },
    "yarn_ramp": {
        "d": 8,
        "original_len": 16,
        "base": 100.0,
        "alpha": 1.0,
        "beta": 8.0,
        "ramp": "index",
    },
    "yarn_index_ramp": {
        "d": 8,
        "original_len": 16,
        "base": 100.0,
        "alpha": 1.0,
        "beta": 8.0,
        "truncate": True,
        "clamp": True,
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
    "Task": {
        "name": "t",
        "vocab_size": 4,
        "metric": "loss",
        "sampler": TASK.sampler,
        "description": "d",
        "answers": None,
        "position_free": TASK.position_free,
        "position_free_rule": "r",
        "best_possible": 1.0,
    },
    "chance_level": {"task": TASK},
    "position_free_scores": {"task": TASK, "length": 6, "n_tokens": 18, "seed": 1},
    "evaluation_sequences": {"task": TASK, "length": 6, "n_tokens": 18, "seed": 1},
    "chance_scores": {"task": tasks.lookback(2, 8), "length": 6, "n_tokens": 18, "seed": 1},
    "chance_levels": {"task": tasks.lookback(2, 8), "lengths": [4, 8], "train_len": 4},
    "markov_entropy_given_current": {"vocab_size": 4, "concentration": 0.5, "seed": 1},
    "position_free_levels": {"task": TASK, "lengths": [4, 8], "train_len": 4},
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
    "ModelConfig": {
        "vocab_size": 4,
        "scheme": "rope",
        "d_model": 4,
        "n_heads": 2,
        "n_layers": 2,
        "mlp": True,
        "max_len": 8,
        "base": 100.0,
        "rope_positions_scale": 2.0,
        "yarn_scale": 2.0,
        "yarn_alpha": 0.5,
        "yarn_beta": 4.0,
        "yarn_ramp": "turns",
        "learned_init_std": 0.5,
        "t5_buckets": 8,
        "t5_max_distance": 16,
        "bos": True,
        "alibi_slopes": None,  # ALiBi's only: a RoPE model refuses any
    },
    # methods, called through their instance
    "LearnedPositions.__call__": {"seq_len": 3},
    "T5RelativeBias.__call__": {"seq_len": 3},
    "Task.sample": {"rng": 0, "batch": 2, "length": 3},
    "parameter_shapes": {"config": CONFIG},
    "init_params": {"config": CONFIG, "seed": 1},
    "seed_streams": {"seed": 1},
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
    "train_each": {
        "runs": {"a": {"config": CONFIG, "task": TASK, "steps": 1, "batch_size": 2, "length": 4}},
        "workers": 1,
        "progress": False,
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
    "Layer": {"rope": True, "base": 100.0, "window": 2, "chunk": None},
    "visible_keys": {"t": 3, "window": 2, "chunk": 2},
    "hybrid_forward": {
        "params": PARAMS_2L,
        "tokens": [[0, 4]],
        "config": CONFIG_2L,
        "plan": PLAN_2L,
    },
    "hybrid_loss": {
        "params": PARAMS_2L,
        "tokens": [[0, 4]],
        "targets": [[-1, 2]],
        "config": CONFIG_2L,
        "plan": PLAN_2L,
    },
    "train_hybrid": {
        "config": CONFIG_2L,
        "plan": PLAN_2L,
        "task": TASK,
        "steps": 1,
        "batch_size": 2,
        "length": 4,
        "lr": 0.01,
        "seed": 1,
        "progress": False,
    },
    "evaluate_hybrid_positions": {
        "params": PARAMS_2L,
        "config": CONFIG_2L,
        "plan": PLAN_2L,
        "task": TASK,
        "length": 4,
        "n_tokens": 8,
        "seed": 1,
        "batch_size": 2,
    },
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
    "progress_in_place": {},
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
    ("Task", "position_free_rule"),
}
# Arguments that take any object by design.
ANY_VALUE = {("Task", "description")}


def public_callables(modules=MODULES):
    found = {}
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or not callable(obj) or name.isupper():
                continue
            if "__mutmut" in name:  # mutmut's copies of a function, under mutation testing
                continue
            if getattr(obj, "__module__", None) != module.__name__:
                continue  # imported from elsewhere
            found[name] = obj
    return found


CALLABLES = public_callables()
CALLABLES.update(
    {
        "LearnedPositions.__call__": learned.LearnedPositions(4, 2),
        "T5RelativeBias.__call__": t5.T5RelativeBias(2, n_buckets=8, max_distance=16),
        "Task.sample": TASK.sample,
    }
)
# The name an error starts with, where it is not the callable's own.
OWNER = {
    "LearnedPositions.__call__": "LearnedPositions",
    "T5RelativeBias.__call__": "t5_bias",
    "Task.sample": "lookback-1.sample",
}


def test_every_public_callable_has_a_valid_call_listed_here():
    missing = set(CALLABLES) - set(VALID) - CONTAINERS
    for name in ("LearnedPositions", "T5RelativeBias", "Task", "ModelConfig"):
        parameters = set(inspect.signature(CALLABLES[name]).parameters) - {"self"}
        assert parameters == set(VALID[name]), f"{name}: list every argument in VALID"
    assert not missing, f"add a valid call of {sorted(missing)} to VALID"


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_valid_call_succeeds(name):
    CALLABLES[name](**VALID[name])


def bad_values(name, parameter, any_string=ANY_STRING):
    """Wrong values for one argument: a string where none is meant, an object, a NaN."""
    values = [object(), float("nan")]
    if (name, parameter) not in any_string:
        values.append("nonsense")
    return values


def cases(valid, any_value=(), any_string=ANY_STRING):
    """Every (callable, argument, k) whose k-th wrong value exists and must be refused: an argument
    that takes any string has no third, and show_source shows any object but an object()."""
    return [
        (name, parameter, k)
        for name, kwargs in sorted(valid.items())
        for parameter in kwargs
        if (name, parameter) not in any_value
        for k, value in enumerate(bad_values(name, parameter, any_string))
        if not (parameter == "obj" and isinstance(value, float))
    ]


def check_wrong_argument(callables, valid, name, parameter, k, any_string=ANY_STRING):
    """Call ``name`` with argument ``parameter`` replaced by its k-th wrong value, and check the
    error: a TypeError or ValueError starting with the function's name, naming the argument and the
    value received, within MAX_MESSAGE characters."""
    value = bad_values(name, parameter, any_string)[k]
    call = {**valid[name], parameter: value}
    with pytest.raises((TypeError, ValueError)) as error:
        callables[name](**call)
    message = str(error.value)
    owner = OWNER.get(name) or inspect.unwrap(callables[name]).__name__
    assert message.startswith(f"{owner}:"), message
    assert len(message) <= MAX_MESSAGE, len(message)
    assert re.search(rf"(?<![\w.]){re.escape(parameter)}(?!\w)", message), message  # the argument
    assert shown(value, message), message  # ... and the value received


def shown(value, message):
    """Whether ``message`` shows ``value`` (cut short), or at least its type."""
    return any(text in message for text in (short(value), str(value), type(value).__name__))


@pytest.mark.parametrize(("name", "parameter", "k"), cases(VALID, ANY_VALUE))
def test_a_wrong_argument_raises_an_error_that_names_the_function_and_the_argument(
    name, parameter, k
):
    check_wrong_argument(CALLABLES, VALID, name, parameter, k)


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


# -- limits: the smallest value allowed passes, the next one down is refused ------------------------

# (callable, argument, a value at the limit, a value past it, changes to VALID's other arguments)
BOUNDS = [
    ("causal_mask", "seq_len", 0, -1, {}),
    ("softmax", "axis", 0, 1, {}),
    ("softmax", "axis", -1, -2, {}),
    ("log_softmax", "axis", 0, 1, {}),
    ("log_softmax", "axis", -1, -2, {}),
    ("alibi_slopes", "n_heads", 1, 0, {}),
    ("alibi_bias", "seq_len", 0, -1, {}),
    ("alibi_bias", "n_heads", 1, 0, {"slopes": None}),
    ("frequencies", "d_model", 1, 0, {}),
    ("frequencies", "base", 1.0001, 1.0, {}),
    ("sinusoidal_positions", "seq_len", 0, -1, {}),
    ("sinusoidal_positions", "d_model", 1, 0, {}),
    ("sinusoidal_positions", "base", 1.0001, 1.0, {}),
    ("shift_matrix", "d_model", 2, 0, {}),
    ("shift_matrix", "base", 1.0001, 1.0, {}),
    ("wavelengths", "d_model", 1, 0, {}),
    ("wavelengths", "base", 1.0001, 1.0, {}),
    ("sinusoidal_positions_loop", "seq_len", 0, -1, {}),
    ("sinusoidal_positions_loop", "d_model", 1, 0, {}),
    ("sinusoidal_positions_loop", "base", 1.0001, 1.0, {}),
    ("similarity_by_distance", "d_model", 2, 0, {"pairs": None}),
    ("similarity_by_distance", "base", 1.0001, 1.0, {}),
    ("distance_by_shift", "d_model", 2, 0, {"pairs": None}),
    ("distance_by_shift", "pairs", [1], [2], {}),
    ("table_too_short", "max_len", 0, -1, {}),
    ("table_too_short", "seq_len", 0, -1, {}),
    ("LearnedPositions", "max_len", 1, 0, {}),
    ("LearnedPositions", "d_model", 1, 0, {}),
    ("LearnedPositions", "init_std", 1e-9, 0.0, {}),
    ("LearnedPositions", "rng", 0, -1, {}),
    ("LearnedPositions.__call__", "seq_len", 0, -1, {}),
    ("principal_axis", "table", [[1.0], [2.0]], [[1.0]], {}),
    ("rope_frequencies", "d", 2, 0, {}),
    ("rope_frequencies", "base", 1.0001, 1.0, {}),
    ("rope_tables", "d", 2, 0, {"positions": [0.0]}),
    ("rope_tables", "base", 1.0001, 1.0, {}),
    ("partner_matrix", "d", 2, 0, {}),
    ("convention_permutation", "d", 2, 0, {}),
    ("interpolate_positions", "scale", 1e-9, 0.0, {}),
    ("ntk_base", "base", 1.0001, 1.0, {}),
    ("ntk_base", "scale", 1e-9, 0.0, {}),
    ("ntk_base", "d", 4, 2, {}),
    ("rope_wavelengths", "d", 2, 0, {}),
    ("rope_wavelengths", "base", 1.0001, 1.0, {}),
    ("rope_angles", "d", 2, 0, {}),
    ("rope_angles", "base", 1.0001, 1.0, {}),
    ("pairs_completing_a_turn", "d", 2, 0, {}),
    ("pairs_completing_a_turn", "length", 1, 0, {}),
    ("pairs_completing_a_turn", "base", 1.0001, 1.0, {}),
    ("yarn_frequencies", "d", 2, 0, {}),
    ("yarn_frequencies", "scale", 1e-9, 0.0, {}),
    ("yarn_frequencies", "original_len", 1, 0, {}),
    ("yarn_frequencies", "alpha", 0.0, -1e-9, {}),
    ("yarn_frequencies", "beta", 1.0001, 1.0, {"alpha": 1.0}),
    ("yarn_frequencies", "base", 1.0001, 1.0, {}),
    ("yarn_correction_dim", "turns", 1e-9, 0.0, {}),
    ("yarn_correction_dim", "d", 2, 0, {}),
    ("yarn_correction_dim", "original_len", 1, 0, {}),
    ("yarn_correction_range", "alpha", 0.0, -1e-9, {}),
    ("yarn_correction_range", "beta", 1.0001, 1.0, {"alpha": 1.0}),
    ("yarn_ramp", "alpha", 0.0, -1e-9, {}),
    ("yarn_ramp", "original_len", 1, 0, {}),
    ("yarn_index_ramp", "alpha", 1e-9, 0.0, {}),
    ("yarn_attention_factor", "scale", 1e-9, 0.0, {}),
    ("rope_decay_bound", "d", 2, 0, {}),
    ("rope_decay_bound", "base", 1.0001, 1.0, {}),
    ("t5_bucket", "n_buckets", 2, 1, {"max_distance": 2}),
    ("t5_bucket", "max_distance", 5, 4, {}),
    ("t5_buckets", "seq_len", 0, -1, {}),
    ("t5_buckets", "n_buckets", 4, 3, {"max_distance": 2}),
    ("t5_buckets", "max_distance", 3, 2, {}),
    ("t5_bias", "seq_len", 0, -1, {}),
    ("t5_bias", "max_distance", 3, 2, {}),
    ("t5_bias_traced", "buckets", np.full((3, 3), 3), np.full((3, 3), 4), {}),
    ("T5RelativeBias", "n_heads", 1, 0, {}),
    ("T5RelativeBias", "n_buckets", 2, 1, {"max_distance": 2}),
    ("T5RelativeBias", "max_distance", 5, 4, {}),
    ("T5RelativeBias", "init_std", 0.0, -1e-9, {}),
    ("T5RelativeBias", "rng", 0, -1, {}),
    ("T5RelativeBias.__call__", "seq_len", 0, -1, {}),
    ("Task", "vocab_size", 2, 1, {}),
    ("Task.sample", "batch", 1, 0, {}),
    ("Task.sample", "length", 1, 0, {}),
    ("Task.sample", "rng", 0, -1, {}),
    ("lookback", "k", 1, 0, {}),
    ("lookback", "vocab_size", 2, 1, {}),
    ("chance_levels", "train_len", 1, 0, {}),
    ("chance_levels", "lengths", [1], [0], {}),
    ("position_free_levels", "train_len", 1, 0, {}),
    ("position_free_levels", "lengths", [1, 4], [4, 0], {}),
    ("recent_marker", "n_markers", 1, 0, {}),
    ("recent_marker", "vocab_size", 3, 2, {}),
    ("recent_marker", "density", 1.0, 1.0001, {}),
    ("recent_marker", "density", 1e-9, 0.0, {}),
    ("markov_transitions", "vocab_size", 2, 1, {}),
    ("markov_transitions", "concentration", 1e-9, 0.0, {}),
    ("markov_transitions", "seed", 0, -1, {}),
    ("markov", "vocab_size", 2, 1, {}),
    ("markov", "concentration", 1e-9, 0.0, {}),
    ("markov", "seed", 0, -1, {}),
    ("markov_entropy", "vocab_size", 2, 1, {}),
    ("markov_entropy", "seed", 0, -1, {}),
    ("toy_embeddings", "d_model", 1, 0, {}),
    ("toy_embeddings", "seed", 0, -1, {}),
    ("compare_orders", "seed", 0, -1, {}),
    ("embed_token_ids", "d_model", 1, 0, {}),
    ("embed_token_ids", "seed", 0, -1, {}),
    ("ModelConfig", "vocab_size", 2, 1, {}),
    ("ModelConfig", "d_model", 2, 1, {"scheme": "none", "n_heads": 1}),
    ("ModelConfig", "n_heads", 1, 0, {}),
    ("ModelConfig", "n_layers", 1, 0, {}),
    ("ModelConfig", "max_len", 1, 0, {}),
    ("ModelConfig", "base", 1.0001, 1.0, {}),
    ("ModelConfig", "rope_positions_scale", 1e-9, 0.0, {}),
    ("ModelConfig", "yarn_scale", 1e-9, 0.0, {}),
    ("ModelConfig", "yarn_alpha", 0.0, -1e-9, {}),
    ("ModelConfig", "yarn_beta", 0.5001, 0.5, {}),
    ("ModelConfig", "learned_init_std", 1e-9, 0.0, {}),
    ("ModelConfig", "t5_buckets", 2, 1, {"t5_max_distance": 2}),
    ("ModelConfig", "t5_max_distance", 5, 4, {}),
    ("init_params", "seed", 0, -1, {}),
    ("seed_streams", "seed", 0, -1, {}),
    ("length_problem", "length", 1, 0, {}),
    ("train", "steps", 0, -1, {}),
    ("train", "batch_size", 1, 0, {}),
    ("train", "length", 1, 0, {}),
    ("train", "lr", 1e-9, 0.0, {}),
    ("train", "seed", 0, -1, {}),
    ("train", "snapshot_every", 1, 0, {}),
    ("train_each", "workers", 1, 0, {}),
    ("evaluate_positions", "length", 1, 0, {}),
    ("evaluate_positions", "n_tokens", 1, 0, {}),
    ("evaluate_positions", "seed", 0, -1, {}),
    ("evaluate_positions", "batch_size", 1, 0, {}),
    ("evaluate", "length", 1, 0, {}),
    ("evaluate", "n_tokens", 1, 0, {}),
    ("evaluate", "seed", 0, -1, {}),
    ("evaluate", "batch_size", 1, 0, {}),
    ("region_value", "start", 0, -1, {}),
    ("region_value", "counts", [0, 0], [0, -1], {}),
    ("attention_peak_offsets", "layer", 0, -1, {}),
    ("attention_at_offset", "offset", 0, -1, {}),
    ("attention_at_offset", "layer", 0, -1, {}),
    ("format_difference", "value", 0.0, -1e-9, {}),
    ("format_difference", "bound", 1e-15, 0.0, {}),
]


@pytest.mark.parametrize(
    ("name", "parameter", "ok", "bad", "changes"),
    BOUNDS,
    ids=[f"{b[0]}-{b[1]}-{b[3]}" for b in BOUNDS],
)
def test_the_limit_of_each_argument_is_where_the_docstring_puts_it(
    name, parameter, ok, bad, changes
):
    call = {**VALID[name], **changes}
    CALLABLES[name](**{**call, parameter: ok})
    with pytest.raises(ValueError) as error:
        CALLABLES[name](**{**call, parameter: bad})
    message = str(error.value)
    owner = OWNER.get(name) or inspect.unwrap(CALLABLES[name]).__name__
    assert message.startswith(f"{owner}:"), message
    assert re.search(rf"(?<![\w.]){re.escape(parameter)}(?!\w)", message), message


# -- defaults: leaving an argument out is the same as passing the documented default -------------

TWO_LAYERS = ModelConfig(vocab_size=5, d_model=4, n_heads=2, n_layers=2)
TWO_LAYER_PARAMS = init_params(TWO_LAYERS, seed=3)
X2 = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]])
MARKOV = tasks.markov(vocab_size=5)  # its sequences depend on how they are batched

# (callable, required arguments, the documented defaults of the others)
DEFAULTS = [
    ("softmax", {"x": X2}, {"axis": -1}),
    ("log_softmax", {"x": X2}, {"axis": -1}),
    ("frequencies", {"d_model": 8}, {"base": 10000.0}),
    ("sinusoidal_positions", {"seq_len": 5, "d_model": 8}, {"base": 10000.0, "dtype": np.float64}),
    ("shift_matrix", {"k": 3, "d_model": 8}, {"base": 10000.0}),
    ("wavelengths", {"d_model": 8}, {"base": 10000.0}),
    ("sinusoidal_positions_loop", {"seq_len": 5, "d_model": 8}, {"base": 10000.0}),
    (
        "similarity_by_distance",
        {"distances": [1, 50], "d_model": 8},
        {"base": 10000.0, "pairs": None},
    ),
    ("distance_by_shift", {"distances": [1, 50], "d_model": 8}, {"base": 10000.0, "pairs": None}),
    ("LearnedPositions", {"max_len": 4, "d_model": 3}, {"rng": 0, "init_std": 0.02}),
    ("rope_frequencies", {"d": 8}, {"base": 10000.0}),
    (
        "rope_tables",
        {"positions": [0.0, 3.0], "d": 8},
        {"base": 10000.0, "convention": "interleaved", "frequencies": None},
    ),
    ("partner_matrix", {"d": 4}, {"convention": "interleaved"}),
    (
        "apply_rope",
        {"x": np.arange(8.0).reshape(2, 4)},
        {"positions": [0, 1], "base": 10000.0, "convention": "interleaved", "frequencies": None},
    ),
    ("rope_wavelengths", {"d": 8}, {"base": 10000.0}),
    ("rope_angles", {"offsets": [3, 47], "d": 8}, {"base": 10000.0}),
    ("pairs_completing_a_turn", {"d": 32, "length": 64}, {"base": 10000.0}),
    (
        "yarn_frequencies",
        {"d": 64, "scale": 4.0, "original_len": 512},
        {"base": 10000.0, "alpha": 1.0, "beta": 32.0, "ramp": "index"},
    ),
    (
        "yarn_ramp",
        {"d": 64, "original_len": 512},
        {"base": 10000.0, "alpha": 1.0, "beta": 32.0, "ramp": "index"},
    ),
    (
        "yarn_correction_range",
        {"d": 64, "original_len": 512},
        {"base": 10000.0, "alpha": 1.0, "beta": 32.0},
    ),
    ("yarn_correction_dim", {"turns": 2.0, "d": 64, "original_len": 512}, {"base": 10000.0}),
    (
        "yarn_index_ramp",
        {"d": 64, "original_len": 512},
        {"base": 10000.0, "alpha": 1.0, "beta": 32.0, "truncate": True, "clamp": True},
    ),
    ("rope_decay_bound", {"distances": [0, 5], "d": 16}, {"base": 10000.0}),
    (
        "t5_bucket",
        {"relative_position": [-200, -40, -3, 0, 3, 40, 200]},
        {"bidirectional": True, "n_buckets": 32, "max_distance": 128},
    ),
    ("t5_buckets", {"seq_len": 140}, {"bidirectional": True, "n_buckets": 32, "max_distance": 128}),
    (
        "t5_bias",
        {"table": np.arange(64.0).reshape(2, 32), "seq_len": 140},
        {"bidirectional": True, "max_distance": 128},
    ),
    (
        "T5RelativeBias",
        {"n_heads": 2},
        {"n_buckets": 32, "max_distance": 128, "bidirectional": True, "rng": 0, "init_std": 0.1},
    ),
    ("lookback", {}, {"k": 3, "vocab_size": 16}),
    ("recent_marker", {}, {"n_markers": 4, "vocab_size": 16, "density": 0.15}),
    ("chance_scores", {"task": MARKOV, "length": 4}, {"n_tokens": 4096, "seed": 1234}),
    ("position_free_scores", {"task": MARKOV, "length": 4}, {"n_tokens": 4096, "seed": 1234}),
    ("markov_transitions", {}, {"vocab_size": 16, "concentration": 0.1, "seed": 0}),
    ("markov", {}, {"vocab_size": 16, "concentration": 0.1, "seed": 0}),
    ("markov_entropy", {}, {"vocab_size": 16, "concentration": 0.1, "seed": 0}),
    ("toy_embeddings", {"words": "the dog"}, {"d_model": 8, "seed": 0}),
    ("embed_token_ids", {"ids": [3, 9], "d_model": 4}, {"seed": 0}),
    ("init_params", {"config": TWO_LAYERS}, {"seed": 0}),
    ("region_value", {"totals": [1.0, 2.0, 3.0], "counts": [1, 2, 4]}, {"start": 0}),
    (
        "attention_peak_offsets",
        {"params": TWO_LAYER_PARAMS, "config": TWO_LAYERS, "tokens": [[0, 1, 2, 3]]},
        {"layer": 0},
    ),
    (
        "attention_at_offset",
        {"params": TWO_LAYER_PARAMS, "config": TWO_LAYERS, "tokens": [[0, 1, 2, 3]], "offset": 1},
        {"layer": 0},
    ),
    (
        "evaluate_positions",
        {"params": PARAMS, "config": CONFIG, "task": MARKOV, "length": 2},
        {"n_tokens": 4096, "seed": 1234, "batch_size": 64},
    ),
    (
        "evaluate",
        {"params": PARAMS, "config": CONFIG, "task": MARKOV, "length": 2},
        {"n_tokens": 4096, "seed": 1234, "batch_size": 64},
    ),
    (
        "t5_buckets",
        {"seq_len": 140, "bidirectional": False},
        {"n_buckets": 32, "max_distance": 128},
    ),
]


def same(a, b):
    """Whether two results are the same (arrays equal, tasks drawing the same sequences, ...)."""
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tasks.Task):
        fields = ("name", "vocab_size", "metric", "description")
        return all(getattr(a, f) == getattr(b, f) for f in fields) and same(
            a.sample(5, 3, 40), b.sample(5, 3, 40)
        )
    if isinstance(a, learned.LearnedPositions | t5.T5RelativeBias):
        return repr(a) == repr(b) and same(a.table, b.table)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b, equal_nan=True)
    return a == b


@pytest.mark.parametrize(("name", "required", "defaults"), DEFAULTS, ids=[d[0] for d in DEFAULTS])
def test_leaving_an_argument_out_is_passing_its_documented_default(name, required, defaults):
    function = CALLABLES[name]
    assert same(function(**required), function(**required, **defaults))


def test_every_defaulted_argument_is_listed_with_its_default():
    for name, required, defaults in DEFAULTS:
        parameters = inspect.signature(CALLABLES[name]).parameters
        with_default = {k for k, p in parameters.items() if p.default is not p.empty}
        assert with_default == set(defaults) | (set(required) & with_default), name


# -- messages the mutation run found unchecked ---------------------------------------------------

LOGITS3 = np.zeros((2, 3, 4))  # batch 2, 3 positions, 4 tokens: every axis of a different length


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: attention.softmax(["a", "b"]),
            TypeError,
            r"^softmax: x must be a numeric array, got \['a', 'b'\]$",
        ),
        (
            lambda: model.accuracy(LOGITS3, np.zeros((2, 4), int)),
            ValueError,
            r"^accuracy: targets must be integers of shape logits.shape\[:-1\] = \(2, 3\), got",
        ),
        (
            lambda: model.accuracy(LOGITS3, np.full((2, 3), 4)),
            ValueError,
            r"^accuracy: targets must hold ids 0..3 or -1 \(no target\), got 4 at index \(0, 0\)$",
        ),
        (
            lambda: model.accuracy(1.0, 0),
            ValueError,
            r"^accuracy: logits must have at least 1 axes, got 1.0 \(shape \(\)\)$",
        ),
        (
            lambda: model.region_value([[1.0, 2.0]], [[1, 1]]),
            ValueError,
            r"^region_value: totals must have 1 axes, got \[\[1.0, 2.0\]\] \(shape \(1, 2\)\)$",
        ),
        (
            lambda: model.region_value([1.0, 2.0], [[1, 1]]),
            ValueError,
            r"^region_value: counts must have 1 axes, got \[\[1, 1\]\] \(shape \(1, 2\)\)$",
        ),
        (
            lambda: learned.principal_axis(np.zeros((3, 2, 2))),
            ValueError,
            r"^principal_axis: table must have 2 axes, got an array of shape \(3, 2, 2\)$",
        ),
        (
            lambda: ModelConfig(vocab_size=4, scheme="rope", d_model=6, n_heads=2),
            ValueError,
            r"^ModelConfig: RoPE needs an even head width, got d_model / n_heads = 3$",
        ),
        (
            lambda: rope.rope_rotate(np.ones((2, 4)), COS, SIN[:, :2]),
            ValueError,
            r"^rope_rotate: cos and sin must both have the shape \(T, d\) of x's last two axes, "
            r"got x \(2, 4\), cos \(2, 4\), sin \(2, 2\)$",
        ),
        (
            lambda: t5.t5_bucket([0], bidirectional=False, n_buckets=2, max_distance=0),
            ValueError,
            r"^t5_bucket: max_distance must be an integer >= 1, got 0$",
        ),
        (
            lambda: t5.t5_bucket([0], bidirectional=False, n_buckets=2, max_distance=1),
            ValueError,
            r"^t5_bucket: max_distance must exceed the 1 exact buckets \(half of the 2 buckets "
            r"per direction\), got max_distance=1$",
        ),
        (
            lambda: model.evaluate(PARAMS, CONFIG, tasks.lookback(1, vocab_size=7), 4),
            ValueError,
            r"^evaluate: task lookback-1 has vocab_size 7 but the model has 5$",
        ),
        (
            lambda: model.evaluate_positions(PARAMS, CONFIG, LYING_TASK, 4),
            ValueError,
            r"^evaluate_positions: tokens must hold ids 0..4, got 9 at index \(0, 0\)$",
        ),
        (
            lambda: tasks.chance_levels(TASK, [4, 0], 4),
            ValueError,
            r"^chance_levels: lengths must be an integer >= 1, got 0$",
        ),
        (
            lambda: tasks.position_free_levels(TASK, [0], 4),
            ValueError,
            r"^position_free_levels: lengths must be an integer >= 1, got 0$",
        ),
        (
            lambda: tasks.chance_levels(TASK, [4, 8], 0),
            ValueError,
            r"^chance_levels: train_len must be an integer >= 1, got 0$",
        ),
        (
            lambda: tasks.position_free_levels(TASK, [4, 8], -3),
            ValueError,
            r"^position_free_levels: train_len must be an integer >= 1, got -3$",
        ),
        (
            lambda: tasks.chance_levels(TASK, [[4, 8]], 4),
            ValueError,
            r"^chance_levels: lengths must have 1 axes, got \[\[4, 8\]\] \(shape \(1, 2\)\)$",
        ),
        (
            lambda: tasks.position_free_levels(TASK, 8, 4),
            ValueError,
            r"^position_free_levels: lengths must have 1 axes, got 8 \(shape \(\)\)$",
        ),
        (
            lambda: tasks.chance_levels(TASK, [4, np.nan], 4),
            ValueError,
            r"^chance_levels: lengths must be finite, got nan at index \(1,\)$",
        ),
        (
            lambda: tasks.chance_levels(TASK, [4, 4.5], 4),  # lengths are whole numbers
            TypeError,
            r"^chance_levels: lengths must be an integer, got 4.5$",
        ),
        (
            lambda: tasks.position_free_levels(TASK, ["8"], 4),
            TypeError,
            r"^position_free_levels: lengths must be an integer, got '8'$",
        ),
        (
            lambda: tasks.chance_levels(TASK, [True], 4),
            TypeError,
            r"^chance_levels: lengths must be an integer, got True$",
        ),
    ],
)
def test_each_refusal_says_exactly_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_levels_take_lengths_as_numpy_integers_and_key_them_by_python_ints():
    levels = tasks.chance_levels(TASK, np.array([4, 8]), 4)
    assert levels == tasks.chance_levels(TASK, [4, 8], 4)
    assert [type(length) for length in levels] == [int, int]


# A task that says it has 5 tokens and draws token 9.
LYING_TASK = tasks.Task(
    "lying", 5, "accuracy", lambda rng, b, n: (np.full((b, n), 9), np.zeros((b, n), int))
)


def test_rope_rotate_wants_arrays_with_a_dtype():
    from types import SimpleNamespace

    with pytest.raises(TypeError, match=r"^rope_rotate: cos must be an array, got namespace"):
        rope.rope_rotate(np.ones((2, 4)), SimpleNamespace(shape=(2, 4)), SIN)


# -- issue 25: inputs that once slipped through ---------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "shown"),
    [
        ([1e30], r"1e\+30 at index \(0,\)"),
        ([[0, -1e300]], r"-1e\+300 at index \(0, 1\)"),
        (np.array([3, -(2**63)]), r"-9\.22337e\+18 at index \(1,\)"),
        ([2**53 + 2], r"9\.0072e\+15 at index \(0,\)"),
    ],
)
def test_t5_bucket_refuses_relative_positions_beyond_two_to_the_53(relative, shown):
    # Once cast to int64 these wrapped to bucket -9223372036854775808 with only a warning.
    with pytest.raises(
        ValueError,
        match=r"^t5_bucket: relative_position must lie in -2\*\*53 \.\. 2\*\*53 \(whole numbers "
        rf"float64 holds exactly\), got {shown}$",
    ):
        t5.t5_bucket(relative)


def test_t5_bucket_accepts_the_farthest_allowed_positions_and_puts_them_in_the_last_buckets():
    far = t5.MAX_RELATIVE_POSITION
    assert far == 2**53
    assert t5.t5_bucket([-far, far]).tolist() == [15, 31]
    assert t5.t5_bucket([-far], bidirectional=False).tolist() == [31]


@pytest.mark.parametrize(("value", "shown"), [(np.inf, "inf"), (np.nan, "nan"), (-np.inf, "-inf")])
def test_t5_bucket_refuses_non_finite_relative_positions(value, shown):
    with pytest.raises(
        ValueError, match=rf"^t5_bucket: relative_position must be finite, got {shown} at index"
    ):
        t5.t5_bucket([0, value])


BITS_ALLOWED = (
    r"bits_per_char: nats must be a real number >= 0 or a list or array of them \(a loss in nats "
    r"per character\), got "
)


@pytest.mark.parametrize(
    ("nats", "shown"),
    [
        (-1.0, r"-1\.0$"),
        (float("nan"), "nan$"),
        (float("inf"), "inf$"),
        ([0.5, -0.25], r"-0\.25 at index \(1,\)$"),
        (np.array([[1.0, np.nan]]), r"nan at index \(0, 1\)$"),
    ],
)
def test_bits_per_char_refuses_a_negative_or_non_finite_loss(nats, shown):
    # -1.0 once gave -1.44 bits and nan gave nan, silently.
    with pytest.raises(ValueError, match="^" + BITS_ALLOWED + shown):
        corpus.bits_per_char(nats)


@pytest.mark.parametrize(
    ("nats", "shown"),
    [
        ("1.0", "'1.0'$"),
        (b"1.0", "b'1.0'$"),
        (True, "True$"),
        (None, "None$"),
        ([1.0, "a"], r"\[1\.0, 'a'\]$"),
        ([[1.0], [1.0, 2.0]], r"\[\[1\.0\], \[1\.0, 2\.0\]\]$"),
    ],
)
def test_bits_per_char_refuses_what_is_not_a_number_naming_what_it_accepts(nats, shown):
    with pytest.raises(TypeError, match="^" + BITS_ALLOWED + shown):
        corpus.bits_per_char(nats)


def test_bits_per_char_takes_a_number_a_list_and_an_array_alike():
    ln2 = np.log(2)
    assert corpus.bits_per_char(ln2) == 1.0
    assert type(corpus.bits_per_char(ln2)) is float  # not numpy's float64 scalar
    assert type(corpus.bits_per_char(np.float32(0.5))) is float
    assert corpus.bits_per_char(0) == 0.0
    listed, array = (
        corpus.bits_per_char([0.0, 2 * ln2]),
        corpus.bits_per_char(np.array([0, 2 * ln2])),
    )
    assert isinstance(listed, np.ndarray) and listed.dtype == np.float64
    assert np.array_equal(listed, array) and np.allclose(listed, [0.0, 2.0])


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda rng: learned.LearnedPositions(4, 2, rng=rng), "table"),
        (lambda rng: t5.T5RelativeBias(2, n_buckets=8, max_distance=16, rng=rng), "table"),
        (lambda rng: TASK.sample(rng, 2, 5), None),
    ],
    ids=["LearnedPositions", "T5RelativeBias", "Task.sample"],
)
def test_rng_takes_a_seed_sequence_as_the_generator_it_seeds(make, name):
    # SeedSequence(seed).spawn(n) gives independent streams; LearnedPositions once refused one.
    child = np.random.SeedSequence(7).spawn(2)[1]
    from_sequence = make(np.random.SeedSequence(7).spawn(2)[1])
    from_generator = make(np.random.default_rng(child))
    other = make(np.random.SeedSequence(7).spawn(2)[0])

    def value(made):
        return getattr(made, name) if name else made[0]

    assert np.array_equal(value(from_sequence), value(from_generator))
    assert not np.array_equal(value(from_sequence), value(other))


@pytest.mark.parametrize("rng", ["seed", 1.5, True, np.random.RandomState(0)])
def test_rng_refuses_other_sources_listing_what_it_accepts(rng):
    with pytest.raises(
        TypeError,
        match=r"^LearnedPositions: rng must be None, an int seed >= 0, a "
        r"numpy\.random\.SeedSequence or a numpy\.random\.Generator, got ",
    ):
        learned.LearnedPositions(4, 2, rng=rng)
