"""A tiny causal transformer whose position scheme is a parameter (chapter 6).

token embedding -> (+ positions) -> n_layers x [attention (+ optional MLP)] -> output logits.
Pre-norm residual blocks, a causal mask always, and one of six position schemes:

- "none": nothing but the causal mask (NoPE);
- "sinusoidal": `sinusoidal_positions` added to the embeddings;
- "learned": a trainable table (`LearnedPositions`) added to the embeddings;
- "rope": queries and keys rotated (`rope_rotate`) in every head;
- "alibi": `alibi_bias` added to every head's scores;
- "t5": T5's relative bias, a trainable scalar per head per distance bucket (`t5_buckets`,
  causal), added to every head's scores; one table shared by all layers, as in T5.

Optionally (``bos=True``) a start token is put before every sequence, as language models do; it
is what lets a causal model without positions count (Kazemnejad et al. 2023, theorem 1).

Gradients come from autograd; the optimiser is Adam. Shapes: B sequences of T tokens, width d,
H heads of width d / H, vocabulary V.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad

from ._checks import (
    check_array,
    check_bool,
    check_buckets,
    check_choice,
    check_ids,
    check_int,
    check_real,
    described,
    short,
)
from ._numerics import plain, stable_log_softmax, stable_softmax
from .alibi import alibi_bias
from .attention import causal_mask
from .learned import LearnedPositions, table_too_short
from .rope import (
    YARN_RAMPS,
    interpolate_positions,
    rope_rotate,
    rope_tables,
    yarn_attention_factor,
    yarn_frequencies,
)
from .sinusoidal import sinusoidal_positions
from .t5 import t5_bias_traced, t5_buckets
from .tasks import IGNORE, Task, has_target

# Double precision, so trained results do not depend on the machine. Every CPU's BLAS kernel sums
# in its own order; in float32 that rounding difference grows through a few hundred Adam steps into
# the second decimal of a printed metric, in float64 it stays below 1e-8 (measured across AVX-512,
# AVX2 and AVX kernels), far under the 3 decimals the notebooks print. It costs about 10% in speed.
DTYPE = np.float64


@dataclass(frozen=True)
class ModelConfig:
    """Everything that defines a model's shape. ``max_len`` sizes the learned table.

    Parameters
    ----------
    vocab_size : int
        Tokens 0 .. vocab_size - 1 (at least 2).
    scheme : str
        The position scheme, one of `SCHEMES`: "none", "sinusoidal", "learned", "rope", "alibi",
        "t5".
    d_model : int
        Width of the token vectors (a multiple of n_heads; each head's width even for RoPE).
    n_heads : int
        Attention heads per layer.
    n_layers : int
        Attention blocks.
    mlp : bool
        Add a ReLU MLP (width 4 d_model) after each attention.
    max_len : int
        The training length: rows of a learned table, YaRN's original context.
    base : float
        Of the sinusoids and of RoPE's frequencies (> 1); NTK-aware scaling raises it.
    rope_positions_scale : float
        Position interpolation: RoPE positions are divided by it (1: none).
    yarn_scale : float
        YaRN for a context this many times max_len (1: none).
    yarn_alpha, yarn_beta : float
        YaRN's ramp, in turns over max_len (0 <= alpha < beta).
    yarn_ramp : {"index", "turns"}
        YaRN's ramp as deployed (linear in the pair index, the authors' code and Hugging Face) or
        as the paper's equation writes it (linear in the number of turns); see `yarn_ramp`.
    learned_init_std : float
        Standard deviation of a learned table's initial entries.
    t5_buckets : int
        T5's buckets (causal).
    t5_max_distance : int
        Distances from here on share T5's last bucket.
    bos : bool
        Put a start token before every sequence.
    alibi_slopes : tuple of float, optional
        ALiBi's slopes, one per head, in place of `~posenc_lib.alibi.alibi_slopes`'s: an
        intervention (None: the recipe's). Only for scheme "alibi".

    Examples
    --------
    >>> config = ModelConfig(vocab_size=16, scheme="rope", d_model=32, n_heads=4)
    >>> config.head_dim, config.with_(rope_positions_scale=4.0).rope_positions_scale
    (8, 4.0)
    >>> ModelConfig(vocab_size=16, scheme="absolute")
    Traceback (most recent call last):
    ...
    ValueError: ModelConfig: scheme must be one of 'none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', got 'absolute'
    """

    vocab_size: int
    scheme: str = "none"
    d_model: int = 32
    n_heads: int = 1
    n_layers: int = 1
    mlp: bool = False
    max_len: int = 32
    base: float = 10000.0
    rope_positions_scale: float = 1.0  # > 1: position interpolation at evaluation time
    yarn_scale: float = 1.0  # > 1: YaRN for a context yarn_scale x max_len
    yarn_alpha: float = 1.0  # YaRN's ramp: pairs turning < alpha times in max_len interpolated,
    yarn_beta: float = 32.0  # ... pairs turning > beta times left alone (the paper's values)
    yarn_ramp: str = "index"  # the deployed ramp ("index") or the paper's equation ("turns")
    learned_init_std: float = 1.0  # the token table's scale; GPT-2 and BERT start at 0.02
    t5_buckets: int = 16  # T5 uses 32 buckets up to distance 128 for 512-token inputs; scaled
    t5_max_distance: int = 32  # ... so that training at 32 tokens reaches every bucket
    bos: bool = False  # put a start token before every sequence
    alibi_slopes: tuple | None = None  # ALiBi's slopes, one per head (None: the recipe's)

    def __post_init__(self):
        """Check every field, so a bad configuration fails where it is written."""
        check_int("ModelConfig", "vocab_size", self.vocab_size, minimum=2)
        check_choice("ModelConfig", "scheme", self.scheme, SCHEMES)
        check_int("ModelConfig", "d_model", self.d_model, minimum=2)
        check_int("ModelConfig", "n_heads", self.n_heads, minimum=1)
        check_int("ModelConfig", "n_layers", self.n_layers, minimum=1)
        check_int("ModelConfig", "max_len", self.max_len, minimum=1)
        check_real("ModelConfig", "base", self.base, greater_than=1)
        check_real("ModelConfig", "rope_positions_scale", self.rope_positions_scale, greater_than=0)
        check_real("ModelConfig", "yarn_scale", self.yarn_scale, greater_than=0)
        check_real("ModelConfig", "learned_init_std", self.learned_init_std, greater_than=0)
        check_bool("ModelConfig", "mlp", self.mlp)
        check_choice("ModelConfig", "yarn_ramp", self.yarn_ramp, YARN_RAMPS)
        alpha = check_real("ModelConfig", "yarn_alpha", self.yarn_alpha, at_least=0)
        beta = check_real("ModelConfig", "yarn_beta", self.yarn_beta)
        if beta <= alpha:
            raise ValueError(
                f"ModelConfig: yarn_beta must be > yarn_alpha, got yarn_alpha={alpha}, "
                f"yarn_beta={beta}"
            )
        check_buckets(
            "ModelConfig",
            self.t5_buckets,
            self.t5_max_distance,
            False,
            names=("t5_buckets", "t5_max_distance"),
        )
        check_bool("ModelConfig", "bos", self.bos)
        if self.d_model % self.n_heads:
            raise ValueError(
                f"ModelConfig: d_model must be a multiple of n_heads, got {self.d_model} and "
                f"{self.n_heads}"
            )
        if self.scheme == "rope" and (self.d_model // self.n_heads) % 2:
            raise ValueError(
                f"ModelConfig: RoPE needs an even head width, got d_model / n_heads = "
                f"{self.d_model // self.n_heads}"
            )
        if self.alibi_slopes is not None:
            if self.scheme != "alibi":
                raise ValueError(
                    f"ModelConfig: alibi_slopes are for scheme 'alibi' only, got alibi_slopes="
                    f"{short(self.alibi_slopes)} with scheme {self.scheme!r}"
                )
            slopes = check_array("ModelConfig", "alibi_slopes", self.alibi_slopes, ndim=1)
            if slopes.shape != (self.n_heads,) or np.any(slopes <= 0):
                raise ValueError(
                    f"ModelConfig: alibi_slopes must hold n_heads={self.n_heads} positive "
                    f"numbers, one per head, got {described(self.alibi_slopes, slopes)}"
                )
            object.__setattr__(self, "alibi_slopes", tuple(float(v) for v in slopes))

    @property
    def head_dim(self):
        """Width of one head: d_model / n_heads."""
        return self.d_model // self.n_heads

    def with_(self, **changes):
        """Return a copy with some fields changed (e.g. a larger RoPE base for NTK scaling)."""
        return replace(self, **changes)


def seed_streams(seed):
    """Return two independent seed sequences spawned from ``seed``: (parameters, batches).

    `init_params` draws from the first and `train`'s batches from the second, so the initial
    parameters and the training data never read the same random bits.

    Parameters
    ----------
    seed : int
        The model's seed (at least 0).

    Returns
    -------
    parameters, batches : numpy.random.SeedSequence

    Examples
    --------
    >>> parameters, batches = seed_streams(0)
    >>> a = np.random.default_rng(parameters).random()
    >>> b = np.random.default_rng(batches).random()
    >>> a == np.random.default_rng(seed_streams(0)[0]).random(), a == b
    (True, False)
    """
    seed = check_int("seed_streams", "seed", seed, minimum=0)
    parameters, batches = np.random.SeedSequence(seed).spawn(2)
    return parameters, batches


def init_params(config, seed=0):
    """Random initial parameters, reproducible from ``seed``.

    Token table N(0, 1); projections N(0, 1/fan_in); a learned position table with
    ``config.learned_init_std``; T5's bias table N(0, 0.1), drawn last so the other parameters
    are the same as the other schemes' for the same seed.

    Parameters
    ----------
    config : ModelConfig
        The model's shape (`parameter_shapes` lists what is drawn).
    seed : int
        Seeds every draw, through the first stream of `seed_streams` (training batches read
        the second).

    Returns
    -------
    dict
        Parameter name -> float64 array.

    Examples
    --------
    >>> params = init_params(ModelConfig(vocab_size=8, scheme="learned", d_model=4, max_len=16))
    >>> params["pos"].shape, n_parameters(params)
    ((16, 4), 192)
    """
    config = _check_config("init_params", config)
    rng = np.random.default_rng(seed_streams(check_int("init_params", "seed", seed, minimum=0))[0])
    d, v = config.d_model, config.vocab_size

    def matrix(n_in, n_out):
        return rng.normal(0.0, 1.0 / np.sqrt(n_in), size=(n_in, n_out))

    # With a start token the input table has one more row (the start token's), never predicted.
    params = {"tok": rng.normal(0.0, 1.0, size=(v + config.bos, d)), "out": matrix(d, v)}
    if config.scheme == "learned":
        # By default the token table's scale, so no scheme starts with a handicap.
        rows = config.max_len + config.bos
        table = LearnedPositions(rows, d, rng=rng, init_std=config.learned_init_std)
        params["pos"] = table.table
    for layer in range(config.n_layers):
        for name in ("wq", "wk", "wv", "wo"):
            params[f"{name}{layer}"] = matrix(d, d)
        if config.mlp:
            params[f"mlp_in{layer}"] = matrix(d, 4 * d)
            params[f"mlp_out{layer}"] = matrix(4 * d, d)
    if config.scheme == "t5":  # drawn last, so the other parameters match the other schemes'
        params["t5"] = rng.normal(0.0, 0.1, size=(config.n_heads, config.t5_buckets))
    return {name: value.astype(DTYPE) for name, value in params.items()}


def n_parameters(params):
    """How many numbers a model's parameters hold.

    Parameters
    ----------
    params : dict
        Parameter name -> array.

    Returns
    -------
    int
        The total size of all the arrays.

    Examples
    --------
    >>> n_parameters({"a": np.zeros((2, 3)), "b": np.zeros(4)})
    10
    """
    if not isinstance(params, dict):
        raise TypeError(f"n_parameters: params must be a dict of arrays, got {short(params)}")
    return int(sum(np.size(p) for p in params.values()))


def _norm(x):
    """Layer norm without a learnt gain or bias."""
    centred = x - anp.mean(x, axis=-1, keepdims=True)
    return centred / anp.sqrt(anp.mean(centred * centred, axis=-1, keepdims=True) + 1e-5)


_constant = plain  # the plain values of a traced array: what the gradient must not flow through


def _split_heads(x, b, t, h):
    return anp.transpose(anp.reshape(x, (b, t, h, -1)), (0, 2, 1, 3))  # (B, H, T, dh)


# -- where each scheme enters the model: one small function per scheme --------------------------


def _sinusoidal_added(params, config, t):
    """Return the (T, d) sinusoidal table, added to the input."""
    return sinusoidal_positions(t, config.d_model, base=config.base, dtype=DTYPE)


def _learned_added(params, config, t):
    """Return the first T rows of the trained table, added to the input."""
    return params["pos"][:t]


def _rope_rotation(config, t):
    """Return the cos and sin tables that rotate q and k.

    The tables for positions 0 .. t-1, with interpolation (positions divided by
    ``rope_positions_scale``) or YaRN (its frequencies and temperature) if configured.
    """
    positions = interpolate_positions(np.arange(t), config.rope_positions_scale)
    frequencies, factor = None, 1.0
    if config.yarn_scale > 1:
        frequencies = yarn_frequencies(
            config.head_dim,
            config.yarn_scale,
            config.max_len,
            base=config.base,
            alpha=config.yarn_alpha,
            beta=config.yarn_beta,
            ramp=config.yarn_ramp,
        )
        factor = yarn_attention_factor(config.yarn_scale)
    cos, sin = rope_tables(positions, config.head_dim, base=config.base, frequencies=frequencies)
    # YaRN's temperature scales q and k, so the logits by factor ** 2.
    return (factor * cos).astype(DTYPE), (factor * sin).astype(DTYPE)


def _alibi_bias(params, config, t):
    """Biasing the scores: ALiBi's fixed (H, T, T) penalty."""
    return alibi_bias(t, config.n_heads, slopes=config.alibi_slopes).astype(DTYPE)


def _t5_bias(params, config, t):
    """Biasing the scores: T5's trained scalar per head per (causal) distance bucket."""
    buckets = t5_buckets(
        t, bidirectional=False, n_buckets=config.t5_buckets, max_distance=config.t5_max_distance
    )
    return t5_bias_traced(params["t5"], buckets)


@dataclass(frozen=True)
class Scheme:
    """Where a position scheme enters the model; each part is a function or None.

    added : (params, config, T) -> (T, d), added to the token embeddings once, before layer 0;
    rotation : (config, T) -> (cos, sin), rotating queries and keys in every layer;
    bias : (params, config, T) -> (H, T, T), added to every head's scores in every layer.

    Parameters
    ----------
    added : callable, optional
        (params, config, T) -> (T, d), added to the token embeddings once, before layer 0.
    rotation : callable, optional
        (config, T) -> (cos, sin), rotating queries and keys in every layer.
    bias : callable, optional
        (params, config, T) -> (H, T, T), added to every head's scores in every layer.

    Examples
    --------
    >>> SCHEME_PARTS["alibi"].bias is not None, SCHEME_PARTS["alibi"].added
    (True, None)
    """

    added: Callable | None = None
    rotation: Callable | None = None
    bias: Callable | None = None


SCHEME_PARTS = {
    "none": Scheme(),
    "sinusoidal": Scheme(added=_sinusoidal_added),
    "learned": Scheme(added=_learned_added),
    "rope": Scheme(rotation=_rope_rotation),
    "alibi": Scheme(bias=_alibi_bias),
    "t5": Scheme(bias=_t5_bias),
}
SCHEMES = tuple(SCHEME_PARTS)


def _check_config(func, config):
    if not isinstance(config, ModelConfig):
        raise TypeError(f"{func}: config must be a ModelConfig, got {short(config)}")
    return config


def parameter_shapes(config):
    """Return the name and shape of every parameter a model of ``config`` has.

    They are what `init_params` draws, and what `forward` checks ``params`` against.

    Parameters
    ----------
    config : ModelConfig
        The model's shape.

    Returns
    -------
    dict
        Parameter name -> shape tuple.

    Examples
    --------
    >>> parameter_shapes(ModelConfig(vocab_size=8, d_model=4))
    {'tok': (8, 4), 'out': (4, 8), 'wq0': (4, 4), 'wk0': (4, 4), 'wv0': (4, 4), 'wo0': (4, 4)}
    """
    config = _check_config("parameter_shapes", config)
    d, v = config.d_model, config.vocab_size
    shapes = {"tok": (v + config.bos, d), "out": (d, v)}
    if config.scheme == "learned":
        shapes["pos"] = (config.max_len + config.bos, d)
    for layer in range(config.n_layers):
        shapes.update({f"{name}{layer}": (d, d) for name in ("wq", "wk", "wv", "wo")})
        if config.mlp:
            shapes[f"mlp_in{layer}"] = (d, 4 * d)
            shapes[f"mlp_out{layer}"] = (4 * d, d)
    if config.scheme == "t5":
        shapes["t5"] = (config.n_heads, config.t5_buckets)
    return shapes


def _check_params(func, params, config, name="params", *, finite=True):
    params = plain(params)  # autograd traces the dict itself while it differentiates
    if not isinstance(params, dict):
        raise TypeError(
            f"{func}: {name} must be a dict of arrays (from init_params), got {short(params)}"
        )
    for key, shape in parameter_shapes(config).items():
        if key not in params:
            raise ValueError(
                f"{func}: {name} has no {key!r}, which a {config.scheme} model of "
                f"n_layers={config.n_layers}, mlp={config.mlp} needs: were they made for "
                f"another configuration?"
            )
        if tuple(np.shape(params[key])) != shape:
            raise ValueError(
                f"{func}: {name}[{key!r}] must have shape {shape} for this configuration, got "
                f"{tuple(np.shape(params[key]))}"
            )
        values = plain(params[key])
        if finite and not np.all(np.isfinite(values)):
            bad = tuple(np.argwhere(~np.isfinite(values))[0].tolist())
            raise ValueError(
                f"{func}: {name}[{key!r}] must be finite, got {values[bad]} at index {bad} "
                f"(a diverged training run, or a table edited by hand?)"
            )


def _check_tokens(func, tokens, config):
    tokens = check_ids(func, "tokens", tokens, high=config.vocab_size, ndim=2)
    if tokens.shape[1] == 0:
        raise ValueError(
            f"{func}: tokens must hold at least one token per sequence, got shape {tokens.shape}"
        )
    return tokens


def _check_targets(func, targets, shape, config):
    targets = np.asarray(targets)
    if targets.shape != shape or not np.issubdtype(targets.dtype, np.integer):
        raise ValueError(
            f"{func}: targets must be integers of the tokens' shape {shape}, got "
            f"{described(targets, targets)}, dtype {targets.dtype}"
        )
    bad = (targets < IGNORE) | (targets >= config.vocab_size)
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0].tolist())
        raise ValueError(
            f"{func}: targets must hold ids 0..{config.vocab_size - 1} or {IGNORE} (no target), "
            f"got {targets[index]} at index {index}"
        )
    return targets


