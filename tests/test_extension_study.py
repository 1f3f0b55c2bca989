"""Llama 3.1's scaling and dynamic NTK run in the course's model, and the sweep that measures them.

The frequencies themselves are checked against transformers' code in
test_reference_formulas_llama3.py; here, that the model runs exactly those frequencies (its
rotation tables against the transcribed reference), that dynamic NTK leaves a model alone up to
its training length, and that the committed sweep scores the study's own models (its five shared
methods equal the study's extension.json, record for record).
"""

import numpy as np
import pytest
from test_reference_formulas_llama3 import default_inv_freq, dynamic_inv_freq, llama3_inv_freq

from posenc_lib import model
from posenc_lib.experiments import CONFIGS, load_study, make_config
from posenc_lib.extension import (
    CACHED,
    DEPLOYED_METHODS,
    EXTENSION_METHODS,
    LENGTH_METHODS,
    LLAMA3,
    extended,
    extension_length_records,
    extension_lengths_table,
    llama3_shares,
)
from posenc_lib.extension_study import (
    FULL,
    STUDY_EXTENSION,
    extension_jobs,
    load_extension_study,
    train_and_extend,
)
from posenc_lib.model import evaluate_positions, forward, init_params, train
from posenc_lib.tasks import lookback, markov


def rotation_angles(config, length):
    """The angle of every pair at every position, as the model's RoPE layer runs it."""
    cos, sin = model.SCHEME_PARTS["rope"].rotation(config, length)
    return np.arctan2(sin, cos)


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("length", [16, 32, 128, 256])
def test_the_model_runs_llama3s_speeds_as_transformers_computes_them(config_name, length):
    config = make_config(lookback(3), "rope", config_name)
    reference = llama3_inv_freq(
        config.base,
        config.head_dim,
        4.0,
        LLAMA3["low_freq_factor"],
        LLAMA3["high_freq_factor"],
        config.max_len,
    )
    with extended(config, "llama3", 4, length) as variant:
        assert variant == config  # the speeds change, not the configuration
        angles = rotation_angles(variant, length)
    expected = np.arange(length)[:, None] * np.repeat(reference, 2)[None, :]
    # the tables hold cos and sin per rotated coordinate; compare angles modulo a turn
    wrapped = np.angle(np.exp(1j * (angles - expected.reshape(angles.shape))))
    assert np.max(np.abs(wrapped)) < 1e-9
    # outside the block the model turns at its trained speeds again
    trained = rotation_angles(config, length)
    plain = np.arange(length)[:, None] * np.repeat(
        default_inv_freq(config.base, config.head_dim), 2
    )
    assert np.max(np.abs(np.angle(np.exp(1j * (trained - plain.reshape(trained.shape)))))) < 1e-9
    assert not np.allclose(trained, angles)


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("length", [8, 32, 33, 64, 128, 256])
def test_the_model_runs_dynamic_ntks_base_for_the_length_it_scores(config_name, length):
    config = make_config(lookback(3), "rope", config_name)
    reference = dynamic_inv_freq(config.base, config.head_dim, 4.0, config.max_len, length)
    with extended(config, "dynamic-ntk", 4, length) as variant:
        angles = rotation_angles(variant, length)
    expected = (np.arange(length)[:, None] * np.repeat(reference, 2)[None, :]).reshape(angles.shape)
    assert np.max(np.abs(np.angle(np.exp(1j * (angles - expected))))) < 1e-9


def test_dynamic_ntk_leaves_a_model_alone_up_to_its_training_length_and_llama3_does_not():
    task = lookback(3)
    config = make_config(task, "rope")
    params = init_params(config, seed=3)
    tokens, _ = task.sample(5, 4, 32)
    as_trained = forward(params, tokens, config)
    with extended(config, "dynamic-ntk", 4, 32) as variant:
        assert variant == config
        assert np.array_equal(forward(params, tokens, variant), as_trained)
    with extended(config, "llama3", 4, 32) as variant:
        assert np.max(np.abs(forward(params, tokens, variant) - as_trained)) > 1e-3


def test_llama3_keeps_the_pairs_shorter_than_a_quarter_of_the_context_and_slows_the_rest():
    config = make_config(lookback(3), "rope", "1x32")
    shares = llama3_shares(config, 4)
    wavelengths = 2 * np.pi / (config.base ** (-np.arange(0, 32, 2) / 32))
    assert np.all(shares[wavelengths < 32 / 4] == 1)
    assert np.allclose(shares[wavelengths > 32], 0.25)
    between = (wavelengths >= 8) & (wavelengths <= 32)
    assert between.sum() == 2 and np.all((shares[between] > 0.25) & (shares[between] < 1))


