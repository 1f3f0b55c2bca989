"""Every named mistake of every exercise, made the way a learner makes it.

Each wrong answer below is code a learner would write for the exercise's prompt, written here
independently of the exercise's `Mistake.answer`: the test runs it through the checker and asserts
the checker names exactly that mistake. A test that built the learner's answer from
`Mistake.answer` itself could not fail when a mistake's answer drifts (changing chapter 7's
perplexity mistake to ``np.exp(loss) + 1.0`` survived it), and a learner who wrote ``np.exp(loss)``
would no longer be told.
"""

import numpy as np
import pytest

from posenc_lib.exercises import FunctionExercise, all_exercises

# A learner's whole answer cell, keyed "chapter.exercise.k" for the exercise's k-th mistake.
WRONG_ANSWERS = {
    # -- chapter 0 ---------------------------------------------------------------------------
    "ch00.positions.0": "positions = np.linspace(1, 10, 10)",
    # -- chapter 1: attention -----------------------------------------------------------------
    "ch01.attention.0": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
    "ch01.attention.1": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / k.shape[1]
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
    "ch01.attention.2": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(x.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
    "ch01.attention.3": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(v.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
    "ch01.attention.4": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    e = np.exp(q @ k.T / np.sqrt(k.shape[1]))
    weights = e / e.sum(axis=0)
    return weights @ v
""",
    "ch01.attention.5": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = k @ q.T / np.sqrt(k.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
    "ch01.attention.6": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = q @ k.T / np.sqrt(k.shape[1])
    return weights @ v
""",
    "ch01.attention.7": """
def attention(x, w_q, w_k, w_v):
    q, k = x @ w_q, x @ w_k
    scores = q @ k.T / np.sqrt(k.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
""",
    "ch01.attention.8": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1)
    return weights @ v
""",
    "ch01.attention.9": """
def attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    s = q @ k.T / np.sqrt(w_k.shape[1])
    e = np.exp(s - s.max(axis=1))
    return e / e.sum(axis=1, keepdims=True) @ v
""",
    "ch01.attention.10": """
def attention(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[-1])
    exps = np.exp(scores - np.max(scores, axis=-1))
    weights = exps / np.sum(exps, axis=-1)
    return weights @ v
""",
    # -- chapter 1: the permutation matrix ----------------------------------------------------
    "ch01.perm_matrix.0": """
def perm_matrix(order):
    T = len(order)
    P = np.zeros((T, T))
    for i, j in enumerate(order):
        P[j, i] = 1.0
    return P
""",
    "ch01.perm_matrix.1": """
def perm_matrix(order):
    T = len(order)
    P = np.zeros((T, T))
    for i in range(T):
        P[i, order[i]] == 1  # a comparison, not an assignment
    return P
""",
    # -- chapter 2: the sinusoidal table ------------------------------------------------------
    "ch02.positions.0": """
def positions(seq_len, d_model):
    i = np.arange((d_model + 1) // 2)
    angles = np.arange(seq_len)[:, None] * 10000.0 ** (-i / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
    "ch02.positions.1": """
def positions(seq_len, d_model):
    dims = np.arange(0, d_model, 2)
    angles = np.arange(seq_len)[:, None] * 10000.0 ** (-2 * dims / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
    "ch02.positions.2": """
def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.outer(np.arange(seq_len), omega)
    return np.concatenate([np.sin(angles), np.cos(angles[:, : d_model // 2])], axis=1)
""",
    "ch02.positions.3": """
def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.outer(np.arange(seq_len), omega)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.cos(angles)
    pe[:, 1::2] = np.sin(angles[:, : d_model // 2])
    return pe
""",
    "ch02.positions.4": """
def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.outer(np.arange(1, seq_len + 1), omega)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe
""",
    "ch02.positions.5": """
def positions(seq_len, d_model):
    p = np.arange(seq_len)
    pe = np.zeros((seq_len, d_model))
    for i in range(d_model // 2):
        angle = p / 10000.0 ** (2 * i / d_model)
        pe[:, 2 * i] = np.sin(angle)
        pe[:, 2 * i + 1] = np.cos(angle)
    return pe
""",
    "ch02.positions.6": """
import math


def positions(seq_len, d_model):
    position = np.arange(seq_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe
""",
    "ch02.positions.7": """
import math


def positions(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for p in range(seq_len):
        for j in range(d_model):
            angle = p / 10000 ** (j / d_model)
            pe[p, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe
""",
    "ch02.positions.8": """
import math


def positions(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / (10000 ** ((2 * i) / d_model)))
            pe[pos, i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d_model)))
    return pe
""",
    "ch02.positions.9": """
import math


def positions(seq_len, d_model):
    num_timescales = d_model // 2
    log_increment = math.log(10000.0) / max(num_timescales - 1, 1)
    inv_timescales = np.exp(np.arange(num_timescales) * -log_increment)
    scaled_time = np.arange(seq_len)[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, d_model % 2]])
""",
    "ch02.positions.10": """
def positions(seq_len, d_model):
    i = np.arange(d_model // 2)
    angles = np.arange(seq_len)[:, None] * 10000.0 ** (-2 * i / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
""",
    # -- chapter 2: wavelengths and shifts ----------------------------------------------------
    "ch02.wavelength.0": """
def wavelength(i, d_model):
    return 10000.0 ** (2 * i / d_model)
""",
    "ch02.wavelength.1": """
def wavelength(i, d_model):
    return 1 / 10000.0 ** (2 * i / d_model)
""",
    "ch02.wavelength.2": """
def wavelength(i, d_model):
    return 2 * np.pi * 10000.0 ** (i / d_model)
""",
    "ch02.wavelength.3": """
def wavelength(i, d_model):
    dim = 2 * i
    return 2 * np.pi * 10000.0 ** (2 * dim / d_model)
""",
    "ch02.wavelength.4": """
def wavelength(i, d_model):
    return 2 * np.pi * 10000 ** (2 * (i + 1) / d_model)
""",
    "ch02.pair_shift.0": """
def pair_shift(k, omega):
    c, s = np.cos(k * omega), np.sin(k * omega)
    return np.array([[c, -s], [s, c]])
""",
    "ch02.pair_shift.1": """
def pair_shift(k, omega):
    return np.array([[np.cos(k), np.sin(k)], [-np.sin(k), np.cos(k)]])
""",
    "ch02.pair_shift.2": """
def pair_shift(k, omega):
    c, s = np.cos(omega), np.sin(omega)
    return np.array([[c, s], [-s, c]])
""",
    "ch02.pe_length.0": "length = np.sqrt(8)",
    "ch02.pe_length.1": "length = 8 / 2",
    "ch02.pe_length.2": "length = np.sqrt(np.sin(0.3) ** 2 + np.cos(0.3) ** 2)",
    # -- chapter 3 ----------------------------------------------------------------------------
    "ch03.table_parameters.0": """
def table_parameters(max_len, d_model):
    return max_len + d_model
""",
    "ch03.cosine_matrix.0": """
def cosine_matrix(table):
    return np.einsum("ad,bd->ab", table, table)
""",
    "ch03.cosine_matrix.1": """
def cosine_matrix(table):
    unit = table / np.linalg.norm(table, axis=0)
    return unit @ unit.T
""",
    "ch03.cosine_matrix.2": """
def cosine_matrix(table):
    columns = table / np.sqrt((table**2).sum(axis=0))
    return columns.T @ columns
""",
    "ch03.cosine_matrix.3": """
def cosine_matrix(table):
    return np.corrcoef(table)
""",
    # -- chapter 4: RoPE ----------------------------------------------------------------------
    "ch04.rotate_pair.0": """
def rotate_pair(x, angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, s], [-s, c]]) @ x
""",
    "ch04.rotate_pair.1": """
def rotate_pair(x, angle):
    theta = angle * np.pi / 180
    a, b = x
    return np.array([a * np.cos(theta) - b * np.sin(theta), a * np.sin(theta) + b * np.cos(theta)])
""",
    "ch04.rope_score.0": """
def rope_score(q, k, m, n):
    return float(np.dot(q, k))
""",
    "ch04.rope_score.1": """
from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    q_n = apply_rope(q[None], positions=[n])[0]
    k_m = apply_rope(k[None], positions=[m])[0]
    return float(q_n @ k_m)
""",
    "ch04.rope_score.2": """
from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    return float(apply_rope(q[None], positions=[m])[0] @ k)
""",
    "ch04.rope_score.3": """
def rope_score(q, k, m, n):
    def rotate(x, position):
        half = len(x) // 2
        theta = position * 10000.0 ** (-2 * np.arange(half) / len(x))
        a, b = x[:half], x[half:]
        c, s = np.cos(theta), np.sin(theta)
        return np.concatenate([a * c - b * s, a * s + b * c])

    return float(rotate(q, m) @ rotate(k, n))
""",
    "ch04.rope_score.4": """
def rope_score(q, k, m, n):
    def rotate(x, position):
        out = np.array(x, dtype=float)
        for i in range(1, len(x) // 2 + 1):  # pairs 1, 2, ..., d/2 as RoFormer counts them
            theta = position * 10000.0 ** (-2 * i / len(x))
            a, b = x[2 * i - 2], x[2 * i - 1]
            out[2 * i - 2] = a * np.cos(theta) - b * np.sin(theta)
            out[2 * i - 1] = a * np.sin(theta) + b * np.cos(theta)
        return out

    return float(rotate(q, m) @ rotate(k, n))
""",
    "ch04.rope_score.5": """
def rope_score(q, k, m, n):
    def rotate(x, position):
        d = len(x)
        theta = position * 10000.0 ** (-np.arange(d // 2) / d)
        a, b = x[0::2], x[1::2]
        out = np.empty(d)
        out[0::2] = a * np.cos(theta) - b * np.sin(theta)
        out[1::2] = a * np.sin(theta) + b * np.cos(theta)
        return out

    return float(rotate(q, m) @ rotate(k, n))
""",
    "ch04.rope_score.6": """
def rope_score(q, k, m, n):
    def rotate_pair(x, angle):
        c, s = np.cos(angle), np.sin(angle)
        return np.array([[c, -s], [s, c]]) @ x

    def rotate(x, position):
        return np.concatenate([rotate_pair(x[i : i + 2], position) for i in range(0, len(x), 2)])

    return float(rotate(q, m) @ rotate(k, n))
""",
    "ch04.rope_score.7": """
from posenc_lib import apply_rope


def rope_score(q, k, m, n):
    return float(apply_rope(q, positions=[m]) @ apply_rope(k, positions=[n]))
""",
    "ch04.decay_bound.0": """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.mean(np.abs(np.exp(1j * r * theta)))
""",
    "ch04.decay_bound.1": """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.mean(np.cumsum(np.abs(np.exp(1j * r * theta))))
""",
    "ch04.decay_bound.2": """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return abs(np.mean(np.cumsum(np.exp(1j * r * theta))))
""",
    "ch04.decay_bound.3": """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.sum(np.abs(np.cumsum(np.exp(1j * r * theta))))
""",
    "ch04.decay_bound.4": """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    terms = np.exp(1j * r * theta)
    sums = [sum(terms[:j]) for j in range(d // 2)]  # S_j = sum over k < j
    return np.mean(np.abs(sums))
""",
    "ch04.decay_bound.5": """
def decay_bound(r, d):
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.mean(np.abs(np.cumsum(np.cos(r * theta))))
""",
    "ch04.decay_bound.6": """
def decay_bound(r, d):
    theta = 10000.0 ** (-np.arange(d // 2) / d)
    return np.mean(np.abs(np.cumsum(np.exp(1j * r * theta))))
""",
    "ch04.to_half_layout.0": """
def to_half_layout(w, n_heads):
    d = w.shape[-1]
    return w[:, list(range(0, d, 2)) + list(range(1, d, 2))]
""",
    "ch04.to_half_layout.1": """
def to_half_layout(w, n_heads):
    d_head = w.shape[-1] // n_heads
    half = d_head // 2
    order = np.empty(d_head, dtype=int)
    order[0::2] = np.arange(half)
    order[1::2] = np.arange(half, d_head)
    heads = w.reshape(w.shape[0], n_heads, d_head)
    return heads[:, :, order].reshape(w.shape)
""",
    "ch04.to_half_layout.2": """
def to_half_layout(w, n_heads):
    d_head = w.shape[0] // n_heads
    order = np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])
    heads = w.reshape(n_heads, d_head, w.shape[1])
    return heads[:, order, :].reshape(w.shape)
""",
    "ch04.ntk_speeds.0": """
def ntk_speeds(i, d, s):
    return np.full(len(i), 1 / s)
""",
    "ch04.ntk_speeds.1": """
def ntk_speeds(i, d, s):
    new_base = 10000.0 * s
    return (new_base / 10000.0) ** (-2 * np.asarray(i) / d)
""",
    "ch04.ntk_speeds.2": """
def ntk_speeds(i, d, s):
    theta = 10000.0 ** (-2 * np.asarray(i) / d)
    new_theta = (10000.0 * s ** (d / (d - 2))) ** (-2 * np.asarray(i) / d)
    return theta / new_theta
""",
    "ch04.llama3_speeds.0": """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    s = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = s + (1 - s) / factor
    out[wavelengths > original_len * high_freq_factor] = 1 / factor
    out[wavelengths < original_len * low_freq_factor] = 1.0
    return out
""",
    "ch04.llama3_speeds.1": """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    s = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = s + (1 - s) / factor
    out[wavelengths < original_len / low_freq_factor] = 1.0
    out[wavelengths > original_len / high_freq_factor] = 1 / factor
    return out
""",
    "ch04.llama3_speeds.2": """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    s = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = (1 - s) + s / factor
    out[wavelengths > original_len / low_freq_factor] = 1 / factor
    out[wavelengths < original_len / high_freq_factor] = 1.0
    return out
""",
    "ch04.llama3_speeds.3": """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    return np.where(wavelengths > original_len / low_freq_factor, 1 / factor, 1.0)
""",
    "ch04.llama3_speeds.4": """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    s = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = s + (1 - s) * factor
    out[wavelengths > original_len / low_freq_factor] = factor
    out[wavelengths < original_len / high_freq_factor] = 1.0
    return out
""",
    "ch04.llama3_speeds.5": """
def llama3_speeds(wavelengths, factor, original_len, low_freq_factor, high_freq_factor):
    short = original_len / high_freq_factor
    long = original_len / low_freq_factor
    s = (long - wavelengths) / (long - short)
    out = s + (1 - s) / factor
    out[wavelengths > long] = 1 / factor
    out[wavelengths < short] = 1.0
    return out
""",
    "ch04.dynamic_lengths.0": """
def dynamic_lengths(seq_lens, original_len):
    return [max(n, original_len) for n in seq_lens]
""",
    "ch04.dynamic_lengths.1": """
def dynamic_lengths(seq_lens, original_len):
    cached, out = original_len, []
    for n in seq_lens:
        cached = max(cached, n)
        out.append(cached)
    return out
""",
    "ch04.dynamic_lengths.2": """
def dynamic_lengths(seq_lens, original_len):
    cached, out = original_len, []
    for n in seq_lens:
        if n > cached:
            cached = n
        if n <= original_len:
            cached = original_len
        out.append(cached)
    return out
""",
    # -- chapter 5: ALiBi ---------------------------------------------------------------------
    "ch05.slopes.0": """
def slopes(n):
    def geometric(m):
        return -(2.0 ** (-8 * np.arange(1, m + 1) / m))

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.concatenate([geometric(c), geometric(2 * c)[0::2][: n - c]])
""",
    "ch05.slopes.1": """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(m) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.concatenate([geometric(c), geometric(2 * c)[0::2][: n - c]])
""",
    "ch05.slopes.2": """
def slopes(n):
    return np.array([2.0 ** (-8 * (h + 1) / n) for h in range(n)])
""",
    "ch05.slopes.3": """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.concatenate([geometric(c), geometric(2 * c)[: n - c]])
""",
    "ch05.slopes.4": """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.concatenate([geometric(c), geometric(2 * c)[1::2][: n - c]])
""",
    "ch05.slopes.5": """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)
    return np.array(sorted([*geometric(c), *geometric(2 * c)[0::2][: n - c]], reverse=True))
""",
    "ch05.slopes.6": """
def slopes(n):
    def geometric(m):
        return 2.0 ** (-8 * np.arange(1, m + 1) / m)

    c = 2 ** int(np.floor(np.log2(n)))
    if c == n:
        return geometric(n)[::-1]
    return np.sort(np.concatenate([geometric(c), geometric(2 * c)[0::2][: n - c]]))
""",
    "ch05.bias_matrix.0": """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return slope * np.abs(i[:, None] - i[None, :])
""",
    "ch05.bias_matrix.1": """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return -slope * (i[:, None] - i[None, :])
""",
    "ch05.bias_matrix.2": """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    return -slope * (i[None, :] - i[:, None])
""",
    "ch05.bias_matrix.3": """
def bias_matrix(seq_len, slope):
    return slope * np.tile(np.arange(seq_len), (seq_len, 1))
""",
    "ch05.bias_matrix.4": """
def bias_matrix(seq_len, slope):
    i = np.arange(seq_len)
    bias = -slope * (i[:, None] - i[None, :])
    return np.where(i[None, :] > i[:, None], -np.inf, bias)
""",
    "ch05.halving_distance.0": """
def halving_distance(slope):
    return 1 / slope
""",
    "ch05.halving_distance.1": """
def halving_distance(slope):
    return np.log(0.5) / slope
""",
    "ch05.halving_distance.2": """
def halving_distance(slope):
    return np.log10(2) / slope
""",
    "ch05.halving_distance.3": """
def halving_distance(slope):
    return slope * np.log(2)
""",
    "ch05.halving_distance.4": """
def halving_distance(slope):
    return float(round(np.log(2) / slope))
""",
    "ch05.halving_distance.5": """
def halving_distance(slope):
    return int(np.ceil(np.log(2) / slope))
""",
    # -- chapter 6 ----------------------------------------------------------------------------
    "ch06.gap.0": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_train) - np.mean(at_longest)
""",
    "ch06.gap.1": """
def gap(records, task, scheme):
    longest = max(r["eval_len"] for r in records)
    at_train = [r["value"] for r in records if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in records if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.mean(at_longest) - np.mean(at_train)
""",
    "ch06.gap.2": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = next(r["value"] for r in rows if r["eval_len"] == r["train_len"])
    at_longest = next(r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen")
    return at_longest - at_train
""",
    "ch06.gap.3": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = np.mean([r["value"] for r in rows if r["eval_len"] == r["train_len"]])
    at_longest = np.mean([r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"])
    return at_longest / at_train
""",
    "ch06.gap.4": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    at_32 = np.mean([r["value"] for r in rows if r["eval_len"] == 32 and r["region"] == "all"])
    at_256 = np.mean(
        [r["value"] for r in rows if r["eval_len"] == 256 and r["region"] == "unseen"]
    )
    return at_256 - at_32
""",
    "ch06.gap.5": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    lengths = sorted({r["eval_len"] for r in rows})
    first = np.mean([r["value"] for r in rows if r["eval_len"] == lengths[0]])
    last = np.mean(
        [r["value"] for r in rows if r["eval_len"] == lengths[-1] and r["region"] == "unseen"]
    )
    return last - first
""",
    "ch06.gap.6": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest]
    return np.mean(at_longest) - np.mean(at_train)
""",
    "ch06.gap.7": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "all"]
    return np.mean(at_longest) - np.mean(at_train)
""",
    "ch06.gap.8": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    train_len = rows[0]["train_len"]
    before = np.mean([r["value"] for r in rows if r["eval_len"] == train_len])
    after = np.mean([r["value"] for r in rows if r["eval_len"] > train_len and r["region"] == "unseen"])
    return after - before
""",
    "ch06.gap.9": """
def gap(records, task, scheme):
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in rows if r["eval_len"] == r["train_len"]]
    at_longest = [r["value"] for r in rows if r["eval_len"] == longest and r["region"] == "unseen"]
    return np.median(at_longest) - np.median(at_train)
""",
    # -- chapter 7 ----------------------------------------------------------------------------
    "ch07.bits_per_char.0": """
def bits_per_char(loss):
    return loss * np.log(2)
""",
    "ch07.bits_per_char.1": """
def bits_per_char(loss):
    return np.log(loss) / np.log(2)
""",
    "ch07.bits_per_char.2": """
def bits_per_char(loss):
    return np.e**loss
""",
    "ch07.bits_per_char.3": """
def bits_per_char(loss):
    return loss / np.log(10)
""",
    "ch07.bits_per_char.4": """
def bits_per_char(loss):
    return loss * 1.443
""",
    "ch07.bits_per_char.5": """
import math


def bits_per_char(loss):
    return float(loss) / math.log(2)
""",
    "ch07.perplexity_to_bits.0": """
def perplexity_to_bits(perplexity):
    return np.log(perplexity)
""",
    "ch07.perplexity_to_bits.1": """
def perplexity_to_bits(perplexity):
    return np.log(perplexity) / np.log(10)
""",
    "ch07.perplexity_to_bits.2": """
import math


def perplexity_to_bits(perplexity):
    return math.log2(perplexity)
""",
    "ch07.perplexity_to_bits.3": """
def perplexity_to_bits(perplexity):
    return 2**perplexity
""",
    "ch07.rope_pairs_turning.0": """
theta = 10000 ** (-np.arange(8) / 16)
answer_turning = int(np.sum(64 * theta / (2 * np.pi) >= 1))
""",
    "ch07.rope_pairs_turning.1": """
theta = 10000 ** (-2 * np.arange(8) / 16)
answer_turning = int(np.sum(64 * theta >= 1))
""",
    "ch07.rope_pairs_turning.2": """
answer_turning = 8  # every pair turns as the position grows
""",
    "ch07.rope_pairs_turning.3": """
theta = 10000 ** (-2 * np.arange(1, 9) / 16)
answer_turning = int(np.sum(64 * theta / (2 * np.pi) >= 1))
""",
}

MISTAKES = {
    f"{chapter}.{exercise.name}.{k}": (exercise, mistake)
    for chapter, exercise in all_exercises()
    for k, mistake in enumerate(getattr(exercise, "mistakes", ()))
}


def learner_answer(exercise, code):
    """Run a learner's cell as the notebook does and return what it binds to the answer name."""
    scope = {"np": np}
    exec(code, scope)
    return scope[exercise.answer_name]


def test_every_named_mistake_has_a_wrong_answer_written_here():
    assert sorted(WRONG_ANSWERS) == sorted(MISTAKES)


@pytest.mark.parametrize("key", sorted(MISTAKES))
def test_the_checker_names_the_mistake_in_the_learners_own_wrong_answer(key):
    exercise, mistake = MISTAKES[key]
    feedback = exercise.evaluate(learner_answer(exercise, WRONG_ANSWERS[key]))
    assert not feedback.passed
    assert mistake.message in feedback.message, feedback.message
    others = [m.message for m in exercise.mistakes if m is not mistake]
    assert not any(message in feedback.message for message in others), feedback.message


@pytest.mark.parametrize("key", sorted(MISTAKES))
def test_each_wrong_answer_differs_from_the_right_one_on_some_case(key):
    """A wrong answer that equals the reference everywhere would make the test above vacuous."""
    exercise, _ = MISTAKES[key]
    answer = learner_answer(exercise, WRONG_ANSWERS[key])
    if not isinstance(exercise, FunctionExercise):
        assert not np.allclose(answer, exercise.expected)
        return
    differs = []
    for case in exercise.cases:
        try:
            wrong = np.asarray(answer(*case.values()), dtype=float)
        except Exception:  # a mistake named by the error it raises (ch02's odd width)
            differs.append(True)
            continue
        right = np.asarray(exercise.reference(**case), dtype=float)
        differs.append(wrong.shape != right.shape or not np.allclose(wrong, right))
    assert any(differs)
