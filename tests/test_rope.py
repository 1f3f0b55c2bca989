"""RoPE: scores depend on m - n only; rotations keep norms; the two conventions agree up to a
fixed permutation; scaling helpers; bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import apply_rope, interpolate_positions, ntk_base, rope_frequencies
from posenc_lib.rope import (
    convention_permutation,
    pairs_completing_a_turn,
    partner_matrix,
    rope_angles,
    rope_decay_bound,
    rope_rotate,
    rope_tables,
    rope_wavelengths,
    yarn_attention_factor,
    yarn_correction_range,
    yarn_frequencies,
    yarn_ramp,
)

dims = st.integers(1, 16).map(lambda n: 2 * n)
positions = st.floats(-1e4, 1e4, allow_nan=False)


def vec(seed, d):
    return np.random.default_rng(seed).normal(size=(1, d))


@given(
    st.integers(0, 2**32 - 1),
    dims,
    positions,
    positions,
    positions,
    st.sampled_from(["interleaved", "half"]),
)
def test_the_score_depends_only_on_the_distance(seed, d, m, n, shift, convention):
    q, k = vec(seed, d), vec(seed + 1, d)

    def score(a, b):
        return (
            apply_rope(q, [a], convention=convention) @ apply_rope(k, [b], convention=convention).T
        ).item()

    assert score(m, n) == pytest.approx(
        score(m + shift, n + shift), abs=1e-6 * (1 + abs(m) + abs(n) + abs(shift))
    )


@given(st.integers(0, 2**32 - 1), dims, positions)
def test_rotation_keeps_the_norm(seed, d, m):
    x = vec(seed, d)
    np.testing.assert_allclose(np.linalg.norm(apply_rope(x, [m])), np.linalg.norm(x), rtol=1e-10)


def test_position_zero_is_the_identity():
    x = np.random.default_rng(0).normal(size=(5, 8))
    np.testing.assert_array_equal(apply_rope(x, np.zeros(5)), x)


@given(st.integers(0, 2**32 - 1), dims)
def test_the_conventions_agree_up_to_a_fixed_permutation(seed, d):
    x = np.random.default_rng(seed).normal(size=(7, d))
    perm = convention_permutation(d)
    np.testing.assert_allclose(
        apply_rope(x[:, perm], convention="half"), apply_rope(x)[:, perm], atol=1e-12
    )


def test_the_conventions_differ_without_the_permutation():
    x = np.random.default_rng(0).normal(size=(4, 8))
    assert not np.allclose(apply_rope(x, convention="half"), apply_rope(x))


def test_pair_i_turns_at_theta_i_per_position():
    d, m = 8, 3.0
    x = np.zeros((1, d))
    x[0, 2] = 1.0  # pair 1, first coordinate
    angle = m * 10000.0 ** (-2 / 8)
    np.testing.assert_allclose(apply_rope(x, [m])[0, 2:4], [np.cos(angle), np.sin(angle)])


def test_offset_positions_continue_where_the_cache_left_off():
    x = np.random.default_rng(0).normal(size=(10, 6))
    whole = apply_rope(x)
    np.testing.assert_allclose(apply_rope(x[6:], positions=np.arange(6, 10)), whole[6:])


def test_fractional_positions_interpolate_the_angle():
    x = np.ones((1, 2))
    half = apply_rope(x, [0.5])
    twice = apply_rope(half, [0.5])
    np.testing.assert_allclose(twice, apply_rope(x, [1.0]))


def test_batch_and_head_axes_broadcast():
    x = np.random.default_rng(0).normal(size=(2, 3, 5, 4))
    out = apply_rope(x)
    assert out.shape == x.shape
    np.testing.assert_allclose(out[1, 2], apply_rope(x[1, 2]))


def test_position_interpolation_and_ntk_scaling():
    np.testing.assert_allclose(interpolate_positions(np.arange(8), 4), np.arange(8) / 4)
    d, scale = 64, 8.0
    slow_before, slow_after = (
        rope_frequencies(d)[-1],
        rope_frequencies(d, base=ntk_base(10000.0, scale, d))[-1],
    )
    assert slow_before / slow_after == pytest.approx(scale)
    assert rope_frequencies(d, base=ntk_base(10000.0, scale, d))[0] == 1.0


def test_yarn_paper_ramp_keeps_fast_pairs_interpolates_slow_ones_and_ramps_in_turns():
    d, scale, length = 128, 8.0, 2048
    theta, new = rope_frequencies(d), yarn_frequencies(d, scale, length, ramp="turns")
    rotations = length / rope_wavelengths(d)  # turns of each pair over the original context
    fast, slow = rotations >= 32, rotations <= 1
    assert fast.any() and slow.any() and (~fast & ~slow).any()
    np.testing.assert_allclose(new[fast], theta[fast])  # high frequencies left alone
    np.testing.assert_allclose(new[slow], theta[slow] / scale)  # low ones interpolated
    ramp = (rotations - 1) / (32 - 1)
    middle = ~fast & ~slow
    np.testing.assert_allclose(
        new[middle], (1 - ramp[middle]) * theta[middle] / scale + ramp[middle] * theta[middle]
    )
    assert np.all(np.diff(new / theta) <= 1e-12)  # the slowdown only grows toward slow pairs


def test_yarn_deployed_ramp_is_linear_in_the_pair_index_between_whole_numbers():
    d, scale, length = 128, 8.0, 2048
    theta, new = rope_frequencies(d), yarn_frequencies(d, scale, length)
    low, high = yarn_correction_range(d, length)
    assert (low, high) == (16, 41)  # floor(16.13), ceil(40.20)
    i = np.arange(d // 2)
    np.testing.assert_allclose(new[i <= low], theta[i <= low])  # kept
    np.testing.assert_allclose(new[i >= high], theta[i >= high] / scale)  # interpolated
    keep = 1 - (i - low) / (high - low)
    middle = (i > low) & (i < high)
    np.testing.assert_allclose(
        new[middle], (1 - keep[middle]) * theta[middle] / scale + keep[middle] * theta[middle]
    )
    np.testing.assert_allclose(np.diff(yarn_ramp(d, length)[middle]), -1 / (high - low))


def test_the_two_yarn_ramps_agree_on_the_ends_at_llama_size_and_differ_at_toy_size():
    turns = 2048 / rope_wavelengths(128)
    index, paper = yarn_ramp(128, 2048), yarn_ramp(128, 2048, ramp="turns")
    for gamma in (index, paper):
        assert np.all(gamma[turns >= 32] == 1.0) and np.all(gamma[turns <= 1] == 0.0)
    assert np.abs(index - paper).max() > 0.1  # the middles differ
    np.testing.assert_array_equal(yarn_ramp(8, 32), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(
        yarn_ramp(8, 32, ramp="turns"), [(32 / (2 * np.pi) - 1) / 31, 0, 0, 0]
    )


def test_yarn_deployed_ramp_guards_a_zero_width_ramp_and_alpha_zero():
    # pair 0 turns 0.64 times over 4 positions: both ends clamp to index 0, the code adds 0.001
    # to high, and the ramp is a step there (pair 0 still kept, a quirk of the clamp)
    assert yarn_correction_range(4, 4) == (0, 0)
    np.testing.assert_array_equal(yarn_ramp(4, 4), [1.0, 0.0])
    assert yarn_correction_range(16, 64, alpha=0.0) == (0, 15)  # the limit alpha -> 0


@given(
    dims.filter(lambda d: d >= 4),
    st.floats(1.0, 64.0),
    st.integers(1, 10_000),
    st.sampled_from(["index", "turns"]),
)
def test_yarn_frequencies_lie_between_interpolation_and_the_original(d, scale, length, ramp):
    theta, new = rope_frequencies(d), yarn_frequencies(d, scale, length, ramp=ramp)
    assert np.all(new <= theta * (1 + 1e-12)) and np.all(new >= theta / scale * (1 - 1e-12))
    assert np.all(np.diff(new / theta) <= 1e-12)  # the slowdown only grows toward slow pairs


def test_yarn_changes_nothing_without_a_longer_context():
    np.testing.assert_array_equal(yarn_frequencies(64, 1.0, 512), rope_frequencies(64))
    np.testing.assert_array_equal(yarn_frequencies(64, 0.5, 512), rope_frequencies(64))
    assert yarn_attention_factor(1.0) == 1.0 and yarn_attention_factor(0.5) == 1.0


def test_yarn_temperature_follows_the_paper():
    # sqrt(1/t) = 0.1 ln(s) + 1; the logits are multiplied by its square
    for s in (2.0, 4.0, 16.0, 32.0):
        assert yarn_attention_factor(s) == pytest.approx(0.1 * math.log(s) + 1)
    q, k = np.random.default_rng(0).normal(size=(2, 1, 16))
    factor = yarn_attention_factor(4.0)
    cos, sin = rope_tables([5.0], 16)
    from posenc_lib.rope import rope_rotate

    plain = (rope_rotate(q, cos, sin) @ rope_rotate(k, cos, sin).T).item()
    scaled = (
        rope_rotate(q, factor * cos, factor * sin) @ rope_rotate(k, factor * cos, factor * sin).T
    ).item()
    assert scaled == pytest.approx(plain * (0.1 * math.log(4.0) + 1) ** 2)


def test_rope_tables_accept_replacement_frequencies():
    frequencies = yarn_frequencies(8, 4.0, 32)
    cos, _ = rope_tables([3.0], 8, frequencies=frequencies)
    np.testing.assert_allclose(cos[0, 0::2], np.cos(3.0 * frequencies))
    with pytest.raises(ValueError, match=r"frequencies must have shape \(d/2,\) = \(4,\)"):
        rope_tables([3.0], 8, frequencies=[1.0, 2.0])


def test_rope_angles_wrap_each_pairs_angle_into_one_turn():
    offsets = np.arange(-50, 300)
    angles = rope_angles(offsets, 16)
    assert angles.shape == (350, 8) and angles.min() >= 0 and angles.max() < 2 * np.pi
    turns = (np.multiply.outer(offsets, rope_frequencies(16)) - angles) / (2 * np.pi)
    np.testing.assert_allclose(turns, np.round(turns), atol=1e-9)  # whole turns removed


def test_pairs_completing_a_turn_within_the_training_length():
    # A head of width 8 trained on 32 tokens sees offsets up to 31: only pair 0 (wavelength
    # 6.3) turns a full circle; pair 1 needs 62.8 positions.
    assert pairs_completing_a_turn(8, 32).tolist() == [0]
    for d, length in ((8, 32), (32, 32), (128, 2048), (64, 7)):
        turning = pairs_completing_a_turn(d, length)
        largest_angle = (length - 1) * rope_frequencies(d)
        assert np.all(largest_angle[turning] >= 2 * np.pi)
        assert np.all(np.delete(largest_angle, turning) < 2 * np.pi)
        assert turning.tolist() == list(range(len(turning)))  # the fastest pairs


def test_roformer_decay_bound_matches_the_published_curve():
    bound = rope_decay_bound([0, 5, 50, 100, 200, 250], 128)
    np.testing.assert_allclose(bound, [32.5, 20.9, 12.6, 10.2, 7.2, 6.6], atol=0.1)
    assert np.any(np.diff(rope_decay_bound(np.arange(0, 300), 128)) > 0)  # not monotone


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: apply_rope(np.ones((3, 7))),
            ValueError,
            "the last axis must be even to form rotation pairs, got d=7",
        ),
        (
            lambda: apply_rope(np.ones((3, 4)), convention="neox"),
            ValueError,
            "convention must be one of 'interleaved', 'half', got 'neox'",
        ),
        (
            lambda: apply_rope(np.ones((3, 4)), positions=[0, 1]),
            ValueError,
            r"positions must have shape \(T,\) = \(3,\)",
        ),
        (lambda: apply_rope(np.ones(4)), ValueError, "x must have at least 2 axes"),
        (
            lambda: apply_rope(np.ones((3, 4)), positions=[0, np.nan, 1]),
            ValueError,
            "positions must be finite",
        ),
        (lambda: interpolate_positions([1, 2], 0), ValueError, "scale must be > 0"),
        (lambda: ntk_base(10000.0, 2.0, 2), ValueError, "d must be at least 4"),
        (lambda: rope_frequencies(5), ValueError, "got d=5"),
        (lambda: yarn_frequencies(8, 0.0, 32), ValueError, "yarn_frequencies: scale must be > 0"),
        (
            lambda: yarn_frequencies(8, 2.0, 32, alpha=4.0, beta=2.0),
            ValueError,
            "need 0 <= alpha < beta, got alpha=4.0, beta=2.0",
        ),
        (lambda: yarn_frequencies(8, 2.0, 0), ValueError, "original_len must be an integer >= 1"),
        (lambda: yarn_attention_factor("4"), TypeError, "scale must be a real number"),
        (lambda: pairs_completing_a_turn(8, 0), ValueError, "length must be an integer >= 1"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- edges: other bases, other shapes, exact messages ------------------------------------------


def test_a_pair_completes_a_turn_once_length_minus_one_steps_reach_two_pi():
    assert pairs_completing_a_turn(8, 8).tolist() == [0]  # 7 steps of 1 rad > 2 pi
    assert pairs_completing_a_turn(8, 7).tolist() == []  # 6 steps < 2 pi
    assert pairs_completing_a_turn(4, 8, base=1.0001).tolist() == [0, 1]  # every pair turns fast


def test_the_decay_bound_keeps_the_shape_of_its_distances():
    grid = np.array([[0.0, 5.0, 50.0], [100.0, 200.0, 250.0]])
    np.testing.assert_allclose(
        rope_decay_bound(grid, 128), [rope_decay_bound(r, 128) for r in grid]
    )


def test_yarn_rescales_as_soon_as_the_context_grows_and_follows_the_base():
    d, length = 16, 1024
    theta = rope_frequencies(d, base=500.0)
    new = yarn_frequencies(d, 1.5, length, base=500.0)
    assert new[-1] == pytest.approx(theta[-1] / 1.5)  # the slowest pair: interpolated
    assert new[0] == pytest.approx(theta[0])  # the fastest: left alone
    with pytest.raises(ValueError, match=r"need 0 <= alpha < beta, got alpha=2.0, beta=2.0"):
        yarn_frequencies(d, 2.0, length, alpha=2.0, beta=2.0)


def test_a_rope_model_without_dimensions_is_refused_by_apply_rope():
    with pytest.raises(ValueError, match=r"^apply_rope: the last axis must be even.*got d=0"):
        apply_rope(np.ones((2, 0)))


def test_rope_rotate_checks_the_tables_against_x():
    cos, sin = rope_tables([0.0, 1.0], 4)
    with pytest.raises(ValueError, match=r"^rope_rotate: cos and sin must both have the shape"):
        rope_rotate(np.ones((3, 4)), cos, sin)
    with pytest.raises(ValueError, match=r"^rope_rotate: cos and sin must both have the shape"):
        rope_rotate(np.ones((2, 4)), cos, sin[:, :2])
    with pytest.raises(
        ValueError, match=r"^rope_rotate: d must be even to form rotation pairs, got d=3"
    ):
        rope_rotate(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"^rope_rotate: x must be an array, got \[\[1.0, 1.0"):
        rope_rotate([[1.0, 1.0, 1.0, 1.0]] * 2, cos, sin)
    half = rope_rotate(np.ones((2, 4), np.float32), cos.astype(np.float32), sin.astype(np.float32))
    assert half.dtype == np.float32  # the partner matrix takes the tables' precision


def test_rope_tables_take_one_list_of_positions_and_name_themselves():
    with pytest.raises(ValueError, match=r"^rope_tables: positions must have 1 axes"):
        rope_tables([[0.0, 1.0]], 4)
    with pytest.raises(ValueError, match=r"^rope_tables: frequencies must have shape \(d/2,\)"):
        rope_tables([0.0], 4, frequencies=[1.0])


def test_ntk_needs_more_than_one_pair():
    with pytest.raises(
        ValueError,
        match=r"^ntk_base: d must be at least 4 \(the exponent d / \(d - 2\) needs d > 2\)$",
    ):
        ntk_base(10000.0, 2.0, 2)


def test_the_partner_matrix_is_the_rotation_by_a_quarter_turn_in_each_layout():
    x = np.arange(1.0, 7.0)
    np.testing.assert_array_equal(x @ partner_matrix(6), [-2.0, 1.0, -4.0, 3.0, -6.0, 5.0])
    np.testing.assert_array_equal(x @ partner_matrix(6, "half"), [-4.0, -5.0, -6.0, 1.0, 2.0, 3.0])
