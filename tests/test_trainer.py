"""The trainer of chapter 6 does what its docstrings say: parameters drawn in the documented order
and spread, Adam exactly as written (checked against a reference built here from autograd's
gradient), its defaults, its progress bar, snapshots, and an evaluation that samples in batches
from its own seed and divides by the number of targets."""

import numpy as np
import pytest
from autograd import grad

import posenc_lib.model as model
from posenc_lib.learned import LearnedPositions
from posenc_lib.model import (
    SCHEMES,
    ModelConfig,
    evaluate_positions,
    forward,
    init_params,
    loss_fn,
    n_parameters,
    parameter_shapes,
    region_value,
    train,
    train_each,
)
from posenc_lib.tasks import IGNORE, lookback, markov


def test_parameters_are_drawn_in_the_documented_order_and_spread():
    config = ModelConfig(
        vocab_size=6,
        scheme="learned",
        d_model=4,
        n_layers=2,
        mlp=True,
        max_len=5,
        bos=True,
        learned_init_std=0.3,
    )
    params = init_params(config, seed=7)
    rng = np.random.default_rng(np.random.SeedSequence(7).spawn(2)[0])  # the parameters' stream
    expected = {"tok": rng.normal(0.0, 1.0, (7, 4)), "out": rng.normal(0.0, 1 / 2, (4, 6))}
    expected["pos"] = LearnedPositions(6, 4, rng=rng, init_std=0.3).table
    for layer in range(2):
        for name in ("wq", "wk", "wv", "wo"):
            expected[f"{name}{layer}"] = rng.normal(0.0, 1 / 2, (4, 4))
        expected[f"mlp_in{layer}"] = rng.normal(0.0, 1 / 2, (4, 16))
        expected[f"mlp_out{layer}"] = rng.normal(0.0, 1 / 4, (16, 4))
    assert list(params) == list(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(params[name], value, err_msg=name)
        assert params[name].dtype == np.float64


def test_the_t5_table_is_drawn_last_with_spread_one_tenth():
    config = ModelConfig(
        vocab_size=4, scheme="t5", d_model=4, n_heads=4, t5_buckets=64, t5_max_distance=64
    )
    params = init_params(config, seed=2)
    rng = np.random.default_rng(np.random.SeedSequence(2).spawn(2)[0])
    for value in init_params(config.with_(scheme="none"), seed=2).values():
        rng.normal(size=value.shape)  # the same draws as a model without positions
    np.testing.assert_array_equal(params["t5"], rng.normal(0.0, 0.1, (4, 64)))


def test_the_spread_of_each_matrix_is_one_over_the_root_of_its_fan_in():
    config = ModelConfig(vocab_size=300, d_model=64, mlp=True)
    params = init_params(config, seed=0)
    for name, std in (("tok", 1.0), ("out", 1 / 8), ("wq0", 1 / 8), ("mlp_out0", 1 / 16)):
        assert abs(params[name].mean()) < 0.05 * std and params[name].std() == pytest.approx(
            std, rel=0.05
        ), name


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("bos", [False, True])
def test_parameter_shapes_are_the_shapes_init_params_draws(scheme, bos):
    config = ModelConfig(vocab_size=5, scheme=scheme, d_model=4, n_heads=2, n_layers=2, bos=bos)
    params = init_params(config)
    assert parameter_shapes(config) == {name: value.shape for name, value in params.items()}
    assert n_parameters(params) == sum(value.size for value in params.values())


def test_n_parameters_counts_every_number():
    assert n_parameters({"a": np.zeros((2, 3)), "b": np.zeros(5)}) == 11
    assert n_parameters({}) == 0


# -- Adam, step by step --------------------------------------------------------------------------


def reference_adam(config, task, *, steps, batch_size, length, lr, seed):
    """Adam (betas 0.9 and 0.99, eps 1e-8, bias-corrected) written out here."""
    params = init_params(config, seed)
    first = {k: np.zeros_like(p) for k, p in params.items()}
    second = {k: np.zeros_like(p) for k, p in params.items()}
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[1])  # the batches' stream
    losses = []
    for step in range(1, steps + 1):
        tokens, targets = task.sample(rng, batch_size, length)
        losses.append(float(loss_fn(params, tokens, targets, config)))
        gradient = grad(loss_fn)(params, tokens, targets, config)
        for k in params:
            first[k] = 0.9 * first[k] + 0.1 * gradient[k]
            second[k] = 0.99 * second[k] + 0.01 * gradient[k] ** 2
            corrected_first = first[k] / (1 - 0.9**step)
            corrected_second = second[k] / (1 - 0.99**step)
            params[k] = params[k] - lr * corrected_first / (np.sqrt(corrected_second) + 1e-8)
    return params, losses


