"""The ALiBi paper's headline figure in miniature, on real text (chapter 07).

Every position scheme of the course's model is trained on the characters of Python's help pages
(`posenc_lib.corpus`) at one length L, then scored in bits per character on validation text at
L, 2L, 4L, 8L and 16L, two ways:

- **non-overlapping**: the text is cut into consecutive chunks of the evaluation length and every
  character of every chunk is scored, so a chunk's first characters are predicted with almost no
  context (the paper's main evaluation);
- **sliding**: windows of the evaluation length advance by a quarter of that length and only the
  last quarter of each window is scored, so every scored character sees at least three quarters
  of a window of text before it.

Both modes score the same characters of validation text at every length, so every difference in
the results comes from the model and the mode, not from which text was scored.

    python -m posenc_lib.realtext --out posenc_lib/data/realtext  # the committed sweep
    python -m posenc_lib.realtext --quick --out results/          # one seed

The sweep is resumable as the study's is (``DIR/progress.jsonl``; ``--fresh`` starts over) and
runs its models in worker processes (or on a Dask cluster, ``--backend dask``) with one BLAS
thread each. It writes, under DIR:

- results.json: one record per {task, scheme, config, seed, train_len, eval_len, mode, region,
  metric, value}: ``task`` the corpus (``"pydoc-topics"``), ``metric`` ``"bits_per_char"``,
  ``mode`` ``"nonoverlapping"`` or ``"sliding"``, ``region`` ``"all"`` (every scored character)
  or ``"unseen"`` (window positions >= train_len; none at eval_len == train_len), as in
  chapter 6. ``value`` is null where a scheme cannot run (a learned table shorter than eval_len).
- curves.json: per window position, the summed bits and the number of scored characters, in
  non-overlapping mode at the training length and at the longest length, one record per model.
- the trained parameters of the witness model (``witness-*.npz``), which a fast test re-scores.
- results.png: the figure of the results.

Each file records its provenance (settings, versions, a hash of the code and of the corpus that
made it). The sweep is a `~posenc_lib.sweep.Sweep` of the course's experiment engine; the
committed one lives in the package (``posenc_lib/data/realtext``), where `load_sweep` finds it.
"""

import numpy as np

from . import cli, corpus, records
from ._checks import check_choice, check_ids, check_int
from ._limits import check_sequence
from .corpus import NAME, bits_per_char, load_corpus, text_task
from .model import SCHEMES, ModelConfig, forward, length_problem, token_losses, train
from .records import binned_curves, check_criteria, check_records
from .sweep import Sweep
from .tasks import IGNORE

TRAIN_LEN = 64
EVAL_FACTORS = (1, 2, 4, 8, 16)
EVAL_LENS = tuple(f * TRAIN_LEN for f in EVAL_FACTORS)
CONFIG_NAME = "2L-4x16+mlp"
# Two layers of 4 heads of width 16, with an MLP: small enough for a CPU, big enough to learn
# words. T5's bias: 32 buckets (T5's number; fewer for training lengths under 32), logarithmic up
# to the training length, so training reaches every bucket and longer distances share the last
# one, as in T5.
MODEL = {
    "d_model": 64,
    "n_heads": 4,
    "n_layers": 2,
    "mlp": True,
    "t5_buckets": 32,
    "t5_max_distance": TRAIN_LEN,
}
TRAIN = {"batch_size": 16, "lr": 3e-3}
STEPS = 1000  # one budget for every model: 1000 x 16 x 64 = 1.02 M characters
SEEDS = tuple(range(10))  # enough seeds for a paired interval to sign a comparison
VARIANT_SEEDS = (0, 1, 2)  # the variants test reasons, three seeds each (time)
CHECKPOINT_EVERY = 100  # steps between two points of a model's validation curve (training.json)
MODES = ("nonoverlapping", "sliding")
MODE_NAMES = {"nonoverlapping": "non-overlapping chunks", "sliding": "sliding windows"}
METRIC = "bits_per_char"
N_SCORED = 31 * 1024  # validation characters scored at every length, in both modes: all but
# the last 409 of the 32,153 (a multiple of the longest length; `scored_topics` lists them)
START = max(EVAL_LENS)  # context before the first scored character (`evaluation_ids`)
VARIANTS = {
    # Small interventions on the configuration reasons chapter 07 gives, trained and scored like
    # the main models (in chunks only): T5's buckets ending at half the training length, so that
    # its last bucket is trained on 33 distances rather than 5; ALiBi with 8 heads of 8 (the
    # paper's 8 slopes); RoPE with 2 heads of 32 (16 pairs).
    "t5-buckets-to-32": ("t5", {"t5_max_distance": 32}),
    "alibi-8-heads": ("alibi", {"n_heads": 8}),
    "rope-2-heads": ("rope", {"n_heads": 2}),
}
SLIDING_FRACTION = 4  # sliding windows advance by, and score, 1 / SLIDING_FRACTION of a window
RECORD_FIELDS = ("task", "scheme", "config", "seed", "train_len")
PAPER = {
    # Press, Smith and Lewis (ICLR 2022), WikiText-103, trained on 512 tokens: perplexity at
    # 512 / 1012 / 2512 / 15512 tokens, non-overlapping evaluation (None: out of memory).
    "lengths": (512, 1012, 2512, 15512),
    "sinusoidal": (20.05, 43.54, 132.41, 406.01),
    "rope": (20.07, 21.37, 31.58, 79.25),
    "t5": (19.65, 18.79, 20.41, None),
    "alibi": (19.73, 18.73, 18.41, 18.31),
}
#: The paper's setup (Press et al., section 4, after Baevski and Auli's model; Merity et al. 2017).
PAPER_SETUP = {
    "parameters": 247_000_000,
    "layers": 16,
    "train_words": 103_000_000,
    "train_len": 512,
}


def model_config(scheme, *, train_len=TRAIN_LEN, vocab_size=None, config=CONFIG_NAME):
    """Return the ModelConfig of chapter 07's models for ``scheme``.

    `MODEL`, a learned table of ``train_len`` rows, and the corpus's vocabulary; a ``config``
    named in `VARIANTS` changes the fields it lists.

    Parameters
    ----------
    scheme : str
        The position scheme, one of `SCHEMES`.
    train_len : int
        The training length (at least 2): the rows of a learned table (``max_len``) and T5's
        ``t5_max_distance``; T5 has ``min(32, train_len)`` buckets.
    vocab_size : int, optional
        Default: the vocabulary of `load_corpus`'s corpus (103 characters).
    config : str
        `CONFIG_NAME` (the main models) or a name in `VARIANTS` for its scheme.

    Returns
    -------
    ModelConfig

    Examples
    --------
    >>> c = model_config("t5")
    >>> (c.n_layers, c.n_heads, c.head_dim, c.mlp, c.vocab_size, c.t5_max_distance)
    (2, 4, 16, True, 103, 64)
    >>> short = model_config("t5", train_len=8)
    >>> short.max_len, short.t5_buckets, short.t5_max_distance
    (8, 8, 8)
    >>> model_config("alibi", config="alibi-8-heads").head_dim
    8
    """
    check_choice("model_config", "scheme", scheme, SCHEMES)
    train_len = check_int("model_config", "train_len", train_len, minimum=2)
    vocab_size = load_corpus().vocab_size if vocab_size is None else vocab_size
    fields = {
        **MODEL,
        "t5_buckets": min(MODEL["t5_buckets"], train_len),
        "t5_max_distance": train_len,
    }
    if config != CONFIG_NAME:
        check_choice("model_config", "config", config, (CONFIG_NAME, *VARIANTS))
        variant_scheme, changes = VARIANTS[config]
        if variant_scheme != scheme:
            raise ValueError(
                f"model_config: config {config!r} is a variant of {variant_scheme!r}, got "
                f"scheme={scheme!r}"
            )
        fields.update(changes)
    return ModelConfig(vocab_size=vocab_size, scheme=scheme, max_len=train_len, **fields)


