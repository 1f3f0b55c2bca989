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
from .rope import dynamic_ntk_base, llama3_frequencies, ntk_base, rope_frequencies
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
# Two methods in today's configurations, measured beside those five at every evaluation length
# (`posenc_lib.extension_study`): Llama 3.1's frequency-dependent scaling (Hugging Face
# ``rope_type: "llama3"``, shipped by Llama 3.1-3.3 with the thresholds `LLAMA3`) and dynamic NTK
# (``rope_type: "dynamic"``, which some configurations and inference setups select), whose base
# depends on the length of the sequence it scores.
DEPLOYED_METHODS = ("llama3", "dynamic-ntk")
# Dynamic NTK scored as generation with a cache, after a prompt of the training length: each
# position's query and key turned with the base of the step that position was generated at (the
# one-pass "dynamic-ntk" turns every position with the base of the whole sequence).
CACHED = "dynamic-ntk-cached"
LENGTH_METHODS = EXTENSION_METHODS + DEPLOYED_METHODS + (CACHED,)
LLAMA3 = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1-3.3's config.json


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


@contextmanager
def dynamic_ntk_cache(factor):
    """Run every RoPE model as dynamic NTK generating token by token with a cache: an evaluation.

    Inside the ``with`` block, position i of a sequence is turned with the base
    `~posenc_lib.rope.dynamic_ntk_base` gives the length i + 1 (the trained base up to the
    training length L; a model's start token is not counted): what Hugging Face's layer computes
    at the step that generates position i after a prompt of L tokens, read in one pass. Keys keep the base of the step they were
    cached at, so a late query meets early keys turned at older bases. Scored with teacher
    forcing, each position's prediction is the generating model's. On leaving the block RoPE is
    restored.

    Parameters
    ----------
    factor : float
        Dynamic NTK's ``factor`` (> 1).

    Yields
    ------
    None

    Examples
    --------
    >>> from posenc_lib import model
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.tasks import lookback
    >>> config = make_config(lookback(3), "rope")
    >>> with dynamic_ntk_cache(4):
    ...     cos, sin = model.SCHEME_PARTS["rope"].rotation(config, 64)
    >>> with extended(config, "dynamic-ntk", 4, 64) as at_64:  # one pass of 64 tokens ...
    ...     last = model.SCHEME_PARTS["rope"].rotation(at_64, 64)[0][63]
    >>> bool(np.allclose(cos[63], last))  # ... turns position 63 as the step that generates it
    True
    >>> bool(np.allclose(cos[:32], model.SCHEME_PARTS["rope"].rotation(config, 32)[0]))  # prompt
    True
    """
    from . import model
    from .rope import rope_tables

    func = "dynamic_ntk_cache"
    factor = check_real(func, "factor", factor, greater_than=1)

    def rotation(config, t):
        d = config.head_dim
        rows = [
            rope_tables(
                np.array([float(i)]),
                d,
                frequencies=rope_frequencies(
                    # with a start token, row i holds token i - 1: the step's length is i
                    d,
                    base=dynamic_ntk_base(
                        config.base, factor, config.max_len, max(i + 1 - config.bos, 1), d
                    ),
                ),
            )
            for i in range(t)
        ]
        cos = np.concatenate([c for c, _ in rows])
        sin = np.concatenate([s for _, s in rows])
        return cos.astype(model.DTYPE), sin.astype(model.DTYPE)

    saved = model.SCHEME_PARTS["rope"]
    model.SCHEME_PARTS["rope"] = model.Scheme(rotation=rotation)
    try:
        yield
    finally:
        model.SCHEME_PARTS["rope"] = saved


