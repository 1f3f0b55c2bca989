"""The tiny trainer: exact gradients for every scheme, correct task targets, reproducible
training, null results where a scheme cannot run, and a well-formed experiment file."""

import numpy as np
import pytest
from autograd import grad

from posenc_lib import self_attention
from posenc_lib.extension import context_extension_records
from posenc_lib.learned import LearnedPositions
from posenc_lib.model import (
    SCHEMES,
    ModelConfig,
    accuracy,
    attention_maps,
    evaluate,
    forward,
    init_params,
    loss_fn,
    token_losses,
    train,
)
from posenc_lib.tasks import (
    IGNORE,
    lookback,
    markov,
    markov_entropy,
    markov_transitions,
    recent_marker,
)


def float64(params):
    return {k: v.astype(np.float64) for k, v in params.items()}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_gradients_match_finite_differences(scheme):
    config = ModelConfig(vocab_size=5, scheme=scheme, d_model=4, n_heads=2, mlp=True, max_len=6)
    params = float64(init_params(config, seed=1))
    tokens, targets = lookback(1, vocab_size=5).sample(0, 2, 6)
    analytic = grad(loss_fn)(params, tokens, targets, config)
    rng = np.random.default_rng(0)
    for name, value in params.items():
        for _ in range(3):
            index = tuple(rng.integers(0, n) for n in value.shape)
            step = np.zeros_like(value)
            step[index] = 1e-6
            up = loss_fn({**params, name: value + step}, tokens, targets, config)
            down = loss_fn({**params, name: value - step}, tokens, targets, config)
            numeric = (up - down) / 2e-6
            assert analytic[name][index] == pytest.approx(numeric, rel=1e-4, abs=1e-7), (
                name,
                index,
            )


def test_one_head_without_positions_matches_the_chapter_1_attention():
    config = ModelConfig(vocab_size=6, scheme="none", d_model=4, n_heads=1)
    params = float64(init_params(config, seed=0))
    tokens = np.array([[0, 3, 1, 5, 2]])
    maps = attention_maps(params, config, tokens)[0][0, 0]
    x = params["tok"][tokens[0]]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    from posenc_lib import causal_mask

    _, expected = self_attention(
        x, params["wq0"], params["wk0"], params["wv0"], mask=causal_mask(5)
    )
    np.testing.assert_allclose(maps, expected, atol=1e-10)


def test_training_is_reproducible_with_a_seed_and_learns():
    config = ModelConfig(vocab_size=16, scheme="rope", d_model=16, n_heads=2)
    a = train(config, lookback(2), steps=60, batch_size=8, length=16, seed=3, progress=False)
    b = train(config, lookback(2), steps=60, batch_size=8, length=16, seed=3, progress=False)
    assert a.losses == b.losses
    assert np.mean(a.losses[-10:]) < np.mean(a.losses[:10]) - 0.3


def test_snapshots_and_fine_tuning_start_points():
    config = ModelConfig(vocab_size=16, scheme="learned", d_model=8, max_len=8)
    result = train(
        config, lookback(1), steps=10, batch_size=4, length=8, snapshot_every=5, progress=False
    )
    assert sorted(result.snapshots) == [0, 5, 10]
    np.testing.assert_array_equal(result.snapshots[10]["pos"], result.params["pos"])
    tuned = train(config, lookback(1), steps=0, length=8, init=result.params, progress=False)
    np.testing.assert_array_equal(tuned.params["pos"], result.params["pos"])


def test_an_interrupt_keeps_the_model_trained_so_far(monkeypatch):
    import posenc_lib.model as model

    calls = {"n": 0}
    real = model.value_and_grad

    def interrupt_after_three(fn):
        step = real(fn)

        def wrapped(*args):
            calls["n"] += 1
            if calls["n"] > 3:
                raise KeyboardInterrupt
            return step(*args)

        return wrapped

    monkeypatch.setattr(model, "value_and_grad", interrupt_after_three)
    config = ModelConfig(vocab_size=16, scheme="none", d_model=8)
    result = train(config, lookback(1), steps=50, batch_size=4, length=8, progress=False)
    assert result.interrupted and len(result.losses) == 3


