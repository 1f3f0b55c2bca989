"""Extending a trained RoPE model's context: interpolation, NTK-aware scaling and YaRN (chapter 6).

Chapter 6's study trains its RoPE models at 32 tokens; this module takes each one to 4 x that
length five ways (`EXTENSION_VARIANTS`: plain extrapolation, position interpolation, NTK-aware
scaling, and YaRN with the deployed ramp and with the paper's), scores it before and after a short
fine-tune there (`context_extension_records`, the records of extension.json), and reads those
records (`extension_summary`, `extension_table`). `yarn_config_with_ramp` runs YaRN with any ramp,
an intervention on the one difference between the two published forms.
"""

from contextlib import contextmanager

import numpy as np

from ._checks import check_array, check_choice, check_int, check_real, short
from ._limits import check_sequence
from .model import ModelConfig, TrainResult, evaluate_positions, region_value, train
from .records import check_criteria, check_records, names, one_config, select
from .rope import ntk_base
from .tables import text_table
from .tasks import Task

EXTENSION = {"tasks": ("lookback-3", "markov"), "factor": 4, "finetune_steps": 40}
# The one table of context-extension methods: name -> the RoPE model's configuration for
# ``factor`` x its training length. Every method here is trained, recorded and tabulated.
EXTENSION_VARIANTS = {
    # plain extrapolation: the model as trained
    "plain": lambda config, factor: config,
    # position interpolation (Chen et al. 2023): positions divided by the factor
    "interpolation": lambda config, factor: config.with_(rope_positions_scale=factor),
    # NTK-aware scaling (bloc97 2023): a larger base, from the head's width
    "ntk": lambda config, factor: config.with_(base=ntk_base(config.base, factor, config.head_dim)),
    # YaRN (Peng et al. 2023): per-frequency interpolation and a temperature, with the ramp as
    # deployed (linear in the pair index: the authors' code and Hugging Face transformers) ...
    "yarn": lambda config, factor: config.with_(yarn_scale=factor, yarn_ramp="index"),
    # ... and as the paper's equation writes it (linear in the number of turns), `rope.yarn_ramp`
    "yarn-paper": lambda config, factor: config.with_(yarn_scale=factor, yarn_ramp="turns"),
}
EXTENSION_METHODS = tuple(EXTENSION_VARIANTS)