def llama3_shares(config, factor):
    """Return each RoPE pair's speed under Llama 3.1's scaling, as a share of its trained speed.

    `~posenc_lib.rope.llama3_frequencies` of the model's head with Llama 3.1's thresholds
    (`LLAMA3`: low_freq_factor 1, high_freq_factor 4) and the training length as the original
    context: pairs whose wavelength is under a quarter of it keep their speed, pairs longer than
    it are slowed by ``factor``, the pairs between are blended. No temperature (Hugging Face's
    attention factor for ``"llama3"`` is 1).

    Parameters
    ----------
    config : ModelConfig
        A RoPE model; its ``max_len`` is the original context.
    factor : float
        The config's ``factor`` (> 1).

    Returns
    -------
    ndarray, shape (head_dim / 2,)
        In [1 / factor, 1], fastest pair first.

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.tasks import lookback
    >>> llama3_shares(make_config(lookback(3), "rope"), 4)  # wavelengths 6.3, 63, 628, 6283
    array([1.  , 0.25, 0.25, 0.25])
    >>> llama3_shares(make_config(lookback(3), "rope", "1x32"), 4)[:4].round(3)
    array([1.   , 0.716, 0.403, 0.25 ])
    """
    func = "llama3_shares"
    _check_rope(func, config)
    factor = check_real(func, "factor", factor, greater_than=1)
    theta = rope_frequencies(config.head_dim, base=config.base)
    new = llama3_frequencies(config.head_dim, factor, config.max_len, base=config.base, **LLAMA3)
    return new / theta


@contextmanager
def extended(config, method, factor, length):
    """Run a RoPE model extended by ``method`` to ``factor`` x its training length.

    Yields the ModelConfig to score or fine-tune with, on sequences of ``length`` tokens. The
    five methods of `EXTENSION_VARIANTS` ignore the length. Of `DEPLOYED_METHODS`, "dynamic-ntk"
    takes the base `~posenc_lib.rope.dynamic_ntk_base` gives that length (the trained base up to
    the training length), as Hugging Face does for a sequence scored in one pass; "llama3" runs
    the pair speeds of `llama3_shares` inside the block (`rope_pair_speeds`: `ModelConfig` has
    no field for per-pair speeds, and adding one would change the provenance of every
    committed sweep). `CACHED` ("dynamic-ntk-cached") scores dynamic NTK as generation with a
    cache after a prompt of the training length (`dynamic_ntk_cache`; ``length`` unused).

    Parameters
    ----------
    config : ModelConfig
        A RoPE model (``scheme="rope"``), as trained.
    method : str
        One of `LENGTH_METHODS`.
    factor : float
        The config's ``factor`` (> 1): the context the method is set for, over the training length.
    length : int
        The length of the sequences the model will run on (>= 1).

    Yields
    ------
    ModelConfig

    Raises
    ------
    TypeError, ValueError
        For a config that is not a RoPE model, an unknown method or a bad number.

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.tasks import lookback
    >>> config = make_config(lookback(3), "rope")
    >>> with extended(config, "dynamic-ntk", 4, 32) as same:  # nothing changes up to 32
    ...     same == config
    True
    >>> with extended(config, "dynamic-ntk", 4, 128) as longer:  # base x 13 ** (8 / 6)
    ...     round(longer.base / config.base, 2)
    30.57
    >>> with extended(config, "interpolation", 4, 128) as variant:
    ...     variant.rope_positions_scale
    4.0
    """
    func = "extended"
    _check_rope(func, config)
    method = check_choice(func, "method", method, LENGTH_METHODS)
    factor = check_real(func, "factor", factor, greater_than=1)
    length = check_int(func, "length", length, minimum=1)
    if method == "llama3":
        with rope_pair_speeds(llama3_shares(config, factor)):
            yield config
    elif method == CACHED:
        with dynamic_ntk_cache(factor):
            yield config
    elif method == "dynamic-ntk":
        base = dynamic_ntk_base(config.base, factor, config.max_len, length, config.head_dim)
        yield config.with_(base=base)
    else:
        yield EXTENSION_VARIANTS[method](config, factor)