def length_problem(config, length):
    """Why a model of ``config`` cannot run on ``length`` tokens, or None.

    Only a learned table has a limit (`~posenc_lib.learned.table_too_short`); every other scheme
    is defined at every position.

    Parameters
    ----------
    config : ModelConfig
        The model.
    length : int
        Tokens per sequence.

    Returns
    -------
    str or None
        The explanation, or None when the model can run.

    Examples
    --------
    >>> length_problem(ModelConfig(vocab_size=4, scheme="learned", max_len=8), 8) is None
    True
    >>> length_problem(ModelConfig(vocab_size=4, scheme="learned", max_len=8), 9)[:42]
    'asked for 9 positions but the table has on'
    """
    config = _check_config("length_problem", config)
    length = check_int("length_problem", "length", length, minimum=1)
    return table_too_short(config.max_len, length) if config.scheme == "learned" else None


def forward(params, tokens, config, *, return_attention=False):
    """Logits of shape (B, T, V) for int tokens of shape (B, T).

    Parameters
    ----------
    params : dict
        The model's parameters (`init_params`, or trained by `train`).
    tokens : array_like of int, shape (B, T)
        Token ids 0 .. V-1.
    config : ModelConfig
        The model's shape and position scheme.
    return_attention : bool
        Also return the attention weights of every layer.

    Returns
    -------
    logits : ndarray, shape (B, T, V)
        Unnormalised next-token scores.
    attention : list of ndarray, shape (B, H, T', T')
        Only with ``return_attention``: one array of weights per layer (T' = T + 1 with a start
        token, which is then query and key 0).

    Raises
    ------
    ValueError
        For a learned table shorter than T, token ids outside 0 .. V-1, parameters of another
        configuration, or parameters that are not finite (NaN or infinite).

    Examples
    --------
    >>> config = ModelConfig(vocab_size=5, d_model=4)
    >>> forward(init_params(config), [[0, 4, 2]], config).shape
    (1, 3, 5)
    """
    return _forward("forward", params, tokens, config, return_attention=return_attention)


