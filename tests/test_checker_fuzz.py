"""No checker passes an answer that is right on its cases and wrong in general.

A checker compares a learner's answer with the library's on a few cases. When those cases share a
coincidence, an answer that relies on it passes and is still wrong: chapter 06's gap read the
training length as the shortest evaluation length, and passed, because every case evaluated from
the training length up. Below, for every exercise, are the wrong-but-close answers a learner
plausibly writes: off by one, a constant that happens to match (d_head = 8, the value the chapter
prints), a swapped argument that coincides on symmetric cases, a median where two seeds make it the
mean, a filter forgotten where the other records happen to agree. Each is written as the learner's
whole cell, with a witness: arguments outside the checker's cases on which the answer differs from
the library's (so nothing here is secretly right). The checker must reject each one with
feedback: not passed, and no traceback or "could not grade".

A lookup table of the checked cases' own results would pass any checker with fixed cases; the
hard-coded answers fuzzed here are the plausible ones, a number the chapter prints or a width its
examples use.

The named mistakes (`Mistake`) are tested in tests/test_exercise_mistakes.py; choice questions
here are fuzzed with every other option and with answers that only look like the key.
"""

import math

import numpy as np
import pytest

from posenc_lib.exercises import ChoiceExercise, FunctionExercise, ValueExercise, all_exercises

EXERCISES = {f"{chapter}.{exercise.name}": exercise for chapter, exercise in all_exercises()}


def _layer(seed, t, d_model, d_k, d_v):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.normal(size=(t, d_model)),
        "w_q": rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        "w_k": rng.normal(size=(d_model, d_k)) / np.sqrt(d_model),
        "w_v": rng.normal(size=(d_model, d_v)) / np.sqrt(d_model),
    }


def _study(rows, *, train_len, task="t", scheme="s", metric="accuracy"):
    """Records from {seed: {eval_len: value}}: past the training length a value (all, unseen), or
    one number v for all positions and v / 2 for the unseen ones; at it region "all" only."""
    out = []
    for seed, values in rows.items():
        for n, v in values.items():
            if n > train_len:
                pair = v if isinstance(v, tuple) else (v, None if v is None else v / 2)
                regions = [("all", pair[0]), ("unseen", pair[1])]
            else:
                regions = [("all", v)]
            out += [
                {
                    "task": task,
                    "scheme": scheme,
                    "seed": seed,
                    "train_len": train_len,
                    "eval_len": n,
                    "region": region,
                    "metric": metric,
                    "value": value,
                }
                for region, value in regions
            ]
    return out


# A study whose evaluation starts below the training length, with three seeds whose median is
# not their mean, and another task evaluated longer (and trained at another length) listed first.
GAP_WITNESS = {
    "records": _study({0: {64: 0.1}, 1: {64: 0.2}}, train_len=16, task="u")
    + _study(
        {
            0: {8: 0.9, 16: 0.8, 32: 0.5},
            1: {8: 0.95, 16: 0.7, 32: 0.4},
            2: {8: 1.0, 16: 0.3, 32: 0.1},
        },
        train_len=16,
    ),
    "task": "t",
    "scheme": "s",
}

RNG = np.random.default_rng(2024)

