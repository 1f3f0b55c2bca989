"""The synthetic tasks of chapter 6 draw what their docstrings say: every token of the vocabulary,
markers at the stated density, targets by the stated rule, and the Markov chain's entropy; and each
task's honest floors (chance and the best rule without positions) are what playing them scores."""

import numpy as np
import pytest

from posenc_lib import tasks
from posenc_lib.tasks import (
    IGNORE,
    TASKS,
    Task,
    chance_level,
    chance_levels,
    chance_scores,
    has_target,
    lookback,
    markov,
    markov_entropy,
    markov_entropy_given_current,
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


def test_recent_marker_states_its_rule_its_answers_and_its_best_score():
    task = recent_marker(n_markers=3, vocab_size=7, density=0.25)
    assert task.position_free_rule == (
        "the current token if it is a marker, else the marker seen most often"
    )
    assert task.best_possible == 1.0  # one right answer at every target
    assert task.answers == (1 / 3, 1 / 3, 1 / 3, 0.0, 0.0, 0.0, 0.0)  # the markers, equally


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


def stationary_pairs_by_eigenvector(table):
    """P(a, b) of the chain of pairs (a, b) -> (b, c), from an eigenvector, written with loops."""
    vocab = table.shape[0]
    transition = np.zeros((vocab * vocab, vocab * vocab))
    for a in range(vocab):
        for b in range(vocab):
            for c in range(vocab):
                transition[a * vocab + b, b * vocab + c] = table[a, b, c]
    values, vectors = np.linalg.eig(transition.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return (stationary / stationary.sum()).reshape(vocab, vocab)


def test_the_entropy_is_the_stationary_average_of_each_contexts_entropy():
    vocab, concentration, seed = 3, 0.7, 5
    table = markov_transitions(vocab, concentration, seed)
    stationary = stationary_pairs_by_eigenvector(table).reshape(-1)
    entropy = -np.sum(table * np.log(table), axis=-1).reshape(-1)
    assert markov_entropy(vocab, concentration, seed) == pytest.approx(
        float(stationary @ entropy), rel=1e-9
    )


def test_the_entropy_given_the_current_token_weighs_each_current_tokens_next_token_entropy():
    """H(next | current) = sum over b of P(b) H(next | current = b), with P(next = c | b) from the
    stationary pairs: written with loops, from an eigenvector of the chain of pairs."""
    vocab, concentration, seed = 3, 0.7, 5
    table = markov_transitions(vocab, concentration, seed)
    stationary = stationary_pairs_by_eigenvector(table)  # P(previous, current)
    expected = 0.0
    for b in range(vocab):
        p_current = stationary[:, b].sum()  # the current token's stationary probability
        for c in range(vocab):
            p_next = sum(stationary[a, b] * table[a, b, c] for a in range(vocab)) / p_current
            expected -= p_current * p_next * np.log(p_next)
    got = markov_entropy_given_current(vocab, concentration, seed)
    assert got == pytest.approx(expected, rel=1e-9)
    assert markov_entropy(vocab, concentration, seed) < got < np.log(vocab)


@pytest.mark.parametrize(("vocab", "concentration"), [(2, 0.1), (3, 0.01)])
def test_the_entropy_given_the_current_token_lies_between_the_two_token_entropy_and_chance(
    vocab, concentration
):
    """Seeing one token back never beats seeing two (H(next | current) >= H(next | previous two)),
    and it is never worse than chance, ln(vocab): the docstring's bounds, on sharp two- and
    three-token chains that mix slowly."""
    for seed in range(10):
        one_back = markov_entropy_given_current(vocab, concentration, seed)
        two_back = markov_entropy(vocab, concentration, seed)
        assert 0.0 <= two_back <= one_back + 1e-12, seed
        assert one_back <= np.log(vocab) + 1e-12, seed


def test_the_entropy_given_the_current_token_defaults_to_the_markov_tasks_chain():
    default = markov_entropy_given_current()
    assert default == markov_entropy_given_current(vocab_size=16, concentration=0.1, seed=0)
    assert default != markov_entropy_given_current(vocab_size=16, concentration=0.1, seed=1)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"vocab_size": 1}, ValueError, "vocab_size must be an integer >= 2, got 1"),
        ({"vocab_size": 2.0}, TypeError, "vocab_size must be an integer, got 2.0"),
        ({"concentration": 0.0}, ValueError, "concentration must be > 0, got 0.0"),
        ({"seed": -1}, ValueError, "seed must be an integer >= 0, got -1"),
    ],
)
def test_the_entropy_given_the_current_token_refuses_a_chain_it_cannot_draw(kwargs, error, message):
    smallest = {"vocab_size": 2, "concentration": 1e-3, "seed": 0}  # at or near the limits: passes
    assert 0.0 <= markov_entropy_given_current(**smallest) <= np.log(2) + 1e-12
    with pytest.raises(error) as caught:
        markov_entropy_given_current(**{**smallest, **kwargs})
    assert str(caught.value) == f"markov_entropy_given_current: {message}"


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


# -- floors: answers with zeros, rules in single precision, regions with one target --------------

SAMPLER = lookback(1, 4).sampler