def _forward(func, params, tokens, config, *, return_attention=False):
    config = _check_config(func, config)
    # The trainer's own forward pass (loss_fn) skips the finiteness scan: its parameters were
    # checked where they came in, and a diverged run shows in its loss.
    _check_params(func, params, config, finite=func != "loss_fn")
    tokens = _check_tokens(func, tokens, config)
    return_attention = check_bool(func, "return_attention", return_attention)
    b, t = tokens.shape
    h = config.n_heads
    problem = length_problem(config, t)
    if problem:
        raise ValueError(f"{func}: {problem}")
    if config.bos:
        tokens = np.concatenate([np.full((b, 1), config.vocab_size), tokens], axis=1)
        t += 1
    x = (
        np.eye(config.vocab_size + config.bos, dtype=DTYPE)[tokens] @ params["tok"]
    )  # a gather, as a fast-to-differentiate product
    scheme = SCHEME_PARTS[config.scheme]
    if scheme.added:
        x = x + scheme.added(params, config, t)
    rotation = scheme.rotation(config, t) if scheme.rotation else None
    bias = scheme.bias(params, config, t) if scheme.bias else DTYPE(0.0)
    visible = causal_mask(t)
    attention = []
    for layer in range(config.n_layers):
        y = _norm(x)
        q, k, v = (_split_heads(y @ params[f"{n}{layer}"], b, t, h) for n in ("wq", "wk", "wv"))
        if rotation is not None:
            q, k = rope_rotate(q, *rotation), rope_rotate(k, *rotation)
        scores = anp.matmul(q, anp.swapaxes(k, -1, -2)) / float(np.sqrt(config.head_dim)) + bias
        weights = stable_softmax(anp.where(visible, scores, -1e9), xp=anp)
        if return_attention:
            attention.append(_constant(weights))
        mixed = anp.reshape(anp.transpose(anp.matmul(weights, v), (0, 2, 1, 3)), (b, t, -1))
        x = x + mixed @ params[f"wo{layer}"]
        if config.mlp:
            hidden = _norm(x) @ params[f"mlp_in{layer}"]
            hidden = hidden * (_constant(hidden) > 0)  # ReLU
            x = x + hidden @ params[f"mlp_out{layer}"]
    if config.bos:
        x = x[:, 1:]
    logits = _norm(x) @ params["out"]
    return (logits, attention) if return_attention else logits