# exercise -> [(what the learner got wrong, their cell, witness arguments)]
WRONG_BUT_CLOSE = {
    "ch01.attention": [
        (
            "keys projected with w_q (scores q q^T)",
            """
def attention(x, w_q, w_k, w_v):
    q, v = x @ w_q, x @ w_v
    scores = q @ q.T / np.sqrt(q.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
            _layer(9, 4, 5, 3, 2),
        ),
        (
            "scaled by sqrt(T), the number of tokens",
            """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(len(x))
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
            _layer(9, 4, 5, 3, 2),
        ),
        (
            "a causal mask the prompt does not ask for",
            """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[1])
    scores = np.where(np.tril(np.ones_like(scores)) > 0, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
            _layer(9, 4, 5, 3, 2),
        ),
        (
            "the scale applied to the weights after the softmax",
            """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) / np.sqrt(k.shape[1]) @ v
""",
            _layer(9, 4, 5, 3, 2),
        ),
        (
            "no value projection: the weights average x itself",
            """
def attention(x, w_q, w_k, w_v):
    q, k = x @ w_q, x @ w_k
    scores = q @ k.T / np.sqrt(k.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ x
""",
            _layer(9, 4, 3, 3, 3),
        ),
    ],
    "ch01.perm_matrix": [
        (
            "the inverse permutation by argsort (equal for a swap of two words)",
            """
def perm_matrix(order):
    return np.eye(len(order))[np.argsort(order)]
""",
            {"order": [1, 2, 0]},
        ),
        (
            "ones at (order[i], i) instead of (i, order[i])",
            """
def perm_matrix(order):
    T = len(order)
    P = np.zeros((T, T))
    P[list(order), np.arange(T)] = 1
    return P
""",
            {"order": [1, 2, 0]},
        ),
        (
            "the columns of the identity picked instead of its rows",
            """
def perm_matrix(order):
    return np.eye(len(order))[:, list(order)]
""",
            {"order": [3, 1, 0, 2]},
        ),
    ],
    "ch02.positions": [
        (
            "the exponent over d_model - 1",
            """
def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / (d_model - 1))
    angles = np.arange(seq_len)[:, None] * omega[None, :]
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
            {"seq_len": 6, "d_model": 6},
        ),
        (
            "positions multiplied by the power of the base, not divided",
            """
def positions(seq_len, d_model):
    omega = 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    angles = np.arange(seq_len)[:, None] * omega[None, :]
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
            {"seq_len": 6, "d_model": 6},
        ),
        (
            "seq_len in the exponent where d_model belongs",
            """
def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / seq_len)
    angles = np.arange(seq_len)[:, None] * omega[None, :]
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
            {"seq_len": 6, "d_model": 8},
        ),
        (
            "base 1000",
            """
def positions(seq_len, d_model):
    omega = 1000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.arange(seq_len)[:, None] * omega[None, :]
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
            {"seq_len": 6, "d_model": 6},
        ),
        (
            "only even widths: the pairs counted as d_model // 2",
            """
def positions(seq_len, d_model):
    omega = 10000.0 ** (-2 * np.arange(d_model // 2) / d_model)
    angles = np.arange(seq_len)[:, None] * omega[None, :]
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2][:, : d_model // 2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
""",
            {"seq_len": 6, "d_model": 7},
        ),
    ],
    "ch02.wavelength": [
        (
            "the exponent of the cosine column, (2i + 1) / d_model",
            """
def wavelength(i, d_model):
    return 2 * np.pi * 10000.0 ** ((2 * i + 1) / d_model)
""",
            {"i": 3, "d_model": 10},
        ),
        (
            "the exponent over d_model - 1",
            """
def wavelength(i, d_model):
    return 2 * np.pi * 10000.0 ** (2 * i / (d_model - 1))
""",
            {"i": 3, "d_model": 10},
        ),
        (
            "half a turn, pi instead of 2 pi",
            """
def wavelength(i, d_model):
    return np.pi * 10000.0 ** (2 * i / d_model)
""",
            {"i": 3, "d_model": 10},
        ),
        (
            "hard-coded: pair 0's wavelength, 2 pi",
            """
def wavelength(i, d_model):
    return 2 * np.pi
""",
            {"i": 3, "d_model": 10},
        ),
    ],
    "ch02.pair_shift": [
        (
            "turned by omega, k forgotten (right when k = 1)",
            """
def pair_shift(k, omega):
    c, s = np.cos(omega), np.sin(omega)
    return np.array([[c, s], [-s, c]])
""",
            {"k": 2, "omega": 0.3},
        ),
        (
            "turned by k + omega",
            """
def pair_shift(k, omega):
    c, s = np.cos(k + omega), np.sin(k + omega)
    return np.array([[c, s], [-s, c]])
""",
            {"k": 2, "omega": 0.3},
        ),
        (
            "a symmetric matrix, both signs positive",
            """
def pair_shift(k, omega):
    c, s = np.cos(k * omega), np.sin(k * omega)
    return np.array([[c, s], [s, c]])
""",
            {"k": 2, "omega": 0.3},
        ),
    ],
    "ch03.table_parameters": [
        (
            "added instead of multiplied",
            """
def table_parameters(max_len, d_model):
    return max_len + d_model
""",
            {"max_len": 10, "d_model": 3},
        ),
        (
            "one row too many (positions 0 to max_len)",
            """
def table_parameters(max_len, d_model):
    return (max_len + 1) * d_model
""",
            {"max_len": 10, "d_model": 3},
        ),
        (
            "hard-coded: GPT-2's width 768",
            """
def table_parameters(max_len, d_model):
    return max_len * 768
""",
            {"max_len": 10, "d_model": 3},
        ),
        (
            "hard-coded: the number the chapter prints for GPT-2",
            """
def table_parameters(max_len, d_model):
    return 786432
""",
            {"max_len": 10, "d_model": 3},
        ),
    ],
    "ch03.cosine_matrix": [
        (
            "only the left rows divided by their length",
            """
def cosine_matrix(table):
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ table.T
""",
            {"table": RNG.normal(size=(4, 3))},
        ),
        (
            "divided by the norm of the whole table",
            """
def cosine_matrix(table):
    return table @ table.T / np.linalg.norm(table) ** 2
""",
            {"table": RNG.normal(size=(4, 3))},
        ),
        (
            "the absolute cosine",
            """
def cosine_matrix(table):
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return np.abs(unit @ unit.T)
""",
            {"table": RNG.normal(size=(4, 3))},
        ),
        (
            "each entry divided by row a's squared length only",
            """
def cosine_matrix(table):
    return table @ table.T / (np.linalg.norm(table, axis=1, keepdims=True) ** 2)
""",
            {"table": RNG.normal(size=(4, 3))},
        ),
    ],
    "ch04.rotate_pair": [
        (
            "a sign slip in the second entry, a sin - b cos",
            """
def rotate_pair(x, angle):
    a, b = x
    return np.array([a * np.cos(angle) - b * np.sin(angle), a * np.sin(angle) - b * np.cos(angle)])
""",
            {"x": np.array([0.7, -0.2]), "angle": 0.4},
        ),
        (
            "the two entries swapped",
            """
def rotate_pair(x, angle):
    a, b = x
    return np.array([a * np.sin(angle) + b * np.cos(angle), a * np.cos(angle) - b * np.sin(angle)])
""",
            {"x": np.array([0.7, -0.2]), "angle": 0.4},
        ),
        (
            "half the angle",
            """
def rotate_pair(x, angle):
    c, s = np.cos(angle / 2), np.sin(angle / 2)
    return np.array([[c, -s], [s, c]]) @ x
""",
            {"x": np.array([0.7, -0.2]), "angle": 0.4},
        ),
        (
            "the angle first, rotate_pair(angle, x)",
            """
def rotate_pair(angle, x):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]]) @ x
""",
            {"x": np.array([0.7, -0.2]), "angle": 0.4},
        ),
    ],
    "ch04.rope_score": [
        (
            "the offset taken as |n - m| (right whenever the key comes later)",
            """
