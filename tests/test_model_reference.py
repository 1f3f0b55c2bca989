"""The chapter 6 model is the chapters' functions put together: for every position scheme, and for
every way of extending RoPE's context, `model.forward` equals a reference built here from the
functions each chapter teaches (`self_attention` with ``bias=`` or ``rotate=``, the position tables
added to the inputs), head by head and layer by layer, with the model's own weights. Then the
loss and the evaluation, computed by hand on a tiny example with positions that have no target.
"""

import math

import numpy as np
import pytest

from posenc_lib import (
    LearnedPositions,
    alibi_bias,
    apply_rope,
    causal_mask,
    interpolate_positions,
    ntk_base,
    self_attention,
    sinusoidal_positions,
    t5_bias,
    yarn_attention_factor,
    yarn_frequencies,
)
from posenc_lib.model import (
    SCHEMES,
    ModelConfig,
    accuracy,
    evaluate,
    evaluate_positions,
    forward,
    init_params,
    loss_fn,
    token_losses,
)
from posenc_lib.tasks import IGNORE, Task

# -- the reference: chapter functions only -------------------------------------------------------


def layer_norm(x):
    """(x - mean) / sqrt(variance + 1e-5) over the last axis, no gain or bias (as the model)."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + 1e-5)


def position_parts(params, config, t):
    """What each scheme contributes for t positions, from the chapter functions: a table added to
    the inputs, a rotation of queries and keys, or a (heads, T, T) bias on the scores."""
    added = rotate = bias = None
    d, h = config.d_model, config.n_heads
    if config.scheme == "sinusoidal":  # chapter 2
        added = sinusoidal_positions(t, d, base=config.base)
    elif config.scheme == "learned":  # chapter 3: the trained table, read as LearnedPositions
        table = LearnedPositions(config.max_len + config.bos, d)
        table.table = params["pos"]
        added = table(t)
    elif config.scheme == "rope":  # chapter 4, with the context-extension variants
        positions = interpolate_positions(np.arange(t), config.rope_positions_scale)
        frequencies, factor = None, 1.0
        if config.yarn_scale > 1:
            frequencies = yarn_frequencies(
                config.head_dim,
                config.yarn_scale,
                config.max_len,
                base=config.base,
                alpha=config.yarn_alpha,
                beta=config.yarn_beta,
                ramp=config.yarn_ramp,
            )
            factor = yarn_attention_factor(config.yarn_scale)

        def rotate(z):
            return factor * apply_rope(z, positions, base=config.base, frequencies=frequencies)

    elif config.scheme == "alibi":  # chapter 5
        bias = alibi_bias(t, h)
    elif config.scheme == "t5":  # chapter 5: T5's causal buckets, one table for all layers
        bias = t5_bias(params["t5"], t, bidirectional=False, max_distance=config.t5_max_distance)
    return added, rotate, bias


def reference_forward(params, tokens, config):
    """Logits (B, T, V) and per-layer attention (B, H, T', T'), one sequence and one head at a time."""
    all_logits, all_maps = [], []
    dh = config.head_dim
    for row in np.asarray(tokens):
        ids = ([config.vocab_size] if config.bos else []) + row.tolist()  # the start token
        t = len(ids)
        x = params["tok"][ids]
        added, rotate, bias = position_parts(params, config, t)
        if added is not None:
            x = x + added
        maps = []
        for layer in range(config.n_layers):
            y = layer_norm(x)
            outs, weights = [], []
            for head in range(config.n_heads):
                cols = slice(head * dh, (head + 1) * dh)
                out, w = self_attention(
                    y,
                    params[f"wq{layer}"][:, cols],
                    params[f"wk{layer}"][:, cols],
                    params[f"wv{layer}"][:, cols],
                    mask=causal_mask(t),
                    bias=None if bias is None else bias[head],
                    rotate=rotate,
                )
                outs.append(out)
                weights.append(w)
            x = x + np.concatenate(outs, axis=-1) @ params[f"wo{layer}"]
            if config.mlp:
                hidden = np.maximum(layer_norm(x) @ params[f"mlp_in{layer}"], 0.0)
                x = x + hidden @ params[f"mlp_out{layer}"]
            maps.append(np.stack(weights))
        if config.bos:
            x = x[1:]
        all_logits.append(layer_norm(x) @ params["out"])
        all_maps.append(maps)
    maps = [np.stack([m[layer] for m in all_maps]) for layer in range(config.n_layers)]
    return np.stack(all_logits), maps


def small(scheme, **changes):
    """Two layers of two heads with an MLP: every path of the model is exercised."""
    options = {
        "vocab_size": 7,
        "scheme": scheme,
        "d_model": 8,
        "n_heads": 2,
        "n_layers": 2,
        "mlp": True,
        "max_len": 12,
        "t5_buckets": 6,
        "t5_max_distance": 8,
        **changes,
    }
    return ModelConfig(**options)


TOKENS = np.array([[0, 3, 1, 6, 2, 2, 5, 1, 0, 4], [6, 6, 0, 1, 2, 3, 4, 5, 0, 1]])


def assert_model_equals_reference(config, tokens=TOKENS, seed=0):
    params = init_params(config, seed=seed)
    logits, maps = forward(params, tokens, config, return_attention=True)
    expected_logits, expected_maps = reference_forward(params, tokens, config)
    assert len(maps) == config.n_layers
    for layer, (got, expected) in enumerate(zip(maps, expected_maps, strict=True)):
        for head in range(config.n_heads):
            np.testing.assert_allclose(
                got[:, head], expected[:, head], atol=1e-10, err_msg=f"layer {layer} head {head}"
            )
    np.testing.assert_allclose(logits, expected_logits, atol=1e-10)
    return logits


@pytest.mark.parametrize("bos", [False, True], ids=["plain", "start-token"])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_forward_pass_equals_the_chapter_functions_put_together(scheme, bos):
    assert_model_equals_reference(small(scheme, bos=bos))


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope"])
def test_the_position_schemes_follow_the_configured_base(scheme):
    logits = assert_model_equals_reference(small(scheme, base=100.0))
    assert (
        np.max(np.abs(logits - forward(init_params(small(scheme)), TOKENS, small(scheme)))) > 1e-3
    )


@pytest.mark.parametrize("scheme", SCHEMES)
def test_one_head_of_one_layer_equals_chapter_1_attention_with_the_schemes_input(scheme):
    assert_model_equals_reference(small(scheme, n_heads=1, n_layers=1, mlp=False), seed=3)


def test_every_position_scheme_changes_the_logits():
    """The reference comparison is not vacuous: each scheme changes what the same weights give."""
    for scheme in SCHEMES[1:]:
        params = init_params(small(scheme))
        with_scheme = forward(params, TOKENS, small(scheme))
        without = {k: v for k, v in params.items() if k not in ("pos", "t5")}
        assert np.max(np.abs(with_scheme - forward(without, TOKENS, small("none")))) > 1e-3, scheme


# -- RoPE's context extension: interpolation, NTK-aware base, YaRN -------------------------------

LONG = np.random.default_rng(7).integers(0, 7, size=(2, 30))  # longer than max_len = 12


@pytest.mark.parametrize(
    "changes",
    [
        {"rope_positions_scale": 2.5},
        {"base": ntk_base(10000.0, 2.5, 4)},
        {"yarn_scale": 2.5},
        {"yarn_scale": 4.0, "yarn_alpha": 0.5, "yarn_beta": 8.0},
        {"rope_positions_scale": 2.0, "yarn_scale": 2.0, "bos": True},
        {"yarn_scale": 2.5, "base": 100.0},
        {"yarn_scale": 2.5, "yarn_ramp": "turns"},
    ],
    ids=[
        "interpolation",
        "ntk",
        "yarn",
        "yarn-ramp",
        "interpolation+yarn+bos",
        "yarn-base-100",
        "yarn-paper-ramp",
    ],
)
def test_context_extension_equals_apply_rope_with_the_extended_positions(changes):
    config = small("rope", **changes)
    logits = assert_model_equals_reference(config, tokens=LONG)
    plain = forward(init_params(small("rope")), LONG, small("rope"))
    assert np.max(np.abs(logits - plain)) > 1e-3  # the variant really changes the model


# -- the loss and the evaluation, by hand --------------------------------------------------------

VOCAB = 4
HAND_TOKENS = np.array([[0, 3, 1, 2, 2, 0]])
HAND_TARGETS = np.array([[IGNORE, 2, IGNORE, 0, 3, IGNORE]])  # three targets, three ignored


def hand_config():
    return ModelConfig(vocab_size=VOCAB, scheme="alibi", d_model=4, n_heads=2, mlp=True)


def hand_logits():
    config = hand_config()
    params = init_params(config, seed=5)
    return params, forward(params, HAND_TOKENS, config)[0]


def cross_entropy(row, target):
    """-log softmax(row)[target], with math on Python floats."""
    return math.log(sum(math.exp(v) for v in row)) - row[target]


def test_the_loss_is_the_mean_cross_entropy_over_positions_with_a_target():
    params, logits = hand_logits()
    by_hand = [
        cross_entropy(logits[p].tolist(), target)
        for p, target in enumerate(HAND_TARGETS[0])
        if target != IGNORE
    ]
    assert len(by_hand) == 3
    loss = float(loss_fn(params, HAND_TOKENS, HAND_TARGETS, hand_config()))
    assert loss == pytest.approx(sum(by_hand) / 3, rel=1e-12)
    # what the two known mistakes would give: ignored positions counted as some token, or the
    # sum divided by every position
    counted = sum(cross_entropy(logits[p].tolist(), VOCAB - 1) for p in (0, 2, 5))
    assert abs(loss - (sum(by_hand) + counted) / 6) > 1e-3
    assert abs(loss - sum(by_hand) / 6) > 1e-3


def test_token_losses_are_zero_where_there_is_no_target():
    _, logits = hand_logits()
    losses = token_losses(logits[None], HAND_TARGETS)[0]
    for p, target in enumerate(HAND_TARGETS[0]):
        expected = 0.0 if target == IGNORE else cross_entropy(logits[p].tolist(), target)
        assert losses[p] == pytest.approx(expected, abs=1e-12)


def fixed_task(metric, tokens=HAND_TOKENS, targets=HAND_TARGETS):
    """A task that always returns the same sequence."""
    return Task(
        "fixed", VOCAB, metric, lambda rng, batch, length: (tokens[:batch], targets[:batch])
    )


def test_evaluate_divides_correct_predictions_by_the_number_of_targets():
    params, logits = hand_logits()
    predicted = logits.argmax(-1)
    # targets chosen against the model's own predictions: right at 1 and 4, wrong at 3
    targets = np.array(
        [[IGNORE, predicted[1], IGNORE, (predicted[3] + 1) % VOCAB, predicted[4], IGNORE]]
    )
    task = fixed_task("accuracy", targets=targets)
    value = evaluate(params, hand_config(), task, 6, n_tokens=6, batch_size=1)
    assert value == pytest.approx(2 / 3)  # 2 right of 3 targets; not 2/6 of all positions
    assert accuracy(logits, targets[0]) == pytest.approx(2 / 3)
    totals, counts = evaluate_positions(params, hand_config(), task, 6, n_tokens=6, batch_size=1)
    assert totals.tolist() == [0, 1, 0, 0, 1, 0]
    assert counts.tolist() == [0, 1, 0, 1, 1, 0]


def test_evaluate_of_a_loss_task_is_the_mean_loss_over_targets():
    params, logits = hand_logits()
    task = fixed_task("loss")
    by_hand = [
        cross_entropy(logits[p].tolist(), t) for p, t in enumerate(HAND_TARGETS[0]) if t != IGNORE
    ]
    value = evaluate(params, hand_config(), task, 6, n_tokens=6, batch_size=1)
    assert value == pytest.approx(sum(by_hand) / 3, rel=1e-12)
    assert value == pytest.approx(float(loss_fn(params, HAND_TOKENS, HAND_TARGETS, hand_config())))


def test_accuracy_counts_only_positions_with_a_target():
    logits = np.array([[0.0, 2.0], [3.0, 1.0], [0.0, 5.0], [1.0, 0.0]])
    assert accuracy(logits, [1, 1, IGNORE, IGNORE]) == 0.5  # right, wrong, then no targets
    assert accuracy(logits, [IGNORE] * 4) is None
