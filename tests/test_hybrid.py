"""Models whose layers treat positions differently (chapter 8): the layered forward pass, its
training and scoring, and the committed sweep that trains them short and tests them long.

The forward pass is checked against a reference built here from the chapters' functions, one
sequence, layer and head at a time: chapter 1's `self_attention` with a window mask, chapter 4's
`apply_rope` at the layer's base, or no rotation at all. With the same layer everywhere it is the
course's model bit for bit, and the sweep's all-RoPE and no-position models are chapter 6's.
"""

import numpy as np
import pytest
from test_model_reference import layer_norm  # the reference's layer norm, as the model's

from posenc_lib import apply_rope, causal_mask, self_attention
from posenc_lib.experiments import CONFIGS, TRAIN, load_study, make_config
from posenc_lib.hybrid import NOPE, PLANS, ROPE
from posenc_lib.hybrid_study import (
    FULL,
    HYBRID_CONFIGS,
    STUDY_CONFIG,
    STUDY_HYBRID,
    hybrid_jobs,
    load_hybrid_study,
)
from posenc_lib.model import (
    Layer,
    ModelConfig,
    _check_plan,
    evaluate_hybrid_positions,
    evaluate_positions,
    forward,
    hybrid_forward,
    hybrid_loss,
    init_params,
    train,
    train_hybrid,
    visible_keys,
)
from posenc_lib.tasks import TASKS, lookback, markov


def reference_forward(params, tokens, config, plan):
    """Logits (B, T, V), one sequence, layer and head at a time, from the chapters' functions."""
    out = []
    dh = config.head_dim
    for row in np.asarray(tokens):
        ids = ([config.vocab_size] if config.bos else []) + row.tolist()
        t = len(ids)
        x = params["tok"][ids]
        for layer, spec in enumerate(plan):
            mask = causal_mask(t)
            if spec.window is not None:  # query - key < window, as Hugging Face's sliding window
                mask = mask & ~np.tril(np.ones((t, t), dtype=bool), -spec.window)
            if spec.chunk is not None:  # the same chunk, as Meta's create_chunked_attention_mask
                block = np.arange(t) // spec.chunk
                mask = mask & (np.abs(block[:, None] - block[None, :]) == 0)

            def rotate(z, base=spec.base):
                return apply_rope(z, base=base)  # positions 0 .. T-1

            y = layer_norm(x)
            heads = []
            for head in range(config.n_heads):
                cols = slice(head * dh, (head + 1) * dh)
                heads.append(
                    self_attention(
                        y,
                        params[f"wq{layer}"][:, cols],
                        params[f"wk{layer}"][:, cols],
                        params[f"wv{layer}"][:, cols],
                        mask=mask,
                        rotate=rotate if spec.rope else None,
                    )[0]
                )
            x = x + np.concatenate(heads, axis=-1) @ params[f"wo{layer}"]
            if config.mlp:
                hidden = np.maximum(layer_norm(x) @ params[f"mlp_in{layer}"], 0.0)
                x = x + hidden @ params[f"mlp_out{layer}"]
        if config.bos:
            x = x[1:]
        out.append(layer_norm(x) @ params["out"])
    return np.stack(out)


def small(**changes):
    options = {"vocab_size": 7, "scheme": "rope", "d_model": 8, "n_heads": 2, "n_layers": 2}
    return ModelConfig(**{"mlp": True, **options, **changes})


TOKENS = np.random.default_rng(5).integers(0, 7, size=(2, 20))


@pytest.mark.parametrize("bos", [False, True], ids=["plain", "start-token"])
@pytest.mark.parametrize("name", list(PLANS))
def test_every_plan_equals_the_chapter_functions_layer_by_layer(name, bos):
    config = small(bos=bos)
    params = init_params(config, seed=2)
    np.testing.assert_allclose(
        hybrid_forward(params, TOKENS, config, PLANS[name]),
        reference_forward(params, TOKENS, config, PLANS[name]),
        atol=1e-10,
    )