from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    return float(q @ apply_rope(k[None], positions=[abs(n - m)])[0])
""",
            {"q": RNG.normal(size=8), "k": RNG.normal(size=8), "m": 9, "n": 2},
        ),
        (
            "both vectors rotated to m",
            """
from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    return float(apply_rope(q[None], positions=[m])[0] @ apply_rope(k[None], positions=[m])[0])
""",
            {"q": RNG.normal(size=8), "k": RNG.normal(size=8), "m": 9, "n": 2},
        ),
        (
            "base 100",
            """
from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    q_m = apply_rope(q[None], positions=[m], base=100.0)[0]
    return float(q_m @ apply_rope(k[None], positions=[n], base=100.0)[0])
""",
            {"q": RNG.normal(size=8), "k": RNG.normal(size=8), "m": 9, "n": 2},
        ),
    ],
    "ch04.to_half_layout": [
        (
            "hard-coded: the order of a head of 8, [0, 2, 4, 6, 1, 3, 5, 7]",
            """
def to_half_layout(w, n_heads):
    order = np.array([0, 2, 4, 6, 1, 3, 5, 7])
    heads = w.reshape(w.shape[0], n_heads, 8)
    return heads[:, :, order].reshape(w.shape)
""",
            {"w": RNG.normal(size=(3, 12)), "n_heads": 2},
        ),
        (
            "d_head taken from the rows, w.shape[0] // n_heads",
            """
