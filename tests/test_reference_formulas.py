"""posenc_lib against independent re-implementations of the formulas as deployed.

Each reference below is written for this file from the deployed source it cites (the function
that real checkpoints run), in plain numpy, without calling posenc_lib; the test then compares the
library with it. Where a paper's equation and the deployed code differ, the deployed code is the
reference. YaRN's reference lives with chapter 06's tests.
"""

import math

import numpy as np
import pytest

from posenc_lib import alibi_slopes, apply_partial_rope, apply_rope, t5_bucket

# -- T5's relative-position buckets -------------------------------------------------------------


def reference_t5_bucket(relative_position, bidirectional, num_buckets, max_distance):
    """T5's bucket of ``memory_position - context_position`` (key minus query).

    From Hugging Face transformers, src/transformers/models/t5/modeling_t5.py,
    ``T5Attention._relative_position_bucket`` (itself a port of Mesh TensorFlow's
    ``_relative_position_bucket`` in mesh_tensorflow/transformer/transformer_layers.py): the sign
    splits the buckets when bidirectional, a causal model keeps only the past; half of the
    remaining buckets are exact, the rest logarithmic up to ``max_distance``, computed in float32
    (``relative_position.float()``) and truncated towards zero (``.to(torch.long)``).
    """
    n = np.asarray(relative_position, dtype=np.int64)
    buckets = np.zeros_like(n)
    if bidirectional:
        num_buckets //= 2
        buckets += (n > 0).astype(np.int64) * num_buckets
        n = np.abs(n)
    else:
        n = -np.minimum(n, 0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    with np.errstate(divide="ignore"):  # log(0) where n == 0; that entry takes the exact branch
        ratio = np.log(n.astype(np.float32) / np.float32(max_exact))
    scaled = (
        ratio / np.float32(math.log(max_distance / max_exact)) * np.float32(num_buckets - max_exact)
    )
    large = max_exact + np.trunc(np.where(is_small, 0, scaled)).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return buckets + np.where(is_small, n, large)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (16, 64), (8, 20), (64, 256)])
def test_t5_buckets_match_the_deployed_relative_position_bucket(
    bidirectional, num_buckets, max_distance
):
    """Every relative position from -3000 to 3000, encoder (bidirectional) and decoder (causal),
    for T5's 32 buckets / 128 and other settings: the library's bucket equals the deployed one."""
    relative = np.arange(-3000, 3001)
    expected = reference_t5_bucket(relative, bidirectional, num_buckets, max_distance)
    got = t5_bucket(
        relative, bidirectional=bidirectional, n_buckets=num_buckets, max_distance=max_distance
    )
    assert np.array_equal(got, expected)


def test_t5_reference_reproduces_the_known_bucket_edges():
    """The reference itself, checked by hand for the causal 32/128 case: distances 0-15 exact, 16
    and 127 in the log buckets, 128 and beyond in the last; future keys in bucket 0."""
    buckets = reference_t5_bucket(np.array([0, -1, -15, -16, -127, -128, -5000, 7]), False, 32, 128)
    assert list(buckets) == [0, 1, 15, 16, 31, 31, 31, 0]


# -- ALiBi's slopes ------------------------------------------------------------------------------


def reference_alibi_slopes(n):
    """``get_slopes`` from the ALiBi authors' repository, ofirpress/attention_with_linear_biases,
    fairseq/models/transformer.py (``TransformerDecoder.__init__``): for a power of two, start at
    2^(-2^-(log2(n) - 3)) and multiply by the same ratio; otherwise the slopes of the closest lower
    power of two, then every other slope of twice that many heads, the first n - c of them,
    appended (the recursion on 2c)."""

    def power_of_two(k):
        start = 2 ** (-(2 ** -(math.log2(k) - 3)))
        return [start * start**i for i in range(k)]

    if math.log2(n).is_integer():
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + reference_alibi_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("n_heads", [*range(1, 33), 40, 48, 64, 96, 100, 128])
def test_alibi_slopes_match_the_authors_get_slopes(n_heads):
    """Powers of two and every other head count up to 32 (12, 20, 24, ... included), then some large
    ones: the library's slopes equal get_slopes', in the same (unsorted) order."""
    assert np.allclose(alibi_slopes(n_heads), reference_alibi_slopes(n_heads), rtol=1e-12, atol=0)


# -- RoPE: the two layouts -----------------------------------------------------------------------


def reference_inverse_frequencies(dim, base=10000.0):
    """``inv_freq = 1 / base ** (arange(0, dim, 2) / dim)``, as every implementation below builds it
    (for partial rotary, ``dim`` is the rotary width)."""
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def reference_rope_interleaved(x, positions, base=10000.0):
    """Pairs (0, 1), (2, 3), ...: GPT-J in Hugging Face transformers,
    src/transformers/models/gptj/modeling_gptj.py, ``rotate_every_two`` (the pair (x1, x2) becomes
    (-x2, x1)) and ``apply_rotary_pos_emb`` (sin and cos repeated twice with ``repeat_interleave``,
    ``x * cos + rotate_every_two(x) * sin``); RoFormer's equation (Su et al., eq. 34) pairs
    neighbouring dimensions the same way."""
    angles = np.outer(positions, reference_inverse_frequencies(x.shape[-1], base))
    sin, cos = np.repeat(np.sin(angles), 2, axis=-1), np.repeat(np.cos(angles), 2, axis=-1)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    rotated = np.stack([-x2, x1], axis=-1).reshape(x.shape)
    return x * cos + rotated * sin