def test_training_is_adam_on_the_mean_loss_of_fresh_batches():
    config = ModelConfig(vocab_size=6, scheme="rope", d_model=4, n_heads=2, mlp=True)
    task = lookback(1, vocab_size=6)
    options = {"steps": 4, "batch_size": 3, "length": 5, "lr": 0.05, "seed": 11}
    result = train(config, task, progress=False, **options)
    params, losses = reference_adam(config, task, **options)
    assert result.losses == pytest.approx(losses, rel=1e-12)
    assert not result.interrupted and result.snapshots == {}
    for name, value in params.items():
        np.testing.assert_allclose(result.params[name], value, rtol=1e-10, atol=1e-12)
        assert result.params[name].dtype == np.float64


def test_snapshots_are_the_parameters_after_that_many_steps():
    config = ModelConfig(vocab_size=6, d_model=4)
    task = lookback(1, vocab_size=6)
    result = train(
        config, task, steps=4, batch_size=2, length=4, seed=5, snapshot_every=2, progress=False
    )
    assert sorted(result.snapshots) == [0, 2, 4]
    for step, snapshot in result.snapshots.items():
        shorter = train(config, task, steps=step, batch_size=2, length=4, seed=5, progress=False)
        for name in snapshot:
            np.testing.assert_array_equal(snapshot[name], shorter.params[name])
    for name, value in init_params(config, seed=5).items():
        np.testing.assert_array_equal(result.snapshots[0][name], value)


def test_fine_tuning_starts_from_the_given_parameters():
    config = ModelConfig(vocab_size=6, d_model=4)
    start = init_params(config, seed=9)
    tuned = train(config, lookback(1, 6), steps=0, init=start, progress=False)
    assert all(np.array_equal(tuned.params[k], start[k]) for k in start)
    assert all(tuned.params[k] is not start[k] for k in start)  # copies: the start is kept


@pytest.mark.parametrize("workers", [1, 2])
def test_models_trained_side_by_side_are_the_models_train_gives_alone(workers):
    runs = {
        scheme: {
            "config": ModelConfig(vocab_size=6, d_model=8, scheme=scheme, mlp=True),
            "task": lookback(2, 6),
            "steps": 5,
            "batch_size": 4,
            "length": 12,
            "seed": seed,
        }
        for seed, scheme in enumerate(("alibi", "t5", "rope"))
    }
    models = train_each(runs, workers=workers, progress=False)
    assert list(models) == list(runs)  # in the order of runs, whatever order they finished in
    for name, run in runs.items():
        alone = train(**run, progress=False)
        assert models[name].losses == alone.losses
        assert all(np.array_equal(models[name].params[k], alone.params[k]) for k in alone.params)


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 2), (8, 3)])
def test_train_each_uses_one_worker_per_model_up_to_the_cores_it_may_use(
    cores, workers, monkeypatch
):
    import joblib

    import posenc_lib.runner as runner

    asked = []

    def run_jobs(jobs, runner_fn, **options):
        asked.append(options["workers"])
        return [runner_fn(job) for job in jobs]

    monkeypatch.setattr(joblib, "cpu_count", lambda: cores)
    monkeypatch.setattr(runner, "run_jobs", run_jobs)
    config = ModelConfig(vocab_size=6, d_model=4)
    runs = {str(k): {"config": config, "task": lookback(1, 6), "steps": 1} for k in range(3)}
    train_each(runs, progress=False)
    assert asked == [workers]


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ({}, "train_each: runs must be a non-empty dict"),
        (
            {0: {"config": None, "task": None}},
            "train_each: every name in runs must be a str, got 0",
        ),
        ({"a": {"config": None}}, r"train_each: runs\['a'\] must be a dict of train's arguments"),
        (
            {"a": {"config": None, "task": None, "progress": True}},
            "with config and task and without progress",
        ),
    ],
)
def test_train_each_says_which_run_is_malformed(runs, message):
    with pytest.raises(TypeError, match=message):
        train_each(runs, workers=1)


