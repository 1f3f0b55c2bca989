"""Synthetic sequence tasks that a CPU learns in seconds (chapter 6).

Each task samples (tokens, targets) of shape (batch, length) at any length; a target of -1
means "no target here" (for example the first k positions of lookback-k).

Each task also knows its honest floors, to read a model's score against: its answer distribution
(`chance_level`: the best score of a guess that looks at nothing) and the best rule that uses no
positions (`position_free_scores`: it may see the current token and how often each token came
before it, but not where). Chapter 6 draws both.
"""

from dataclasses import dataclass, field

import numpy as np

from ._checks import (
    check_array,
    check_callable,
    check_choice,
    check_int,
    check_real,
    check_rng,
    short,
)

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
    answers : array_like, shape (vocab_size,), optional
        The probability of each answer over the positions that have a target (the stationary
        distribution where it changes along the sequence); `chance_level` reads it.
    position_free : callable, optional
        (tokens, targets) -> the expected score, per position, of the best (or a strong) rule
        that uses no positions: a function of the current token and the counts of the tokens
        before it (NaN where there is no target); `position_free_scores` calls it.
    position_free_rule : str
        That rule in words.
    best_possible : float, optional
        The best score any model can reach (1.0 for a task with one right answer; a chain's
        entropy for a loss).

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
    answers: object = field(default=None, repr=False)
    position_free: object = field(default=None, repr=False)
    position_free_rule: str = ""
    best_possible: object = None

    def __post_init__(self):
        """Check the fields, so a malformed task fails where it is made."""
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Task: name must be a non-empty str, got {short(self.name)}")
        check_int("Task", "vocab_size", self.vocab_size, minimum=2)
        check_choice("Task", "metric", self.metric, METRICS)
        check_callable("Task", "sampler", self.sampler)
        if self.answers is not None:
            p = check_array("Task", "answers", self.answers, ndim=1)
            if p.shape != (self.vocab_size,) or np.any(p < 0) or abs(p.sum() - 1) > 1e-9:
                raise ValueError(
                    f"Task: answers must be {self.vocab_size} probabilities summing to 1, got "
                    f"{short(self.answers)}"
                )
            object.__setattr__(self, "answers", tuple(float(x) for x in p))  # hashable
        if self.position_free is not None:
            check_callable("Task", "position_free", self.position_free)
        if not isinstance(self.position_free_rule, str):
            raise TypeError(
                f"Task: position_free_rule must be a str, got {short(self.position_free_rule)}"
            )
        if self.best_possible is not None:
            object.__setattr__(
                self, "best_possible", check_real("Task", "best_possible", self.best_possible)
            )

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

    def most_frequent_so_far(tokens, targets):
        # Tokens 0 .. t-1 are independent draws, so given how often each appeared, every order is
        # equally likely and the token k back is v with probability count(v) / t: the best rule
        # without positions guesses the most frequent one and is right with max count / t.
        before = _counts_before(tokens, vocab_size)
        t = np.arange(tokens.shape[1])
        return np.where(has_target(targets), before.max(-1) / np.maximum(t, 1), np.nan)

    return Task(
        f"lookback-{k}",
        vocab_size,
        "accuracy",
        sampler,
        f"predict the token {k} positions back",
        answers=np.full(vocab_size, 1.0 / vocab_size),
        position_free=most_frequent_so_far,
        position_free_rule="the token seen most often before the current one",
        best_possible=1.0,
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

    def current_or_most_frequent_marker(tokens, targets):
        # A marker in the current position is the answer. Otherwise every order of the tokens
        # before is equally likely (independent draws), so the latest marker is each marker
        # occurrence with equal chance: m with probability count(m) / (markers so far).
        before = _counts_before(tokens, vocab_size)[..., :n_markers]
        seen = before.sum(-1)
        mode = before.max(-1) / np.maximum(seen, 1)
        score = np.where(tokens < n_markers, 1.0, mode)
        return np.where(has_target(targets), score, np.nan)

    answers = np.zeros(vocab_size)
    answers[:n_markers] = 1.0 / n_markers
    return Task(
        "recent-marker",
        vocab_size,
        "accuracy",
        sampler,
        f"repeat the most recent of {n_markers} marker tokens ({density:.0%} of positions)",
        answers=answers,
        position_free=current_or_most_frequent_marker,
        position_free_rule="the current token if it is a marker, else the marker seen most often",
        best_possible=1.0,
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

    pairs = _stationary_pairs(table)
    follows = pairs / pairs.sum(1, keepdims=True)  # P(current = b | previous = a), [a, b]

    def next_given_current_and_counts(tokens, targets):
        # The token before the current one, b, is one of the earlier tokens: weigh each candidate
        # a by how often it appeared times P(b | a), then predict with the chain's P(next | a, b).
        # A strong rule without positions, not proven the best one.
        weights = _counts_before(tokens, vocab_size) * follows[:, tokens].transpose(1, 2, 0)
        total = weights.sum(-1, keepdims=True)
        weights = weights / np.where(total > 0, total, 1.0)
        chosen = np.moveaxis(table[:, tokens, np.maximum(targets, 0)], 0, -1)  # P(target | a, b)
        loss = -np.log(np.maximum((weights * chosen).sum(-1), 1e-300))
        return np.where(has_target(targets), loss, np.nan)

    return Task(
        "markov",
        vocab_size,
        "loss",
        sampler,
        "next token of an order-2 Markov chain (loss in nats per token)",
        answers=pairs.sum(0),
        position_free=next_given_current_and_counts,
        position_free_rule=(
            "the chain's P(next | token before, current token), the token before guessed from the "
            "counts"
        ),
        best_possible=_conditional_entropy(table),
    )


def _stationary_pairs(table):
    """Return the stationary distribution of (previous, current) token pairs (power iteration)."""
    vocab_size = table.shape[0]
    pairs = np.full((vocab_size, vocab_size), 1.0 / vocab_size**2)
    for _ in range(200):
        pairs = np.einsum("ab,abc->bc", pairs, table)
    return pairs


def _counts_before(tokens, vocab_size):
    """(B, T, V): how often each token appeared before each position (the current one excluded)."""
    one_hot = np.asarray(tokens)[..., None] == np.arange(vocab_size)
    return np.cumsum(one_hot, axis=1, dtype=np.int32) - one_hot


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
    return _conditional_entropy(_transitions("markov_entropy", vocab_size, concentration, seed))


def markov_entropy_given_current(vocab_size=16, concentration=0.1, seed=0):
    """Return H(next | current token) in nats: the best loss of a model that sees one token back.

    The gap to `markov_entropy` (which also sees the token before) is what a model gains by
    looking exactly one key back.

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
        Nats per token, between `markov_entropy` and ln(vocab_size).

    Examples
    --------
    >>> markov_entropy() < markov_entropy_given_current() < float(np.log(16))
    True
    """
    table = _transitions("markov_entropy_given_current", vocab_size, concentration, seed)
    pairs = _stationary_pairs(table)
    joint = np.einsum("ab,abc->bc", pairs, table)  # (current, next)
    follow = joint / np.maximum(joint.sum(1, keepdims=True), 1e-300)
    return float(-np.sum(joint * np.log(np.maximum(follow, 1e-300))))


def _conditional_entropy(table):
    """Return H(next | previous two) in nats under the chain's stationary distribution."""
    pairs = _stationary_pairs(table)
    entropy = -np.sum(table * np.log(np.maximum(table, 1e-300)), axis=-1)
    return float(np.sum(pairs * entropy))


# -- honest floors: chance and the best rule without positions ---------------------------------

#: How `evaluation_sequences` draws, by default: the settings of
#: `~posenc_lib.model.evaluate_positions` (about 4,096 scored positions, seed 1234, at most 64
#: sequences and 8,192 tokens per batch), so the floors are read on the very sequences every
#: model of chapter 6's study is scored on.
EVAL_TOKENS, EVAL_SEED, EVAL_BATCH = 4096, 1234, 64


def evaluation_sequences(task, length, *, n_tokens=EVAL_TOKENS, seed=EVAL_SEED):
    """Return the evaluation sequences a model is scored on: the draws of `evaluate_positions`.

    ``ceil(n_tokens / length)`` sequences, drawn from one Generator seeded with ``seed`` in
    batches of at most 64 sequences and 8,192 tokens, as `~posenc_lib.model.evaluate_positions`
    draws them. With the defaults these are the sequences of every model's record in chapter 6's
    study, so a floor read on them is paired with the models' scores sequence by sequence.

    Parameters
    ----------
    task : Task
        The task.
    length : int
        Tokens per sequence.
    n_tokens : int
        Roughly how many positions (as ``n_tokens`` of `evaluate_positions`).
    seed : int
        Seeds the draws (as ``seed`` of `evaluate_positions`).

    Returns
    -------
    tokens, targets : ndarray of int, shape (n_sequences, length)

    Examples
    --------
    >>> tokens, targets = evaluation_sequences(lookback(3), 256)
    >>> tokens.shape                          # 4,096 positions: 16 sequences of 256
    (16, 256)
    >>> evaluation_sequences(lookback(3), 32)[0].shape
    (128, 32)
    """
    return _evaluation_sequences("evaluation_sequences", task, length, n_tokens, seed)


def _evaluation_sequences(func, task, length, n_tokens, seed):
    task = _check_task(func, task)
    length = check_int(func, "length", length, minimum=1)
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    rng = np.random.default_rng(check_int(func, "seed", seed, minimum=0))
    n_sequences = max(1, -(-n_tokens // length))
    batch = max(1, min(EVAL_BATCH, 8192 // length))
    parts = [
        task.sample(rng, min(batch, n_sequences - start), length)
        for start in range(0, n_sequences, batch)
    ]
    return np.concatenate([t for t, _ in parts]), np.concatenate([y for _, y in parts])


def _check_task(func, task):
    if not isinstance(task, Task):
        raise TypeError(f"{func}: task must be a Task (e.g. lookback(3)), got {short(task)}")
    return task


def chance_level(task):
    """Return the score of the best guess that looks at nothing, from the task's answer distribution.

    For accuracy: the probability of the most common answer (guessing uniformly among the answers
    when they are equally likely). For loss: the entropy of the answers in nats, the loss of
    predicting their distribution at every position.

    Parameters
    ----------
    task : Task
        A task that knows its answer distribution (``task.answers``).

    Returns
    -------
    float

    Examples
    --------
    >>> chance_level(lookback(3)), chance_level(recent_marker())   # 1/16; 1 of the 4 markers
    (0.0625, 0.25)
    >>> round(chance_level(markov()), 3), round(float(np.log(16)), 3)   # best constant vs uniform
    (2.762, 2.773)
    """
    task = _check_task("chance_level", task)
    if task.answers is None:
        raise ValueError(f"chance_level: task {task.name!r} does not give its answer distribution")
    p = np.asarray(task.answers, dtype=float)
    if task.metric == "accuracy":
        return float(p.max())
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def position_free_scores(task, length, *, n_tokens=EVAL_TOKENS, seed=EVAL_SEED):
    """Per-position totals and counts of the task's best rule that uses no positions.

    The rule (``task.position_free_rule``) sees the current token and how often each token came
    before it, but not where. One causal attention layer without positions sees no more about
    order: its output at position t is a function of token t and the proportions of the tokens
    0 .. t (chapter 03). The two are not the same reading (the rule counts the earlier tokens, the
    layer averages them with token t itself), and a second layer sees order (chapter 03), so the
    rule is a floor for one-layer models only.
    It is scored on the sequences of `evaluation_sequences`: with the defaults, the very
    sequences every model of the study is scored on, so a model and the rule can be compared
    sequence by sequence. Accuracy tasks give the rule's expected score given what it sees;
    the Markov task its loss on the actual next token, as a model's loss is.

    Parameters
    ----------
    task : Task
        A task that knows its position-free rule (``task.position_free``).
    length : int
        Tokens per sequence.
    n_tokens : int
        Roughly how many positions (`evaluation_sequences`).
    seed : int
        Seeds the sequences (`evaluation_sequences`).

    Returns
    -------
    totals, counts : ndarray, shape (length,)
        Summed score and the number of targets at each query position, as
        `~posenc_lib.model.evaluate_positions` returns them (``totals / counts`` is the curve).

    Examples
    --------
    >>> totals, counts = position_free_scores(lookback(3), 8, n_tokens=32)
    >>> counts.tolist()
    [0, 0, 0, 4, 4, 4, 4, 4]
    >>> float(totals[3] / counts[3]) >= 1 / 3     # 3 tokens before: the most frequent has >= 1
    True
    """
    func = "position_free_scores"
    task = _check_task(func, task)
    if task.position_free is None:
        raise ValueError(f"{func}: task {task.name!r} has no position-free rule")
    tokens, targets = _evaluation_sequences(func, task, length, n_tokens, seed)
    scores = np.asarray(task.position_free(tokens, targets), dtype=float)
    return _totals(scores, targets)


def chance_scores(task, length, *, n_tokens=EVAL_TOKENS, seed=EVAL_SEED):
    """Per-position totals and counts of the blind guess, on the sequences models are scored on.

    The guess looks at nothing: for accuracy, the most likely answer, whose expected score is
    `chance_level` at every target; for loss, the answer distribution, scored on the actual
    targets of `evaluation_sequences` (so it varies a little from `chance_level`).

    Parameters
    ----------
    task : Task
        A task that knows its answer distribution.
    length : int
        Tokens per sequence.
    n_tokens : int
        Roughly how many positions (`evaluation_sequences`).
    seed : int
        Seeds the sequences (`evaluation_sequences`).

    Returns
    -------
    totals, counts : ndarray, shape (length,)

    Examples
    --------
    >>> totals, counts = chance_scores(recent_marker(), 64)
    >>> round(float(totals.sum() / counts.sum()), 4)
    0.25
    """
    func = "chance_scores"
    task = _check_task(func, task)
    if task.answers is None:
        raise ValueError(f"{func}: task {task.name!r} does not give its answer distribution")
    level = chance_level(task)
    tokens, targets = _evaluation_sequences(func, task, length, n_tokens, seed)
    if task.metric == "accuracy":
        scores = np.full(targets.shape, level)
    else:
        p = np.asarray(task.answers, dtype=float)
        scores = -np.log(np.maximum(p[np.maximum(targets, 0)], 1e-300))
    return _totals(scores, targets)


def _totals(scores, targets):
    present = has_target(targets)
    return np.where(present, scores, 0.0).sum(0), present.sum(0)


def position_free_levels(task, lengths, train_len, **options):
    """Return the position-free rule's score at each evaluation length, region as the study has it.

    At ``train_len`` (and shorter) over all positions; at longer lengths over the unseen ones,
    positions >= ``train_len``: the value to read each study point against, on the same
    sequences (`position_free_scores`).

    Parameters
    ----------
    task : Task
        A task with a position-free rule.
    lengths : sequence of int
        Evaluation lengths.
    train_len : int
        The training length.
    **options
        ``n_tokens`` and ``seed`` of `evaluation_sequences`.

    Returns
    -------
    dict
        {length: score}.

    Examples
    --------
    >>> levels = position_free_levels(recent_marker(), (8, 16), 8, n_tokens=512)
    >>> sorted(levels), all(0.25 < v < 1 for v in levels.values())
    ([8, 16], True)
    """
    return _levels("position_free_levels", position_free_scores, task, lengths, train_len, options)


def chance_levels(task, lengths, train_len, **options):
    """Return the blind guess's score at each evaluation length, region as the study has it.

    As `position_free_levels`, for `chance_scores`: on the sequences the models are scored on.

    Parameters
    ----------
    task : Task
        A task that knows its answer distribution.
    lengths : sequence of int
        Evaluation lengths.
    train_len : int
        The training length.
    **options
        ``n_tokens`` and ``seed`` of `evaluation_sequences`.

    Returns
    -------
    dict
        {length: score}.

    Examples
    --------
    >>> chance_levels(lookback(3), (32, 64), 32)
    {32: 0.0625, 64: 0.0625}
    """
    return _levels("chance_levels", chance_scores, task, lengths, train_len, options)


def _levels(func, scores, task, lengths, train_len, options):
    task = _check_task(func, task)
    train_len = check_int(func, "train_len", train_len, minimum=1)
    check_array(func, "lengths", lengths, ndim=1)  # one axis of finite numbers; then each an int
    out = {}
    for length in [check_int(func, "lengths", length, minimum=1) for length in lengths]:
        totals, counts = scores(task, length, **options)
        start = 0 if length <= train_len else train_len
        out[length] = float(totals[start:].sum() / max(counts[start:].sum(), 1))
    return out


#: The tasks of chapter 6's study, by name: each value makes the task of that name.
TASKS = {"lookback-3": lambda: lookback(3), "recent-marker": recent_marker, "markov": markov}
