"""The tiny trainer: exact gradients for every scheme, correct task targets, reproducible
training, null results where a scheme cannot run, and a well-formed experiment file."""

import json

import numpy as np
import pytest
from autograd import grad

from posenc_lib import experiments, self_attention
from posenc_lib.learned import LearnedPositions
from posenc_lib.model import (
    SCHEMES,
    ModelConfig,
    attention_maps,
    evaluate,
    forward,
    init_params,
    loss_fn,
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
    with pytest.raises(ValueError, match="max_len=8 has no rows for positions 8..15"):
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


def test_the_experiment_command_writes_well_formed_results(tmp_path, capsys):
    experiments.main(["--tiny", "--out", str(tmp_path)])
    records = json.loads((tmp_path / "results.json").read_text())
    assert len(records) == 4
    keys = {"task", "scheme", "seed", "train_len", "eval_len", "metric", "value"}
    assert all(set(r) == keys for r in records)
    learned_long = [
        r for r in records if r["scheme"] == "learned" and r["eval_len"] > r["train_len"]
    ]
    assert learned_long and all(r["value"] is None for r in learned_long)
    assert all(isinstance(r["value"], float) for r in records if r not in learned_long)
    assert (tmp_path / "results.png").stat().st_size > 1000
    assert "lookback-3" in capsys.readouterr().out


def test_context_extension_reports_three_methods_before_and_after():
    task = lookback(2)
    config = ModelConfig(vocab_size=16, scheme="rope", d_model=8, n_heads=1, max_len=8)
    result = train(config, task, steps=5, batch_size=4, length=8, progress=False)
    out = experiments.context_extension(result, task, factor=2, finetune_steps=2, finetune_batch=2)
    assert set(out) == {"plain", "interpolation", "ntk"}
    assert all(0 <= v["before"] <= 1 and 0 <= v["after"] <= 1 for v in out.values())