def to_half_layout(w, n_heads):
    d_head = w.shape[0] // n_heads
    order = np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])
    heads = w.reshape(w.shape[0], n_heads, -1)
    return heads[:, :, order].reshape(w.shape)
""",
            {"w": RNG.normal(size=(6, 12)), "n_heads": 2},
        ),
        (
            "the heads split as (d_head, n_heads): columns of a head taken every n_heads",
            """
def to_half_layout(w, n_heads):
    d_head = w.shape[-1] // n_heads
    order = np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])
    heads = w.reshape(w.shape[0], d_head, n_heads)
    return heads[:, order, :].reshape(w.shape)
""",
            {"w": RNG.normal(size=(3, 12)), "n_heads": 2},
        ),
    ],
    "ch04.decay_bound": [
        (
            "hard-coded: width 128, the chapter's head",
            """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(64) / 128)
    return np.abs(np.cumsum(np.exp(1j * r * theta))).mean()
""",
            {"r": 7, "d": 32},
        ),
        (
            "the median of the |S_j| instead of their mean",
            """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.median(np.abs(np.cumsum(np.exp(1j * r * theta))))
""",
            {"r": 7, "d": 32},
        ),
        (
            "the last partial sum only, the full sum of the terms",
            """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.abs(np.sum(np.exp(1j * r * theta)))
""",
            {"r": 7, "d": 32},
        ),
        (
            "base 100",
            """