def _token_losses(logits, targets, xp=np):
    """-log p(target) at every position, 0 where there is no target.

    The one cross-entropy of the library (training's loss and evaluation's both use it).
    """
    vocab_size = logits.shape[-1]
    one_hot = np.eye(vocab_size, dtype=DTYPE)[np.where(has_target(targets), targets, 0)]
    one_hot = one_hot * has_target(targets)[..., None]  # no target: a row of zeros
    return xp.sum(-stable_log_softmax(logits, xp=xp) * one_hot, axis=-1)


def _correct(logits, targets):
    """Return True where the most likely token is the target (never where there is none)."""
    return (np.argmax(logits, axis=-1) == targets) & has_target(targets)


def token_losses(logits, targets):
    """Cross-entropy -log p(target) in nats at every position, 0 where there is no target.

    Parameters
    ----------
    logits : array_like, shape (..., V)
        Unnormalised scores.
    targets : array_like of int, shape logits.shape[:-1]
        Token ids 0 .. V-1, or -1 (`~posenc_lib.tasks.IGNORE`) for "no target here".

    Returns
    -------
    ndarray, shape logits.shape[:-1]
        Non-negative losses; exactly 0 where there is no target.

    Examples
    --------
    >>> token_losses([[0.0, 0.0], [0.0, 0.0]], [1, -1]).round(4)   # log 2, then no target
    array([0.6931, 0.    ])
    """
    logits, targets = _check_logits_and_targets("token_losses", logits, targets)
    return _token_losses(logits, targets)


def accuracy(logits, targets):
    """Return the share of targets whose token has the largest logit; positions without one ignored.

    Parameters
    ----------
    logits : array_like, shape (..., V)
        Unnormalised scores.
    targets : array_like of int, shape logits.shape[:-1]
        Token ids 0 .. V-1, or -1 (`~posenc_lib.tasks.IGNORE`) for "no target here".

    Returns
    -------
    float or None
        Correct predictions / targets; None when there is no target at all.

    Examples
    --------
    >>> accuracy([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]], [1, 1, -1])   # 1 of 2 targets right
    0.5
    """
    logits, targets = _check_logits_and_targets("accuracy", logits, targets)
    n = int(np.sum(has_target(targets)))
    return None if n == 0 else float(np.sum(_correct(logits, targets)) / n)


def _check_logits_and_targets(func, logits, targets):
    logits = check_array(func, "logits", logits, min_ndim=1)
    targets = np.asarray(targets)
    if targets.shape != logits.shape[:-1] or (
        targets.size and not np.issubdtype(targets.dtype, np.integer)
    ):
        raise ValueError(
            f"{func}: targets must be integers of shape logits.shape[:-1] = {logits.shape[:-1]}, "
            f"got {described(targets, targets)}, dtype {targets.dtype}"
        )
    bad = (targets < IGNORE) | (targets >= logits.shape[-1])
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0].tolist())
        raise ValueError(
            f"{func}: targets must hold ids 0..{logits.shape[-1] - 1} or {IGNORE} (no target), "
            f"got {targets[index]} at index {index}"
        )
    return logits, targets


def loss_fn(params, tokens, targets, config):
    """Mean cross-entropy in nats over the positions that have a target (target != -1).

    Parameters
    ----------
    params : dict
        The model's parameters (autograd differentiates with respect to them).
    tokens : array_like of int, shape (B, T)
        Token ids 0 .. V-1.
    targets : array_like of int, shape (B, T)
        The token to predict at each position, or -1 (`~posenc_lib.tasks.IGNORE`): no target.
    config : ModelConfig
        The model.

    Returns
    -------
    float
        Summed -log p(target) over the targets, divided by the number of targets (0 when
        there is none).

    Examples
    --------
    >>> config = ModelConfig(vocab_size=4, d_model=4)
    >>> params = init_params(config)
    >>> params["out"] = np.zeros((4, 4))    # every token equally likely: log 4 per target
    >>> round(float(loss_fn(params, [[0, 1, 2]], [[-1, 2, 3]], config)), 4)
    1.3863
    """
    config = _check_config("loss_fn", config)
    tokens = _check_tokens("loss_fn", tokens, config)
    targets = _check_targets("loss_fn", targets, tokens.shape, config)
    logits = _forward("loss_fn", params, tokens, config)
    n_targets = max(int(np.sum(has_target(targets))), 1)
    return anp.sum(_token_losses(logits, targets, xp=anp)) / n_targets


@dataclass
class TrainResult:
    """What `train` returns: the parameters, the loss of every step, optional snapshots.

    Parameters
    ----------
    config : ModelConfig
        The model trained.
    params : dict
        Its parameters after training.
    losses : list of float
        The training loss of every step.
    snapshots : dict
        Step -> a copy of the parameters, when ``train(..., snapshot_every=N)``.
    interrupted : bool
        True when training was stopped early (Ctrl-C); the parameters are those reached.

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> result = train(ModelConfig(vocab_size=16, d_model=8), lookback(1), steps=2, progress=False)
    >>> sorted(result.params)[:3], len(result.losses), result.snapshots
    (['out', 'tok', 'wk0'], 2, {})
    """

    config: ModelConfig
    params: dict
    losses: list
    snapshots: dict  # step -> copy of params, when train(..., snapshot_every=N)
    interrupted: bool = False