def yarn_config_with_ramp(config, factor, ramp):
    """Return a RoPE model's YaRN configuration for ``factor`` x its training length, any ramp.

    Runs YaRN (its temperature included) with the share gamma_i of each pair's speed given by
    ``ramp`` instead of a published ramp, to test what a ramp's value at one pair does (chapter
    6 swaps pair 0's, e.g. `~posenc_lib.rope.yarn_index_ramp` without its clamp). The model
    only runs ramps linear in the number of turns and clipped to [0, 1], so the ramp is written
    as one (`~posenc_lib.rope.yarn_ramp` with ``ramp="turns"`` and new ``alpha``, ``beta``).

    Parameters
    ----------
    config : ModelConfig
        A RoPE model.
    factor : float
        The new context length over the training length (> 1).
    ramp : array_like, shape (head_dim / 2,)
        gamma_i in [0, 1], from the fastest pair to the slowest.

    Returns
    -------
    ModelConfig

    Raises
    ------
    ValueError
        If ``ramp`` is not a clipped line in the number of turns (e.g. a ramp that keeps a slow
        pair more than a fast one).

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.rope import yarn_index_ramp, yarn_ramp
    >>> from posenc_lib.tasks import lookback
    >>> config = make_config(lookback(3), "rope")
    >>> unclamped = yarn_config_with_ramp(config, 4, yarn_index_ramp(8, 32, clamp=False))
    >>> yarn_ramp(8, 32, alpha=unclamped.yarn_alpha, beta=unclamped.yarn_beta, ramp="turns").round(3)
    array([0.5, 0. , 0. , 0. ])
    """
    from .rope import rope_wavelengths, yarn_ramp

    func = "yarn_config_with_ramp"
    _check_rope(func, config)
    factor = check_real(func, "factor", factor, greater_than=1)
    gamma = check_array(func, "ramp", ramp, ndim=1)
    if gamma.shape != (config.head_dim // 2,) or np.any((gamma < 0) | (gamma > 1)):
        raise ValueError(f"{func}: ramp must hold head_dim / 2 values in [0, 1], got {gamma}")
    turns = config.max_len / rope_wavelengths(config.head_dim, base=config.base)
    zero, inside = turns[gamma == 0], (gamma > 0) & (gamma < 1)
    alpha = float(zero.max()) if zero.size else 0.0
    if inside.any():
        i = int(np.argmax(inside))
        beta = alpha + (turns[i] - alpha) / gamma[i]
    else:
        beta = float(turns[gamma == 1].min()) if np.any(gamma == 1) else alpha + 1.0
    new = config.with_(
        yarn_scale=float(factor), yarn_ramp="turns", yarn_alpha=alpha, yarn_beta=beta
    )
    realised = yarn_ramp(
        config.head_dim, config.max_len, base=config.base, alpha=alpha, beta=beta, ramp="turns"
    )
    if not np.allclose(realised, gamma, atol=1e-9):
        raise ValueError(
            f"{func}: the model cannot run this ramp (not a clipped line in turns): {gamma}"
        )
    return new


@contextmanager
def rope_pair_speeds(shares, *, temperature=1.0):
    """Run every RoPE model with each pair's speed scaled by ``shares``: an intervention.

    Inside the ``with`` block, RoPE pair i turns ``shares[i]`` times as fast as the model's
    base makes it (positions as the configuration says, no YaRN ramp), and queries and keys
    are multiplied by ``temperature`` (YaRN's attention factor multiplies both, so the
    logits by its square). No published method slows the pairs this way; chapter 6 uses it
    to change one pair at a time (only pair 1, or YaRN's speeds without its temperature).
    On leaving the block RoPE is restored.

    Parameters
    ----------
    shares : array_like, shape (head_dim / 2,)
        Each pair's speed as a share of its trained speed (> 0), fastest pair first.
    temperature : float
        Multiplies queries and keys (> 0; 1: none).

    Yields
    ------
    None

    Raises
    ------
    ValueError
        If a share or the temperature is not positive, or (when a model runs) ``shares`` does
        not hold one value per pair of its head.

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.model import init_params, forward
    >>> from posenc_lib.tasks import lookback
    >>> config = make_config(lookback(3), "rope")
    >>> params = init_params(config, seed=0)
    >>> tokens = np.arange(12).reshape(1, 12) % 16
    >>> with rope_pair_speeds(np.ones(4)):  # every pair at its trained speed: nothing changes
    ...     same = forward(params, tokens, config)
    >>> bool(np.allclose(same, forward(params, tokens, config)))
    True
    >>> with rope_pair_speeds([1, 0.25, 1, 1]):  # only pair 1 four times slower
    ...     slower = forward(params, tokens, config)
    >>> bool(np.allclose(slower, same))
    False
    """
    from . import model
    from .rope import interpolate_positions, rope_frequencies, rope_tables

    func = "rope_pair_speeds"
    speeds = check_array(func, "shares", shares, ndim=1)
    if np.any(~np.isfinite(speeds)) or np.any(speeds <= 0):
        raise ValueError(f"{func}: shares must be positive, got {speeds}")
    temperature = check_real(func, "temperature", temperature, greater_than=0)

    def rotation(config, t):
        if speeds.shape != (config.head_dim // 2,):
            raise ValueError(
                f"{func}: shares must hold head_dim / 2 = {config.head_dim // 2} values, "
                f"got {speeds.size}"
            )
        positions = interpolate_positions(np.arange(t), config.rope_positions_scale)
        frequencies = speeds * rope_frequencies(config.head_dim, base=config.base)
        cos, sin = rope_tables(positions, config.head_dim, frequencies=frequencies)
        return (temperature * cos).astype(model.DTYPE), (temperature * sin).astype(model.DTYPE)

    saved = model.SCHEME_PARTS["rope"]
    model.SCHEME_PARTS["rope"] = model.Scheme(rotation=rotation)
    try:
        yield
    finally:
        model.SCHEME_PARTS["rope"] = saved


def extension_variants(config, factor):
    """Return the RoPE model's configuration for ``factor`` x its training length, every way.

    One per method of `EXTENSION_VARIANTS`: plain extrapolation, position interpolation,
    NTK-aware scaling and YaRN.

    Parameters
    ----------
    config : ModelConfig
        A RoPE model (``scheme="rope"``).
    factor : float
        The new context length over the training length.

    Returns
    -------
    dict of ModelConfig
        Method -> configuration: "plain" (``config`` itself), "interpolation", "ntk", "yarn"
        (the deployed ramp) and "yarn-paper" (the paper's equation).

    Raises
    ------
    TypeError
        If ``config`` is not a ModelConfig.
    ValueError
        If ``config`` is not a RoPE model, or ``factor`` is not above 1.

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.tasks import lookback
    >>> config = make_config(lookback(3), "rope")
    >>> variants = extension_variants(config, 4)
    >>> list(variants)
    ['plain', 'interpolation', 'ntk', 'yarn', 'yarn-paper']
    >>> variants["yarn"].yarn_ramp, variants["yarn-paper"].yarn_ramp
    ('index', 'turns')
    >>> variants["interpolation"].rope_positions_scale, variants["yarn"].yarn_scale
    (4.0, 4.0)
    >>> variants["ntk"].base > config.base
    True
    """
    func = "extension_variants"
    _check_rope(func, config)
    factor = check_real(func, "factor", factor, greater_than=1)
    return {name: variant(config, factor) for name, variant in EXTENSION_VARIANTS.items()}


def _check_rope(func, config):
    """Refuse a configuration that is not a RoPE model's."""
    if not isinstance(config, ModelConfig):
        raise TypeError(f"{func}: config must be a ModelConfig, got {short(config)}")
    if config.scheme != "rope":
        raise ValueError(f"{func}: needs a RoPE model, got scheme {config.scheme!r}")
    return config


def context_extension_records(
    result,
    task,
    *,
    factor=4,
    finetune_steps=40,
    finetune_batch=8,
    seed=0,
    config_name=None,
    methods=EXTENSION_METHODS,
    n_tokens=4096,
):
    """Evaluate a trained RoPE model at ``factor`` x its training length by every method.

    Before and after a short fine-tune at that length; regions "all" and "unseen".

    Returns records {task, scheme, config, seed, train_len, eval_len, method, stage ("before"
    or "after"), finetune_steps, region, metric, value}.

    Parameters
    ----------
    result : TrainResult
        A trained RoPE model (`~posenc_lib.model.train`).
    task : Task
        The task it was trained on.
    factor : float
        The evaluation length over the training length.
    finetune_steps : int
        Adam steps of the fine-tune at the evaluation length.
    finetune_batch : int
        Sequences per fine-tuning step.
    seed : int
        Seeds the fine-tuning batches; recorded as "seed".
    config_name : str, optional
        Recorded as "config".
    methods : sequence of str
        Names in `EXTENSION_METHODS`.
    n_tokens : int
        Predictions scored at the evaluation length (the study's: 4096).

    Returns
    -------
    list of dict
        Method by method, stage "before" then "after", region "all" then "unseen".

    Raises
    ------
    TypeError, ValueError
        Before any fine-tune, for a result that is not a trained RoPE model, a task that is
        not a Task, an unknown method or a bad number.

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.model import train
    >>> from posenc_lib.tasks import lookback
    >>> task = lookback(3)
    >>> config = make_config(task, "rope", train_len=8)
    >>> result = train(config, task, steps=2, batch_size=2, length=8, progress=False)
    >>> records = context_extension_records(result, task, factor=2, finetune_steps=1,
    ...                                     finetune_batch=2, methods=["plain", "yarn"],
    ...                                     n_tokens=64)
    >>> [(r["method"], r["stage"], r["region"]) for r in records][:4]
    [('plain', 'before', 'all'), ('plain', 'before', 'unseen'),
     ('plain', 'after', 'all'), ('plain', 'after', 'unseen')]
    >>> len(records), {r["eval_len"] for r in records}
    (8, {16})
    """
    func = "context_extension_records"
    if not isinstance(result, TrainResult):
        raise TypeError(
            f"{func}: result must be a TrainResult (a trained model), got {short(result)}"
        )
    config = _check_rope(func, result.config)
    if not isinstance(task, Task):
        raise TypeError(f"{func}: task must be a Task, got {short(task)}")
    factor = check_real(func, "factor", factor, greater_than=1)
    long = int(factor * config.max_len)
    if long != factor * config.max_len:
        raise ValueError(
            f"{func}: factor x the training length {config.max_len} must be a whole number of "
            f"tokens, got factor={factor:g}"
        )
    finetune_steps = check_int(func, "finetune_steps", finetune_steps, minimum=1)
    finetune_batch = check_int(func, "finetune_batch", finetune_batch, minimum=1)
    seed = check_int(func, "seed", seed, minimum=0)
    if config_name is not None and not isinstance(config_name, str):
        raise TypeError(f"{func}: config_name must be a str or None, got {short(config_name)}")
    methods = check_sequence(func, "methods", methods, allowed=EXTENSION_METHODS)
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    variants = extension_variants(config, factor)
    base = {
        "task": task.name,
        "scheme": "rope",
        "config": config_name,
        "seed": seed,
        "train_len": config.max_len,
        "eval_len": long,
        "finetune_steps": finetune_steps,
        "metric": task.metric,
    }
    out = []
    for method in methods:
        variant = variants[method]
        tuned = train(
            variant,
            task,
            steps=finetune_steps,
            batch_size=finetune_batch,
            length=long,
            lr=3e-3,
            seed=seed,
            progress=False,
            init=result.params,
        )
        for stage, params in (("before", result.params), ("after", tuned.params)):
            scored = evaluate_positions(params, variant, task, long, n_tokens=n_tokens)
            for region, start in (("all", 0), ("unseen", config.max_len)):
                out.append(
                    {
                        **base,
                        "method": method,
                        "stage": stage,
                        "region": region,
                        "value": region_value(*scored, start),
                    }
                )
    return out


def extension_summary(records, task, *, config=None, region="unseen"):
    """Summarize context-extension records: {(method, stage): (mean, min, max) over seeds}.

    Parameters
    ----------
    records : list of dict
        Context-extension records (extension.json, `load_study`).
    task : str
        The task.
    config : str, optional
        The configuration (default: the records' only one).
    region : {"unseen", "all"}
        The query positions counted.

    Returns
    -------
    dict
        {(method, stage): (mean, min, max)} of floats over the seeds.

    Raises
    ------
    ValueError
        If the task or configuration matches no record, or the records hold several
        configurations and none is given.

    Examples
    --------
    >>> from posenc_lib.experiments import load_study
    >>> records, curves, extension = load_study()
    >>> summary = extension_summary(extension, "lookback-3", config="4x8+mlp")
    >>> len(summary), [round(v, 2) for v in summary["ntk", "after"]]
    (10, [0.66, 0.51, 0.79])
    """
    rows = _extension_rows("extension_summary", records, task, config, region)
    groups = {}
    for r in rows:
        groups.setdefault((r["method"], r["stage"]), []).append(r["value"])
    return {
        key: (float(np.mean(v)), float(np.min(v)), float(np.max(v))) for key, v in groups.items()
    }


def _extension_rows(func, records, task, config, region):
    """Check a reading of extension records and return its rows (one task, configuration, region)."""
    check_choice(func, "region", region, ("all", "unseen"))
    fields = ("task", "method", "stage", "seed", "region", "value", "eval_len", "train_len")
    records = check_records(func, records, fields=fields)
    check_criteria(func, records, {"task": task}, values=True)
    rows = select(records, task=task, region=None)
    config = one_config(rows, config, func)
    return select(rows, config=config, region=region)


def extension_table(records, task, *, config=None, region="unseen", digits=2):
    """Text: one row per method, mean (min-max over seeds) before and after fine-tuning.

    Parameters
    ----------
    records : list of dict
        Context-extension records (extension.json, `load_study`).
    task : str
        The task.
    config : str, optional
        The configuration (default: the records' only one).
    region : {"unseen", "all"}
        The query positions counted.
    digits : int
        Decimals shown.

    Returns
    -------
    str
        The table: a heading line, a header, a row per method.

    Raises
    ------
    ValueError
        As `extension_summary`, or for negative ``digits``.

    Examples
    --------
    >>> from posenc_lib.experiments import load_study
    >>> records, curves, extension = load_study()
    >>> print(extension_table(extension, "lookback-3", config="4x8+mlp"))
    lookback-3, configuration 4x8+mlp, length 128 (trained at 32), unseen positions, 10 seeds
    method                   before   after 40 steps
    plain          0.15 (0.13-0.18) 0.47 (0.28-0.84)
    interpolation  0.06 (0.06-0.07) 0.07 (0.06-0.12)
    ntk            0.38 (0.34-0.42) 0.66 (0.51-0.79)
    yarn           0.96 (0.90-0.99) 1.00 (1.00-1.00)
    yarn-paper     0.06 (0.06-0.07) 0.07 (0.06-0.08)
    """
    digits = check_int("extension_table", "digits", digits, minimum=0)
    rows = _extension_rows("extension_table", records, task, config, region)
    summary = extension_summary(records, task, config=config, region=region)
    steps = rows[0]["finetune_steps"]
    rows_out = [
        (method, [summary[(method, stage)] for stage in ("before", "after")])
        for method in names(rows, "method")
    ]
    heading = (
        f"{task}, configuration {names(rows, 'config')[0]}, length {rows[0]['eval_len']} "
        f"(trained at {rows[0]['train_len']}), {region} positions, "
        f"{len({r['seed'] for r in rows})} seeds"
    )
    headers = ["before", f"after {steps} steps"]
    table = text_table("method", headers, rows_out, digits=digits, label_width=14)
    return "\n".join([heading, *table])
