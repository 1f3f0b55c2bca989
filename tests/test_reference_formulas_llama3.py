"""Llama 3.1's scaling and dynamic NTK in posenc_lib, checked against independent re-implementations.

Each is written here from Hugging Face transformers' source, in plain Python (``math``, lists),
without calling posenc_lib's code for it:

- ``_compute_llama3_parameters`` in ``src/transformers/modeling_rope_utils.py``
  (``rope_type: "llama3"``): wavelengths shorter than ``original_max_position_embeddings /
  high_freq_factor`` kept, longer than ``... / low_freq_factor`` divided by ``factor``, a smooth
  blend between;
- ``_compute_dynamic_ntk_parameters`` in the same file (``rope_type: "dynamic"``): the base
  ``base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))``
  with ``seq_len`` raised to ``max_position_embeddings`` when shorter;
- ``_dynamic_frequency_update`` of the models' rotary-embedding layer (``LlamaRotaryEmbedding``):
  recompute on growth beyond the cached length, restore the original frequencies when a
  sequence is shorter than the original length.
"""

import math

import numpy as np
import pytest

from posenc_lib.rope import (
    dynamic_ntk_base,
    dynamic_ntk_frequencies,
    dynamic_ntk_lengths,
    llama3_frequencies,
    ntk_base,
    rope_frequencies,
)

# -- the deployed code, transcribed -------------------------------------------------------------


def default_inv_freq(base, dim):
    return [1.0 / (base ** (i / dim)) for i in range(0, dim, 2)]


def llama3_inv_freq(base, dim, factor, low_freq_factor, high_freq_factor, old_context_len):
    inv_freq = default_inv_freq(base, dim)
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    out = []
    for f in inv_freq:
        wavelen = 2 * math.pi / f
        llama = f / factor if wavelen > low_freq_wavelen else f
        smooth = (old_context_len / wavelen - low_freq_factor) / (
            high_freq_factor - low_freq_factor
        )
        smoothed = (1 - smooth) * llama / factor + smooth * llama
        is_medium = (not wavelen < high_freq_wavelen) and (not wavelen > low_freq_wavelen)
        out.append(smoothed if is_medium else llama)
    return out


def dynamic_inv_freq(base, dim, factor, max_position_embeddings, seq_len=None):
    seq_len = (
        seq_len
        if seq_len is not None and seq_len > max_position_embeddings
        else max_position_embeddings
    )
    base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
    return default_inv_freq(base, dim)


class DynamicLayer:
    """The rotary layer's cache: ``_dynamic_frequency_update`` over successive calls."""

    def __init__(self, base, dim, factor, max_position_embeddings):
        self.args = (base, dim, factor, max_position_embeddings)
        self.max_seq_len_cached = self.original_max_seq_len = max_position_embeddings
        self.inv_freq = self.original_inv_freq = dynamic_inv_freq(*self.args)

    def __call__(self, position_ids):
        seq_len = max(position_ids) + 1
        if seq_len > self.max_seq_len_cached:  # growth
            self.inv_freq = dynamic_inv_freq(*self.args, seq_len=seq_len)
            self.max_seq_len_cached = seq_len
        if seq_len < self.original_max_seq_len and self.max_seq_len_cached > (
            self.original_max_seq_len
        ):  # reset
            self.inv_freq = self.original_inv_freq
            self.max_seq_len_cached = self.original_max_seq_len
        return self.inv_freq


# -- Llama 3.1 -------------------------------------------------------------------------------------

LLAMA3_CASES = [
    # dim, base, factor, low, high, original length
    (128, 500_000.0, 8.0, 1.0, 4.0, 8192),  # Llama 3.1-3.3's published config
    (64, 500_000.0, 32.0, 1.0, 4.0, 8192),  # Llama 3.2 1B/3B: factor 32, head 64
    (8, 10_000.0, 8.0, 1.0, 4.0, 32),  # chapter 6's head at its training length
    (16, 10_000.0, 4.0, 1.0, 4.0, 100),
    (32, 10_000.0, 2.0, 2.0, 8.0, 64),
    (128, 10_000.0, 16.0, 0.5, 3.0, 2048),
]


@pytest.mark.parametrize(("d", "base", "factor", "low", "high", "length"), LLAMA3_CASES)
def test_llama3_frequencies_equal_transformers_compute_llama3_parameters(
    d, base, factor, low, high, length
):
    ours = llama3_frequencies(
        d, factor, length, base=base, low_freq_factor=low, high_freq_factor=high
    )
    reference = llama3_inv_freq(base, d, factor, low, high, length)
    np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=0)


def test_llama3_keeps_short_wavelengths_and_slows_long_ones_by_the_factor():
    theta = rope_frequencies(128, base=500_000.0)
    ratio = llama3_frequencies(128, 8.0, 8192, base=500_000.0) / theta
    wavelength = 2 * np.pi / theta
    assert np.all(ratio[wavelength < 8192 / 4] == 1.0)
    np.testing.assert_allclose(ratio[wavelength > 8192], 1 / 8, rtol=1e-15)
    between = (wavelength >= 2048) & (wavelength <= 8192)
    assert between.any() and np.all((ratio[between] > 1 / 8) & (ratio[between] < 1))
    assert np.all(np.diff(ratio) <= 0)  # slower pairs are never slowed less


def test_llama3_changes_the_slow_pairs_at_every_length_unlike_dynamic_ntk():
    """Llama 3.1's frequencies do not depend on the sequence: even a sequence shorter than the
    original context sees its slow pairs slowed, where dynamic NTK changes nothing there."""
    theta = rope_frequencies(8)
    assert not np.allclose(llama3_frequencies(8, 8.0, 32), theta)
    for seq_len in (1, 16, 31, 32):
        assert np.array_equal(dynamic_ntk_frequencies(8, 8.0, 32, seq_len), theta)