def sliding_stride(length):
    """How far sliding windows of ``length`` advance: a quarter of the window (at least 1).

    Parameters
    ----------
    length : int
        The window's length (at least 1).

    Returns
    -------
    int
        ``max(1, length // 4)``: the step between windows and the number of positions each
        window scores.

    Examples
    --------
    >>> sliding_stride(64), sliding_stride(1024), sliding_stride(3)
    (16, 256, 1)
    """
    length = check_int("sliding_stride", "length", length, minimum=1)
    return max(1, length // SLIDING_FRACTION)


def _check_scored(func, n_scored, length, modes):
    """Refuse an ``n_scored`` that the windows of ``length`` in ``modes`` cannot score exactly."""
    if n_scored % length:
        raise ValueError(f"{func}: n_scored must be a multiple of length={length}, got {n_scored}")
    stride = sliding_stride(length)
    if "sliding" in modes and n_scored % stride:
        raise ValueError(
            f"{func}: n_scored must be a multiple of the sliding stride {stride} "
            f"(sliding_stride({length})), got {n_scored}"
        )


def evaluation_ids(validation, start=START):
    """Return the validation stream with its own last ``start + 1`` characters before it.

    `windows` scores ``ids[start + 1 : start + 1 + n_scored]``; on this stream that is the
    validation text from its first character on, ``validation[:n_scored]``, and the windows that
    start the text see the end of the last validation topic as context (validation text only,
    as the joins between topics do).

    Parameters
    ----------
    validation : array_like of int, shape (N,)
        The validation stream (``load_corpus().validation``); longer than ``start``.
    start : int
        The context put before it (at least 0).

    Returns
    -------
    ndarray of int, shape (N + start + 1,)

    Examples
    --------
    >>> evaluation_ids(np.arange(6), start=2).tolist()
    [3, 4, 5, 0, 1, 2, 3, 4, 5]
    >>> tokens, targets = windows(evaluation_ids(np.arange(6), 2), 2, "nonoverlapping",
    ...                           n_scored=4, start=2)
    >>> targets.tolist()  # the first four characters of the text, each scored once
    [[0, 1], [2, 3]]
    """
    validation = np.asarray(validation)
    start = check_int("evaluation_ids", "start", start, minimum=0)
    if validation.ndim != 1 or len(validation) <= start:
        raise ValueError(
            f"evaluation_ids: validation must be a 1-d stream longer than start={start}, got "
            f"shape {validation.shape}"
        )
    return np.concatenate([validation[len(validation) - start - 1 :], validation])


def scored_topics(corpus=None, n_scored=N_SCORED):
    """How many characters of each validation topic the sweep scores.

    The sweep scores ``corpus.validation[:n_scored]`` (`evaluation_ids`).

    Parameters
    ----------
    corpus : CharCorpus, optional
        Default: `load_corpus`'s.
    n_scored : int
        Characters scored (at most the validation text's length).

    Returns
    -------
    list of (str, int, int)
        Each validation topic, its characters scored and its length, in stream order.

    Examples
    --------
    >>> rows = scored_topics()
    >>> rows[0], rows[-1]
    (('assert', 1141, 1141), ('typesmapping', 11909, 12318))
    >>> sum(scored for _, scored, _ in rows) + 7 == N_SCORED  # 7 newlines join the 8 topics
    True
    """
    corpus = load_corpus() if corpus is None else corpus
    n_scored = check_int("scored_topics", "n_scored", n_scored, minimum=0)
    if n_scored > len(corpus.validation):
        raise ValueError(
            f"scored_topics: n_scored must be <= {len(corpus.validation)} (the validation text), "
            f"got {n_scored}"
        )
    return [
        (name, max(0, min(stop, n_scored) - first), stop - first)
        for name, first, stop in corpus.validation_spans
    ]


def windows(ids, length, mode, *, n_scored=N_SCORED, start=START):
    """Cut evaluation windows from a stream of ids: tokens, and targets with -1 where not scored.

    The scored characters are always ``ids[start + 1 : start + 1 + n_scored]``, whatever the
    length and mode, each scored once. In ``"nonoverlapping"`` mode the windows are consecutive
    chunks ``ids[start + k * length : start + (k + 1) * length]`` and every position is scored.
    In ``"sliding"`` mode windows advance by s = `sliding_stride` (``length``) and only their
    last s positions are scored, so every scored character sees at least length - s characters
    before it; the windows reach back into the text before ``start``.

    Parameters
    ----------
    ids : array_like of int, shape (N,)
        The text, one id per character (e.g. ``load_corpus().validation``).
    length : int
        The evaluation length: the length of every window.
    mode : {"nonoverlapping", "sliding"}
        How the windows are cut (see above).
    n_scored : int
        How many characters are scored; a multiple of ``length``.
    start : int
        At least ``length - s`` in sliding mode; ``start + n_scored + 1 <= N``.

    Returns
    -------
    tokens, targets : ndarray of int, shape (n_windows, length)
        ``targets`` is ``tokens`` shifted by one character, with -1 (`IGNORE`) at the positions
        not scored; ``n_windows`` is ``n_scored / length`` (non-overlapping) or ``n_scored / s``
        (sliding).

    Examples
    --------
    >>> ids = np.arange(20)
    >>> tokens, targets = windows(ids, 4, "nonoverlapping", n_scored=8, start=4)
    >>> tokens.tolist(), targets.tolist()
    ([[4, 5, 6, 7], [8, 9, 10, 11]], [[5, 6, 7, 8], [9, 10, 11, 12]])
    >>> tokens, targets = windows(ids, 4, "sliding", n_scored=8, start=4)
    >>> tokens[:2].tolist(), targets[:2].tolist()
    ([[1, 2, 3, 4], [2, 3, 4, 5]], [[-1, -1, -1, 5], [-1, -1, -1, 6]])
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"windows: ids must be a 1-d array of int, got {ids.dtype} {ids.shape}")
    length = check_int("windows", "length", length, minimum=1)
    check_choice("windows", "mode", mode, MODES)
    n_scored = check_int("windows", "n_scored", n_scored, minimum=1)
    start = check_int("windows", "start", start, minimum=0)
    _check_scored("windows", n_scored, length, (mode,))
    if start + n_scored + 1 > len(ids):
        raise ValueError(
            f"windows: start + n_scored + 1 must be <= len(ids) = {len(ids)}, got "
            f"{start} + {n_scored} + 1"
        )
    if mode == "nonoverlapping":
        first = start + np.arange(0, n_scored, length)
        scored_from = 0
    else:
        stride = sliding_stride(length)
        if start < length - stride:
            raise ValueError(
                f"windows: start must be >= {length - stride} (the context of a sliding window "
                f"of {length}), got {start}"
            )
        first = start + np.arange(0, n_scored, stride) + stride - length
        scored_from = length - stride
    index = first[:, None] + np.arange(length)
    tokens, targets = ids[index], ids[index + 1].copy()
    targets[:, :scored_from] = IGNORE
    return tokens, targets


def _check_windows(func, config, tokens, targets):
    """Refuse tokens that are not (windows, length) ids of the model, or targets of another shape."""
    tokens = check_ids(func, "tokens", tokens, high=config.vocab_size, ndim=2)
    targets = np.asarray(targets)
    if targets.shape != tokens.shape:
        raise ValueError(
            f"{func}: targets must have the shape of tokens {tokens.shape} (windows, length), "
            f"got shape {targets.shape}"
        )
    return tokens, targets


def char_bits(params, config, tokens, targets, *, batch_elements=2**20):
    """Return the loss of every scored character in bits, NaN where a target is not scored.

    Windows are run ``B`` at a time with ``B * T * T <= batch_elements`` (memory of the
    attention weights).

    Parameters
    ----------
    params : dict
        The model's parameters (`init_params`, or ``TrainResult.params`` after `train`).
    config : ModelConfig
        The model's shape and position scheme.
    tokens : array_like of int, shape (N, T)
        N windows of T characters.
    targets : array_like of int, shape (N, T)
        The next character of every token, -1 (`IGNORE`) where not scored (as `windows` makes).
    batch_elements : int
        Bounds the windows run at once; the result does not depend on it (up to rounding).

    Returns
    -------
    ndarray of float, shape (N, T)
        ``-log2 p(target)`` for every scored target, NaN elsewhere.

    Examples
    --------
    >>> from posenc_lib.model import init_params
    >>> config = model_config("alibi")
    >>> tokens, targets = windows(np.arange(40) % 7, 8, "sliding", n_scored=8, start=8)
    >>> bits = char_bits(init_params(config), config, tokens, targets)
    >>> bits.shape, int(np.sum(~np.isnan(bits))), bool(np.all(np.isnan(bits[:, :6])))
    ((4, 8), 8, True)
    """
    tokens, targets = _check_windows("char_bits", config, tokens, targets)
    batch_elements = check_int("char_bits", "batch_elements", batch_elements, minimum=1)
    n, t = tokens.shape
    batch = max(1, batch_elements // (t * t))
    out = np.full((n, t), np.nan)
    for first in range(0, n, batch):
        rows = slice(first, first + batch)
        losses = token_losses(forward(params, tokens[rows], config), targets[rows])
        out[rows] = np.where(targets[rows] != IGNORE, bits_per_char(losses), np.nan)
    return out


def score(params, config, tokens, targets, *, batch_elements=2**20):
    """Sum the loss in bits, and count scored characters, at each window position.

    The loss is the model's cross-entropy (`~posenc_lib.model.token_losses`) converted by
    `~posenc_lib.corpus.bits_per_char`. Windows are run ``B`` at a time with
    ``B * T * T <= batch_elements`` (memory of the attention weights).

    Parameters
    ----------
    params : dict
        The model's parameters (`init_params`, or ``TrainResult.params`` after `train`).
    config : ModelConfig
        The model's shape and position scheme.
    tokens : array_like of int, shape (N, T)
        N windows of T characters.
    targets : array_like of int, shape (N, T)
        The next character of every token, -1 (`IGNORE`) where not scored (as `windows` makes).
    batch_elements : int
        Bounds the windows run at once; the result does not depend on it (up to rounding).

    Returns
    -------
    totals : ndarray of float, shape (T,)
        Bits summed over the windows at each position (targets of -1 are not scored).
    counts : ndarray of int, shape (T,)
        Characters scored at each position.

    Raises
    ------
    ValueError
        If ``tokens`` is not 2-d or ``targets`` does not have its shape.

    Examples
    --------
    A freshly initialised model on four chunks of 64 characters of validation text; its bits
    per character are its loss (nats per character, `loss_fn`) divided by ln 2:

    >>> import math
    >>> from posenc_lib.model import init_params, loss_fn, region_value
    >>> config = model_config("alibi")
    >>> params = init_params(config)
    >>> tokens, targets = windows(load_corpus().validation, 64, "nonoverlapping", n_scored=256)
    >>> totals, counts = score(params, config, tokens, targets)
    >>> totals.shape, counts.tolist()[:4], int(counts.sum())
    ((64,), [4, 4, 4, 4], 256)
    >>> nats = float(loss_fn(params, tokens, targets, config))
    >>> math.isclose(region_value(totals, counts), nats / math.log(2))
    True
    >>> one_at_a_time = score(params, config, tokens, targets, batch_elements=64 * 64)
    >>> bool(np.allclose(one_at_a_time[0], totals))
    True
    """
    tokens, targets = _check_windows("score", config, tokens, targets)
    bits = char_bits(params, config, tokens, targets, batch_elements=batch_elements)
    return position_sums(bits)


def position_sums(bits):
    """Sum per-character bits over windows: (totals, counts) at each window position.

    Parameters
    ----------
    bits : ndarray of float, shape (N, T)
        As `char_bits` returns them (NaN where not scored).

    Returns
    -------
    totals : ndarray of float, shape (T,)
    counts : ndarray of int, shape (T,)

    Examples
    --------
    >>> position_sums(np.array([[1.0, np.nan], [2.0, 3.0]]))
    (array([3., 3.]), array([2, 1]))
    """
    scored = ~np.isnan(bits)
    return np.where(scored, bits, 0.0).sum(axis=0), scored.sum(axis=0).astype(np.int64)


# -- the sweep --------------------------------------------------------------------------------


def sweep_jobs(
    schemes=SCHEMES,
    seeds=(0,),
    *,
    steps=STEPS,
    train_len=TRAIN_LEN,
    eval_lens=EVAL_LENS,
    n_scored=N_SCORED,
    variants=(),
    variant_seeds=None,
):
    """List the jobs of the sweep, scheme x seed in that order, then variant x seed.

    See `train_and_score` for what a job does.

    Parameters
    ----------
    schemes : sequence of str
        Position schemes, each one of `SCHEMES`.
    seeds : sequence of int
        Each seeds one model's initialisation and training batches (>= 0).
    steps : int
        Adam steps per model.
    train_len : int
        The training length L (at least 2).
    eval_lens : sequence of int
        The evaluation lengths, each at least ``train_len``; they must include it.
    n_scored : int
        Validation characters scored at every length (a multiple of every length).
    variants : sequence of str
        Names in `VARIANTS`: one more job per variant and seed, scored in non-overlapping chunks
        only (the committed sweep runs all three); a variant of a scheme not in ``schemes`` is
        left out with its scheme.
    variant_seeds : sequence of int, optional
        The seeds of the variants (default: ``seeds``).

    Returns
    -------
    list of dict
        One job (JSON values) per scheme (or variant) and seed: its ``task``, ``scheme``, ``config``,
        ``seed``, ``steps``, ``train_len``, ``eval_lens`` (sorted), ``modes``, ``n_scored``
        and ``start`` (the longest evaluation length: the text before it is context only).

    Examples
    --------
    >>> len(sweep_jobs(seeds=SEEDS))  # the committed sweep's main models: 6 schemes x 10 seeds
    60
    >>> jobs = sweep_jobs(("none", "alibi"), (0, 1), steps=3, train_len=8, eval_lens=(16, 8),
    ...                   n_scored=64)
    >>> [(job["scheme"], job["seed"]) for job in jobs]
    [('none', 0), ('none', 1), ('alibi', 0), ('alibi', 1)]
    >>> jobs[0]["eval_lens"], jobs[0]["modes"], jobs[0]["start"]
    ([8, 16], ['nonoverlapping', 'sliding'], 16)
    >>> [(job["scheme"], job["config"]) for job in sweep_jobs(variants=tuple(VARIANTS))[-3:]]
    [('t5', 't5-buckets-to-32'), ('alibi', 'alibi-8-heads'), ('rope', 'rope-2-heads')]
    """
    func = "sweep_jobs"
    schemes = check_sequence(func, "schemes", schemes, allowed=SCHEMES)
    seeds = check_sequence(func, "seeds", seeds, minimum=0)
    steps = check_int(func, "steps", steps, minimum=1)
    train_len = check_int(func, "train_len", train_len, minimum=2)
    eval_lens = check_sequence(func, "eval_lens", eval_lens, minimum=train_len)
    if train_len not in eval_lens:
        raise ValueError(
            f"sweep_jobs: eval_lens must include train_len={train_len}, got {eval_lens}"
        )
    n_scored = check_int("sweep_jobs", "n_scored", n_scored, minimum=1)
    for length in eval_lens:  # before any model trains, not when the first one is scored
        _check_scored("sweep_jobs", n_scored, length, MODES)
    if isinstance(variants, str):
        raise TypeError(f"sweep_jobs: variants must be a sequence of names, got {variants!r}")
    variant_seeds = seeds if variant_seeds is None else variant_seeds
    variant_seeds = check_sequence(func, "variant_seeds", variant_seeds, minimum=0)
    variants = list(variants)
    if variants:
        variants = check_sequence(func, "variants", variants, allowed=tuple(VARIANTS))
    models = [(scheme, CONFIG_NAME) for scheme in schemes]
    for name in variants:
        if VARIANTS[name][0] in schemes:  # a variant of a scheme left out is left out too
            models.append((VARIANTS[name][0], name))
    return [
        {
            "task": NAME,
            "scheme": scheme,
            "config": config,
            "seed": seed,
            "steps": steps,
            "train_len": train_len,
            "eval_lens": sorted(eval_lens),
            # the variants are scored in chunks only, to keep the sweep within its time budget
            "modes": list(MODES) if config == CONFIG_NAME else ["nonoverlapping"],
            "n_scored": n_scored,
            "start": max(eval_lens),
        }
        for scheme, config in models
        for seed in (seeds if config == CONFIG_NAME else variant_seeds)
    ]


def train_and_score(job, *, progress=False):
    """Train the model one job describes and score it on validation text.

    Scored at every evaluation length in both modes.

    Returns {"job", "records", "curves", "train_bits", "result"} (``train_bits``: the mean
    training loss of the last 50 steps, in bits per character; "result": the TrainResult).

    Parameters
    ----------
    job : dict
        One of `sweep_jobs`'s jobs.
    progress : bool
        Show a progress bar of the training steps.

    Returns
    -------
    dict
        ``job``; ``records``, the results.json records of the model (one per evaluation
        length, mode and region); ``curves``, its curves.json records (non-overlapping, at the
        training length and at the longest evaluation length, each where the model can run);
        ``train_bits``; and ``result``, the trained model (the engine does not write it).

    Examples
    --------
    A two-step model trained at 8 characters, scored at 8 and 16:

    >>> job = sweep_jobs(("alibi",), (0,), steps=2, train_len=8, eval_lens=(8, 16), n_scored=64)
    >>> out = train_and_score(job[0])
    >>> sorted(out), type(out["result"]).__name__
    (['curves', 'job', 'records', 'result', 'train_bits', 'training'], 'TrainResult')
    >>> [(r["eval_len"], r["mode"], r["region"]) for r in out["records"]]
    [(8, 'nonoverlapping', 'all'), (8, 'sliding', 'all'),
     (16, 'nonoverlapping', 'all'), (16, 'nonoverlapping', 'unseen'),
     (16, 'sliding', 'all'), (16, 'sliding', 'unseen')]
    >>> [(c["eval_len"], len(c["counts"])) for c in out["curves"]]
    [(8, 8), (16, 16)]
    """
    corpus = load_corpus()
    config = model_config(
        job["scheme"],
        train_len=job["train_len"],
        vocab_size=corpus.vocab_size,
        config=job["config"],
    )
    result = train(
        config,
        text_task(corpus),
        steps=job["steps"],
        length=job["train_len"],
        seed=job["seed"],
        snapshot_every=CHECKPOINT_EVERY,
        progress=progress,
        **TRAIN,
    )
    ids = evaluation_ids(corpus.validation, job["start"])
    bits = {}
    for n in job["eval_lens"]:
        for mode in job["modes"]:
            if length_problem(config, n):
                bits[n, mode] = None
                continue
            tokens, targets = windows(ids, n, mode, n_scored=job["n_scored"], start=job["start"])
            bits[n, mode] = char_bits(result.params, config, tokens, targets)
    scored = {k: None if b is None else position_sums(b) for k, b in bits.items()}
    base = {k: job[k] for k in RECORD_FIELDS}
    short, longest = job["train_len"], max(job["eval_lens"])
    curves = []
    for n in sorted({short, longest}):
        if scored[n, "nonoverlapping"] is None:
            continue
        curve = records.curve_record(
            base,
            {"eval_len": n, "mode": "nonoverlapping"},
            METRIC,
            *scored[n, "nonoverlapping"],
            digits=3,
        )
        if n == longest > short:
            # the same characters, in the same order, in chunks of `longest` and of `short`
            extra = bits[longest, "nonoverlapping"].ravel() - bits[short, "nonoverlapping"].ravel()
            curve["excess"] = [round(float(v), 3) for v in extra.reshape(-1, longest).sum(0)]
        curves.append(curve)
    # the validation curve: bits per character at the training length, in chunks, at every snapshot
    tokens, targets = windows(
        ids, short, "nonoverlapping", n_scored=job["n_scored"], start=job["start"]
    )
    steps = sorted(result.snapshots)
    training = {
        **base,
        "eval_len": short,
        "mode": "nonoverlapping",
        "metric": METRIC,
        "steps": steps,
        "values": [
            round(float(np.mean(char_bits(result.snapshots[k], config, tokens, targets))), 6)
            for k in steps
        ],
    }
    return {
        "job": job,
        "records": records.region_records(base, scored, job["train_len"], METRIC, keys=("mode",)),
        "curves": curves,
        "training": training,
        "train_bits": float(bits_per_char(np.mean(result.losses[-50:]))),
        "result": result,
    }


def report(records, out):
    """Draw out/results.png (both modes side by side) and return the tables of both modes.

    Parameters
    ----------
    records : list of dict
        The records of results.json.
    out : Path
        The sweep's directory.

    Returns
    -------
    str
        A `results_table` per mode.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import matplotlib
    >>> with tempfile.TemporaryDirectory() as out, matplotlib.rc_context():
    ...     text = report(load_sweep()[0], Path(out))
    ...     drawn = (Path(out) / "results.png").exists()
    >>> text.splitlines()[0], drawn
    ('bits per character, non-overlapping chunks, mean (min-max) over 10 seeds', True)
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import plot_results, use_house_style

    use_house_style()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained", sharey=True)
    for ax, mode in zip(axes, MODES, strict=True):
        plot_results(
            records,
            config=CONFIG_NAME,
            mode=mode,
            region="all",
            axes=[ax],
            legend=mode == MODES[-1],
        )
        ax.set_title(MODE_NAMES[mode])
    fig.savefig(out / "results.png", dpi=80)
    plt.close(fig)
    return "\n\n".join(results_table(records, mode=mode, region="all") for mode in MODES) + "\n"


# -- the one way to run and read the sweep (chapter 06's is the same) ------------------------


def _heading(*, config, region, seeds, train_len, criteria):
    where = "" if region == "all" else f", {region} positions (at L: all)"
    return (
        f"bits per character, {MODE_NAMES[criteria['mode']]}{where}, "
        f"mean (min-max) over {seeds} seed{'s' if seeds > 1 else ''}"
    )


def _column(eval_len, train_len, region):
    return f"L = {eval_len}" if eval_len == train_len else f"{eval_len // train_len}L = {eval_len}"


# The full sweep, as committed: every scheme, ten seeds; the variants, three.
FULL = {
    "schemes": SCHEMES,
    "seeds": SEEDS,
    "steps": STEPS,
    "train_len": TRAIN_LEN,
    "eval_lens": EVAL_LENS,
    "n_scored": N_SCORED,
    "variants": tuple(VARIANTS),
    "variant_seeds": VARIANT_SEEDS,
}
REALTEXT = Sweep(
    name="realtext",
    module="posenc_lib.realtext",
    jobs=sweep_jobs,
    runner=train_and_score,
    files={"results": "records", "curves": "curves", "training": "training"},
    options=FULL,
    quick={"seeds": (0,), "variant_seeds": (0,)},
    tiny={
        "schemes": ("none", "learned", "alibi"),
        "seeds": (0,),
        "steps": 3,
        "train_len": 8,
        "eval_lens": (8, 16),
        "n_scored": 64,
        "variants": (),
    },
    settings={"model": MODEL, "train": TRAIN, "sliding_fraction": SLIDING_FRACTION},
    code_roots=(
        "posenc_lib.realtext:train_and_score",
        "posenc_lib.realtext:sweep_jobs",
        "posenc_lib.realtext:FULL",
        "posenc_lib.sweep:write_sweep",
    ),
    inputs=(corpus.CORPUS_FILE,),
    witnesses=({"scheme": "sinusoidal", "seed": 0},),
    report=report,
    cell=("scheme", "eval_len"),
    models_by=("scheme", "seed"),
    config=CONFIG_NAME,
    selection={"mode": "nonoverlapping"},
    heading=_heading,
    column=_column,
    verbs={"run": "run_sweep", "load": "load_sweep"},
)


def run_sweep(
    *, out=None, workers=1, backend="loky", progress=True, fresh=False, keep_models=False, **options
):
    """Train and score real-text models now; with ``out``, write the sweep's files there.

    `REALTEXT`'s `~posenc_lib.sweep.Sweep.run`, the one way to run the sweep (chapter 06's
    ``experiments.run_study`` is the same): the options are those of `sweep_jobs` with its
    defaults (every scheme, seed 0, the main configuration, no variants); ``**FULL`` runs the
    committed sweep.

    Parameters
    ----------
    out : str or Path, optional
        Write results.json, curves.json and training.json (each with its provenance) and the
        witness model's parameters here; out/progress.jsonl makes the run resumable.
    workers : int
        Worker processes, one BLAS thread each (1: train in this process).
    backend : {"loky", "dask"}
        Local processes, or the Dask cluster of the current ``dask.distributed.Client``.
    progress : bool
        Show a progress bar of the models trained.
    fresh : bool
        With ``out``: delete out/progress.jsonl first, so every model is trained again.
    keep_models : bool
        Also return the trained models (not with ``out``).
    **options
        Arguments of `sweep_jobs`: schemes, seeds, steps, train_len, eval_lens, n_scored,
        variants, variant_seeds.

    Returns
    -------
    records, curves : list of dict
        As `load_sweep` returns them (the validation curves: `load_training` of ``out``).
    models : dict, optional
        Only with ``keep_models`` (then ``((records, curves), models)`` is returned):
        (scheme, seed) -> `~posenc_lib.model.TrainResult`.

    Examples
    --------
    >>> (records, curves), models = run_sweep(
    ...     schemes=("none", "learned"), steps=2, train_len=8, eval_lens=(8, 16), n_scored=64,
    ...     progress=False, keep_models=True)
    >>> list(models), len(records)  # 2 models x (2 records at L + 4 at 2L)
    ([('none', 0), ('learned', 0)], 12)
    >>> summarize(records, region="all")[("learned", 16)] is None  # 8 rows cannot run at 16
    True
    """
    result = REALTEXT.run(
        out=out,
        workers=workers,
        backend=backend,
        progress=progress,
        fresh=fresh,
        keep_models=keep_models,
        **options,
    )
    return (result[0][:2], result[1]) if keep_models else result[:2]


def load_sweep(directory=None):
    """Read (records, curves) of the real-text sweep.

    `REALTEXT`'s `~posenc_lib.sweep.Sweep.load` (chapter 06's ``experiments.load_study`` is the
    same).

    Parameters
    ----------
    directory : str or Path, optional
        A directory `run_sweep` wrote; default: the committed sweep, inside the installed
        package (``posenc_lib/data/realtext``), so the chapter runs from any directory.

    Returns
    -------
    records : list of dict
        One per model, evaluation length, mode and region (see the module's description).
    curves : list of dict
        Per window position, the summed bits and the characters scored, one per model and
        length.

    Examples
    --------
    >>> records, curves = load_sweep()
    >>> len(records)  # 60 models x (2 at L + 4 at each of 2L .. 16L), 9 variants x (1 + 2 x 4)
    1161
    >>> len(curves)  # 69 models x (L, 16L), but a learned table cannot run at 16L
    128
    >>> sorted(records[0])
    ['config', 'eval_len', 'metric', 'mode', 'region', 'scheme', 'seed', 'task', 'train_len',
     'value']
    """
    return REALTEXT.load(directory)[:2]


def load_training(directory=None):
    """Read the sweep's validation curves (training.json): bits per character during training.

    Parameters
    ----------
    directory : str or Path, optional
        As in `load_sweep`.

    Returns
    -------
    list of dict
        One record per model: its fields, ``steps`` and ``values`` (bits per character at the
        training length, in chunks, on the validation text).

    Examples
    --------
    >>> training = load_training()
    >>> len(training), training[0]["steps"][:3], training[0]["steps"][-1]  # 69 models
    (69, [0, 100, 200], 1000)
    """
    return REALTEXT.load(directory)[2]


def summarize(records, *, region="unseen", config=None, **criteria):
    """{(scheme, eval_len): (mean, min, max) over seeds} of bits per character.

    `REALTEXT`'s `~posenc_lib.sweep.Sweep.summarize` (chapter 06's ``experiments.summarize`` is
    the same, keyed (task, scheme, eval_len)); None where a scheme cannot run at that length.

    Parameters
    ----------
    records : list of dict
        Records of results.json (`load_sweep`, `run_sweep`).
    region : {"unseen", "all"}
        "unseen": the window positions >= the training length, and at the training length all
        of them; "all": every scored character (the paper's reading).
    config : str, optional
        The configuration (default: `CONFIG_NAME`; a name in `VARIANTS`).
    **criteria
        Further fields the records must match, e.g. ``mode="sliding"`` (default: the
        non-overlapping chunks).

    Returns
    -------
    dict
        ``(scheme, eval_len)`` -> ``(mean, min, max)`` of the seeds' bits per character, or
        None where the scheme cannot run.

    Raises
    ------
    ValueError
        If a field, value, mode or configuration matches no record.

    Examples
    --------
    On the committed sweep, where a learned table of 64 rows cannot run at 128:

    >>> summary = summarize(load_sweep()[0], region="all")
    >>> len(summary), summary[("learned", 128)] is None, round(summary[("alibi", 1024)][0], 2)
    (30, True, 2.7)
    >>> summarize(load_sweep()[0], mode="Sliding")
    Traceback (most recent call last):
    ...
    ValueError: summarize: no record has mode='Sliding'; mode is one of ['nonoverlapping', 'sliding']
    """
    return REALTEXT.summarize(records, region=region, config=config, **criteria)


def results_table(records, *, region="unseen", config=None, digits=2, **criteria):
    """Text: one row per scheme, mean (min-max over seeds) bits per character at every length.

    `REALTEXT`'s `~posenc_lib.sweep.Sweep.results_table` (chapter 06's
    ``experiments.results_table`` is the same).

    Parameters
    ----------
    records : list of dict
        Records of results.json (`load_sweep`, `run_sweep`).
    region : {"unseen", "all"}
        The region shown past the training length; at the training length, where no position
        is unseen, the column shows all positions.
    config : str, optional
        The configuration (default: `CONFIG_NAME`).
    digits : int
        Decimals of every number.
    **criteria
        Further fields the records must match, e.g. ``mode="sliding"`` (default: the
        non-overlapping chunks).

    Returns
    -------
    str
        A title line, a header of the lengths, then one line per scheme ("cannot run" where
        the scheme cannot run at a length).

    Raises
    ------
    ValueError
        If a field, value, mode or configuration matches no record.

    Examples
    --------
    The committed sweep, scored as the paper does (every character of each chunk): ALiBi's
    bits per character stay flat up to 16 times the training length.

    >>> print(results_table(load_sweep()[0], region="all"))
    bits per character, non-overlapping chunks, mean (min-max) over 10 seeds
    scheme                 L = 64         2L = 128         4L = 256         8L = 512       16L = 1024
    none         3.46 (3.43-3.49) 3.59 (3.54-3.62) 3.70 (3.66-3.75) 3.79 (3.75-3.84) 3.86 (3.83-3.92)
    sinusoidal   2.66 (2.64-2.70) 3.85 (3.77-3.92) 4.49 (4.40-4.60) 4.83 (4.66-5.03) 5.05 (4.82-5.34)
    learned      2.75 (2.72-2.77)       cannot run       cannot run       cannot run       cannot run
    rope         2.54 (2.52-2.57) 2.77 (2.65-2.88) 3.93 (3.70-4.14) 4.68 (4.47-4.85) 5.12 (4.96-5.26)
    alibi        2.72 (2.69-2.74) 2.70 (2.68-2.72) 2.70 (2.68-2.72) 2.70 (2.68-2.72) 2.70 (2.68-2.72)
    t5           2.51 (2.48-2.54) 2.55 (2.52-2.59) 2.77 (2.74-2.85) 3.24 (3.15-3.38) 3.78 (3.63-3.96)
    """
    return REALTEXT.results_table(records, region=region, config=config, digits=digits, **criteria)


# -- per-position bits --------------------------------------------------------------------------


def _scheme_curves(func, curves, scheme, eval_len, config, field, bin_width):
    """Return one scheme's curves at one length that hold ``field``, and the checked bin width."""
    check_choice(func, "field", field, ("totals", "excess"))
    curves = check_records(func, curves, name="curves", fields=("scheme", "eval_len", "counts"))
    check_criteria(func, curves, {"scheme": scheme, "eval_len": eval_len}, values=True)
    rows = [
        c
        for c in curves
        if c["scheme"] == scheme
        and c["eval_len"] == eval_len
        and c.get("config", CONFIG_NAME) == config
        and field in c
    ]
    if not rows:
        raise ValueError(
            f"{func}: no {field} curve of {scheme!r} ({config}) at eval_len={eval_len}"
        )
    bin_width = check_int(func, "bin_width", bin_width, minimum=1)
    if bin_width > eval_len:
        raise ValueError(f"{func}: bin_width must be at most eval_len={eval_len}, got {bin_width}")
    return rows, bin_width


def position_bits(curves, scheme, eval_len, *, bin_width=1, field="totals", config=CONFIG_NAME):
    """Bits per character at each window position (binned), (mean, min, max) over seeds.

    Returns (centres, mean, low, high), arrays of one entry per bin of ``bin_width`` positions.
    With ``field="excess"`` (curves at the longest length only): the extra bits per character
    each position pays in a chunk of ``eval_len`` over the same character scored in a chunk of
    the training length, so that the text's difficulty cancels.

    Parameters
    ----------
    curves : list of dict
        Records of curves.json (`load_sweep`).
    scheme : str
        The position scheme.
    eval_len : int
        The evaluation length (the committed curves are at 64 and 1024).
    bin_width : int
        Window positions per bin; positions past the last whole bin are left out.
    field : {"totals", "excess"}
        Bits summed at each position, or the extra bits over the training length's chunks.
    config : str
        The configuration (`CONFIG_NAME` or a name in `VARIANTS`).

    Returns
    -------
    centres, mean, low, high : ndarray of float, shape (eval_len // bin_width,)
        The window position at the centre of each bin, and the bin's bits per character:
        mean, minimum and maximum over seeds (`~posenc_lib.records.binned_curves`; NaN for a
        bin without a scored character).

    Raises
    ------
    ValueError
        When ``curves`` holds no curve of ``scheme`` at ``eval_len``, or ``bin_width`` is
        below 1 or longer than the curve.

    Examples
    --------
    >>> c = [{"scheme": "s", "eval_len": 4, "totals": [8.0, 4, 2, 2], "counts": [2, 2, 2, 2]}]
    >>> position_bits(c, "s", 4, bin_width=2)[1].tolist()
    [3.0, 1.0]

    ALiBi at 16 times its training length, in quarters of the window (committed sweep):

    >>> centres, mean, low, high = position_bits(load_sweep()[1], "alibi", 1024,
    ...                                          bin_width=256)
    >>> centres.tolist(), bool(np.all((low <= mean) & (mean <= high)))
    ([127.5, 383.5, 639.5, 895.5], True)
    """
    func = "position_bits"
    rows, bin_width = _scheme_curves(func, curves, scheme, eval_len, config, field, bin_width)
    return binned_curves(rows, bin_width=bin_width, field=field)


def position_bits_by_seed(
    curves, scheme, eval_len, *, bin_width=1, field="totals", config=CONFIG_NAME
):
    """Bits per character in bins of window positions, one row per seed (`position_bits`, unpooled).

    A bin's value is its summed bits over its scored characters, for each model separately, so
    that two bins (or two schemes) can be compared seed by seed.

    Parameters
    ----------
    curves : list of dict
        Records of curves.json (`load_sweep`).
    scheme : str
        The position scheme.
    eval_len : int
        The evaluation length (the committed curves are at 64 and 1024).
    bin_width : int
        Window positions per bin; positions past the last whole bin are left out.
    field : {"totals", "excess"}
        As in `position_bits`: bits as scored, or the extra bits over the same characters in
        chunks of the training length (at the longest length only).
    config : str
        The configuration (`CONFIG_NAME` or a name in `VARIANTS`).

    Returns
    -------
    starts : ndarray of int, shape (n_bins,)
        The first window position of each bin (bin k holds positions starts[k] to
        starts[k] + bin_width - 1).
    seeds : ndarray of int, shape (n_seeds,)
        The seeds, in increasing order.
    values : ndarray of float, shape (n_seeds, n_bins)
        Each seed's bits per character in each bin (NaN for a bin without a scored character).

    Raises
    ------
    ValueError
        As `position_bits`.

    Examples
    --------
    >>> c = [{"scheme": "s", "eval_len": 4, "seed": k, "totals": [8.0, 4, 2, 2 * k],
    ...       "counts": [2, 2, 2, 2]} for k in (1, 0)]
    >>> starts, seeds, values = position_bits_by_seed(c, "s", 4, bin_width=2)
    >>> starts.tolist(), seeds.tolist(), values.tolist()
    ([0, 2], [0, 1], [[3.0, 0.5], [3.0, 1.0]])

    RoPE's extra bits at positions 112-127 of a chunk of 1,024, seed by seed (committed sweep):

    >>> starts, seeds, extra = position_bits_by_seed(load_sweep()[1], "rope", 1024,
    ...                                              bin_width=16, field="excess")
    >>> int(starts[7]), len(seeds) == len(SEEDS), bool(np.all(extra[:, 7] > 0.5))
    (112, True, True)
    """
    func = "position_bits_by_seed"
    rows, bin_width = _scheme_curves(func, curves, scheme, eval_len, config, field, bin_width)
    rows = sorted(rows, key=lambda c: c.get("seed", 0))
    values = np.array([records.bin_positions(c[field], c["counts"], bin_width)[1] for c in rows])
    starts = np.arange(values.shape[1]) * bin_width
    return starts, np.array([c.get("seed", 0) for c in rows]), values


def validation_curves(training, scheme, *, config=CONFIG_NAME):
    """Return the validation curves of one scheme's models: bits per character by training step.

    Parameters
    ----------
    training : list of dict
        Records of training.json (`load_training`): one per model, with ``steps`` and
        ``values`` (bits per character at the training length, in non-overlapping chunks, on
        the scored validation text).
    scheme : str
        The position scheme.
    config : str
        The configuration (`CONFIG_NAME` or a name in `VARIANTS`).

    Returns
    -------
    steps : ndarray of int, shape (n_steps,)
        The training steps of the curve (0, every `CHECKPOINT_EVERY` steps, and the last).
    seeds : ndarray of int, shape (n_seeds,)
        The seeds, in increasing order.
    values : ndarray of float, shape (n_seeds, n_steps)
        Each model's bits per character at each step.

    Raises
    ------
    ValueError
        If no record is of ``scheme`` and ``config``, or the records' steps differ.

    Examples
    --------
    >>> t = [{"scheme": "s", "config": CONFIG_NAME, "seed": k, "steps": [0, 100],
    ...       "values": [7.0, 3.0 + k]} for k in (1, 0)]
    >>> steps, seeds, values = validation_curves(t, "s")
    >>> steps.tolist(), seeds.tolist(), values.tolist()
    ([0, 100], [0, 1], [[7.0, 3.0], [7.0, 4.0]])

    The committed sweep: every model's curve from step 0 to the budget.

    >>> steps, seeds, values = validation_curves(load_training(), "alibi")
    >>> int(steps[0]), int(steps[-1]), values.shape == (len(SEEDS), len(steps))
    (0, 1000, True)
    """
    func = "validation_curves"
    training = check_records(func, training, name="training", fields=("scheme", "steps", "values"))
    rows = [r for r in training if r["scheme"] == scheme and r.get("config", CONFIG_NAME) == config]
    if not rows:
        raise ValueError(f"{func}: no validation curve of {scheme!r} ({config})")
    if len({tuple(r["steps"]) for r in rows}) > 1:
        raise ValueError(f"{func}: the curves of {scheme!r} ({config}) differ in their steps")
    rows = sorted(rows, key=lambda r: r.get("seed", 0))
    return (
        np.array(rows[0]["steps"]),
        np.array([r.get("seed", 0) for r in rows]),
        np.array([r["values"] for r in rows], dtype=float),
    )


def interval_text(differences, *, digits=3, per_seed=True):
    """One line: per-seed differences, their mean and 95% interval, and whether it excludes zero.

    The verdict reads the paired t interval (`posenc_lib.stats.paired_interval`): "above zero"
    or "below zero" when the interval excludes zero, "not established" when it includes it,
    whatever the mean says.

    Parameters
    ----------
    differences : array_like, shape (n,)
        One difference per seed (n >= 2).
    digits : int
        Decimals shown.
    per_seed : bool
        Show each seed's difference before the mean.

    Returns
    -------
    str

    Examples
    --------
    >>> interval_text([0.10, 0.12, 0.08, 0.11], digits=2)
    '+0.10 +0.12 +0.08 +0.11  mean +0.10 (95% interval +0.08 to +0.13): above zero'
    >>> interval_text([0.2, -0.1, 0.05], digits=2, per_seed=False)
    'mean +0.05 (95% interval -0.32 to +0.42): not established'
    """
    from .stats import paired_interval

    digits = check_int("interval_text", "digits", digits, minimum=0)
    mean, low, high = paired_interval(differences)
    verdict = "above zero" if low > 0 else "below zero" if high < 0 else "not established"
    seeds = "".join(f"{d:+.{digits}f} " for d in np.asarray(differences, dtype=float))
    return (
        f"{seeds + ' ' if per_seed else ''}mean {mean:+.{digits}f} (95% interval "
        f"{low:+.{digits}f} to {high:+.{digits}f}): {verdict}"
    )


def ngram_bits(train, ids, *, context, cut=None, n_scored=N_SCORED, start=START, discount=0.75):
    """Bits per character of a count-based character n-gram model: a floor with no positions.

    Interpolated absolute discounting: with k characters of context h, P(c | h) =
    (max(n(h c) - D, 0) + D * u(h) * P(c | h')) / n(h), where n counts in ``train``, u(h) is the
    number of distinct characters seen after h, and h' is h without its first character; an
    unseen h falls back to P(c | h'), and zero characters of context back off to uniform. It
    scores the characters `windows` scores, ``ids[start + 1 : start + 1 + n_scored]``, each with
    the ``context`` characters before it, or (``cut``) only those inside its chunk of ``cut``, as
    non-overlapping chunks of ``cut`` give them to a model.

    Parameters
    ----------
    train : array_like of int, shape (N,)
        The training text, one id per character (``load_corpus().train``).
    ids : array_like of int, shape (M,)
        The evaluation stream (`evaluation_ids`); ids below ``max(train) + 1`` or the largest id.
    context : int
        Characters of context (at least 0; 0 is the discounted letter counts).
    cut : int, optional
        Chunk length: a character at position p of its chunk sees min(context, p + 1) characters.
    n_scored, start : int
        Which characters are scored, as in `windows`.
    discount : float
        D, between 0 and 1.

    Returns
    -------
    float
        The mean bits per scored character.

    Examples
    --------
    >>> text = np.array([0, 1, 2] * 20)
    >>> round(ngram_bits(text, text, context=0, n_scored=30, start=3), 3)  # three letters
    1.585
    >>> round(ngram_bits(text, text, context=2, n_scored=30, start=3), 3)  # the cycle
    0.001
    """
    context = check_int("ngram_bits", "context", context, minimum=0)
    n_scored = check_int("ngram_bits", "n_scored", n_scored, minimum=1)
    start = check_int("ngram_bits", "start", start, minimum=context - 1)
    if not 0 < discount < 1:
        raise ValueError(f"ngram_bits: discount must be between 0 and 1, got {discount!r}")
    if cut is not None:
        cut = check_int("ngram_bits", "cut", cut, minimum=1)
    train, ids = np.asarray(train, dtype=np.int64), np.asarray(ids, dtype=np.int64)
    if start + n_scored + 1 > len(ids):
        raise ValueError(
            f"ngram_bits: start + n_scored + 1 must be <= len(ids) = {len(ids)}, got "
            f"{start} + {n_scored} + 1"
        )
    v = int(max(train.max(), ids.max())) + 1
    at = start + 1 + np.arange(n_scored)  # the scored characters in ids
    p = np.full(n_scored, 1.0 / v)
    by_context = []
    for k in range(context + 1):  # each n-gram (k characters, then the next) as one integer
        grams = sum(train[j : len(train) - k + j] * v ** (k - j) for j in range(k + 1))
        scored = sum(ids[at - k + j] * v ** (k - j) for j in range(k + 1))
        pairs, n_pair = np.unique(grams, return_counts=True)
        heads, n_next = np.unique(pairs // v, return_counts=True)
        n_head = np.bincount(np.searchsorted(heads, pairs // v), weights=n_pair)
        i = np.minimum(np.searchsorted(pairs, scored), len(pairs) - 1)
        h = np.minimum(np.searchsorted(heads, scored // v), len(heads) - 1)
        seen = heads[h] == scored // v
        n = np.where(pairs[i] == scored, n_pair[i], 0)
        mixed = (np.maximum(n - discount, 0) + discount * n_next[h] * p) / n_head[h]
        p = np.where(seen, mixed, p)
        by_context.append(p)
    k = (
        np.full(n_scored, context)
        if cut is None
        else np.minimum(np.arange(n_scored) % cut + 1, context)
    )
    return float(-np.mean(np.log2(np.array(by_context)[k, np.arange(n_scored)])))


# -- command line ----------------------------------------------------------------------------


def main(argv=None):
    """Run the real-text sweep from the command line (``python -m posenc_lib.realtext``).

    Parameters
    ----------
    argv : list of str, optional
        The command line's arguments (default: ``sys.argv[1:]``); ``--help`` lists them.

    Returns
    -------
    None
        Writes results.json, curves.json, progress.jsonl and results.png into ``--out`` and
        prints the tables of both modes. Ctrl-C stops the sweep, keeps the finished models and
        says how to continue (exit status 130).

    Examples
    --------
    The seconds-long smoke run (``--tiny``: 3 schemes, 3 steps, trained at 8 characters):

    >>> import contextlib, io, tempfile
    >>> from pathlib import Path
    >>> import matplotlib
    >>> with tempfile.TemporaryDirectory() as out, matplotlib.rc_context():
    ...     with contextlib.redirect_stdout(io.StringIO()) as printed:
    ...         main(["--tiny", "--workers", "1", "--no-progress", "--out", out])
    ...     written = sorted(p.name for p in Path(out).iterdir())
    >>> written
    ['curves.json', 'progress.jsonl', 'results.json', 'results.png', 'training.json']
    >>> printed.getvalue().splitlines()[:2]
    ['bits per character, non-overlapping chunks, mean (min-max) over 1 seed',
     'scheme                  L = 8          2L = 16']
    >>> "cannot run" in printed.getvalue()  # the learned table at 16 characters
    True
    """
    parser = cli.parser(REALTEXT, __doc__.split("\n\n")[0], "seed 0 only (6 models)")
    cli.run_command(REALTEXT, parser.parse_args(argv), {})


if __name__ == "__main__":
    main()