def test_learned_positions_past_the_table_give_none_not_a_crash():
    config = ModelConfig(vocab_size=16, scheme="learned", d_model=8, max_len=8)
    params = init_params(config)
    assert evaluate(params, config, lookback(1), 16) is None
    assert 0.0 <= evaluate(params, config, lookback(1), 8) <= 1.0
    with pytest.raises(
        ValueError,
        match=r"forward: asked for 16 positions but the table has only max_len=8 rows \(positions 0..7\)",
    ):
        forward(params, np.zeros((1, 16), int), config)


def test_lookback_targets_by_hand():
    tokens, targets = lookback(3, vocab_size=10).sample(7, 1, 6)
    t = tokens[0]
    assert targets[0].tolist() == [IGNORE, IGNORE, IGNORE, t[0], t[1], t[2]]


def test_recent_marker_targets_by_hand():
    task = recent_marker(n_markers=2, vocab_size=6, density=0.3)
    tokens, targets = task.sample(1, 3, 20)
    for row, target in zip(tokens, targets, strict=True):
        last = None
        for token, expected in zip(row, target, strict=True):
            if token < 2:
                last = token
            assert expected == (IGNORE if last is None else last)


def test_markov_text_follows_its_transition_table():
    table = markov_transitions()
    tokens, targets = markov().sample(0, 200, 40)
    counts = np.zeros_like(table)
    for row in tokens:
        for a, b, c in zip(row, row[1:], row[2:], strict=False):
            counts[a, b, c] += 1
    n = counts.sum(-1, keepdims=True)
    seen = n[..., 0] > 50
    empirical = counts[seen] / n[seen]
    p = table[seen]
    standard_error = np.sqrt(p * (1 - p) / n[seen])
    assert np.all(np.abs(empirical - p) < 5 * standard_error + 0.01)
    assert 0.5 < markov_entropy() < np.log(16)


def test_learned_positions_table():
    table = LearnedPositions(512, 16, rng=0)
    assert table.table.shape == (512, 16) and table(512).shape == (512, 16)
    np.testing.assert_array_equal(table.table, LearnedPositions(512, 16, rng=0).table)
    assert not np.allclose(table.table, LearnedPositions(512, 16, rng=1).table)
    with pytest.raises(
        ValueError, match=r"asked for 513 positions but the table has only max_len=512"
    ):
        table(513)
    with pytest.raises(ValueError, match="longer table and train it, or use a scheme"):
        table(600)
    with pytest.raises(ValueError, match="max_len must be an integer >= 1, got 0"):
        LearnedPositions(0, 4)
    with pytest.raises(ValueError, match="d_model must be an integer >= 1, got 0"):
        LearnedPositions(4, 0)
    with pytest.raises(TypeError, match="max_len must be an integer"):
        LearnedPositions(2.5, 4)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"scheme": "absolute"}, "scheme must be one of"),
        ({"d_model": 30, "n_heads": 4}, "d_model must be a multiple of n_heads"),
        ({"scheme": "rope", "d_model": 6, "n_heads": 2}, "RoPE needs an even head width"),
        ({"vocab_size": 1}, "vocab_size must be an integer >= 2"),
    ],
)
def test_bad_configurations_are_explained(changes, message):
    with pytest.raises(ValueError, match=message):
        ModelConfig(**{"vocab_size": 16, **changes})


def test_train_refuses_a_task_with_another_vocabulary():
    with pytest.raises(ValueError, match="vocab_size 10 but the model has 16"):
        train(ModelConfig(vocab_size=16), lookback(1, vocab_size=10), steps=1, progress=False)


def test_context_extension_reports_every_method_before_and_after():
    task = lookback(2)
    config = ModelConfig(vocab_size=16, scheme="rope", d_model=8, n_heads=1, max_len=8)
    result = train(config, task, steps=5, batch_size=4, length=8, progress=False)
    rows = context_extension_records(result, task, factor=2, finetune_steps=2, finetune_batch=2)
    assert {r["method"] for r in rows} == {"plain", "interpolation", "ntk", "yarn", "yarn-paper"}
    assert {(r["stage"], r["region"]) for r in rows} == {
        (stage, region) for stage in ("before", "after") for region in ("all", "unseen")
    }
    assert all(0 <= r["value"] <= 1 for r in rows)
    with pytest.raises(ValueError, match="needs a RoPE model, got scheme 'none'"):
        context_extension_records(
            train(config.with_(scheme="none"), task, steps=1, length=8, progress=False), task
        )