def test_llama3_with_equal_thresholds_is_a_step_as_llama_4_scout_ships_it():
    """low_freq_factor == high_freq_factor (Llama 4 Scout: factor 16, both 1, L = 8192): no
    blend; transformers' code divides by zero there but only for a wavelength exactly at L."""
    theta = rope_frequencies(128, base=500_000.0)
    ratio = (
        llama3_frequencies(
            128, 16.0, 8192, base=500_000.0, low_freq_factor=1.0, high_freq_factor=1.0
        )
        / theta
    )
    wavelength = 2 * np.pi / theta
    assert np.all(ratio[wavelength < 8192] == 1.0)
    np.testing.assert_allclose(ratio[wavelength > 8192], 1 / 16, rtol=1e-15)
    assert set(np.round(ratio, 12)) == {1.0, 0.0625}


def test_llama3_with_factor_one_changes_nothing():
    np.testing.assert_allclose(llama3_frequencies(64, 1.0, 512), rope_frequencies(64), rtol=1e-15)


# -- dynamic NTK -----------------------------------------------------------------------------------

DYNAMIC_CASES = [
    (8, 10_000.0, 2.0, 32),
    (8, 10_000.0, 4.0, 32),
    (64, 10_000.0, 2.0, 2048),
    (128, 500_000.0, 8.0, 8192),
    (16, 1_000_000.0, 1.0, 100),
]


@pytest.mark.parametrize(("d", "base", "factor", "length"), DYNAMIC_CASES)
@pytest.mark.parametrize("times", [1 / 32, 0.5, 1.0, 1.0 + 1e-9, 1.5, 2.0, 8.0])
def test_dynamic_ntk_equals_transformers_compute_dynamic_ntk_parameters(
    d, base, factor, length, times
):
    seq_len = max(1, math.ceil(length * times))
    ours = dynamic_ntk_frequencies(d, factor, length, seq_len, base=base)
    np.testing.assert_allclose(
        ours, dynamic_inv_freq(base, d, factor, length, seq_len), rtol=1e-12, atol=0
    )


@pytest.mark.parametrize(("d", "base", "factor", "length"), DYNAMIC_CASES)
def test_dynamic_ntk_changes_nothing_up_to_the_trained_length(d, base, factor, length):
    for seq_len in (1, length // 2 or 1, length):
        assert dynamic_ntk_base(base, factor, length, seq_len, d) == base
        assert np.array_equal(
            dynamic_ntk_frequencies(d, factor, length, seq_len, base=base),
            rope_frequencies(d, base=base),
        )


def test_dynamic_ntk_at_k_times_the_length_is_ntk_for_factor_times_k_minus_one_plus_one():
    for k in (2, 3, 8):
        np.testing.assert_allclose(
            dynamic_ntk_base(10_000.0, 4.0, 32, 32 * k, 8),
            ntk_base(10_000.0, 4.0 * (k - 1) + 1, 8),
            rtol=1e-12,
        )


def test_dynamic_ntk_lengths_follow_the_deployed_layers_cache():
    calls = [16, 64, 48, 32, 20, 33, 100, 8, 40, 40, 256, 31, 32]
    layer = DynamicLayer(10_000.0, 8, 2.0, 32)
    used = dynamic_ntk_lengths(calls, 32)
    for n, (seq_len, length) in enumerate(zip(calls, used, strict=True)):
        seen = layer(list(range(seq_len)))
        ours = dynamic_ntk_frequencies(8, 2.0, 32, length)
        np.testing.assert_allclose(ours, seen, rtol=1e-12, err_msg=f"call {n}: length {seq_len}")


def test_a_deployed_dynamic_layer_scores_the_trained_length_with_another_base_after_a_long_call():
    # 64 then 48 keep 64's base; below 32 restores it; at exactly 32 after 48, 48's base stays
    assert dynamic_ntk_lengths([64, 48, 16, 48, 32], 32) == [64, 64, 32, 48, 48]


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: llama3_frequencies(7, 8.0, 32), ValueError, "llama3_frequencies: d must be even"),
        (lambda: llama3_frequencies(8, 0.5, 32), ValueError, "factor must be >= 1, got 0.5"),
        (lambda: llama3_frequencies(8, 8.0, 0), ValueError, "original_len must be an integer >= 1"),
        (
            lambda: llama3_frequencies(8, 8.0, 32, low_freq_factor=4.0, high_freq_factor=1.0),
            ValueError,
            "high_freq_factor must be at least low_freq_factor",
        ),
        (lambda: llama3_frequencies(8, "8", 32), TypeError, "factor must be a real number"),
        (lambda: dynamic_ntk_base(10_000.0, 2.0, 32, 0, 8), ValueError, "seq_len must be"),
        (lambda: dynamic_ntk_base(10_000.0, 2.0, 32, 64, 2), ValueError, "d must be at least 4"),
        (lambda: dynamic_ntk_base(1.0, 2.0, 32, 64, 8), ValueError, "base must be > 1"),
        (lambda: dynamic_ntk_frequencies(8, 2.0, 32, 2.5), TypeError, "seq_len must be an integer"),
        (lambda: dynamic_ntk_lengths("64", 32), TypeError, "seq_lens must be a sequence"),
        (lambda: dynamic_ntk_lengths([64, 0], 32), ValueError, "seq_lens[1] must be an integer"),
    ],
)
def test_bad_input_is_refused_naming_the_function_the_argument_and_the_value(call, error, words):
    with pytest.raises(error) as raised:
        call()
    assert words in str(raised.value)
