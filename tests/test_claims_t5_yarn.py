"""The claims chapters 04 and 05 make about YaRN and T5's relative bias, kept as tests (the rest of
those chapters' claims are in test_claims.py). Each docstring names the chapter and the sentence."""

import numpy as np

from posenc_lib import causal_mask, rope_frequencies, softmax
from posenc_lib.rope import rope_wavelengths, yarn_attention_factor, yarn_frequencies
from posenc_lib.t5 import T5RelativeBias, t5_bias, t5_bucket


def test_yarn_keeps_fast_pairs_and_brings_every_slow_pair_back_to_its_trained_angle():
    """04: at 4x of 2048, YaRN keeps 17 pairs, ramps 24 and interpolates 23; the fastest pair at 4.00,
    every slow pair back to 1.00; q and k are multiplied by 1.1386."""
    d, length, scale = 128, 2048, 4
    theta = rope_frequencies(d)
    trained = (length - 1) * theta
    slow = trained < 2 * np.pi
    ratio = (scale * length - 1) * yarn_frequencies(d, scale, length) / trained
    assert round(ratio[0], 2) == 4.0
    assert round(ratio[slow].min(), 2) == 1.0 and round(ratio[slow].max(), 2) == 1.0
    turns = length / rope_wavelengths(d)
    assert (np.sum(turns >= 32), np.sum((turns > 1) & (turns < 32)), np.sum(turns <= 1)) == (
        17,
        24,
        23,
    )
    assert f"{yarn_attention_factor(scale):.4f}" == "1.1386"


def test_yarn_deployed_ramp_is_linear_in_the_pair_index_and_shifts_the_middle_pairs():
    """04: the code's ramp (the course's default) runs in the pair index between whole-number ends: the
    24 pairs between the kept and the interpolated ones have angle ratios from 3.88 down to 1.12 (the
    paper's equation, linear in turns: 3.64 down to 1.00)."""
    d, length, scale = 128, 2048, 4
    trained = (length - 1) * rope_frequencies(d)
    turns = length / rope_wavelengths(d)
    ramp = (turns > 1) & (turns < 32)
    printed = {}
    for kind in ("index", "turns"):
        ratio = (scale * length - 1) * yarn_frequencies(d, scale, length, ramp=kind) / trained
        printed[kind] = (f"{ratio[ramp].max():.2f}", f"{ratio[ramp].min():.2f}")
    assert printed == {"index": ("3.88", "1.12"), "turns": ("3.64", "1.00")}
    assert np.array_equal(
        yarn_frequencies(d, scale, length), yarn_frequencies(d, scale, length, ramp="index")
    )


def test_t5_buckets_are_exact_near_then_logarithmic_then_one():
    """05: one bucket per distance up to 15 (causal) or 7 (bidirectional), ever wider steps, and the last
    bucket takes every distance from 113 (causal) or 91 (bidirectional) on, before the maximum distance
    128."""
    far = np.arange(0, 2000)
    for buckets, exact, first_last in (
        (t5_bucket(-far, bidirectional=False), 16, 113),
        (t5_bucket(-far), 8, 91),
    ):
        assert np.array_equal(buckets[:exact], np.arange(exact))
        widths = np.diff(np.flatnonzero(np.diff(buckets[: first_last + 1])))
        assert np.all(np.diff(widths) >= -1)  # the steps widen (up to the floor's rounding)
        assert widths[-1] > 5 * widths[0]
        last = buckets.max()
        assert np.argmax(buckets == last) == first_last < 128 and np.all(
            buckets[first_last:] == last
        )


def test_a_learned_t5_bias_can_single_out_distance_three():
    """05: one table entry of 4 on bucket 3 gives distance 3 weight 0.832 against 0.015 for every other
    key; ALiBi cannot (test_claims.py); a causal T5 bias with 8 heads has 256 numbers."""
    table = np.zeros((1, 32))
    table[0, 3] = 4.0
    weights = softmax(
        np.where(causal_mask(12), t5_bias(table, 12, bidirectional=False)[0], -np.inf)
    )
    by_distance = weights[11, ::-1]
    assert np.argmax(by_distance) == 3
    assert f"{by_distance[3]:.3f}" == "0.832"
    assert np.all(np.delete(by_distance, 3).round(3) == 0.015)
    assert T5RelativeBias(8, bidirectional=False).table.size == 256
