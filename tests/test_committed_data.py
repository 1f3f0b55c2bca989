"""The committed data of chapters 06 and 07 are what the code makes, checked two ways, in seconds.

- Provenance (tests/test_provenance.py): every committed file records its settings, the versions
  that made it and a hash of the code that produces it (`posenc_lib.provenance.code_hash`); when
  that code or the settings change and the data were not regenerated, a test names the file and
  the command that regenerates it.
- Retrain and compare: a sample of committed cells is made again here, exactly (the model trains
  in float64, so the numbers do not depend on the machine beyond rounding): one study model
  trained from scratch, its records and curve; the study's witness RoPE model (its trained
  parameters are committed beside the data) re-scored, and its NTK context extension fine-tuned
  again; chapter 07's witness re-scored in both modes, records and curves.
"""

import numpy as np
import pytest

from posenc_lib import experiments, extension, realtext, records, runner, sweep
from posenc_lib.corpus import load_corpus
from posenc_lib.model import SCHEMES, TrainResult, evaluate_positions
from posenc_lib.tasks import TASKS

SWEEPS = {"study": experiments.STUDY, "realtext": realtext.REALTEXT}


def same_values(made, committed, *, curve_digits=None):
    """Records equal field by field; values to float64 rounding, curve totals to their digits."""
    assert len(made) == len(committed)
    for a, b in zip(made, committed, strict=True):
        assert {k: v for k, v in a.items() if k not in ("value", "totals")} == {
            k: v for k, v in b.items() if k not in ("value", "totals")
        }
        if "value" in a:
            assert (a["value"] is None) == (b["value"] is None), (a, b)
            if a["value"] is not None:
                assert a["value"] == pytest.approx(b["value"], rel=1e-9, abs=1e-12), (a, b)
        if "totals" in a:
            tolerance = 0 if curve_digits == 0 else 1.5 * 10.0**-curve_digits
            np.testing.assert_allclose(a["totals"], b["totals"], rtol=0, atol=tolerance)


# -- retrain and compare ------------------------------------------------------------------------


def committed_study():
    return experiments.load_study()


def study_job(task, scheme, *, extension=False):
    (job,) = experiments.full_study_jobs([task], [scheme], extension=extension)
    return job


def committed_of(rows, job, **more):
    return records.select(
        rows,
        task=job["task"],
        scheme=job["scheme"],
        config=job["config"],
        seed=job["seed"],
        region=None,
        **more,
    )


def test_a_study_model_trained_again_reproduces_its_committed_records_and_curve():
    results, curves, _ = committed_study()
    job = study_job("markov", "sinusoidal")  # a loss task: curve totals with 6 decimals
    out = runner.one_blas_thread(experiments.train_and_measure, job)
    same_values(out["records"], committed_of(results, job))
    same_values([out["curve"]], committed_of(curves, job), curve_digits=6)


def test_the_study_witness_reproduces_its_records_curve_and_ntk_extension():
    results, curves, extended = committed_study()
    job = study_job("lookback-3", "rope", extension=True)
    path = sweep.witness_path(experiments.STUDY.directory, job)
    assert sweep.is_witness(experiments.STUDY, job) and path.exists(), path
    params = dict(np.load(path))
    task = TASKS[job["task"]]()
    config = experiments.make_config(task, "rope", job["config"], train_len=job["train_len"])
    scored = {
        (n,): evaluate_positions(params, config, task, n, n_tokens=job["n_tokens"])
        for n in job["eval_lens"]
    }
    base = {k: job[k] for k in experiments.RECORD_FIELDS}
    made = records.region_records(base, scored, job["train_len"], task.metric)
    same_values(made, committed_of(results, job))
    longest = max(job["eval_lens"])
    curve = records.curve_record(
        base, {"eval_len": longest}, task.metric, *scored[(longest,)], digits=0
    )
    same_values([curve], committed_of(curves, job), curve_digits=0)
    options = {k: v for k, v in extension.EXTENSION.items() if k != "tasks"}
    ntk = runner.one_blas_thread(
        lambda _: extension.context_extension_records(
            TrainResult(config, params, [], {}),
            task,
            seed=job["seed"],
            config_name=job["config"],
            methods=["ntk"],
            **options,
        ),
        job,
    )
    same_values(ntk, committed_of(extended, job, method="ntk"))