def test_t5_scores_get_one_learned_scalar_per_head_and_bucket():
    from posenc_lib.t5 import t5_bias

    config = ModelConfig(
        vocab_size=6, scheme="t5", d_model=4, n_heads=2, t5_buckets=8, t5_max_distance=16
    )
    params = float64(init_params(config, seed=0))
    assert params["t5"].shape == (2, 8)
    tokens = np.array([[0, 3, 1, 5, 2, 2, 4, 1, 0, 3]])
    x = params["tok"][tokens[0]]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    from posenc_lib import causal_mask

    bias = t5_bias(params["t5"], 10, bidirectional=False, max_distance=16)
    for h in range(2):
        cols = slice(2 * h, 2 * h + 2)
        _, expected = self_attention(
            x,
            params["wq0"][:, cols],
            params["wk0"][:, cols],
            params["wv0"][:, cols],
            mask=causal_mask(10),
            bias=bias[h],
        )
        np.testing.assert_allclose(attention_maps(params, config, tokens)[0][0, h], expected)


def test_other_schemes_start_from_the_same_parameters_as_before_t5_existed():
    # T5's table is drawn last, so adding the scheme changed no other scheme's initial values.
    a = init_params(ModelConfig(vocab_size=8, scheme="rope", d_model=8, n_heads=2), seed=4)
    b = init_params(ModelConfig(vocab_size=8, scheme="t5", d_model=8, n_heads=2), seed=4)
    assert set(b) - set(a) == {"t5"}
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_a_start_token_is_prepended_and_never_predicted():
    config = ModelConfig(vocab_size=6, scheme="learned", d_model=4, max_len=5, bos=True)
    params = init_params(config, seed=0)
    assert params["tok"].shape == (7, 4) and params["pos"].shape == (6, 4)
    tokens = np.array([[1, 2, 3, 4, 5]])
    logits, maps = forward(params, tokens, config, return_attention=True)
    assert logits.shape == (1, 5, 6) and maps[0].shape == (1, 1, 6, 6)
    # without a start token, token 0 sees only itself; with one it also sees the start
    assert maps[0][0, 0, 1, :2].sum() == pytest.approx(1.0) and maps[0][0, 0, 1, 0] > 0
    with pytest.raises(
        ValueError, match=r"forward: asked for 6 positions but the table has only max_len=5 rows"
    ):
        forward(params, np.zeros((1, 6), int), config)