def test_a_window_of_three_and_a_base_of_one_hundred_equal_the_reference():
    config = small(n_layers=3, bos=True)
    plan = (Layer(window=3), Layer(base=100.0), NOPE)
    params = init_params(config, seed=4)
    np.testing.assert_allclose(
        hybrid_forward(params, TOKENS, config, plan),
        reference_forward(params, TOKENS, config, plan),
        atol=1e-10,
    )


def test_the_plans_differ_from_each_other():
    """The reference comparison is not vacuous: each plan changes what the same weights give."""
    config = small(bos=True)
    params = init_params(config, seed=2)
    logits = {name: hybrid_forward(params, TOKENS, config, PLANS[name]) for name in PLANS}
    names = list(PLANS)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert np.max(np.abs(logits[a] - logits[b])) > 1e-3, (a, b)


@pytest.mark.parametrize("bos", [False, True])
@pytest.mark.parametrize(("plan", "scheme"), [("rope+rope", "rope"), ("nope+nope", "none")])
def test_the_same_layer_everywhere_is_the_courses_model_bit_for_bit(plan, scheme, bos):
    config = small(bos=bos)
    params = init_params(config, seed=1)
    assert np.array_equal(
        hybrid_forward(params, TOKENS, config, PLANS[plan]),
        forward(params, TOKENS, config.with_(scheme=scheme)),
    )


@pytest.mark.parametrize(("plan", "scheme"), [("rope+rope", "rope"), ("nope+nope", "none")])
def test_training_and_scoring_a_uniform_plan_is_the_courses_training_bit_for_bit(plan, scheme):
    task = lookback(3)
    config = make_config(task, "rope", STUDY_CONFIG)
    ours = train_hybrid(
        config, PLANS[plan], task, steps=15, length=32, seed=6, progress=False, **TRAIN
    )
    model = config.with_(scheme=scheme)
    theirs = train(model, task, steps=15, length=32, seed=6, progress=False, **TRAIN)
    assert ours.losses == theirs.losses
    assert all(np.array_equal(ours.params[k], theirs.params[k]) for k in theirs.params)
    a = evaluate_hybrid_positions(ours.params, config, PLANS[plan], task, 64, n_tokens=512)
    b = evaluate_positions(theirs.params, model, task, 64, n_tokens=512)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_a_layer_without_positions_cannot_tell_the_order_of_what_it_sees():
    """One NoPE layer, no start token: the last query's output depends on the set of earlier
    tokens, not their order (the causal mask only tells it which tokens come before)."""
    config = small(n_layers=1)
    params = init_params(config, seed=3)
    tokens = np.array([[1, 2, 3, 4, 5, 6]])
    shuffled = np.array([[4, 2, 5, 1, 3, 6]])
    a = hybrid_forward(params, tokens, config, (NOPE,))[0, -1]
    b = hybrid_forward(params, shuffled, config, (NOPE,))[0, -1]
    np.testing.assert_allclose(a, b, atol=1e-12)
    rotated = hybrid_forward(params, shuffled, config, (ROPE,))[0, -1]
    assert np.max(np.abs(rotated - hybrid_forward(params, tokens, config, (ROPE,))[0, -1])) > 1e-3


def test_a_window_hides_every_key_window_positions_back_or_more():
    config = small(n_layers=1)
    params = init_params(config, seed=3)
    plan = (Layer(window=4),)
    tokens = np.array([[1, 2, 3, 4, 5, 6, 0, 1]])
    last = hybrid_forward(params, tokens, config, plan)[0, -1]
    far, near = tokens.copy(), tokens.copy()
    far[0, -5] = 6  # 4 back: outside the window
    near[0, -4] = 6  # 3 back: inside it
    np.testing.assert_array_equal(hybrid_forward(params, far, config, plan)[0, -1], last)
    assert np.max(np.abs(hybrid_forward(params, near, config, plan)[0, -1] - last)) > 1e-3


