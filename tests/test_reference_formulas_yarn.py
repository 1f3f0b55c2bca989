"""YaRN in posenc_lib checked against independent re-implementations of its two published forms.

The deployed form is written here from its source, in plain Python (``math``, lists), without
calling posenc_lib's YaRN code:

- the authors' reference implementation, github.com/jquesnelle/yarn,
  ``scaled_rope/LlamaYaRNScaledRotaryEmbedding.py`` (``find_correction_dim``,
  ``find_correction_range``, ``linear_ramp_mask``, ``get_mscale``, ``yarn``);
- Hugging Face transformers, ``src/transformers/modeling_rope_utils.py``,
  ``_compute_yarn_parameters`` (the same three helpers, ``linear_ramp_factor``, and the default
  ``attention_factor = 0.1 * math.log(factor) + 1.0``), which multiplies the cos and sin tables by
  the attention factor.

The paper's form is equation (18)-(20) of Peng et al., "YaRN: Efficient Context Window Extension
of Large Language Models" (2023): r(d) = L / lambda_d, gamma(r) = 0 below alpha, 1 above beta,
(r - alpha) / (beta - alpha) between, h(theta_d) = (1 - gamma) theta_d / s + gamma theta_d.
"""

import math

import numpy as np
import pytest

from posenc_lib.model import ModelConfig, attention_maps, init_params
from posenc_lib.rope import (
    yarn_attention_factor,
    yarn_correction_range,
    yarn_frequencies,
    yarn_ramp,
)

# -- the deployed code, transcribed -------------------------------------------------------------


def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
    return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (
        2 * math.log(base)
    )


def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
    low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
    high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
    return max(low, 0), min(high, dim - 1)


def linear_ramp_factor(low, high, n):
    if low == high:
        high += 0.001
    return [min(max((i - low) / (high - low), 0.0), 1.0) for i in range(n)]


def deployed_yarn(dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    """Return (inv_freq, attention_factor) as _compute_yarn_parameters computes them."""
    pos_freqs = [base ** (k / dim) for k in range(0, dim, 2)]
    extrapolation = [1.0 / p for p in pos_freqs]
    interpolation = [1.0 / (factor * p) for p in pos_freqs]
    low, high = find_correction_range(
        beta_fast, beta_slow, dim, base, original_max_position_embeddings
    )
    extrapolation_factor = [1 - r for r in linear_ramp_factor(low, high, dim // 2)]
    inv_freq = [
        i * (1 - e) + x * e
        for i, x, e in zip(interpolation, extrapolation, extrapolation_factor, strict=True)
    ]
    return inv_freq, 0.1 * math.log(factor) + 1.0


def paper_yarn(dim, base, factor, original_len, alpha=1.0, beta=32.0):
    """The paper's h(theta_d), written from its equations."""
    out = []
    for k in range(dim // 2):
        theta = base ** (-2 * k / dim)
        r = original_len / (2 * math.pi / theta)
        gamma = 0.0 if r < alpha else 1.0 if r > beta else (r - alpha) / (beta - alpha)
        out.append((1 - gamma) * theta / factor + gamma * theta)
    return out


CASES = [
    # (head width, base, scale, original length): LLaMA 2, Mistral-like, chapter 6's heads, odd ones
    (128, 10000.0, 4.0, 2048),
    (128, 10000.0, 16.0, 4096),
    (128, 1e6, 8.0, 32768),
    (64, 10000.0, 2.0, 512),
    (8, 10000.0, 4.0, 32),
    (32, 10000.0, 4.0, 32),
    (16, 500.0, 3.0, 100),
    (4, 10000.0, 4.0, 4),
]


@pytest.mark.parametrize(("d", "base", "scale", "length"), CASES)
def test_yarn_frequencies_default_to_the_deployed_code(d, base, scale, length):
    inv_freq, attention = deployed_yarn(d, base, scale, length)
    np.testing.assert_allclose(yarn_frequencies(d, scale, length, base=base), inv_freq, rtol=1e-12)
    assert yarn_correction_range(d, length, base=base) == find_correction_range(
        32, 1, d, base, length
    )
    assert yarn_attention_factor(scale) == pytest.approx(attention, rel=1e-15)


@pytest.mark.parametrize(("d", "base", "scale", "length"), CASES)
def test_yarn_turns_ramp_is_the_papers_equation(d, base, scale, length):
    np.testing.assert_allclose(
        yarn_frequencies(d, scale, length, base=base, ramp="turns"),
        paper_yarn(d, base, scale, length),
        rtol=1e-12,
    )


def test_deployed_ramp_with_other_beta_fast_and_beta_slow():
    for beta_fast, beta_slow in ((16, 2), (64, 0.5), (8, 4)):
        inv_freq, _ = deployed_yarn(64, 10000.0, 8.0, 1024, beta_fast, beta_slow)
        ours = yarn_frequencies(64, 8.0, 1024, alpha=beta_slow, beta=beta_fast)
        np.testing.assert_allclose(ours, inv_freq, rtol=1e-12)


def test_at_chapter_6s_head_the_deployed_ramp_keeps_pair_0_and_the_paper_slows_it():
    theta = [10000.0 ** (-2 * k / 8) for k in range(4)]
    deployed, _ = deployed_yarn(8, 10000.0, 4.0, 32)
    assert [round(f / t, 3) for f, t in zip(deployed, theta, strict=True)] == [
        1.0,
        0.25,
        0.25,
        0.25,
    ]
    paper = paper_yarn(8, 10000.0, 4.0, 32)
    assert [round(f / t, 3) for f, t in zip(paper, theta, strict=True)] == [0.349, 0.25, 0.25, 0.25]
    np.testing.assert_array_equal(yarn_ramp(8, 32), [1.0, 0.0, 0.0, 0.0])


def test_the_model_applies_the_deployed_tables_scaled_by_the_attention_factor():
    """Hugging Face multiplies cos and sin by attention_factor: the model's scores must match a
    single head computed by hand from the transcribed inv_freq."""
    config = ModelConfig(vocab_size=6, scheme="rope", d_model=8, n_heads=1, max_len=8)
    params = init_params(config, seed=3)
    tokens = np.array([[0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3]])
    for ramp, (inv_freq, attention) in (
        ("index", deployed_yarn(8, 10000.0, 2.0, 8)),
        ("turns", (paper_yarn(8, 10000.0, 2.0, 8), 0.1 * math.log(2.0) + 1)),
    ):
        weights = attention_maps(params, config.with_(yarn_scale=2.0, yarn_ramp=ramp), tokens)[0]
        np.testing.assert_allclose(
            weights[0, 0], _one_head(params, tokens, inv_freq, attention), atol=1e-12
        )


def _one_head(params, tokens, inv_freq, attention):
    t = tokens.shape[1]
    x = params["tok"][tokens[0]]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    angles = np.outer(np.arange(t), inv_freq).repeat(2, axis=1)  # interleaved pairs
    cos, sin = attention * np.cos(angles), attention * np.sin(angles)

    def rotate(v):
        partner = np.empty_like(v)
        partner[:, 0::2], partner[:, 1::2] = -v[:, 1::2], v[:, 0::2]
        return v * cos + partner * sin

    q, k = rotate(x @ params["wq0"]), rotate(x @ params["wk0"])
    scores = q @ k.T / math.sqrt(8) + np.triu(np.full((t, t), -np.inf), 1)
    expected = np.exp(scores - scores.max(-1, keepdims=True))
    return expected / expected.sum(-1, keepdims=True)