def test_yarn_in_the_model_rescales_frequencies_and_logits():
    from posenc_lib.rope import rope_tables, yarn_attention_factor, yarn_frequencies

    config = ModelConfig(vocab_size=6, scheme="rope", d_model=8, n_heads=1, max_len=8)
    params = float64(init_params(config, seed=2))
    yarn = config.with_(yarn_scale=4.0)
    tokens = np.arange(6)[None] % 6
    x = params["tok"][tokens[0]]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    cos, sin = rope_tables(np.arange(6), 8, frequencies=yarn_frequencies(8, 4.0, 8))
    f = yarn_attention_factor(4.0)
    from posenc_lib.rope import rope_rotate

    q = rope_rotate(x @ params["wq0"], f * cos, f * sin)
    k = rope_rotate(x @ params["wk0"], f * cos, f * sin)
    scores = np.where(np.tril(np.ones((6, 6), bool)), q @ k.T / np.sqrt(8), -np.inf)
    expected = np.exp(scores - scores.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    np.testing.assert_allclose(attention_maps(params, yarn, tokens)[0][0, 0], expected, atol=1e-12)
    assert not np.allclose(attention_maps(params, config, tokens)[0], expected)


def test_position_scores_add_up_to_the_overall_score():
    from posenc_lib.model import evaluate_positions, region_value

    for task in (lookback(3), markov()):
        config = ModelConfig(vocab_size=16, scheme="rope", d_model=8, n_heads=2, max_len=16)
        params = init_params(config, seed=1)
        totals, counts = evaluate_positions(params, config, task, 24, n_tokens=480)
        assert counts.sum() == {"lookback-3": 20 * 21, "markov": 20 * 23}[task.name]
        overall = evaluate(params, config, task, 24, n_tokens=480)
        assert region_value(totals, counts) == pytest.approx(overall, rel=1e-12)
        unseen = region_value(totals, counts, 16)
        assert unseen == pytest.approx(totals[16:].sum() / counts[16:].sum())
    assert (
        evaluate_positions(
            init_params(config.with_(scheme="learned")),
            config.with_(scheme="learned"),
            lookback(3),
            24,
        )
        is None
    )


def test_attention_peaks_and_offset_weights_read_the_attention_maps():
    from posenc_lib.model import attention_at_offset, attention_peak_offsets

    config = ModelConfig(vocab_size=16, scheme="alibi", d_model=8, n_heads=2, n_layers=2)
    params = init_params(config, seed=0)
    tokens = lookback(3).sample(0, 2, 12)[0]
    maps = attention_maps(params, config, tokens)
    peaks = attention_peak_offsets(params, config, tokens, layer=1)
    weights = attention_at_offset(params, config, tokens, 3, layer=1)
    assert peaks.shape == weights.shape == (2, 2, 12)
    for b in range(2):
        for h in range(2):
            for q in range(12):
                assert peaks[b, h, q] == q - np.argmax(maps[1][b, h, q])
                if q >= 3:
                    assert weights[b, h, q] == maps[1][b, h, q, q - 3]
                else:
                    assert np.isnan(weights[b, h, q])
    with pytest.raises(ValueError, match="layer must be < n_layers = 2, got 2"):
        attention_peak_offsets(params, config, tokens, layer=2)


# -- what forward, the loss and the scores accept ------------------------------------------------

SMALL = ModelConfig(vocab_size=3, d_model=4, n_heads=2)
SMALL_PARAMS = init_params(SMALL, seed=0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: forward({**SMALL_PARAMS, "wq0": np.zeros((4, 2))}, [[0]], SMALL),
            r"^forward: params\['wq0'\] must have shape \(4, 4\) for this configuration, got "
            r"\(4, 2\)$",
        ),
        (
            lambda: forward({k: v for k, v in SMALL_PARAMS.items() if k != "out"}, [[0]], SMALL),
            r"^forward: params has no 'out', which a none model of n_layers=1, mlp=False needs",
        ),
        (lambda: forward(SMALL_PARAMS, [0, 1], SMALL), r"^forward: tokens must have 2 axes, got"),
        (
            lambda: forward(SMALL_PARAMS, np.zeros((1, 0), int), SMALL),
            r"^forward: tokens must hold at least one token per sequence, got shape \(1, 0\)$",
        ),
        (
            lambda: loss_fn(SMALL_PARAMS, [[0, 1]], [[0, 3]], SMALL),
            r"^loss_fn: targets must hold ids 0..2 or -1 \(no target\), got 3 at index \(0, 1\)$",
        ),
        (
            lambda: loss_fn(SMALL_PARAMS, [[0, 1]], [[0, -2]], SMALL),
            r"^loss_fn: targets must hold ids 0..2 or -1 \(no target\), got -2 at index \(0, 1\)$",
        ),
        (
            lambda: loss_fn(SMALL_PARAMS, [[0, 1]], [[0, 1, 2]], SMALL),
            r"^loss_fn: targets must be integers of the tokens' shape \(1, 2\), got \[\[0, 1, 2\]\]",
        ),
        (
            lambda: accuracy(np.zeros((2, 3)), [3, 5]),
            r"^accuracy: targets must hold ids 0..2 or -1 \(no target\), got 3 at index \(0,\)$",
        ),
        (
            lambda: token_losses(np.zeros((2, 3)), [0, -2]),
            r"^token_losses: targets must hold ids 0..2 or -1 \(no target\), got -2 at index \(1,\)$",
        ),
        (
            lambda: accuracy(np.zeros((2, 3)), [[0, 1]]),
            r"^accuracy: targets must be integers of shape logits.shape\[:-1\] = \(2,\), got",
        ),
    ],
)
def test_inputs_the_model_cannot_use_are_refused_with_the_reason(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_one_token_sequence_and_a_single_score_vector_are_fine():
    assert forward(SMALL_PARAMS, [[2]], SMALL).shape == (1, 1, 3)
    assert accuracy(np.array([0.0, 1.0, 0.0]), np.array(1)) == 1.0
    assert token_losses(np.zeros(4), np.array(0)) == pytest.approx(np.log(4))