def test_length_records_agree_with_the_study_on_the_methods_both_run():
    """The same fine-tune and scoring as context_extension_records, so the same numbers."""
    from posenc_lib.extension import context_extension_records

    task = lookback(3)
    config = make_config(task, "rope", train_len=8)
    result = train(config, task, steps=3, batch_size=2, length=8, seed=1, progress=False)
    kwargs = {"finetune_steps": 2, "finetune_batch": 2, "seed": 1, "n_tokens": 64}
    study = context_extension_records(result, task, factor=2, **kwargs)
    here = extension_length_records(
        result, task, factor=2, eval_lens=(8, 16), methods=EXTENSION_METHODS, **kwargs
    )
    key = ("method", "stage", "region")
    at_16 = {tuple(r[k] for k in key): r["value"] for r in here if r["eval_len"] == 16}
    assert {tuple(r[k] for k in key): r["value"] for r in study} == at_16


def test_after_fine_tuning_dynamic_ntk_is_scored_with_the_base_of_each_length():
    task = lookback(3)
    config = make_config(task, "rope", train_len=8)
    result = train(config, task, steps=3, batch_size=2, length=8, progress=False)
    records = extension_length_records(
        result,
        task,
        factor=2,
        eval_lens=(8, 16, 32),
        methods=["dynamic-ntk"],
        finetune_steps=1,
        finetune_batch=2,
        n_tokens=64,
    )
    after = {(r["eval_len"], r["region"]): r["value"] for r in records if r["stage"] == "after"}
    tuned = train(
        config.with_(base=config.base * 3 ** (8 / 6)),
        task,
        steps=1,
        batch_size=2,
        length=16,
        lr=3e-3,
        seed=0,
        progress=False,
        init=result.params,
    )
    # at 8 tokens (the training length) the tuned weights run at the trained base
    totals, counts = evaluate_positions(tuned.params, config, task, 8, n_tokens=64)
    assert after[(8, "all")] == pytest.approx(totals.sum() / counts.sum(), abs=1e-6)


# -- the committed sweep -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def committed():
    return load_extension_study()[0]


def test_the_committed_sweep_holds_every_model_method_stage_length_and_region(committed):
    models = {(r["task"], r["config"], r["seed"]) for r in committed}
    assert len(models) == len(FULL["tasks"]) * len(FULL["configs"]) * len(FULL["seeds"]) == 60
    per_model = len(LENGTH_METHODS) * 2 * (1 + 2 * (len(FULL["eval_lens"]) - 1))
    assert len(committed) == 60 * per_model
    assert {r["method"] for r in committed} == set(LENGTH_METHODS)
    assert {r["eval_len"] for r in committed} == set(FULL["eval_lens"])


def test_the_committed_sweep_scores_the_studys_own_models(committed):
    """Every record of the study's extension.json (128 tokens, five methods) is here, equal."""
    _, _, study = load_study()
    key = ("task", "config", "seed", "method", "stage", "region", "eval_len")
    here = {tuple(r[k] for k in key): r["value"] for r in committed}
    assert len(study) == 60 * len(EXTENSION_METHODS) * 2 * 2
    for r in study:
        assert here[tuple(r[k] for k in key)] == r["value"], r


def test_dynamic_ntk_scores_exactly_as_plain_rope_at_the_training_length_on_every_model(
    committed,
):
    at_32 = {
        (r["task"], r["config"], r["seed"], r["stage"], r["method"]): r["value"]
        for r in committed
        if r["eval_len"] == 32
    }
    befores = [k for k in at_32 if k[4] == "dynamic-ntk" and k[3] == "before"]
    assert len(befores) == 60
    for k in befores:
        assert at_32[k] == at_32[(*k[:4], "plain")]


def test_jobs_are_the_studys_rope_jobs_and_refusals_name_this_sweep():
    from posenc_lib.experiments import study_jobs

    jobs = extension_jobs(seeds=(0, 1), configs=("1x32",))
    assert jobs == study_jobs(
        ("lookback-3", "markov"), ("rope",), (0, 1), configs=("1x32",), extension=True
    )
    with pytest.raises(ValueError, match=r"^run_extension_study: steps must be"):
        STUDY_EXTENSION.run(steps=0, progress=False)
    with pytest.raises(ValueError, match=r"^extension_jobs: configs"):
        extension_jobs(configs=("8x4",))


@pytest.mark.slow
def test_a_committed_model_extended_again_reproduces_its_records(committed):
    """Retrained with one BLAS thread, as the sweep's workers run; values to float64 rounding."""
    from test_committed_data import same_values

    from posenc_lib import runner

    (job,) = extension_jobs(["markov"], seeds=(2,), configs=("1x32",))
    out = runner.one_blas_thread(train_and_extend, job)
    mine = [r for r in committed if (r["task"], r["config"], r["seed"]) == ("markov", "1x32", 2)]
    same_values(out["records"], mine)


