"""Chapter 06's six committed models (`posenc_lib.study_models`) are what the study's code makes.

The chapter loads them instead of training them (issue 38: a chapter within 30 s on one core).
Fast: their provenance names the code as it is now, and the RoPE one is the study's own witness,
parameter for parameter. Slow tier: all six reproduce the study's records and curves when scored
again, and one of them trained again from scratch has the same parameters and losses.
"""

import numpy as np
import pytest

from posenc_lib import experiments, records, runner, study_models, sweep


def rope_job():
    (job,) = [j for j in study_models.jobs() if j["scheme"] == "rope"]
    return job


def test_the_committed_models_name_the_code_that_makes_them():
    assert study_models.stale() == []


def test_the_six_models_are_the_studys_seed_0_on_lookback_3():
    models = study_models.load()
    assert sorted(models) == sorted(("lookback-3", scheme, 0) for scheme in experiments.SCHEMES)
    for model in models.values():
        assert len(model.losses) == experiments.STEPS
        assert model.config == experiments.make_config(
            experiments.TASKS["lookback-3"](), model.config.scheme, experiments.DEFAULT_CONFIG
        )


def test_the_committed_rope_model_is_the_studys_witness():
    job = rope_job()
    assert sweep.is_witness(experiments.STUDY, job)
    witness = dict(np.load(sweep.witness_path(experiments.STUDY.directory, job)))
    params = study_models.load()[("lookback-3", "rope", 0)].params
    assert sorted(params) == sorted(witness)
    for name, value in witness.items():
        np.testing.assert_array_equal(params[name], value, err_msg=name)


@pytest.mark.slow
def test_the_committed_models_reproduce_the_studys_records_and_curves():
    made, curves = study_models.score(study_models.load())
    results, committed_curves, _ = experiments.load_study()
    wanted = dict(task="lookback-3", config=experiments.DEFAULT_CONFIG, seed=0, region=None)
    key = ("scheme", "eval_len", "region")
    committed = {tuple(r[k] for k in key): r for r in records.select(results, **wanted)}
    assert sorted(tuple(r[k] for k in key) for r in made) == sorted(committed)
    for record in made:
        value = committed[tuple(record[k] for k in key)]["value"]
        assert (record["value"] is None) == (value is None), record
        if value is not None:
            assert record["value"] == pytest.approx(value, rel=1e-9, abs=1e-12), record
    by_scheme = {c["scheme"]: c for c in records.select(committed_curves, **wanted)}
    assert sorted(by_scheme) == sorted(c["scheme"] for c in curves)
    for curve in curves:
        np.testing.assert_array_equal(curve["totals"], by_scheme[curve["scheme"]]["totals"])
        np.testing.assert_array_equal(curve["counts"], by_scheme[curve["scheme"]]["counts"])


@pytest.mark.slow
def test_a_committed_model_trained_again_has_the_same_parameters_and_losses():
    (job,) = [j for j in study_models.jobs() if j["scheme"] == "alibi"]
    trained = runner.one_blas_thread(experiments.train_and_measure, job)["result"]
    committed = study_models.load()[("lookback-3", "alibi", 0)]
    assert sorted(trained.params) == sorted(committed.params)
    for name, value in committed.params.items():
        np.testing.assert_allclose(trained.params[name], value, rtol=1e-6, atol=1e-9, err_msg=name)
    np.testing.assert_allclose(trained.losses, committed.losses, rtol=1e-6, atol=1e-9)