def train(
    config,
    task,
    *,
    steps=600,
    batch_size=32,
    length=32,
    lr=1e-2,
    seed=0,
    snapshot_every=None,
    progress=True,
    init=None,
):
    """Train a fresh model on ``task`` at one sequence length with Adam.

    Every random draw comes from ``seed``. Interrupting (Ctrl-C, or the notebook's stop button)
    ends training early and keeps the model trained so far (``interrupted`` is then True).

    Parameters
    ----------
    config : ModelConfig
        The model to train.
    task : Task
        From `posenc_lib.tasks`; its vocabulary must match ``config.vocab_size``.
    steps : int
        Adam steps (0 returns the initial parameters).
    batch_size : int
        Sequences per step.
    length : int
        Tokens per training sequence.
    lr : float
        Adam's step size (betas 0.9, 0.99).
    seed : int
        Seeds the initial parameters and the training batches, from independent streams
        (`seed_streams`).
    snapshot_every : int, optional
        Keep a copy of the parameters every this many steps (and at step 0).
    progress : bool
        Show a progress bar (tqdm.auto: a widget in notebooks, text elsewhere).
    init : dict, optional
        Start from these parameters (fine-tuning) instead of a fresh initialisation; they are
        copied as float64.

    Returns
    -------
    TrainResult
        The parameters, the loss of every step, and the snapshots.

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> config = ModelConfig(vocab_size=16, d_model=8)
    >>> result = train(config, lookback(1), steps=3, batch_size=2, length=8, progress=False)
    >>> len(result.losses), result.interrupted
    (3, False)
    """
    func = "train"
    config = _check_config(func, config)
    if not isinstance(task, Task):
        raise TypeError(f"{func}: task must be a Task (see posenc_lib.tasks), got {short(task)}")
    if task.vocab_size != config.vocab_size:
        raise ValueError(
            f"train: task {task.name} has vocab_size {task.vocab_size} but the model has "
            f"{config.vocab_size}"
        )
    steps = check_int(func, "steps", steps, minimum=0)
    batch_size = check_int(func, "batch_size", batch_size, minimum=1)
    length = check_int(func, "length", length, minimum=1)
    problem = length_problem(config, length)
    if problem:
        raise ValueError(f"{func}: length={length}: {problem}")
    lr = check_real(func, "lr", lr, greater_than=0)
    seed = check_int(func, "seed", seed, minimum=0)
    if snapshot_every is not None:
        snapshot_every = check_int(func, "snapshot_every", snapshot_every, minimum=1)
    progress = check_bool(func, "progress", progress)
    if init is not None:
        _check_params(func, init, config, name="init")
    rng = np.random.default_rng(seed_streams(seed)[1])  # not the initial parameters' stream
    # Fine-tuning starts from a float64 copy of ``init``, whatever its dtype (the float64 policy).
    params = (
        init_params(config, seed)
        if init is None
        else {k: np.array(p, dtype=DTYPE) for k, p in init.items()}
    )
    moment1 = {k: np.zeros_like(p) for k, p in params.items()}
    moment2 = {k: np.zeros_like(p) for k, p in params.items()}
    step_fn = value_and_grad(loss_fn)
    snapshots, losses, interrupted = {}, [], False
    bar = _progress(steps, f"{config.scheme} on {task.name}", progress)
    try:
        for step in range(1, steps + 1):
            if snapshot_every and (step - 1) % snapshot_every == 0:
                snapshots[step - 1] = {k: p.copy() for k, p in params.items()}
            tokens, targets = task.sample(rng, batch_size, length)
            loss, grads = step_fn(params, tokens, targets, config)
            for k in params:
                moment1[k] = 0.9 * moment1[k] + 0.1 * grads[k]
                moment2[k] = 0.99 * moment2[k] + 0.01 * grads[k] ** 2
                m_hat = moment1[k] / (1 - 0.9**step)
                v_hat = moment2[k] / (1 - 0.99**step)
                params[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)
            losses.append(float(loss))
            bar.update(1)
            if step % 50 == 0:
                bar.set_postfix(loss=f"{np.mean(losses[-50:]):.3f}")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    if snapshot_every:
        snapshots[len(losses)] = {k: p.copy() for k, p in params.items()}
    return TrainResult(config, params, losses, snapshots, interrupted)


def _progress(total, description, show):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, leave=False, disable=not show)


def train_each(runs, *, workers=None, progress=True):
    """Train several models with `train`, side by side in worker processes when cores allow.

    Each model trains with one BLAS thread wherever it runs (`~posenc_lib.runner.run_jobs`),
    so it comes out the same, bit for bit, in this process or in a worker: the workers change
    how long the learner waits, not what the models learn.

    Parameters
    ----------
    runs : dict
        name (str) -> the keyword arguments of `train` for one model, ``config`` and ``task``
        among them (not ``progress``).
    workers : int, optional
        Processes to train in; 1 trains the models here, one after another. Default: one per
        model, at most as many as this process may use (``joblib.cpu_count``, which counts
        the cores a container or an affinity mask allows).
    progress : bool
        Show a progress bar over the models.

    Returns
    -------
    dict
        name -> `TrainResult`, in the order of ``runs``.

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> runs = {s: {"config": ModelConfig(vocab_size=16, d_model=8, scheme=s),
    ...             "task": lookback(1), "steps": 3, "batch_size": 2, "length": 8}
    ...         for s in ("none", "rope")}
    >>> models = train_each(runs, workers=1, progress=False)
    >>> [(name, len(m.losses)) for name, m in models.items()]
    [('none', 3), ('rope', 3)]
    """
    func = "train_each"
    if not isinstance(runs, dict) or not runs:
        raise TypeError(
            f"{func}: runs must be a non-empty dict name -> train's arguments, got {short(runs)}"
        )
    for name, run in runs.items():
        if not isinstance(name, str):
            raise TypeError(f"{func}: every name in runs must be a str, got {name!r}")
        if not isinstance(run, dict) or not {"config", "task"} <= set(run) or "progress" in run:
            raise TypeError(
                f"{func}: runs[{name!r}] must be a dict of train's arguments with config and task "
                f"and without progress, got {short(run)}"
            )
    if workers is None:
        from joblib import cpu_count

        workers = min(len(runs), cpu_count())
    workers = check_int(func, "workers", workers, minimum=1)
    check_bool(func, "progress", progress)
    from functools import partial

    from .runner import run_jobs

    outputs = run_jobs(
        [{"name": name} for name in runs],
        partial(_train_run, runs),
        workers=workers,
        progress=progress,
        keep_models=True,
    )
    return {out["job"]["name"]: out["result"] for out in outputs}


def _train_run(runs, job):
    """One job of `train_each`: train the model ``runs[job["name"]]`` describes."""
    name = job["name"]
    try:
        return {"job": job, "result": train(**runs[name], progress=False)}
    except (TypeError, ValueError) as error:  # say which run, wherever it ran
        raise type(error)(f"train_each: runs[{name!r}]: {error}") from error


def evaluate_positions(params, config, task, length, *, n_tokens=4096, seed=1234, batch_size=64):
    """Score a model position by position on fresh sequences of ``length``.

    About ``n_tokens`` predictions are scored (fewer, longer sequences at long lengths). For
    every query position p, ``totals[p]`` is the number of correct predictions (accuracy
    tasks) or the summed loss in nats (loss tasks) and ``counts[p]`` the number of targets, so
    ``totals / counts`` is the per-position curve and any region's value is a ratio of sums.

    Parameters
    ----------
    params : dict
        The model's parameters.
    config : ModelConfig
        The model.
    task : Task
        What to score it on (its ``metric`` says accuracy or loss).
    length : int
        Tokens per evaluation sequence.
    n_tokens : int
        Roughly how many positions to score.
    seed : int
        Seeds the evaluation sequences (the same for every model).
    batch_size : int
        Sequences per forward pass (capped so that a batch holds at most 8192 tokens).

    Returns
    -------
    totals, counts : ndarray, shape (length,)
        Or None when the model has no parameters for that length (a learned table shorter than
        ``length``).

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> config = ModelConfig(vocab_size=16, d_model=8, max_len=8)
    >>> totals, counts = evaluate_positions(init_params(config), config, lookback(3), 8, n_tokens=64)
    >>> counts.tolist()      # lookback-3 has no target at positions 0-2
    [0, 0, 0, 8, 8, 8, 8, 8]
    """
    return _evaluate_positions(
        "evaluate_positions", params, config, task, length, n_tokens, seed, batch_size
    )