def method_shares(config, method, factor, length):
    """Return each RoPE pair's speed under ``method`` as a share of its trained speed, and the temperature.

    Read from what the model runs (`extended`): the angle each pair turns from position 0 to
    position 1, over the angle it turned in training, and the length of the rotation's (cos,
    sin) (YaRN's attention factor; 1 for the rest). Position interpolation shows as every pair
    at 1 / factor.

    Parameters
    ----------
    config : ModelConfig
        A RoPE model, as trained.
    method : str
        One of `LENGTH_METHODS`.
    factor : float
        The context the method is set for, over the training length (> 1).
    length : int
        The sequence length it runs on (dynamic NTK's base depends on it).

    Returns
    -------
    shares : ndarray, shape (head_dim / 2,)
        Fastest pair first.
    temperature : float

    Examples
    --------
    >>> from posenc_lib.experiments import make_config
    >>> from posenc_lib.tasks import lookback
    >>> config = make_config(lookback(3), "rope")
    >>> shares, temperature = method_shares(config, "yarn", 4, 128)
    >>> shares.round(3), round(temperature, 3)
    (array([1.  , 0.25, 0.25, 0.25]), 1.139)
    >>> method_shares(config, "dynamic-ntk", 4, 128)[0].round(3)
    array([1.   , 0.425, 0.181, 0.077])
    """
    from . import model

    with extended(config, method, factor, length) as variant:
        cos, sin = model.SCHEME_PARTS["rope"].rotation(variant, 2)
    trained_cos, trained_sin = model.SCHEME_PARTS["rope"].rotation(config, 2)
    angle = np.arctan2(sin[1, ::2], cos[1, ::2])
    trained = np.arctan2(trained_sin[1, ::2], trained_cos[1, ::2])
    return angle / trained, float(np.hypot(cos[0, 0], sin[0, 0]))


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


def extension_length_records(
    result,
    task,
    *,
    factor=4,
    eval_lens=(32, 64, 128, 256),
    methods=LENGTH_METHODS,
    finetune_steps=40,
    finetune_batch=8,
    seed=0,
    config_name=None,
    n_tokens=4096,
):
    """Score a trained RoPE model extended every way, at every length, before and after a fine-tune.

    Each method of ``methods`` is set for ``factor`` x the training length (`extended`) and
    scored at every length of ``eval_lens`` ("before"); then fine-tuned at ``factor`` x the
    training length exactly as `context_extension_records` does (same steps, batch, learning
    rate and seed, so the two agree on the methods both run) and scored again at every length
    ("after"). Regions "all" and, past the training length, "unseen".

    Parameters
    ----------
    result : TrainResult
        A trained RoPE model (`~posenc_lib.model.train`).
    task : Task
        The task it was trained on.
    factor : float
        The context each method is set for and fine-tuned at, over the training length.
    eval_lens : sequence of int
        The lengths scored (ascending, each >= 1).
    methods : sequence of str
        Names in `LENGTH_METHODS`.
    finetune_steps, finetune_batch : int
        Adam steps of the fine-tune, and sequences per step.
    seed : int
        Seeds the fine-tuning batches; recorded as "seed".
    config_name : str, optional
        Recorded as "config".
    n_tokens : int
        Predictions scored at every length.

    Returns
    -------
    list of dict
        Records {task, scheme, config, seed, train_len, factor, finetune_steps, metric, method,
        stage, eval_len, region, value}: method by method, stage "before" then "after", length
        by length, region "all" then "unseen".

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
    >>> result = train(make_config(task, "rope", train_len=8), task, steps=2, batch_size=2,
    ...                length=8, progress=False)
    >>> records = extension_length_records(result, task, factor=2, eval_lens=(8, 16),
    ...                                    methods=["dynamic-ntk"], finetune_steps=1,
    ...                                    finetune_batch=2, n_tokens=64)
    >>> [(r["stage"], r["eval_len"], r["region"]) for r in records]
    [('before', 8, 'all'), ('before', 16, 'all'), ('before', 16, 'unseen'),
     ('after', 8, 'all'), ('after', 16, 'all'), ('after', 16, 'unseen')]
    """
    func = "extension_length_records"
    # These checks and the fine-tune repeat context_extension_records' on purpose: sharing a helper
    # would change the code the committed study was made by (its provenance hash) and ask for its
    # 540 models again. Tests hold the two to the same numbers.
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
    lengths = check_sequence(func, "eval_lens", eval_lens)
    for n in lengths:
        check_int(func, "eval_lens", n, minimum=1)
    if list(lengths) != sorted(set(lengths)):
        raise ValueError(f"{func}: eval_lens must be ascending and distinct, got {list(lengths)}")
    methods = check_sequence(func, "methods", methods, allowed=LENGTH_METHODS)
    finetune_steps = check_int(func, "finetune_steps", finetune_steps, minimum=1)
    finetune_batch = check_int(func, "finetune_batch", finetune_batch, minimum=1)
    seed = check_int(func, "seed", seed, minimum=0)
    if config_name is not None and not isinstance(config_name, str):
        raise TypeError(f"{func}: config_name must be a str or None, got {short(config_name)}")
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    base = {
        "task": task.name,
        "scheme": "rope",
        "config": config_name,
        "seed": seed,
        "train_len": config.max_len,
        "factor": factor,
        "finetune_steps": finetune_steps,
        "metric": task.metric,
    }
    out = []
    for method in methods:
        # generation with a cache is a way of scoring: its model is fine-tuned as one-pass
        # dynamic NTK is, on whole sequences
        with extended(
            config, "dynamic-ntk" if method == CACHED else method, factor, long
        ) as variant:
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
            for n in lengths:
                with extended(config, method, factor, n) as variant:
                    scored = evaluate_positions(params, variant, task, n, n_tokens=n_tokens)
                regions = (("all", 0), ("unseen", config.max_len))
                for region, start in regions if n > config.max_len else regions[:1]:
                    out.append(
                        {
                            **base,
                            "method": method,
                            "stage": stage,
                            "eval_len": n,
                            "region": region,
                            "value": region_value(*scored, start),
                        }
                    )
    return out


