"""The synthetic tasks of chapter 6 draw what their docstrings say: every token of the vocabulary,
markers at the stated density, targets by the stated rule, and the Markov chain's entropy; and each
task's honest floors (chance and the best rule without positions) are what playing them scores."""

import numpy as np
import pytest

from posenc_lib.tasks import (
    IGNORE,
    TASKS,
    Task,
    chance_level,
    has_target,
    lookback,
    markov,
    markov_entropy,
    markov_transitions,
    position_free_levels,
    position_free_scores,
    recent_marker,
)


def test_the_study_tasks_are_named_by_their_keys():
    assert list(TASKS) == ["lookback-3", "recent-marker", "markov"]
    assert {name: make().name for name, make in TASKS.items()} == {k: k for k in TASKS}


def test_lookback_draws_every_token_and_targets_the_token_k_back():
    task = lookback(2, vocab_size=5)
    assert (task.name, task.vocab_size, task.metric) == ("lookback-2", 5, "accuracy")
    assert task.description == "predict the token 2 positions back"
    tokens, targets = task.sample(3, 50, 9)
    assert tokens.shape == targets.shape == (50, 9)
    assert set(np.unique(tokens)) == set(range(5))
    np.testing.assert_array_equal(targets[:, :2], IGNORE)
    np.testing.assert_array_equal(targets[:, 2:], tokens[:, :-2])
    short_tokens, short_targets = task.sample(3, 4, 2)  # no position has a token 2 back
    assert short_tokens.shape == (4, 2) and np.all(short_targets == IGNORE)


def test_recent_marker_draws_markers_at_the_density_and_targets_the_latest():
    task = recent_marker(n_markers=3, vocab_size=7, density=0.25)
    assert (task.name, task.vocab_size, task.metric) == ("recent-marker", 7, "accuracy")
    assert task.description == "repeat the most recent of 3 marker tokens (25% of positions)"
    tokens, targets = task.sample(1, 400, 30)
    assert tokens.shape == targets.shape == (400, 30)
    is_marker = tokens < 3
    assert is_marker.mean() == pytest.approx(0.25, abs=0.01)
    assert set(np.unique(tokens[is_marker])) == {0, 1, 2}
    assert set(np.unique(tokens[~is_marker])) == {3, 4, 5, 6}
    for row, target in zip(tokens[:20], targets[:20], strict=True):
        latest = IGNORE
        for token, expected in zip(row, target, strict=True):
            latest = token if token < 3 else latest
            assert expected == latest
    starts = tokens[:, 0] < 3  # a marker at position 0 is its own target
    assert starts.any() and np.all(targets[starts, 0] == tokens[starts, 0])


def test_a_density_of_one_makes_every_token_a_marker():
    tokens, targets = recent_marker(n_markers=2, vocab_size=5, density=1.0).sample(0, 5, 8)
    assert np.all(tokens < 2) and np.array_equal(targets, tokens)


def test_markov_text_starts_uniformly_and_targets_the_next_token():
    task = markov(vocab_size=4, concentration=0.5, seed=2)
    assert (task.name, task.vocab_size, task.metric) == ("markov", 4, "loss")
    assert task.description == "next token of an order-2 Markov chain (loss in nats per token)"
    tokens, targets = task.sample(0, 300, 6)
    assert tokens.shape == targets.shape == (300, 6)
    for column in (0, 1):  # the two start tokens: uniform over the vocabulary
        counts = np.bincount(tokens[:, column], minlength=4)
        assert counts.min() > 50, counts
    np.testing.assert_array_equal(targets[:, 0], IGNORE)
    np.testing.assert_array_equal(targets[:, 1:-1], tokens[:, 2:])
    assert np.all((targets[:, -1] >= 0) & (targets[:, -1] < 4))


def test_the_transition_table_is_a_seeded_dirichlet_draw():
    table = markov_transitions(vocab_size=3, concentration=2.0, seed=4)
    expected = np.random.default_rng(4).dirichlet(np.full(3, 2.0), size=(3, 3))
    np.testing.assert_array_equal(table, expected)