@pytest.mark.parametrize("workers", [1, 2])
def test_train_each_names_the_run_whose_argument_train_refuses(workers):
    runs = {
        "a": {"config": ModelConfig(vocab_size=6, d_model=4), "task": lookback(1, 6), "steps": 2}
    }
    runs["b"] = {**runs["a"], "steps": -1}
    with pytest.raises(
        ValueError, match=r"train_each: runs\['b'\]: train: steps must be an integer >= 0, got -1"
    ):
        train_each(runs, workers=workers, progress=False)


class Recorder:
    """A progress bar that remembers what the trainer told it."""

    def __init__(self, total, description, show):
        self.opened = (total, description, show)
        self.updates, self.postfixes, self.closed = [], [], False

    def update(self, n):
        self.updates.append(n)

    def set_postfix(self, **kw):
        self.postfixes.append(kw)

    def close(self):
        self.closed = True


def test_the_progress_bar_counts_steps_and_shows_the_recent_loss(monkeypatch):
    bars = []
    monkeypatch.setattr(model, "_progress", lambda *a: bars.append(Recorder(*a)) or bars[-1])
    config = ModelConfig(vocab_size=4, d_model=2)
    result = train(config, lookback(1, 4), steps=100, batch_size=1, length=3, progress=True)
    (bar,) = bars
    assert bar.opened == (100, "none on lookback-1", True)
    assert bar.updates == [1] * 100 and bar.closed
    assert bar.postfixes == [
        {"loss": f"{np.mean(result.losses[:50]):.3f}"},
        {"loss": f"{np.mean(result.losses[50:]):.3f}"},
    ]


def test_the_progress_bar_is_tqdm_only_when_asked_for():
    from tqdm.auto import tqdm

    bar = model._progress(7, "rope on markov", True)
    try:
        assert isinstance(bar, tqdm) and bar.total == 7 and bar.desc == "rope on markov"
        assert bar.leave is False
    finally:
        bar.close()
    quiet = model._progress(7, "x", False)
    assert quiet.disable  # tqdm's own switch: shows nothing
    quiet.update(1), quiet.set_postfix(loss="1"), quiet.close()  # does nothing, raises nothing


def test_train_defaults_are_600_steps_of_32_sequences_of_32_tokens_at_rate_0_01(monkeypatch):
    bars = []
    monkeypatch.setattr(model, "_progress", lambda *a: bars.append(Recorder(*a)) or bars[-1])
    asked = []
    plain = lookback(1, 4)

    def once(rng, batch, length):  # one batch, then the learner presses stop
        if asked:
            raise KeyboardInterrupt
        asked.append((batch, length))
        return plain.sampler(rng, batch, length)

    task = type(plain)("stop-after-one", 4, "accuracy", once)
    config = ModelConfig(vocab_size=4, d_model=2)
    result = train(config, task)
    assert result.interrupted and len(result.losses) == 1
    assert asked == [(32, 32)] and bars[0].opened == (600, "none on stop-after-one", True)
    start = init_params(config, seed=0)
    moved = max(np.max(np.abs(result.params[k] - start[k])) for k in start)
    assert moved == pytest.approx(0.01, rel=1e-3)  # Adam's first step moves by about lr


# -- evaluation --------------------------------------------------------------------------------