def extension_lengths_table(
    records, task, *, config=None, stage="before", region="unseen", digits=2
):
    """Text: one row per method, mean (min-max over seeds) at every evaluation length.

    Reads `extension_length_records` (the study-extension sweep). With ``region="unseen"`` the
    column at the training length shows all positions (none is unseen there), as every table
    of the course does (`~posenc_lib.records.in_region`).

    Parameters
    ----------
    records : list of dict
        Records of `extension_length_records`.
    task : str
        The task.
    config : str, optional
        The configuration (default: the records' only one).
    stage : {"before", "after"}
        Before the fine-tune at ``factor`` x the training length, or after it.
    region : {"unseen", "all"}
        The query positions counted past the training length.
    digits : int
        Decimals shown.

    Returns
    -------
    str
        A heading line, a header, a row per method.

    Raises
    ------
    ValueError
        If the task, configuration or stage matches no record, the records hold several
        configurations and none is given, or ``digits`` is negative.

    Examples
    --------
    >>> rows = [{"task": "t", "config": "c", "method": m, "stage": "before", "seed": k,
    ...          "train_len": 8, "eval_len": n, "region": "all", "factor": 2,
    ...          "finetune_steps": 1, "value": v}
    ...         for m, k, n, v in [("plain", 0, 8, 0.9), ("plain", 1, 8, 0.7)]]
    >>> print(extension_lengths_table(rows, "t"))
    t, configuration c, set for 2 x the training length 8, before fine-tuning, unseen positions, 2 seeds
    method                      L=8
    plain          0.80 (0.70-0.90)
    """
    from .records import in_region

    func = "extension_lengths_table"
    digits = check_int(func, "digits", digits, minimum=0)
    check_choice(func, "stage", stage, ("before", "after"))
    check_choice(func, "region", region, ("all", "unseen"))
    fields = ("task", "method", "stage", "seed", "region", "value", "eval_len", "train_len")
    records = check_records(func, records, fields=(*fields, "factor", "finetune_steps"))
    check_criteria(func, records, {"task": task, "stage": stage}, values=True)
    rows = select(records, task=task, stage=stage, region=None)
    config = one_config(rows, config, func)
    rows = in_region(select(rows, config=config, region=None), region)
    lengths = sorted({r["eval_len"] for r in rows})
    groups = {}
    for r in rows:
        groups.setdefault((r["method"], r["eval_len"]), []).append(r["value"])
    cells = {k: (float(np.mean(v)), float(np.min(v)), float(np.max(v))) for k, v in groups.items()}
    table = [
        (method, [cells.get((method, n)) for n in lengths]) for method in names(rows, "method")
    ]
    first, seeds = rows[0], len({r["seed"] for r in rows})
    when = (
        "before fine-tuning"
        if stage == "before"
        else (
            f"after {first['finetune_steps']} steps at {int(first['factor'] * first['train_len'])}"
        )
    )
    heading = (
        f"{task}, configuration {first['config']}, set for {first['factor']:g} x the training length "
        f"{first['train_len']}, {when}, {region} positions, {seeds} seed{'s' if seeds > 1 else ''}"
    )
    headers = [f"L={n}" for n in lengths]
    width = max(14, *(len(method) + 1 for method, _ in table))
    return "\n".join(
        [heading, *text_table("method", headers, table, digits=digits, label_width=width)]
    )


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