def test_a_chunk_hides_every_key_of_an_earlier_chunk():
    config = small(n_layers=1)
    params = init_params(config, seed=3)
    plan = (Layer(chunk=4),)
    tokens = np.array([[1, 2, 3, 4, 5, 6, 0, 1]])  # chunks 0-3 and 4-7
    last = hybrid_forward(params, tokens, config, plan)[0, -1]
    earlier, same = tokens.copy(), tokens.copy()
    earlier[0, 3] = 0  # the previous chunk
    same[0, 4] = 0  # the last query's own chunk
    np.testing.assert_array_equal(hybrid_forward(params, earlier, config, plan)[0, -1], last)
    assert np.max(np.abs(hybrid_forward(params, same, config, plan)[0, -1] - last)) > 1e-3
    assert visible_keys(8, chunk=4).sum(axis=1).tolist() == [1, 2, 3, 4, 1, 2, 3, 4]


def test_the_llama_4_plan_chunks_its_rope_layer_and_leaves_positions_out_of_the_top():
    bottom, top = PLANS["chunk+nope"]
    assert (bottom.rope, bottom.chunk, bottom.window, top.rope, top.chunk) == (
        True,
        8,
        None,
        False,
        None,
    )
    assert PLANS["chunk+rope"] == (bottom, ROPE)
    assert [PLANS[f"local{w}+rope"][0].window for w in (4, 16)] == [4, 16]


def test_a_window_and_a_chunk_are_given_as_plain_integers_and_not_together():
    assert type(Layer(window=np.int64(4)).window) is int
    with pytest.raises(ValueError, match="Layer: give a window or a chunk, not both"):
        Layer(window=4, chunk=8)


def test_visible_keys_is_the_causal_mask_without_a_window():
    assert np.array_equal(visible_keys(9), causal_mask(9))
    assert visible_keys(9, window=3).sum(axis=1).tolist() == [1, 2, 3, 3, 3, 3, 3, 3, 3]


def test_the_loss_is_the_mean_over_targets_of_minus_log_p():
    config = small()
    params = init_params(config, seed=0)
    tokens = TOKENS[:, :6]
    targets = np.where(np.arange(6) < 2, -1, tokens)
    logits = hybrid_forward(params, tokens, config, PLANS["rope+nope"])
    logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(logp, np.maximum(targets, 0)[..., None], axis=-1)[..., 0]
    expected = -picked[targets >= 0].mean()
    assert float(hybrid_loss(params, tokens, targets, config, PLANS["rope+nope"])) == pytest.approx(
        expected, abs=1e-12
    )