def reference_rope_half(x, positions, base=10000.0):
    """Dimension i paired with i + d/2: Hugging Face transformers,
    src/transformers/models/llama/modeling_llama.py, ``rotate_half`` (``cat(-x2, x1)`` of the two
    halves) and ``apply_rotary_pos_emb`` (``q * cos + rotate_half(q) * sin``), with the cos and sin
    of ``LlamaRotaryEmbedding`` (``emb = cat(freqs, freqs)``); GPT-NeoX's layout."""
    angles = np.outer(positions, reference_inverse_frequencies(x.shape[-1], base))
    emb = np.concatenate([angles, angles], axis=-1)
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


@pytest.mark.parametrize("d", [2, 8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_rope_interleaved_matches_gptj_rotate_every_two(d, base):
    """apply_rope's interleaved layout equals GPT-J's rotate_every_two, for positions 0-99 and a
    decoding offset."""
    x = np.random.default_rng(d).normal(size=(100, d))
    for positions in (np.arange(100), np.arange(100) + 4096):
        got = apply_rope(x, positions=positions, base=base)
        assert np.allclose(got, reference_rope_interleaved(x, positions, base), atol=1e-10)


@pytest.mark.parametrize("d", [2, 8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_rope_half_matches_llama_rotate_half(d, base):
    """apply_rope's half layout equals Hugging Face Llama's rotate_half, for positions 0-99 and a
    decoding offset."""
    x = np.random.default_rng(d + 1).normal(size=(100, d))
    for positions in (np.arange(100), np.arange(100) + 4096):
        got = apply_rope(x, positions=positions, base=base, convention="half")
        assert np.allclose(got, reference_rope_half(x, positions, base), atol=1e-10)


def test_the_two_layouts_differ_so_the_comparisons_above_can_fail():
    """The layouts are different functions of the same x (d > 2): each test above would catch a
    library that used the other layout."""
    x = np.random.default_rng(5).normal(size=(10, 8))
    positions = np.arange(10)
    assert not np.allclose(
        reference_rope_half(x, positions), reference_rope_interleaved(x, positions)
    )


# -- partial rotary ------------------------------------------------------------------------------


def reference_gpt_neox_partial(x, positions, rotary_pct, base=10000.0):
    """GPT-NeoX: Hugging Face transformers, src/transformers/models/gpt_neox/modeling_gpt_neox.py
    (``rotary_ndims = int(head_size * rotary_pct)``; ``query_rot = query[..., :rotary_ndims]``,
    ``query_pass = query[..., rotary_ndims:]``, rotated with ``rotate_half`` at
    ``inv_freq`` of width ``rotary_ndims``, then concatenated back), as in EleutherAI/gpt-neox,
    megatron/model/transformer.py (``rotary_ndims = int(hidden_size_per_attention_head *
    rotary_pct)``)."""
    rotary_ndims = int(x.shape[-1] * rotary_pct)
    rot, passed = x[..., :rotary_ndims], x[..., rotary_ndims:]
    return np.concatenate([reference_rope_half(rot, positions, base), passed], axis=-1)


def reference_gptj_partial(x, positions, rotary_dim, base=10000.0):
    """GPT-J: Hugging Face transformers, src/transformers/models/gptj/modeling_gptj.py,
    ``GPTJAttention.forward`` (``k_rot = key[:, :, :, : self.rotary_dim]``, ``k_pass`` the rest;
    sinusoids built by ``create_sinusoidal_positions`` at width ``rotary_dim``), interleaved."""
    rot, passed = x[..., :rotary_dim], x[..., rotary_dim:]
    return np.concatenate([reference_rope_interleaved(rot, positions, base), passed], axis=-1)


@pytest.mark.parametrize(
    ("head_size", "rotary_pct"), [(96, 0.25), (64, 0.25), (128, 0.5), (80, 1.0)]
)
def test_partial_rope_matches_gpt_neox_rotary_pct(head_size, rotary_pct):
    """apply_partial_rope with the half layout and rotary_dim = int(head_size * rotary_pct) equals
    GPT-NeoX's partial rotary (GPT-NeoX-20B: head 96, rotary_pct 0.25, 24 rotated)."""
    x = np.random.default_rng(head_size).normal(size=(50, head_size))
    positions = np.arange(50) + 7
    got = apply_partial_rope(x, int(head_size * rotary_pct), positions=positions, convention="half")
    assert np.allclose(got, reference_gpt_neox_partial(x, positions, rotary_pct), atol=1e-10)


@pytest.mark.parametrize(("head_size", "rotary_dim"), [(256, 64), (64, 16), (32, 32)])
def test_partial_rope_matches_gptj_rotary_dim(head_size, rotary_dim):
    """apply_partial_rope with the interleaved layout equals GPT-J's partial rotary (GPT-J-6B:
    head 256, rotary_dim 64)."""
    x = np.random.default_rng(rotary_dim).normal(size=(50, head_size))
    positions = np.arange(50)
    got = apply_partial_rope(x, rotary_dim, positions=positions)
    assert np.allclose(got, reference_gptj_partial(x, positions, rotary_dim), atol=1e-10)


def test_partial_rotary_speeds_span_the_rotary_width_not_the_head():
    """The deployed code builds inv_freq at the rotary width: rotating the first 24 of 96
    dimensions with the head's speeds (a plausible mistake) gives different numbers."""
    x = np.random.default_rng(0).normal(size=(20, 96))
    positions = np.arange(20)
    head_speeds = apply_rope(
        x[:, :24],
        positions=positions,
        convention="half",
        frequencies=reference_inverse_frequencies(96)[:12],
    )
    assert not np.allclose(head_speeds, apply_partial_rope(x, 24, convention="half")[:, :24])