def _evaluate_positions(func, params, config, task, length, n_tokens, seed, batch_size):
    config = _check_config(func, config)
    if not isinstance(task, Task):
        raise TypeError(f"{func}: task must be a Task (see posenc_lib.tasks), got {short(task)}")
    if task.vocab_size != config.vocab_size:
        raise ValueError(
            f"{func}: task {task.name} has vocab_size {task.vocab_size} but the model has "
            f"{config.vocab_size}"
        )
    length = check_int(func, "length", length, minimum=1)
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    seed = check_int(func, "seed", seed, minimum=0)
    batch_size = check_int(func, "batch_size", batch_size, minimum=1)
    _check_params(func, params, config)
    if length_problem(config, length):
        return None
    rng = np.random.default_rng(seed)
    n_sequences = max(1, -(-n_tokens // length))
    batch_size = max(1, min(batch_size, 8192 // length))
    totals, counts = np.zeros(length), np.zeros(length, dtype=np.int64)
    for start in range(0, n_sequences, batch_size):
        tokens, targets = task.sample(rng, min(batch_size, n_sequences - start), length)
        logits = _forward(func, params, tokens, config)
        if task.metric == "accuracy":
            totals += np.sum(_correct(logits, targets), axis=0)
        else:
            totals += np.sum(_token_losses(logits, targets), axis=0)
        counts += np.sum(has_target(targets), axis=0)
    return totals, counts


def region_value(totals, counts, start=0):
    """Return the metric over query positions >= ``start``: a ratio of sums (None if no targets).

    Parameters
    ----------
    totals : array_like, shape (T,)
        Per position: correct predictions or summed loss (`evaluate_positions`).
    counts : array_like of int, shape (T,)
        Per position: the number of targets.
    start : int
        The first query position of the region.

    Returns
    -------
    float or None
        sum(totals[start:]) / sum(counts[start:]), None when that region has no target.

    Examples
    --------
    >>> region_value(np.array([0.0, 3, 1]), np.array([0, 4, 4]), start=2)
    0.25
    """
    func = "region_value"
    totals = check_array(func, "totals", totals, ndim=1)
    counts = check_array(func, "counts", counts, ndim=1)
    if counts.shape != totals.shape or np.any(counts < 0):
        raise ValueError(
            f"{func}: counts must be non-negative, one per position of totals {totals.shape}, "
            f"got shape {counts.shape}"
        )
    start = check_int(func, "start", start, minimum=0)
    n = int(np.sum(counts[start:]))
    return None if n == 0 else float(np.sum(totals[start:]) / n)


def evaluate(params, config, task, length, *, n_tokens=4096, seed=1234, batch_size=64):
    """Score a model on fresh sequences of ``length``: accuracy or loss, as the task says.

    About ``n_tokens`` predictions are scored at every length (fewer, longer sequences at long
    lengths), so every length is measured to the same precision. `evaluate_positions` gives the
    same measurement position by position. Positions without a target are not scored: the
    value is a sum over targets divided by the number of targets.

    Parameters
    ----------
    params : dict
        The model's parameters.
    config : ModelConfig
        The model.
    task : Task
        What to score it on.
    length : int
        Tokens per evaluation sequence.
    n_tokens : int
        Roughly how many positions to score.
    seed : int
        Seeds the evaluation sequences.
    batch_size : int
        Sequences per forward pass.

    Returns
    -------
    float or None
        Accuracy (higher is better) or loss in nats per target (lower is better); None when
        the model has no parameters for that length (a learned table shorter than
        ``length``): "cannot run" is a result, not a crash.

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> config = ModelConfig(vocab_size=16, scheme="learned", d_model=8, max_len=8)
    >>> evaluate(init_params(config), config, lookback(3), 16) is None
    True
    """
    scored = _evaluate_positions(
        "evaluate", params, config, task, length, n_tokens, seed, batch_size
    )
    if scored is None:
        return None
    return region_value(*scored)


def attention_maps(params, config, tokens):
    """Attention weights of every layer for int tokens (B, T).

    Parameters
    ----------
    params : dict
        The model's parameters.
    config : ModelConfig
        The model.
    tokens : array_like of int, shape (B, T)
        Token ids 0 .. V-1.

    Returns
    -------
    list of ndarray, shape (B, H, T', T')
        One array per layer; T' = T + 1 with a start token (query and key 0).

    Examples
    --------
    >>> config = ModelConfig(vocab_size=4, d_model=4, n_heads=2, n_layers=3)
    >>> [m.shape for m in attention_maps(init_params(config), config, [[0, 1, 2]])]
    [(1, 2, 3, 3), (1, 2, 3, 3), (1, 2, 3, 3)]
    """
    return _forward("attention_maps", params, tokens, config, return_attention=True)[1]


def _layer_maps(func, params, config, tokens, layer):
    maps = _forward(func, params, tokens, config, return_attention=True)[1]
    layer = check_int(func, "layer", layer, minimum=0)
    if layer >= len(maps):
        raise ValueError(f"{func}: layer must be < n_layers = {len(maps)}, got {layer}")
    return maps[layer]


def attention_peak_offsets(params, config, tokens, *, layer=0):
    """Where each query looks hardest, for every head.

    The query position minus the position of the key with the largest attention weight.

    Parameters
    ----------
    params : dict
        The model's parameters.
    config : ModelConfig
        The model.
    tokens : array_like of int, shape (B, T)
        Token ids 0 .. V-1.
    layer : int
        Which layer's attention to read.

    Returns
    -------
    ndarray of int, shape (B, H, T)
        0 means the query's own position, 3 the key three back. With a start token (``bos``)
        positions count it as position 0.

    Examples
    --------
    >>> config = ModelConfig(vocab_size=4, d_model=4)
    >>> int(attention_peak_offsets(init_params(config), config, [[0, 1, 2]])[0, 0, 0])  # query 0
    0
    """
    weights = _layer_maps("attention_peak_offsets", params, config, tokens, layer)
    return np.arange(weights.shape[-1]) - weights.argmax(-1)


def attention_at_offset(params, config, tokens, offset, *, layer=0):
    """Return the weight each query gives the key ``offset`` positions back, for every head.

    Parameters
    ----------
    params : dict
        The model's parameters.
    config : ModelConfig
        The model.
    tokens : array_like of int, shape (B, T)
        Token ids 0 .. V-1.
    offset : int
        How far back the key is (0: the query itself).
    layer : int
        Which layer's attention to read.

    Returns
    -------
    ndarray, shape (B, H, T)
        NaN for queries closer than ``offset`` to the start.

    Examples
    --------
    >>> config = ModelConfig(vocab_size=4, d_model=4)
    >>> w = attention_at_offset(init_params(config), config, [[0, 1, 2, 3]], 0)
    >>> float(w[0, 0, 0])     # query 0 sees only itself
    1.0
    """
    offset = check_int("attention_at_offset", "offset", offset, minimum=0)
    weights = _layer_maps("attention_at_offset", params, config, tokens, layer)
    t = weights.shape[-1]
    queries = np.arange(t)
    out = np.full(weights.shape[:-1], np.nan)
    seen = queries >= offset
    out[..., seen] = weights[..., queries[seen], queries[seen] - offset]
    return out


# -- layers that differ (chapter 8): a position plan per layer ----------------------------------
# Beside `forward`, not inside it: the committed sweeps carry the hash of the code `forward`
# reaches (`posenc_lib.provenance`), and a plan inside it would ask for every committed model
# again. With the same `Layer` in every layer these functions compute what `forward`, `loss_fn`,
# `train` and `evaluate_positions` compute, bit for bit (tests/test_hybrid.py).


@dataclass(frozen=True)
class Layer:
    """How one attention layer handles positions.

    Parameters
    ----------
    rope : bool
        Rotate queries and keys (RoPE); False: no position at all in this layer (NoPE).
    base : float
        RoPE's base in this layer (> 1; unused without ``rope``).
    window : int, optional
        A sliding window: a query sees itself and the ``window - 1`` keys before it, the keys
        with ``query - key < window``, as transformers' mask keeps them
        (``masking_utils.sliding_window_overlay``: ``kv_idx > q_idx - sliding_window``; None:
        every key before it, a global layer). A start token counts as a key like any other.
    chunk : int, optional
        Chunked attention, as Llama 4's RoPE layers: positions are cut into chunks of ``chunk``
        (0 .. chunk-1, chunk .. 2 chunk-1, ...) and a query sees the keys of its own chunk up to
        itself, as transformers' ``masking_utils.chunked_overlay`` (``kv_idx // chunk_size ==
        q_idx // chunk_size``) and Meta's ``create_chunked_attention_mask`` keep them (None: no
        chunks). Not with ``window``.

    Examples
    --------
    >>> Layer(base=1e6)
    Layer(rope=True, base=1000000.0, window=None, chunk=None)
    >>> Layer(window=0)
    Traceback (most recent call last):
    ...
    ValueError: Layer: window must be an integer >= 1, got 0
    """

    rope: bool = True
    base: float = 10000.0
    window: int | None = None
    chunk: int | None = None

    def __post_init__(self):
        """Check every field."""
        check_bool("Layer", "rope", self.rope)
        object.__setattr__(self, "base", check_real("Layer", "base", self.base, greater_than=1))
        for name in ("window", "chunk"):
            if getattr(self, name) is not None:
                value = check_int("Layer", name, getattr(self, name), minimum=1)
                object.__setattr__(self, name, int(value))
        if self.window is not None and self.chunk is not None:
            raise ValueError(
                f"Layer: give a window or a chunk, not both, got window={self.window}, "
                f"chunk={self.chunk}"
            )


def _check_plan(func, plan, config):
    """Return ``plan`` as a tuple of `Layer` s, one per layer of ``config``.

    Parameters
    ----------
    func : str
        The function to name in an error.
    plan : sequence of Layer
        One `Layer` per layer (chapter 8's are `posenc_lib.hybrid.PLANS`).
    config : ModelConfig
        The model (its ``n_layers``; its scheme must be "rope", whose parameters every plan uses).

    Returns
    -------
    tuple of Layer

    Examples
    --------
    >>> config = ModelConfig(vocab_size=4, scheme="rope", d_model=8, n_layers=2)
    >>> [layer.rope for layer in _check_plan("f", [Layer(), Layer(rope=False)], config)]
    [True, False]
    >>> _check_plan("f", (Layer(),), config)
    Traceback (most recent call last):
    ...
    ValueError: f: plan must hold one Layer per layer (n_layers=2), got 1 Layer
    """
    config = _check_config(func, config)
    if config.scheme != "rope":
        raise ValueError(
            f"{func}: config.scheme must be 'rope' (a plan says which layers rotate), got "
            f"{config.scheme!r}"
        )
    if not isinstance(plan, list | tuple) or not all(isinstance(x, Layer) for x in plan):
        raise TypeError(f"{func}: plan must be a sequence of Layers, got {short(plan)}")
    if len(plan) != config.n_layers:
        raise ValueError(
            f"{func}: plan must hold one Layer per layer (n_layers={config.n_layers}), got "
            f"{len(plan)} Layer{'s' * (len(plan) != 1)}"
        )
    return tuple(plan)


def visible_keys(t, window=None, chunk=None):
    """Return the (T, T) mask of the keys each query sees: causal, in ``window`` or ``chunk``.

    Parameters
    ----------
    t : int
        Positions.
    window : int, optional
        Keys with ``query - key < window`` (None: every key up to the query).
    chunk : int, optional
        Keys in the query's chunk, ``key // chunk == query // chunk`` (None: no chunks).

    Returns
    -------
    ndarray of bool, shape (t, t)

    Examples
    --------
    >>> visible_keys(4, window=2).astype(int)
    array([[1, 0, 0, 0],
           [1, 1, 0, 0],
           [0, 1, 1, 0],
           [0, 0, 1, 1]])
    >>> visible_keys(4, chunk=2).astype(int)
    array([[1, 0, 0, 0],
           [1, 1, 0, 0],
           [0, 0, 1, 0],
           [0, 0, 1, 1]])
    """
    t = check_int("visible_keys", "t", t, minimum=1)
    positions = np.arange(t)
    visible = np.subtract.outer(positions, positions) >= 0  # causal: query - key >= 0
    if window is not None:
        window = check_int("visible_keys", "window", window, minimum=1)
        visible &= np.subtract.outer(positions, positions) < window
    if chunk is not None:
        chunk = check_int("visible_keys", "chunk", chunk, minimum=1)
        visible &= np.equal.outer(positions // chunk, positions // chunk)
    return visible


def hybrid_forward(params, tokens, config, plan):
    """Logits of shape (B, T, V): `forward`, with each layer's positions its plan's.

    Parameters
    ----------
    params : dict
        A RoPE model's parameters (`init_params` of ``config``).
    tokens : array_like of int, shape (B, T)
        Token ids 0 .. V-1.
    config : ModelConfig
        The model's shape, scheme "rope" (base, interpolation and YaRN per layer from the plan's
        base and config's other fields).
    plan : sequence of Layer
        One `Layer` per layer.

    Returns
    -------
    ndarray, shape (B, T, V)

    Examples
    --------
    >>> config = ModelConfig(vocab_size=5, scheme="rope", d_model=8, n_layers=2)
    >>> params = init_params(config)
    >>> bool(np.array_equal(hybrid_forward(params, [[0, 4, 2]], config, [Layer(), Layer()]),
    ...                     forward(params, [[0, 4, 2]], config)))    # RoPE in every layer
    True
    """
    return _hybrid_forward("hybrid_forward", params, tokens, config, plan)


def _hybrid_forward(func, params, tokens, config, plan):
    plan = _check_plan(func, plan, config)
    _check_params(func, params, config, finite=func != "hybrid_loss")
    tokens = _check_tokens(func, tokens, config)
    b, t = tokens.shape
    h = config.n_heads
    if config.bos:
        tokens = np.concatenate([np.full((b, 1), config.vocab_size), tokens], axis=1)
        t += 1
    x = np.eye(config.vocab_size + config.bos, dtype=DTYPE)[tokens] @ params["tok"]
    for layer, spec in enumerate(plan):
        y = _norm(x)
        q, k, v = (_split_heads(y @ params[f"{n}{layer}"], b, t, h) for n in ("wq", "wk", "wv"))
        if spec.rope:
            rotation = _rope_rotation(config.with_(base=spec.base), t)
            q, k = rope_rotate(q, *rotation), rope_rotate(k, *rotation)
        scores = anp.matmul(q, anp.swapaxes(k, -1, -2)) / float(np.sqrt(config.head_dim))
        visible = visible_keys(t, spec.window, spec.chunk)
        weights = stable_softmax(anp.where(visible, scores, -1e9), xp=anp)
        mixed = anp.reshape(anp.transpose(anp.matmul(weights, v), (0, 2, 1, 3)), (b, t, -1))
        x = x + mixed @ params[f"wo{layer}"]
        if config.mlp:
            hidden = _norm(x) @ params[f"mlp_in{layer}"]
            hidden = hidden * (_constant(hidden) > 0)  # ReLU
            x = x + hidden @ params[f"mlp_out{layer}"]
    if config.bos:
        x = x[:, 1:]
    return _norm(x) @ params["out"]


def hybrid_loss(params, tokens, targets, config, plan):
    """Mean cross-entropy in nats over the positions with a target, as `loss_fn`.

    Parameters
    ----------
    params : dict
        The model's parameters (autograd differentiates with respect to them).
    tokens, targets : array_like of int, shape (B, T)
        Token ids; the token to predict at each position, or -1 (no target).
    config : ModelConfig
        The model.
    plan : sequence of Layer
        Its layers' positions, one `Layer` per layer.

    Returns
    -------
    float

    Examples
    --------
    >>> config = ModelConfig(vocab_size=4, scheme="rope", d_model=4, n_layers=2)
    >>> params = init_params(config)
    >>> params["out"] = np.zeros((4, 4))    # every token equally likely: log 4 per target
    >>> plan = [Layer(rope=False), Layer()]
    >>> round(float(hybrid_loss(params, [[0, 1, 2]], [[-1, 2, 3]], config, plan)), 4)
    1.3863
    """
    config = _check_config("hybrid_loss", config)
    tokens = _check_tokens("hybrid_loss", tokens, config)
    targets = _check_targets("hybrid_loss", targets, tokens.shape, config)
    logits = _hybrid_forward("hybrid_loss", params, tokens, config, plan)
    n_targets = max(int(np.sum(has_target(targets))), 1)
    return anp.sum(_token_losses(logits, targets, xp=anp)) / n_targets


def _check_task(func, task, config):
    if not isinstance(task, Task):
        raise TypeError(f"{func}: task must be a Task (see posenc_lib.tasks), got {short(task)}")
    if task.vocab_size != config.vocab_size:
        raise ValueError(
            f"{func}: task {task.name} has vocab_size {task.vocab_size} but the model has "
            f"{config.vocab_size}"
        )


def train_hybrid(
    config, plan, task, *, steps=600, batch_size=32, length=32, lr=1e-2, seed=0, progress=True
):
    """Train a fresh model of ``config`` and ``plan`` with Adam, as `train` does.

    The same initial parameters, batches and Adam steps as `train` for the
    same seed: with ``Layer()`` in every layer the two return the same parameters (tested).

    Parameters
    ----------
    config : ModelConfig
        The model's shape (scheme "rope").
    plan : sequence of Layer
        One `Layer` per layer.
    task : Task
        From `posenc_lib.tasks`; its vocabulary must match ``config.vocab_size``.
    steps, batch_size, length : int
        Adam steps, sequences per step, tokens per sequence.
    lr : float
        Adam's step size (betas 0.9, 0.99).
    seed : int
        Seeds the initial parameters and the batches (`seed_streams`).
    progress : bool
        Show a progress bar.

    Returns
    -------
    TrainResult
        With no snapshots; ``interrupted`` after Ctrl-C.

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> config = ModelConfig(vocab_size=16, scheme="rope", d_model=8, n_layers=2)
    >>> result = train_hybrid(config, [Layer(), Layer(rope=False)], lookback(1), steps=3,
    ...                       batch_size=2, length=8, progress=False)
    >>> len(result.losses), result.interrupted
    (3, False)
    """
    func = "train_hybrid"
    plan = _check_plan(func, plan, config)
    _check_task(func, task, config)
    steps = check_int(func, "steps", steps, minimum=0)
    batch_size = check_int(func, "batch_size", batch_size, minimum=1)
    length = check_int(func, "length", length, minimum=1)
    lr = check_real(func, "lr", lr, greater_than=0)
    seed = check_int(func, "seed", seed, minimum=0)
    progress = check_bool(func, "progress", progress)
    rng = np.random.default_rng(seed_streams(seed)[1])
    params = init_params(config, seed)
    moment1 = {k: np.zeros_like(p) for k, p in params.items()}
    moment2 = {k: np.zeros_like(p) for k, p in params.items()}
    step_fn = value_and_grad(hybrid_loss)
    losses, interrupted = [], False
    bar = _progress(steps, f"{'+'.join(_layer_name(x) for x in plan)} on {task.name}", progress)
    try:
        for step in range(1, steps + 1):
            tokens, targets = task.sample(rng, batch_size, length)
            loss, grads = step_fn(params, tokens, targets, config, plan)
            for k in params:
                moment1[k] = 0.9 * moment1[k] + 0.1 * grads[k]
                moment2[k] = 0.99 * moment2[k] + 0.01 * grads[k] ** 2
                m_hat = moment1[k] / (1 - 0.9**step)
                v_hat = moment2[k] / (1 - 0.99**step)
                params[k] = params[k] - lr * m_hat / (np.sqrt(v_hat) + 1e-8)
            losses.append(float(loss))
            bar.update(1)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    return TrainResult(config, params, losses, {}, interrupted)


def _layer_name(layer):
    if not layer.rope:
        return "nope"
    limit = "" if layer.window is None else f", window {layer.window}"
    limit += "" if layer.chunk is None else f", chunks of {layer.chunk}"
    return f"rope({layer.base:g}{limit})"


def evaluate_hybrid_positions(
    params, config, plan, task, length, *, n_tokens=4096, seed=1234, batch_size=64
):
    """Score a model of ``plan`` position by position, as `evaluate_positions`.

    The same sequences as `evaluate_positions` for the same arguments.

    Parameters
    ----------
    params : dict
        The model's parameters.
    config : ModelConfig
        The model (scheme "rope").
    plan : sequence of Layer
        Its layers' positions, one `Layer` per layer.
    task : Task
        What to score it on (its ``metric``: accuracy or loss).
    length : int
        Tokens per evaluation sequence.
    n_tokens, seed, batch_size : int
        About how many predictions, the sequences' seed, sequences per pass.

    Returns
    -------
    totals, counts : ndarray, shape (length,)
        Per query position: correct predictions (or summed loss) and the number of targets.

    Examples
    --------
    >>> from posenc_lib.tasks import lookback
    >>> config = ModelConfig(vocab_size=16, scheme="rope", d_model=8, n_layers=2, max_len=8)
    >>> plan = [Layer(rope=False), Layer()]
    >>> totals, counts = evaluate_hybrid_positions(init_params(config), config, plan,
    ...                                            lookback(3), 8, n_tokens=64)
    >>> counts.tolist()
    [0, 0, 0, 8, 8, 8, 8, 8]
    """
    func = "evaluate_hybrid_positions"
    plan = _check_plan(func, plan, config)
    _check_task(func, task, config)
    length = check_int(func, "length", length, minimum=1)
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    seed = check_int(func, "seed", seed, minimum=0)
    batch_size = check_int(func, "batch_size", batch_size, minimum=1)
    _check_params(func, params, config)
    rng = np.random.default_rng(seed)
    n_sequences = max(1, -(-n_tokens // length))
    batch_size = max(1, min(batch_size, 8192 // length))
    totals, counts = np.zeros(length), np.zeros(length, dtype=np.int64)
    for start in range(0, n_sequences, batch_size):
        tokens, targets = task.sample(rng, min(batch_size, n_sequences - start), length)
        logits = _hybrid_forward(func, params, tokens, config, plan)
        if task.metric == "accuracy":
            totals += np.sum(_correct(logits, targets), axis=0)
        else:
            totals += np.sum(_token_losses(logits, targets), axis=0)
        counts += np.sum(has_target(targets), axis=0)
    return totals, counts