def test_the_chance_loss_is_the_entropy_of_the_answers_that_can_occur():
    # 0 ln 0 = 0: an answer that never occurs adds nothing
    task = Task("t", 3, "loss", SAMPLER, answers=[0.5, 0.5, 0.0])
    assert chance_level(task) == pytest.approx(np.log(2), rel=1e-15)
    task = Task("t", 4, "loss", SAMPLER, answers=[0.0, 0.25, 0.0, 0.75])
    assert chance_level(task) == pytest.approx(-0.25 * np.log(0.25) - 0.75 * np.log(0.75))


@pytest.mark.parametrize("function", [chance_level, chance_scores])
def test_a_task_without_answers_has_no_chance_level(function):
    task = Task("no-answers", 4, "loss", SAMPLER)
    args = (task,) if function is chance_level else (task, 8)
    with pytest.raises(ValueError) as caught:
        function(*args)
    assert str(caught.value) == (
        f"{function.__name__}: task 'no-answers' does not give its answer distribution"
    )


def test_position_free_scores_add_up_a_single_precision_rule_in_double_precision():
    def rule(tokens, targets):  # 0.1 where there is a target, in float32
        return np.where(targets >= 0, np.float32(0.1), np.float32(np.nan)).astype(np.float32)

    task = Task("t", 4, "accuracy", SAMPLER, position_free=rule)
    totals, counts = position_free_scores(task, 6, n_tokens=6000, seed=0)
    assert totals.dtype == np.float64
    assert counts.tolist() == [0] + [1000] * 5  # lookback-1: no target at position 0
    np.testing.assert_allclose(totals, counts * float(np.float32(0.1)), rtol=1e-13)


def test_a_region_with_a_single_target_scores_that_target():
    # n_tokens=1: one sequence; lookback-1 of length 2 has one target, at position 1
    assert chance_levels(lookback(1, 4), [2], 2, n_tokens=1) == {2: 0.25}
    assert position_free_levels(lookback(1, 4), [2], 2, n_tokens=1) == {2: 1.0}  # 1 token seen
    assert chance_levels(lookback(1, 4), [3], 2, n_tokens=1) == {3: 0.25}  # unseen: position 2
    assert chance_levels(lookback(1, 4), [1], 1, n_tokens=1) == {1: 0.0}  # no target at all


def test_levels_take_the_shortest_length_and_training_length():
    every_token_a_marker = recent_marker(n_markers=2, vocab_size=5, density=1.0)
    assert chance_levels(every_token_a_marker, [1], 1, n_tokens=3) == {1: 0.5}
    assert position_free_levels(every_token_a_marker, [1, 2], 1, n_tokens=3) == {1: 1.0, 2: 1.0}


def spy_task(calls):
    """A task that records the batch size of each draw and returns zeros."""

    def sampler(rng, batch, length):
        calls.append(batch)
        return np.zeros((batch, length), int), np.zeros((batch, length), int)

    return tasks.Task("spy", 2, "accuracy", sampler)


@pytest.mark.parametrize(
    ("length", "n_tokens", "batches"),
    [
        (8, 8, [1]),  # one sequence holds every token asked for
        (8, 9, [2]),  # ... or is one short: the last sequence is whole
        (128, 100 * 128, [64, 36]),  # at most 64 sequences a draw
        (2731, 5 * 2731, [2, 2, 1]),  # at most 8,192 tokens a draw: 2 x 2,731
        (4097, 3 * 4097, [1, 1, 1]),  # at least one sequence, however long
    ],
)
def test_evaluation_draws_at_most_64_sequences_and_8192_tokens_at_a_time(length, n_tokens, batches):
    calls = []
    inputs, targets = tasks.evaluation_sequences(spy_task(calls), length, n_tokens=n_tokens)
    assert calls == batches
    assert inputs.shape == targets.shape == (sum(batches), length)


@pytest.mark.parametrize(
    ("argument", "value", "message"),
    [
        ("length", 0, "evaluation_sequences: length must be an integer >= 1, got 0"),
        ("n_tokens", 0, "evaluation_sequences: n_tokens must be an integer >= 1, got 0"),
        ("seed", -1, "evaluation_sequences: seed must be an integer >= 0, got -1"),
    ],
)
def test_evaluation_sequences_refuses_an_empty_length_or_budget_and_a_negative_seed(
    argument, value, message
):
    call = {"length": 8, "n_tokens": 16, "seed": 0, argument: value}
    with pytest.raises(ValueError) as refused:
        tasks.evaluation_sequences(tasks.lookback(2), **call)
    assert str(refused.value) == message
    assert tasks.evaluation_sequences(tasks.lookback(2), **{**call, argument: value + 1})[0].size


@pytest.mark.parametrize("make", [lambda: tasks.lookback(3), tasks.markov])
def test_each_task_names_its_position_free_rule_and_its_best_score(make):
    task = make()
    rule, best = {
        "lookback-3": ("the token seen most often before the current one", 1.0),
        "markov": (
            "the chain's P(next | token before, current token), the token before guessed from "
            "the counts",
            tasks.markov_entropy(),
        ),
    }[task.name]
    assert (task.position_free_rule, task.best_possible) == (rule, best)
    assert sum(task.answers) == pytest.approx(1.0)
    tokens, targets = tasks.evaluation_sequences(task, 8, n_tokens=16)
    scores = task.position_free(tokens, targets)
    assert scores.dtype == np.float64  # NaN, not None, where there is no target
    assert np.array_equal(np.isnan(scores), targets < 0)
