"""Synthetic sequence tasks that a CPU learns in seconds (chapter 6).

Each task samples (tokens, targets) of shape (batch, length) at any length; a target of -1
means "no target here" (for example the first k positions of lookback-k).
"""

from dataclasses import dataclass, field

import numpy as np

from ._checks import check_callable, check_choice, check_int, check_real, check_rng, short

IGNORE = -1
METRICS = ("accuracy", "loss")  # higher is better / nats per token, lower is better


def has_target(targets):
    """Return True where a position has a target, False where it holds `IGNORE` (-1).

    The one test for "no target here": the loss, the evaluation and the explorers use it.

    Parameters
    ----------
    targets : array_like of int
        Targets as a task samples them.

    Returns
    -------
    ndarray of bool, same shape as ``targets``

    Examples
    --------
    >>> has_target([[-1, 3, 0]])
    array([[False,  True,  True]])
    """
    targets = np.asarray(targets)
    if targets.size and (not np.issubdtype(targets.dtype, np.integer) or targets.dtype == bool):
        raise TypeError(
            f"has_target: targets must be integers (-1: no target), got {short(targets)}"
        )
    return targets != IGNORE


@dataclass(frozen=True)
class Task:
    """A named generator of (tokens, targets) batches, and how to score a model on it.

    Parameters
    ----------
    name : str
        How records and tables name it (e.g. "lookback-3").
    vocab_size : int
        Tokens 0 .. vocab_size - 1.
    metric : {"accuracy", "loss"}
        Accuracy (higher is better) or loss in nats per token (lower is better).
    sampler : callable
        (Generator, batch, length) -> (tokens, targets), int arrays of shape (batch, length).
    description : str
        One line for tables and widgets.

    Examples
    --------
    >>> task = lookback(2)
    >>> task.name, task.metric
    ('lookback-2', 'accuracy')
    """

    name: str
    vocab_size: int
    metric: str  # "accuracy" (higher is better) or "loss" (nats per token, lower is better)
    sampler: object = field(repr=False)
    description: str = ""

    def __post_init__(self):
        """Check the fields, so a malformed task fails where it is made."""
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Task: name must be a non-empty str, got {short(self.name)}")
        check_int("Task", "vocab_size", self.vocab_size, minimum=2)
        check_choice("Task", "metric", self.metric, METRICS)
        check_callable("Task", "sampler", self.sampler)

    def sample(self, rng, batch, length):
        """Draw a batch of sequences and their targets.

        Parameters
        ----------
        rng : numpy.random.Generator, numpy.random.SeedSequence or int
            The source of the draws (an int seeds a new Generator).
        batch : int
            Sequences.
        length : int
            Tokens per sequence.

        Returns
        -------
        tokens, targets : ndarray of int, shape (batch, length)
            Targets are token ids, or `IGNORE` (-1) where there is nothing to predict.

        Examples
        --------
        >>> tokens, targets = lookback(1).sample(0, 2, 3)
        >>> tokens.shape, targets[:, 0].tolist()
        ((2, 3), [-1, -1])
        """
        func = f"{self.name}.sample"
        rng = check_rng(func, "rng", rng)
        batch = check_int(func, "batch", batch, minimum=1)
        length = check_int(func, "length", length, minimum=1)
        return self.sampler(rng, batch, length)


def lookback(k=3, vocab_size=16):
    """Target at position t is the token at t - k: an exact relative offset.

    Parameters
    ----------
    k : int
        How far back the target token is (1 or more).
    vocab_size : int
        Tokens 0 .. vocab_size - 1, drawn uniformly.

    Returns
    -------
    Task
        Named ``lookback-k``, scored by accuracy; the first k positions have no target.

    Examples
    --------
    >>> tokens, targets = lookback(2).sample(0, 1, 6)
    >>> bool(np.all(targets[0, 2:] == tokens[0, :4])), targets[0, :2].tolist()
    (True, [-1, -1])
    """
    k = check_int("lookback", "k", k, minimum=1)
    vocab_size = check_int("lookback", "vocab_size", vocab_size, minimum=2)

    def sampler(rng, batch, length):
        tokens = rng.integers(0, vocab_size, size=(batch, length))
        targets = np.full_like(tokens, IGNORE)
        targets[:, k:] = tokens[:, :-k] if length > k else targets[:, k:]
        return tokens, targets

    return Task(
        f"lookback-{k}", vocab_size, "accuracy", sampler, f"predict the token {k} positions back"
    )