def test_the_entropy_is_the_stationary_average_of_each_contexts_entropy():
    vocab, concentration, seed = 3, 0.7, 5
    table = markov_transitions(vocab, concentration, seed)
    # the chain of pairs (a, b) -> (b, c): its stationary distribution by an eigenvector
    transition = np.zeros((vocab * vocab, vocab * vocab))
    for a in range(vocab):
        for b in range(vocab):
            for c in range(vocab):
                transition[a * vocab + b, b * vocab + c] = table[a, b, c]
    values, vectors = np.linalg.eig(transition.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    stationary /= stationary.sum()
    entropy = -np.sum(table * np.log(table), axis=-1).reshape(-1)
    assert markov_entropy(vocab, concentration, seed) == pytest.approx(
        float(stationary @ entropy), rel=1e-9
    )


def test_has_target_is_false_exactly_where_the_target_is_ignore():
    np.testing.assert_array_equal(has_target([[-1, 0, 3], [2, -1, -1]]), [[0, 1, 1], [1, 0, 0]])
    with pytest.raises(TypeError, match=r"^has_target: targets must be integers"):
        has_target([0.5])


def test_a_task_samples_from_the_generator_or_seed_it_is_given():
    task = lookback(1)
    first = task.sample(np.random.default_rng(9), 2, 5)
    np.testing.assert_array_equal(first[0], task.sample(9, 2, 5)[0])
    assert not np.array_equal(task.sample(1, 2, 5)[0], task.sample(2, 2, 5)[0])
    np.testing.assert_array_equal(task.sample(None, 2, 5)[0], task.sample(0, 2, 5)[0])


def test_a_task_needs_a_name_a_metric_it_knows_and_a_sampler():
    with pytest.raises(TypeError, match=r"^Task: name must be a non-empty str, got ''$"):
        Task("", 4, "loss", lambda rng, b, n: None)
    with pytest.raises(ValueError, match=r"^Task: metric must be one of 'accuracy', 'loss'"):
        Task("t", 4, "perplexity", lambda rng, b, n: None)
    assert Task("t", 4, "loss", lambda rng, b, n: None).description == ""


# -- honest floors -------------------------------------------------------------------------------


def test_chance_is_the_best_constant_guess_of_each_answer_distribution():
    assert chance_level(lookback(3)) == 1 / 16
    assert chance_level(recent_marker()) == 0.25  # always one of the 4 markers
    tokens, targets = recent_marker().sample(0, 64, 64)
    assert set(np.unique(targets[targets >= 0]).tolist()) == {0, 1, 2, 3}
    p = np.asarray(markov().answers)
    _, targets = markov().sample(0, 256, 128)
    observed = np.bincount(targets[targets >= 0], minlength=16) / np.sum(targets >= 0)
    np.testing.assert_allclose(observed, p, atol=0.01)  # the stationary marginal
    assert chance_level(markov()) == pytest.approx(-np.sum(p * np.log(p)))
    assert chance_level(markov()) < np.log(16)


@pytest.mark.parametrize("name", ["lookback-3", "recent-marker"])
def test_position_free_expected_accuracy_matches_playing_the_rule(name):
    """The rule's expected accuracy (max count / total) equals what guessing by it scores."""
    task = TASKS[name]()
    tokens, targets = task.sample(5, 400, 96)
    expected = task.position_free(tokens, targets)
    one_hot = tokens[..., None] == np.arange(16)
    before = np.cumsum(one_hot, axis=1) - one_hot
    if name == "recent-marker":
        before[..., 4:] = 0
    noise = np.random.default_rng(1).random(before.shape) * 1e-3  # random tie-breaking
    guess = np.argmax(before + noise, axis=-1)
    if name == "recent-marker":
        guess = np.where(tokens < 4, tokens, guess)
    played = guess == targets
    present = targets >= 0
    assert np.mean(played[:, 32:][present[:, 32:]]) == pytest.approx(
        np.nanmean(expected[:, 32:]), abs=0.01
    )


def test_position_free_rules_beat_other_rules_that_ignore_positions():
    tokens, targets = recent_marker().sample(7, 400, 128)
    best = np.nanmean(recent_marker().position_free(tokens, targets)[:, 32:])
    present = targets[:, 32:] >= 0
    # "the marker seen most often, the current token counted like any other" (no special case)
    one_hot = (tokens[..., None] == np.arange(4)).cumsum(axis=1)
    mode = np.argmax(one_hot + np.random.default_rng(0).random(one_hot.shape) * 1e-3, -1)
    assert np.mean((mode == targets)[:, 32:][present]) < best - 0.05
    assert 0.25 < best < 0.6
    tokens, targets = markov().sample(7, 200, 64)
    loss = np.nanmean(markov().position_free(tokens, targets)[:, 1:])
    assert markov_entropy() < loss < chance_level(markov())
    # better than the chain's P(next | current token) alone, averaged over the token before
    table = markov_transitions()
    pairs = np.full((16, 16), 1 / 256)
    for _ in range(200):
        pairs = np.einsum("ab,abc->bc", pairs, table)
    one_back = np.einsum("ab,abc->bc", pairs, table) / pairs.sum(0)[:, None]
    current_only = -np.log(one_back[tokens[:, 1:], targets[:, 1:]]).mean()
    assert loss < current_only - 0.05


def test_position_free_levels_follow_the_study_regions():
    task = lookback(3)
    levels = position_free_levels(task, (32, 64), 32, n_tokens=2048)
    totals, counts = position_free_scores(task, 64, n_tokens=2048)
    assert levels[64] == pytest.approx(totals[32:].sum() / counts[32:].sum())
    totals, counts = position_free_scores(task, 32, n_tokens=2048)
    assert levels[32] == pytest.approx(totals.sum() / counts.sum())
    with pytest.raises(ValueError, match="has no position-free rule"):
        position_free_scores(Task("t", 4, "loss", lookback(1, 4).sampler), 8)