def reference_positions(params, config, task, length, *, n_tokens, seed, batch_size):
    """Sequences drawn in batches of batch_size (at most 8192 tokens each) from ``seed``."""
    rng = np.random.default_rng(seed)
    n_sequences = -(-n_tokens // length)
    per_batch = max(1, min(batch_size, 8192 // length))
    totals, counts = np.zeros(length), np.zeros(length, dtype=int)
    done = 0
    while done < n_sequences:
        tokens, targets = task.sample(rng, min(per_batch, n_sequences - done), length)
        done += len(tokens)
        logits = forward(params, tokens, config)
        for b in range(len(tokens)):
            for p in range(length):
                if targets[b, p] == IGNORE:
                    continue
                counts[p] += 1
                if task.metric == "accuracy":
                    totals[p] += logits[b, p].argmax() == targets[b, p]
                else:
                    shifted = logits[b, p] - logits[b, p].max()
                    totals[p] += np.log(np.exp(shifted).sum()) - shifted[targets[b, p]]
    return totals, counts


@pytest.mark.parametrize(
    ("task", "length", "n_tokens", "batch_size"),
    [
        (lookback(2), 8, 100, 5),
        (markov(), 6, 50, 3),
        (markov(), 5, 20, 1),
        (lookback(3), 256, 256 * 40, 64),
        (markov(), 3, 3 * 2731, 5000),
    ],
    ids=["three-batches", "loss", "one-at-a-time", "capped-at-8192-tokens", "cap-2730-of-3"],
)
def test_evaluation_scores_batches_drawn_from_its_seed(task, length, n_tokens, batch_size):
    config = ModelConfig(vocab_size=16, scheme="alibi", d_model=4, n_heads=2)
    params = init_params(config, seed=1)
    totals, counts = evaluate_positions(
        params, config, task, length, n_tokens=n_tokens, seed=3, batch_size=batch_size
    )
    expected_totals, expected_counts = reference_positions(
        params, config, task, length, n_tokens=n_tokens, seed=3, batch_size=batch_size
    )
    np.testing.assert_allclose(totals, expected_totals, rtol=1e-10)
    np.testing.assert_array_equal(counts, expected_counts)
    assert np.issubdtype(counts.dtype, np.integer)


def test_a_region_is_a_ratio_of_sums_from_its_first_position():
    totals, counts = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 2, 4, 0])
    assert region_value(totals, counts) == pytest.approx(10 / 8)
    assert region_value(totals, counts, 1) == pytest.approx(9 / 6)
    assert region_value(totals, counts, 2) == pytest.approx(7 / 4)
    assert region_value(totals, counts, 3) is None  # no target there
    assert region_value([5.0], [1]) == 5.0  # one target is enough


def test_the_loss_of_a_single_target_is_its_cross_entropy():
    config = ModelConfig(vocab_size=3, d_model=2)
    params = init_params(config, seed=4)
    tokens, targets = np.array([[0, 1, 2]]), np.array([[IGNORE, IGNORE, 1]])
    logits = forward(params, tokens, config)[0, 2]
    expected = np.log(np.exp(logits).sum()) - logits[1]
    assert float(loss_fn(params, tokens, targets, config)) == pytest.approx(expected, rel=1e-12)
    assert float(loss_fn(params, tokens, np.full((1, 3), IGNORE), config)) == 0.0


def test_initial_parameters_and_training_batches_read_different_random_streams():
    config = ModelConfig(vocab_size=16, d_model=4)
    drawn = []

    def recording(rng, batch, length):
        drawn.append(rng.bit_generator.state["state"]["state"])
        return lookback(1).sampler(rng, batch, length)

    task = type(lookback(1))("recording", 16, "accuracy", recording)
    train(config, task, steps=1, batch_size=2, length=4, seed=3, progress=False)
    parameters_rng = np.random.default_rng(np.random.SeedSequence(3).spawn(2)[0])
    batches_rng = np.random.default_rng(np.random.SeedSequence(3).spawn(2)[1])
    assert drawn == [batches_rng.bit_generator.state["state"]["state"]]
    assert drawn[0] != parameters_rng.bit_generator.state["state"]["state"]
    assert drawn[0] != np.random.default_rng(3).bit_generator.state["state"]["state"]


def test_fine_tuning_from_float32_parameters_trains_in_float64():
    config = ModelConfig(vocab_size=16, d_model=8)
    start = {k: v.astype(np.float32) for k, v in init_params(config).items()}
    result = train(config, lookback(1), steps=2, batch_size=2, length=4, init=start, progress=False)
    assert {p.dtype for p in result.params.values()} == {np.dtype(np.float64)}
    assert {p.dtype for p in start.values()} == {np.dtype(np.float32)}  # the caller's are untouched


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_forward_refuses_parameters_that_are_not_finite(bad):
    config = ModelConfig(vocab_size=5, d_model=4)
    params = init_params(config)
    params["wq0"][1, 2] = bad
    with pytest.raises(
        ValueError, match=r"forward: params\['wq0'\] must be finite, got .* at index \(1, 2\)"
    ):
        forward(params, [[0, 1, 2]], config)