def decay_bound(r, d):
    theta = 100.0 ** (-2 * np.arange(d // 2) / d)
    return np.abs(np.cumsum(np.exp(1j * r * theta))).mean()
""",
            {"r": 7, "d": 32},
        ),
        (
            "the real part of each partial sum instead of its length",
            """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.real(np.cumsum(np.exp(-1j * r * theta))).mean()
""",
            {"r": 7, "d": 32},
        ),
    ],
    "ch04.ntk_speeds": [
        (
            "hard-coded: the last pair's 1 / s for every pair but the first",
            """
def ntk_speeds(i, d, s):
    i = np.asarray(i)
    return np.where(i == 0, 1.0, 1 / s)
""",
            {"i": np.arange(4), "d": 8, "s": 2.0},
        ),
        (
            "the exponent's d - 2 written as d - 1",
            """
def ntk_speeds(i, d, s):
    return s ** (-2 * np.asarray(i) / (d - 1))
""",
            {"i": np.arange(4), "d": 8, "s": 2.0},
        ),
        (
            "the pair index counted from 1",
            """
def ntk_speeds(i, d, s):
    return s ** (-2 * (np.asarray(i) + 1) / (d - 2))
""",
            {"i": np.arange(4), "d": 8, "s": 2.0},
        ),
    ],
    "ch04.llama3_speeds": [
        (
            "s from wavelength / L, the ratio upside down",
            """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    w = np.asarray(wavelengths, dtype=float)
    s = (w / original_len - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = np.where(w > original_len / low_freq_factor, 1 / factor, s + (1 - s) / factor)
    return np.where(w < original_len / high_freq_factor, 1.0, out)
""",
            {
                "wavelengths": np.array([10.0, 40.0, 70.0, 150.0]),
                "factor": 8.0,
                "original_len": 100,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
            },
        ),
        (
            "low_freq_factor hard-coded to 1 (as in every Llama 3.1 config)",
            """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    w = np.asarray(wavelengths, dtype=float)
    s = (original_len / w - 1.0) / (high_freq_factor - 1.0)
    out = np.where(w > original_len, 1 / factor, s + (1 - s) / factor)
    return np.where(w < original_len / high_freq_factor, 1.0, out)
""",
            {
                "wavelengths": np.array([10.0, 40.0, 70.0, 150.0]),
                "factor": 4.0,
                "original_len": 100,
                "low_freq_factor": 0.5,
                "high_freq_factor": 4.0,
            },
        ),
        (
            "the slow-down returned, 1 / speed, instead of the speed kept",
            """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    w = np.asarray(wavelengths, dtype=float)
    s = (original_len / w - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = np.where(w > original_len / low_freq_factor, 1 / factor, s + (1 - s) / factor)
    return 1 / np.where(w < original_len / high_freq_factor, 1.0, out)
""",
            {
                "wavelengths": np.array([10.0, 40.0, 70.0, 150.0]),
                "factor": 4.0,
                "original_len": 100,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
            },
        ),
    ],
    "ch04.dynamic_lengths": [
        (
            "the reset caching the short call's own length, not original_len",
            """
def dynamic_lengths(seq_lens, original_len):
    cached, out = original_len, []
    for n in seq_lens:
        if n > cached:
            cached = n
        if n < original_len and cached > original_len:
            cached = n
        out.append(cached)
    return out
""",
            {"seq_lens": [100, 40, 100], "original_len": 50},
        ),
        (
            "the cache starting at 0, so a first short call is cached as itself",
            """
def dynamic_lengths(seq_lens, original_len):
    cached, out = 0, []
    for n in seq_lens:
        if n > cached:
            cached = n
        if n < original_len and cached > original_len:
            cached = original_len
        out.append(cached)
    return out
""",
            {"seq_lens": [20, 80], "original_len": 50},
        ),
        (
            "only the longest call of all, for every call",
            """
def dynamic_lengths(seq_lens, original_len):
    return [max([original_len, *seq_lens])] * len(seq_lens)
""",
            {"seq_lens": [20, 80], "original_len": 50},
        ),
    ],
    "ch05.slopes": [
        (
            "c rounded, not floored: 2 ** round(log2(n))",
            """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** round(np.log2(n))
    if c >= n:
        return geometric(c)[:n]
    return np.concatenate([geometric(c), geometric(2 * c)[0::2][: n - c]])
""",
            {"n": 7},
        ),
        (
            "the extra heads from the 2n-head sequence, not the 2c-head one",
            """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.concatenate([geometric(c), geometric(2 * n)[0::2][: n - c]])
""",
            {"n": 6},
        ),
        (
            "hard-coded: the 8-head pattern 2^-1, 2^-2, ... for every n",
            """
def slopes(n):
    return 2.0 ** -np.arange(1, n + 1)
""",
            {"n": 6},
        ),
        (
            "the extra heads halfway between neighbouring slopes",
            """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    extra = 2.0 ** (-8 * (np.arange(1, n - c + 1) + 0.5) / c)
    return np.concatenate([geometric(c), extra])
""",
            {"n": 6},
        ),
    ],
    "ch05.bias_matrix": [
        (
            "the keys after the query left at 0",
            """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return np.tril(-slope * np.abs(i[:, None] - i[None, :]))
""",
            {"seq_len": 4, "slope": 0.25},
        ),
        (
            "the squared distance",
            """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return -slope * (i[:, None] - i[None, :]) ** 2
""",
            {"seq_len": 4, "slope": 0.25},
        ),
        (
            "divided by the slope",
            """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return -np.abs(i[:, None] - i[None, :]) / slope
""",
            {"seq_len": 4, "slope": 0.25},
        ),
    ],
    "ch05.halving_distance": [
        (
            "log base 2 of 2 over the slope (1 / slope)",
            """
def halving_distance(slope):
    return np.log2(2) / slope
""",
            {"slope": 0.125},
        ),
        (
            "ln 2 rounded to 0.69",
            """
def halving_distance(slope):
    return 0.69 / slope
""",
            {"slope": 0.125},
        ),
        (
            "hard-coded: head 0's 1.4 positions",
            """
def halving_distance(slope):
    return 1.3862943611198906
""",
            {"slope": 0.125},
        ),
        (
            "ln 2 times the distance at which the weight falls by e, squared",
            """
def halving_distance(slope):
    return np.log(2) / slope**2
""",
            {"slope": 0.125},
        ),
    ],
    "ch06.gap": [
        (
            "the training length read as the shortest evaluation length",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    shortest = min(r["eval_len"] for r in rows)
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == shortest]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_longest) - np.mean(at_train)
""",
            GAP_WITNESS,
        ),
        (
            "the training length read as the first record's evaluation length",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    first = rows[0]["eval_len"]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == first]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_longest) - np.mean(at_train)
""",
            GAP_WITNESS,
        ),
        (
            "the median over seeds (the mean when there are two)",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.median(at_longest) - np.median(at_train)
""",
            GAP_WITNESS,
        ),
        (
            "the longest length over every task's records",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in records)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_longest) - np.mean(at_train)