def test_the_gemma_3_plan_uses_gemma_3s_two_bases_and_a_window():
    local, global_ = PLANS["local+global"]
    assert (local.base, local.window, global_.base, global_.window) == (1e4, 8, 1e6, None)
    assert PLANS["local4+global"] == (Layer(base=1e4, window=4), global_)
    assert PLANS["rope+global"][1] == global_ and PLANS["local+rope"][0].window == 8
    assert PLANS["rope+nope"] == (ROPE, NOPE) and ROPE.base == 1e4


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: Layer(base=1.0), "Layer: base must be"),
        (lambda: Layer(rope="yes"), "Layer: rope must be"),
        (lambda: Layer(window=2.5), "Layer: window must be an integer"),
        (lambda: _check_plan("f", "rope+nope", small()), "f: plan must be a sequence of Layers"),
        (lambda: _check_plan("f", (ROPE, ROPE, ROPE), small()), "n_layers=2), got 3 Layers"),
        (lambda: _check_plan("f", [ROPE, "nope"], small()), "f: plan must be a sequence of Layers"),
        (lambda: _check_plan("f", (ROPE, ROPE), small(scheme="none")), "config.scheme must be"),
        (lambda: hybrid_forward({}, TOKENS, small(), (ROPE, ROPE)), "params has no"),
        (
            lambda: train_hybrid(small(), (ROPE, ROPE), markov(vocab_size=5), steps=1),
            "task markov has vocab_size 5 but the model has 7",
        ),
        (
            lambda: evaluate_hybrid_positions(
                init_params(small()), small(), (ROPE, NOPE), lookback(3, vocab_size=7), 0
            ),
            "length must be an integer >= 1, got 0",
        ),
    ],
)
def test_bad_input_names_the_argument_and_the_value(call, message):
    with pytest.raises(
        (TypeError, ValueError), match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        call()


# -- the committed sweep -------------------------------------------------------------------------


def test_the_sweeps_jobs_cover_every_task_plan_configuration_and_seed():
    jobs = hybrid_jobs(**FULL)
    assert len(jobs) == 3 * 13 * 2 * 10 == 780
    assert {j["config"] for j in jobs} == set(HYBRID_CONFIGS)
    assert HYBRID_CONFIGS["2L-4x8+mlp"] == {**CONFIGS[STUDY_CONFIG], "bos": False}
    with pytest.raises(ValueError, match="hybrid_jobs: eval_lens must include train_len=32"):
        hybrid_jobs(eval_lens=(64,))


def test_the_committed_sweep_holds_every_model_at_every_length():
    records, curves = load_hybrid_study()
    assert len({(r["task"], r["layers"], r["config"], r["seed"]) for r in records}) == 780
    assert len(curves) == 780 and {c["eval_len"] for c in curves} == {256}
    assert {(r["eval_len"], r["region"]) for r in records} == {
        (32, "all"),
        *((n, region) for n in (64, 128, 256) for region in ("all", "unseen")),
    }


@pytest.mark.parametrize(("plan", "scheme"), [("rope+rope", "rope"), ("nope+nope", "none")])
def test_the_uniform_plans_are_the_studys_two_layer_models_record_for_record(plan, scheme):
    records, _ = load_hybrid_study()
    study = load_study()[0]
    ours = {
        (r["task"], r["seed"], r["eval_len"], r["region"]): r["value"]
        for r in records
        if r["layers"] == plan and r["config"] == STUDY_CONFIG
    }
    theirs = {
        (r["task"], r["seed"], r["eval_len"], r["region"]): r["value"]
        for r in study
        if r["scheme"] == scheme and r["config"] == STUDY_CONFIG
    }
    assert len(ours) == 3 * 10 * 7 and ours == theirs


def test_the_curves_sum_to_the_records_at_256():
    records, curves = load_hybrid_study()
    value = {
        (r["task"], r["layers"], r["config"], r["seed"]): r["value"]
        for r in records
        if r["eval_len"] == 256 and r["region"] == "all"
    }
    for c in curves:
        key = (c["task"], c["layers"], c["config"], c["seed"])
        assert sum(c["totals"]) / sum(c["counts"]) == pytest.approx(value[key], abs=1e-6)


def test_the_sweep_is_registered_as_committed_data():
    from posenc_lib.committed import SWEEPS

    assert SWEEPS["study-hybrid"] is STUDY_HYBRID
    assert sorted(TASKS) == sorted(FULL["tasks"])


@pytest.mark.slow
def test_a_committed_model_trained_again_reproduces_its_records():
    """Witness: the Gemma 3 plan, no start token, on the Markov chain, seed 3, retrained with one
    BLAS thread as the sweep's workers run; values to float64 rounding, curve to its digits."""
    from test_committed_data import same_values

    from posenc_lib import runner
    from posenc_lib.hybrid_study import train_and_score

    (job,) = hybrid_jobs(["markov"], ["local+global"], seeds=(3,), configs=("2L-4x8+mlp",))
    out = runner.one_blas_thread(train_and_score, job)
    records, curves = load_hybrid_study()

    def mine(rows):
        key = ("markov", "local+global", "2L-4x8+mlp", 3)
        return [r for r in rows if (r["task"], r["layers"], r["config"], r["seed"]) == key]

    same_values(out["records"], mine(records))
    same_values([out["curve"]], mine(curves), curve_digits=6)


def test_the_witness_models_score_as_their_committed_records():
    """Gemma 3's pattern on lookback-3, ten seeds, kept with the data, re-scored at 32 and 256."""
    from posenc_lib.hybrid_study import load_witness

    records, _ = load_hybrid_study()
    task = lookback(3)
    for seed in range(10):
        params, config, plan = load_witness(seed)
        for r in records:
            if (r["task"], r["layers"], r["config"], r["seed"], r["region"]) == (
                "lookback-3",
                "local+global",
                STUDY_CONFIG,
                seed,
                "all",
            ) and r["eval_len"] in (32, 256):
                totals, counts = evaluate_hybrid_positions(
                    params, config, plan, task, r["eval_len"]
                )
                assert totals.sum() / counts.sum() == pytest.approx(r["value"], abs=1e-12)
