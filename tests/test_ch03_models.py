"""Chapter 03's two committed comparison models (`posenc_lib.ch03_models`) are what the code makes.

The chapter loads them instead of training them (issue 38: a chapter within 10 s on one core).
Fast: their provenance names the code as it is now and they are the runs the chapter describes.
Slow tier: both trained again have the same parameters, snapshots and losses.
"""

import numpy as np
import pytest

from posenc_lib import ch03_models


def test_the_committed_models_name_the_code_that_makes_them():
    assert ch03_models.stale() == []


def test_the_two_runs_are_the_chapters_model_with_one_thing_changed():
    runs = ch03_models.load()
    assert runs["none"].config == ch03_models.CONFIG.with_(scheme="none")
    assert runs["wide"].config == ch03_models.CONFIG.with_(learned_init_std=1.0)
    assert [len(runs[name].losses) for name in ("none", "wide")] == [300, 150]
    assert runs["none"].snapshots == {} and sorted(runs["wide"].snapshots) == [0, 150]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ch03_models.RUNS))
def test_a_committed_model_trained_again_is_the_same(name):
    trained, committed = ch03_models.train_run(name), ch03_models.load()[name]
    assert sorted(trained.params) == sorted(committed.params)
    for key, value in committed.params.items():
        np.testing.assert_allclose(trained.params[key], value, rtol=1e-6, atol=1e-9, err_msg=key)
    np.testing.assert_allclose(trained.losses, committed.losses, rtol=1e-6, atol=1e-9)
    assert sorted(trained.snapshots) == sorted(committed.snapshots)
    for step, params in committed.snapshots.items():
        for key, value in params.items():
            np.testing.assert_allclose(trained.snapshots[step][key], value, rtol=1e-6, atol=1e-9)