def test_the_lengths_table_reads_every_method_at_every_length(committed):
    text = extension_lengths_table(committed, "lookback-3", config="4x8+mlp")
    lines = text.splitlines()
    assert lines[0] == (
        "lookback-3, configuration 4x8+mlp, set for 4 x the training length 32, before "
        "fine-tuning, unseen positions, 10 seeds"
    )
    assert lines[1].split() == ["method", "L=32", "L=64", "L=128", "L=256"]
    assert [line.split()[0] for line in lines[2:]] == list(LENGTH_METHODS)
    after = extension_lengths_table(committed, "markov", config="1x32", stage="after")
    assert "after 40 steps at 128" in after.splitlines()[0]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: llama3_shares("rope", 4),
            TypeError,
            "llama3_shares: config must be a ModelConfig",
        ),
        (
            lambda: llama3_shares(make_config(markov(), "alibi"), 4),
            ValueError,
            "llama3_shares: needs a RoPE model, got scheme 'alibi'",
        ),
        (
            lambda: llama3_shares(make_config(markov(), "rope"), 1),
            ValueError,
            "llama3_shares: factor",
        ),
        (
            lambda: extended(make_config(markov(), "rope"), "ntk-by-parts", 4, 64).__enter__(),
            ValueError,
            "extended: method",
        ),
        (
            lambda: extended(make_config(markov(), "rope"), "llama3", 4, 0).__enter__(),
            ValueError,
            "extended: length",
        ),
        (
            lambda: extension_length_records("model", markov()),
            TypeError,
            "extension_length_records: result must be a TrainResult",
        ),
        (
            lambda: extension_lengths_table([], "markov"),
            ValueError,
            "extension_lengths_table: records",
        ),
        (
            lambda: extension_lengths_table(load_extension_study()[0], "copy", config="1x32"),
            ValueError,
            "extension_lengths_table: ",
        ),
        (
            lambda: extension_lengths_table(load_extension_study()[0], "markov", stage="during"),
            ValueError,
            "extension_lengths_table: stage",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_function_and_the_argument(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith(words), str(caught.value)


def test_the_deployed_methods_are_the_two_the_issue_names_and_dynamic_ntk_is_also_generated():
    assert DEPLOYED_METHODS == ("llama3", "dynamic-ntk")
    assert LENGTH_METHODS == EXTENSION_METHODS + DEPLOYED_METHODS + (CACHED,)


def generate_with_cache(params, config, tokens, factor):
    """Hugging Face's dynamic-NTK layer generating token by token, written out for one layer, one
    head, no MLP: the prompt (the first L tokens) in one call at the trained base, then each new
    position's query and key turned with the base for the length so far; cached keys keep theirs."""
    length, d = tokens.shape[1], config.head_dim
    x = np.eye(config.vocab_size)[tokens] @ params["tok"]

    def norm(z):
        centred = z - z.mean(-1, keepdims=True)
        return centred / np.sqrt((centred * centred).mean(-1, keepdims=True) + 1e-5)

    def turn(vectors, position, inv_freq):  # interleaved pairs (0, 1), (2, 3), ...
        angle = position * np.repeat(inv_freq, 2)
        partner = np.stack([-vectors[..., 1::2], vectors[..., 0::2]], -1).reshape(vectors.shape)
        return vectors * np.cos(angle) + partner * np.sin(angle)

    y = norm(x)
    q, k, v = (y @ params[f"{n}0"] for n in ("wq", "wk", "wv"))
    keys = []
    outputs = []
    for i in range(length):
        step_len = max(i + 1, config.max_len)  # the prompt runs as one call of L tokens
        inv_freq = np.array(dynamic_inv_freq(config.base, d, factor, config.max_len, step_len))
        keys.append(turn(k[:, i], i, inv_freq))  # cached as turned at this step
        query = turn(q[:, i], i, inv_freq)
        scores = np.einsum("bd,jbd->bj", query, np.array(keys)) / np.sqrt(d)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        outputs.append(np.einsum("bj,jbd->bd", weights, v[:, : i + 1].transpose(1, 0, 2)))
    x = x + np.stack(outputs, 1) @ params["wo0"]
    return norm(x) @ params["out"]


def test_dynamic_ntk_cached_scores_what_token_by_token_generation_with_a_cache_predicts():
    task = lookback(3)
    config = make_config(task, "rope", "1x32")  # one layer, one head of 32, no MLP
    params = init_params(config, seed=2)
    tokens, _ = task.sample(4, 3, 96)
    with extended(config, CACHED, 4, 96):
        scored = forward(params, tokens, config)
    generated = generate_with_cache(params, config, tokens, 4.0)
    np.testing.assert_allclose(scored, generated, atol=1e-9)
    with extended(config, "dynamic-ntk", 4, 96) as one_pass:  # a different model past 32
        different = forward(params, tokens, one_pass)
    assert np.max(np.abs(different[:, 40:] - generated[:, 40:])) > 1e-3


def test_generating_with_a_start_token_turns_the_whole_prompt_at_the_trained_base():
    """The start token is not a token of the prompt's length: 32 tokens after it are the prompt."""
    task = lookback(3)
    config = make_config(task, "rope", "2L-4x8+mlp+bos")
    params = init_params(config, seed=1)
    tokens, _ = task.sample(6, 2, 40)
    as_trained = forward(params, tokens, config)
    with extended(config, CACHED, 4, 40):
        generated = forward(params, tokens, config)
    np.testing.assert_array_equal(generated[:, :32], as_trained[:, :32])
    assert np.max(np.abs(generated[:, 32:] - as_trained[:, 32:])) > 1e-6