""",
            GAP_WITNESS,
        ),
        (
            "the training length read from the first record of any task",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    train_len = records[0]["train_len"]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == train_len]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_longest) - np.mean(at_train)
""",
            {
                **GAP_WITNESS,
                "records": _study({0: {8: 0.5}}, train_len=8, task="u")
                + [r for r in GAP_WITNESS["records"] if r["task"] == "t"],
            },
        ),
        (
            "the second-longest length",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    lengths = sorted({r["eval_len"] for r in rows})
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longer = [
        r["value"] for r in rows if r["eval_len"] == lengths[-2] and r["region"] == "unseen"
    ]
    return np.mean(at_longer) - np.mean(at_train)
""",
            GAP_WITNESS,
        ),
        (
            "a table that cannot run that long (None) averaged anyway",
            """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_longest) - np.mean(at_train)
""",
            {
                "records": _study({0: {32: 1.0, 64: 0.4}}, train_len=32, scheme="rope")
                + _study({0: {32: 1.0, 64: None}, 1: {32: 1.0, 64: None}}, train_len=32),
                "task": "t",
                "scheme": "s",
            },
        ),
        (
            "only the unseen records kept, at the training length too (where there are none)",
            """
def gap(records, task, scheme):
    rows = [
        r
        for r in records
        if r["task"] == task and r["scheme"] == scheme and r["region"] == "unseen"
    ]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest]
    return np.mean(at_longest) - np.mean(at_train)
""",
            GAP_WITNESS,
        ),
    ],
    "ch07.bits_per_char": [
        (
            "1 / ln 2 rounded to 1.44",
            """
def bits_per_char(loss):
    return loss * 1.44
""",
            {"loss": 2.5},
        ),
        (
            "numbers only: an array comes back unchanged",
            """
def bits_per_char(loss):
    if isinstance(loss, float):
        return loss / np.log(2)
    return loss
""",
            {"loss": np.array([2.5])},
        ),
        (
            "divided by log2(e) instead of multiplied",
            """
def bits_per_char(loss):
    return loss / np.log2(np.e)
""",
            {"loss": 2.5},
        ),
    ],
    "ch07.perplexity_to_bits": [
        (
            "log2 of one more than the perplexity",
            """
def perplexity_to_bits(perplexity):
    return np.log2(perplexity + 1)
""",
            {"perplexity": 8.0},
        ),
        (
            "the reciprocal, 1 / log2(perplexity)",
            """
def perplexity_to_bits(perplexity):
    return 1 / np.log2(perplexity)
""",
            {"perplexity": 8.0},
        ),
        (
            "numbers only: math.log2 refuses an array",
            """
import math


def perplexity_to_bits(perplexity):
    return math.log2(perplexity)
""",
            {"perplexity": np.array([8.0, 16.0])},
        ),
    ],
}

# exercise -> [(what the learner got wrong, their cell)]: a value exercise has no arguments.
WRONG_VALUES = {
    "ch00.positions": [
        ("one position short, 0 .. 8", "positions = np.arange(9, dtype=float)"),
        ("one position too many, 0 .. 10", "positions = np.arange(11, dtype=float)"),
        ("positions scaled to 0 .. 1", "positions = np.linspace(0, 1, 10)"),
        ("positions counted down", "positions = np.arange(10, dtype=float)[::-1]"),
        ("tenths of positions", "positions = np.arange(10, dtype=float) / 10"),
    ],
    "ch02.pe_length": [
        ("the length the chapter prints for d_model = 512", "length = 16.0"),
        ("sqrt(d_model) rounded to two decimals", "length = 2.83"),
        ("half of sqrt(d_model)", "length = np.sqrt(8) / 2"),
        ("one pair left out of the squared length", "length = np.sqrt(3)"),
    ],
    "ch07.rope_pairs_turning": [
        ("the pairs that turn more than two circles", "answer_turning = 2"),
        ("the share of the pairs, not their number", "answer_turning = 3 / 8"),
        ("the circles pair 2 turns", "answer_turning = 64 * 0.1 / (2 * np.pi)"),
        ("the circles pair 0 turns", "answer_turning = 64 / (2 * np.pi)"),
    ],
}

FUNCTION_CASES = [
    (key, what, code, witness)
    for key, answers in WRONG_BUT_CLOSE.items()
    for what, code, witness in answers
]
VALUE_CASES = [(key, what, code) for key, answers in WRONG_VALUES.items() for what, code in answers]


def learner_answer(exercise, code):
    """Run a learner's cell as the notebook does and return what it binds to the answer name."""
    scope = {"np": np, "math": math}
    exec(code, scope)
    return scope[exercise.answer_name]