def test_the_budget_study_continues_the_studys_own_models():
    """study-budget trains seeds 0-2 of the default configuration for 2,000 steps; with the same
    seeded batches and a constant learning rate its first 400 steps are the study's models, so
    its validation curve at step 400 is the study's final value, exactly (both committed from one
    machine), and its records cover every task and scheme at every length."""
    budget, curves, extended, budget_training = experiments.STUDY_BUDGET.load()
    training = experiments.load_training()
    options = experiments.STUDY_BUDGET.options
    assert options["steps"] == 5 * experiments.STEPS and options["seeds"] == tuple(range(3))
    assert {(r["task"], r["scheme"], r["seed"]) for r in budget_training} == {
        (t, s, seed) for t in experiments.TASKS for s in SCHEMES for seed in range(3)
    }
    final = {
        (r["task"], r["scheme"], r["seed"]): r["values"][-1]
        for r in records.select(training, config=experiments.DEFAULT_CONFIG)
    }
    for r in budget_training:
        assert r["steps"][-1] == 2000 and r["config"] == experiments.DEFAULT_CONFIG
        at_400 = r["values"][r["steps"].index(experiments.STEPS)]
        assert at_400 == final[(r["task"], r["scheme"], r["seed"])], r
    assert len(budget) == 3 * 6 * 3 * 7  # 4 lengths: all at each, unseen past the first
    assert len(curves) == 3 * 5 * 3 and {r["method"] for r in extended} >= {"plain", "yarn"}


def test_the_real_text_witness_reproduces_its_records_and_curves_in_both_modes():
    results, curves = realtext.load_sweep()
    (job,) = realtext.sweep_jobs(
        ["sinusoidal"],
        [0],
        **{k: realtext.FULL[k] for k in ("steps", "train_len", "eval_lens", "n_scored")},
    )
    path = sweep.witness_path(realtext.REALTEXT.directory, job)
    assert sweep.is_witness(realtext.REALTEXT, job) and path.exists(), path
    params = dict(np.load(path))
    config = realtext.model_config("sinusoidal", train_len=job["train_len"])
    ids = realtext.evaluation_ids(load_corpus().validation, job["start"])
    sample = (job["train_len"], 2 * job["train_len"], max(job["eval_lens"]))
    bits = {
        (n, mode): realtext.char_bits(
            params,
            config,
            *realtext.windows(ids, n, mode, n_scored=job["n_scored"], start=job["start"]),
        )
        for n in sample
        # both modes at twice the training length, where both have an unseen region
        for mode in (realtext.MODES if n == sample[1] else ("nonoverlapping",))
    }
    scored = {key: realtext.position_sums(b) for key, b in bits.items()}
    base = {k: job[k] for k in realtext.RECORD_FIELDS}
    made = records.region_records(base, scored, job["train_len"], realtext.METRIC, keys=("mode",))
    committed = [r for r in committed_of(results, job) if (r["eval_len"], r["mode"]) in scored]
    same_values(made, committed)
    made_curves = [
        records.curve_record(
            base,
            {"eval_len": n, "mode": "nonoverlapping"},
            realtext.METRIC,
            *scored[n, "nonoverlapping"],
            digits=3,
        )
        for n in (job["train_len"], max(sample))
    ]
    committed_curves = [dict(c) for c in committed_of(curves, job)]
    # the long chunks' extra bits over the same characters in chunks of the training length
    longest, short = bits[max(sample), "nonoverlapping"], bits[job["train_len"], "nonoverlapping"]
    excess = (longest.ravel() - short.ravel()).reshape(-1, max(sample)).sum(0)
    np.testing.assert_allclose(excess, committed_curves[-1].pop("excess"), rtol=0, atol=1.5e-3)
    same_values(made_curves, committed_curves, curve_digits=3)


def test_a_built_wheel_carries_every_committed_data_file():
    """Package data (pyproject.toml) covers every file under posenc_lib/data, so an installed
    package (Colab, an empty directory) finds the committed sweeps: load_study() reads them."""
    import fnmatch

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    root = sweep.DATA.parent
    with open(root.parent / "pyproject.toml", "rb") as file:
        patterns = tomllib.load(file)["tool"]["setuptools"]["package-data"]["posenc_lib"]
    files = [
        p.relative_to(root).as_posix()
        for p in sweep.DATA.rglob("*")
        if p.is_file() and p.name not in ("progress.jsonl", "results.png")
    ]
    assert any(f.startswith("data/study/") for f in files) and any(
        f.startswith("data/realtext/") for f in files
    )
    assert [f for f in files if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)] == []