def recent_marker(n_markers=4, vocab_size=16, density=0.15):
    """Return the recency task: repeat the most recent marker token.

    Tokens 0 .. n_markers-1 are markers; the target at t is the most recent marker at or before t
    (no target before the first marker).

    Parameters
    ----------
    n_markers : int
        How many marker tokens (0 .. n_markers - 1).
    vocab_size : int
        All tokens; the others are fillers (more than n_markers).
    density : float
        The share of positions holding a marker, in (0, 1].

    Returns
    -------
    Task
        Named ``recent-marker``, scored by accuracy.

    Examples
    --------
    >>> task = recent_marker()
    >>> tokens, targets = task.sample(3, 1, 12)
    >>> tokens[0].tolist()
    [1, 12, 14, 7, 0, 4, 4, 15, 15, 1, 5, 7]
    >>> targets[0].tolist()
    [1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1]
    """
    n_markers = check_int("recent_marker", "n_markers", n_markers, minimum=1)
    vocab_size = check_int("recent_marker", "vocab_size", vocab_size, minimum=n_markers + 1)
    density = check_real("recent_marker", "density", density, greater_than=0)
    if density > 1:
        raise ValueError(f"recent_marker: density must be a share in (0, 1], got {density}")

    def sampler(rng, batch, length):
        is_marker = rng.random((batch, length)) < density
        markers = rng.integers(0, n_markers, size=(batch, length))
        fillers = rng.integers(n_markers, vocab_size, size=(batch, length))
        tokens = np.where(is_marker, markers, fillers)
        last = np.where(is_marker, np.arange(length), -1)
        last = np.maximum.accumulate(last, axis=1)  # index of the latest marker so far
        targets = np.where(last >= 0, np.take_along_axis(tokens, np.maximum(last, 0), 1), IGNORE)
        return tokens, targets

    return Task(
        "recent-marker",
        vocab_size,
        "accuracy",
        sampler,
        f"repeat the most recent of {n_markers} marker tokens ({density:.0%} of positions)",
    )


def markov_transitions(vocab_size=16, concentration=0.1, seed=0):
    """Return a random order-2 transition table P[a, b, c] = P(next = c | previous two = a, b).

    A small ``concentration`` makes each context predict a few tokens sharply.

    Parameters
    ----------
    vocab_size : int
        Tokens 0 .. vocab_size - 1.
    concentration : float
        Of the Dirichlet each row is drawn from (> 0; small: sharp, large: nearly uniform).
    seed : int
        Which table.

    Returns
    -------
    ndarray, shape (vocab_size, vocab_size, vocab_size)
        Each row P[a, b] sums to 1.

    Examples
    --------
    >>> table = markov_transitions(4)
    >>> table.shape, bool(np.allclose(table.sum(-1), 1.0))
    ((4, 4, 4), True)
    """
    return _transitions("markov_transitions", vocab_size, concentration, seed)


def _transitions(func, vocab_size, concentration, seed):
    vocab_size = check_int(func, "vocab_size", vocab_size, minimum=2)
    concentration = check_real(func, "concentration", concentration, greater_than=0)
    rng = np.random.default_rng(check_int(func, "seed", seed, minimum=0))
    return rng.dirichlet(np.full(vocab_size, concentration), size=(vocab_size, vocab_size))


def markov(vocab_size=16, concentration=0.1, seed=0):
    """Order-2 Markov text; the target is the next token, scored by loss (nats per token).

    The miniature of a language-modelling perplexity-versus-length curve. The best possible
    loss is the chain's conditional entropy, `markov_entropy`.

    Parameters
    ----------
    vocab_size : int
        Tokens 0 .. vocab_size - 1.
    concentration : float
        As in `markov_transitions`.
    seed : int
        Which transition table.

    Returns
    -------
    Task
        Named ``markov``, scored by loss (nats per token); the first position has no target.

    Examples
    --------
    >>> tokens, targets = markov().sample(0, 2, 5)
    >>> bool(np.all(targets[:, 1:-1] == tokens[:, 2:])), targets[:, 0].tolist()
    (True, [-1, -1])
    """
    table = _transitions("markov", vocab_size, concentration, seed)
    vocab_size = table.shape[0]
    cumulative = np.cumsum(table, axis=-1)

    def sampler(rng, batch, length):
        tokens = np.empty((batch, length + 1), dtype=np.int64)
        tokens[:, :2] = rng.integers(0, vocab_size, size=(batch, 2))
        for t in range(2, length + 1):
            u = rng.random((batch, 1))
            row = cumulative[tokens[:, t - 2], tokens[:, t - 1]]
            tokens[:, t] = np.minimum((u > row).sum(axis=1), vocab_size - 1)
        targets = tokens[:, 1:].copy()
        targets[:, 0] = IGNORE  # the second start token is uniform noise: nothing to learn
        return tokens[:, :-1], targets

    return Task(
        "markov",
        vocab_size,
        "loss",
        sampler,
        "next token of an order-2 Markov chain (loss in nats per token)",
    )


def markov_entropy(vocab_size=16, concentration=0.1, seed=0):
    """Return the chain's conditional entropy in nats: the lowest loss any model can reach.

    The first target of a sequence has only one previous token to go on, so a model that has
    learnt the chain does slightly worse there; this is the limit for all later positions.

    Parameters
    ----------
    vocab_size : int
        Tokens 0 .. vocab_size - 1.
    concentration : float
        As in `markov_transitions`.
    seed : int
        Which table.

    Returns
    -------
    float
        Nats per token, between 0 and ln(vocab_size).

    Examples
    --------
    >>> round(markov_entropy(), 3) < round(float(np.log(16)), 3)
    True
    """
    table = _transitions("markov_entropy", vocab_size, concentration, seed)
    vocab_size = table.shape[0]
    # The stationary distribution of (a, b) contexts, by power iteration on the pair chain.
    pairs = np.full((vocab_size, vocab_size), 1.0 / vocab_size**2)
    for _ in range(200):
        pairs = np.einsum("ab,abc->bc", pairs, table)
    entropy = -np.sum(table * np.log(np.maximum(table, 1e-300)), axis=-1)
    return float(np.sum(pairs * entropy))


#: The tasks of chapter 6's study, by name: each value makes the task of that name.
TASKS = {"lookback-3": lambda: lookback(3), "recent-marker": recent_marker, "markov": markov}