def assert_rejected_with_feedback(exercise, answer, what):
    feedback = exercise.evaluate(answer)
    assert not feedback.passed, f"{exercise.name} accepts an answer with {what}"
    assert feedback.message, what
    assert "could not grade" not in feedback.message, feedback.message
    assert "Traceback" not in feedback.message, feedback.message


def test_every_function_and_value_exercise_is_fuzzed_with_at_least_three_answers():
    graded = {
        key
        for key, exercise in EXERCISES.items()
        if isinstance(exercise, FunctionExercise | ValueExercise)
    }
    fuzzed = {**WRONG_BUT_CLOSE, **WRONG_VALUES}
    assert set(fuzzed) == graded
    assert all(len(answers) >= 3 for answers in fuzzed.values())


# A learner's answer that averages no records warns as numpy warns in the notebook.
@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize(
    ("key", "what", "code", "witness"),
    FUNCTION_CASES,
    ids=[f"{key}: {what}" for key, what, _, _ in FUNCTION_CASES],
)
def test_a_wrong_but_close_function_is_rejected_with_feedback(key, what, code, witness):
    exercise = EXERCISES[key]
    answer = learner_answer(exercise, code)
    # wrong in general: on the witness it differs from the library (or cannot run)
    right = np.asarray(exercise.reference(**witness), dtype=float)
    try:
        wrong = np.asarray(answer(*witness.values()), dtype=float)
    except Exception:  # noqa: BLE001 - an answer that breaks on other arguments is wrong too
        wrong = None
    assert wrong is None or wrong.shape != right.shape or not np.allclose(wrong, right), what
    assert_rejected_with_feedback(exercise, answer, what)


@pytest.mark.parametrize(
    ("key", "what", "code"), VALUE_CASES, ids=[f"{key}: {what}" for key, what, _ in VALUE_CASES]
)
def test_a_wrong_but_close_value_is_rejected_with_feedback(key, what, code):
    exercise = EXERCISES[key]
    answer = learner_answer(exercise, code)
    expected = np.asarray(exercise.expected, dtype=float)
    assert np.shape(answer) != expected.shape or not np.allclose(answer, expected), what
    assert_rejected_with_feedback(exercise, answer, what)


CHOICES = {key: e for key, e in EXERCISES.items() if isinstance(e, ChoiceExercise)}


def near_misses(exercise):
    """Every other option, written plainly and as a prompt lists it ("(c)", "c)"), and answers
    that only look like the key: two keys at once, the key's label text (unless it is the key
    itself, as "True" for "true"), the placeholder "?" and nothing."""
    key = str(exercise.correct)
    others = [option for option in exercise.options if option != exercise.correct]
    listed = [form for other in others for form in (f"({other})", f"{other})")]
    looks_like_key = [f"{key}, {others[0]}", f"{key}{others[0]}", f"({key}", "?", ""]
    return others + listed + looks_like_key + _spelled_out(exercise, key)


def _spelled_out(exercise, key):
    label = exercise.labels.get(exercise.correct, key)
    return [label] if label.strip().lower() != key.strip().lower() else []


@pytest.mark.parametrize("key", CHOICES)
def test_a_choice_question_rejects_every_other_option_and_every_near_miss(key):
    exercise = CHOICES[key]
    for answer in near_misses(exercise):
        assert_rejected_with_feedback(exercise, answer, f"the answer {answer!r}")
    assert exercise.evaluate(exercise.correct).passed


@pytest.mark.parametrize("key", CHOICES)
def test_a_choice_question_accepts_the_key_as_its_prompt_lists_it(key):
    """The prompts list options as "(a) ...": "(b)", "b)" and " (B) " count as the option."""
    exercise = CHOICES[key]
    option = str(exercise.correct)
    for answer in (f"({option})", f"{option})", f" ({option.upper()}) "):
        assert exercise.evaluate(answer).passed, answer
