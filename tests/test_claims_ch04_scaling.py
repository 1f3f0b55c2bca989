"""Chapter 04's claims about today's scaling recipes (Llama 3.1's, dynamic NTK), recomputed.

Each test's docstring starts with the chapter and says the claim; `docs/claims.md` lists them
(`python tools/claims.py` rewrites it)."""

import numpy as np

from posenc_lib import ntk_base, rope_frequencies
from posenc_lib.rope import (
    dynamic_ntk_base,
    dynamic_ntk_frequencies,
    dynamic_ntk_lengths,
    llama3_frequencies,
    yarn_frequencies,
)

D, L, SCALE = 128, 2048, 4.0
THETA = rope_frequencies(D)


def kept_blended_slowed(ratio, factor):
    kept = np.flatnonzero(ratio == 1.0)
    slowed = np.flatnonzero(np.isclose(ratio, 1 / factor, rtol=1e-12, atol=0))
    blended = np.setdiff1d(np.arange(len(ratio)), np.union1d(kept, slowed))
    return kept, blended, slowed


def test_llama3_and_yarn_slow_the_same_pairs_and_llama3_keeps_more():
    """04: at d = 128, trained at 2,048, 4x, Llama 3.1's scaling keeps pairs 0-30, blends 31-40
    and slows 41-63 by 4; YaRN also slows 41-63 but keeps only 0-16 and ramps over 17-40."""
    kept, blended, slowed = kept_blended_slowed(llama3_frequencies(D, SCALE, L) / THETA, SCALE)
    assert (kept.tolist(), blended.tolist(), slowed.tolist()) == (
        list(range(31)),
        list(range(31, 41)),
        list(range(41, 64)),
    )
    kept, ramp, slowed = kept_blended_slowed(yarn_frequencies(D, SCALE, L) / THETA, SCALE)
    assert (kept.tolist(), ramp.tolist(), slowed.tolist()) == (
        list(range(17)),
        list(range(17, 41)),
        list(range(41, 64)),
    )


def test_dynamic_ntk_is_the_trained_rope_at_the_trained_length_and_ntk_for_7_at_4x():
    """04: dynamic NTK (factor 2) at 2,048 tokens is the trained RoPE exactly; at 4,096 and 8,192
    tokens it is NTK for a scale of 3 and 7 (base 30,528 and 72,196), not for 4, and slows the
    slow pairs more the longer the sequence."""
    assert np.array_equal(dynamic_ntk_frequencies(D, 2.0, L, L), THETA)
    for n, scale, base in ((2 * L, 3.0, 30_528), (4 * L, 7.0, 72_196)):
        assert np.isclose(dynamic_ntk_base(10_000.0, 2.0, L, n, D), ntk_base(10_000.0, scale, D))
        assert round(dynamic_ntk_base(10_000.0, 2.0, L, n, D)) == base
    slowest = [dynamic_ntk_frequencies(D, 2.0, L, n)[-1] / THETA[-1] for n in (L, 2 * L, 4 * L)]
    assert slowest[0] > slowest[1] > slowest[2]


def test_llama31s_published_config_keeps_29_pairs_blends_6_and_slows_29():
    """04: Llama 3.1's config (base 500,000, heads of 128, factor 8, trained at 8,192) keeps pairs
    0-28, blends 29-34 (speeds 0.828 down to 0.190) and slows 35-63 by 8; at position 131,071
    the slowed pairs reach 2.00 times their largest angle at 8,191."""
    theta = rope_frequencies(128, base=500_000.0)
    ratio = llama3_frequencies(128, 8.0, 8192, base=500_000.0) / theta
    kept, blended, slowed = kept_blended_slowed(ratio, 8.0)
    assert (kept[-1], blended.tolist(), slowed[0]) == (28, list(range(29, 35)), 35)
    assert (round(ratio[29], 3), round(ratio[34], 3)) == (0.828, 0.19)
    assert round(131_071 * ratio[-1] / 8191, 2) == 2.0


def test_a_deployed_dynamic_layer_runs_the_trained_length_with_the_last_longer_calls_base():
    """04: after calls of 8,192, 4,096, 1,024 and 4,096 tokens, a 2,048-token call uses the base
    for 4,096 (30,528, not 10,000); the trained base comes back only below 2,048."""
    calls = [8192, 4096, 1024, 4096, 2048]
    used = dynamic_ntk_lengths(calls, L)
    assert used == [8192, 8192, 2048, 4096, 4096]
    assert round(dynamic_ntk_base(10_000.0, 2.0, L, used[-1], D)) == 30_528


def test_llama3s_blend_is_the_yarn_papers_ramp_in_turns_from_1_to_4():
    """04: Llama 3.1's blend is exactly the YaRN paper's equation with its ends at 1 and 4 turns
    (difference 0 to rounding); the deployed YaRN ramps in the pair index, so their lines differ;
    with factor 1 at 8,192 tokens dynamic NTK's base is NTK-aware's for 4x."""
    paper = yarn_frequencies(D, SCALE, L, alpha=1.0, beta=4.0, ramp="turns")
    assert np.max(np.abs(llama3_frequencies(D, SCALE, L) - paper) / THETA) < 1e-15
    deployed = yarn_frequencies(D, SCALE, L, alpha=1.0, beta=4.0)
    assert np.max(np.abs(llama3_frequencies(D, SCALE, L) - deployed) / THETA) > 0.1
    assert dynamic_ntk_base(10_000.0, 1.0, L, 4 * L, D) == ntk_base(10_000.0, 4.0, D)


def test_the_ends_decide_the_ranges_and_the_ramp_shapes_the_speeds_inside():
    """04: given Llama's ends (1 and 4 turns) the deployed YaRN keeps, blends and slows exactly
    Llama 3.1's pairs (0-30, 31-40, 41-63); the YaRN paper's ramp given YaRN's ends (1 and 32)
    has YaRN's ranges (0-16, 17-40, 41-63); the speeds inside the ramps differ."""
    llama = kept_blended_slowed(llama3_frequencies(D, SCALE, L) / THETA, SCALE)
    yarn_1_4 = yarn_frequencies(D, SCALE, L, alpha=1.0, beta=4.0) / THETA
    assert [r.tolist() for r in kept_blended_slowed(yarn_1_4, SCALE)] == [r.tolist() for r in llama]
    deployed = kept_blended_slowed(yarn_frequencies(D, SCALE, L) / THETA, SCALE)
    paper = kept_blended_slowed(yarn_frequencies(D, SCALE, L, ramp="turns") / THETA, SCALE)
    assert [r.tolist() for r in paper] == [r.tolist() for r in deployed]
    assert np.max(np.abs(yarn_1_4 - llama3_frequencies(D, SCALE, L) / THETA)) > 0.1


def test_dynamic_ntk_with_factor_2_squeezes_the_slowest_pairs_and_others_overshoot():
    """04: dynamic NTK (factor 2) at position 8,191 takes the slow pairs (never a full turn in
    training) to between 0.57 and 1.13 times their largest trained angle."""
    theta_largest = (L - 1) * THETA
    slow = theta_largest < 2 * np.pi
    ratio = (4 * L - 1) * dynamic_ntk_frequencies(D, 2.0, L, 4 * L) / theta_largest
    assert (round(ratio[slow].min(), 2), round(ratio[slow].max(), 2)) == (0.57, 1.13)
