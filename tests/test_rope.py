"""RoPE: scores depend on m - n only; rotations keep norms; the two conventions agree up to a
fixed permutation; scaling helpers; bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import (
    apply_partial_rope,
    apply_rope,
    interpolate_positions,
    ntk_base,
    rope_frequencies,
)
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
    yarn_index_ramp,
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


# -- partial rotary: a batch, the limits of rotary_dim, defaults and exact refusals ---------------


def partial_by_hand(x, rotary_dim, positions, base, convention):
    """Rotate the first rotary_dim dimensions of each token vector, pair by pair, with loops:
    pair i is (2i, 2i + 1) interleaved or (i, i + rotary_dim / 2) in the half layout, and turns
    by position * base ** (-2i / rotary_dim)."""
    out = np.array(x, dtype=float)
    half = rotary_dim // 2
    for index in np.ndindex(x.shape[:-2]):
        for t, m in enumerate(positions):
            for i in range(half):
                a, b = (2 * i, 2 * i + 1) if convention == "interleaved" else (i, i + half)
                angle = m * base ** (-2 * i / rotary_dim)
                u, v = x[index][t, a], x[index][t, b]
                out[index][t, a] = u * math.cos(angle) - v * math.sin(angle)
                out[index][t, b] = u * math.sin(angle) + v * math.cos(angle)
    return out


@pytest.mark.parametrize("convention", ["interleaved", "half"])
@pytest.mark.parametrize("rotary_dim", [2, 4, 10])  # the smallest, a part, the whole width
def test_partial_rope_turns_the_first_rotary_dim_of_each_batch_entry_and_passes_the_rest(
    rotary_dim, convention
):
    x = np.random.default_rng(rotary_dim).normal(size=(2, 3, 10))  # batch 2, T 3, d 10
    positions = [0.5, 2.0, 7.0]
    got = apply_partial_rope(x, rotary_dim, positions, base=100.0, convention=convention)
    expected = partial_by_hand(x, rotary_dim, positions, 100.0, convention)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_array_equal(got[..., rotary_dim:], x[..., rotary_dim:])


def test_partial_rope_defaults_to_positions_0_to_t_minus_1_base_10000_and_interleaved_pairs():
    x = np.random.default_rng(5).normal(size=(2, 3, 6))
    got = apply_partial_rope(x, 4)
    np.testing.assert_allclose(
        got, partial_by_hand(x, 4, [0.0, 1.0, 2.0], 10000.0, "interleaved"), atol=1e-12
    )
    explicit = apply_partial_rope(x, 4, [0, 1, 2], base=10000.0, convention="interleaved")
    np.testing.assert_array_equal(got, explicit)


X_PARTIAL = np.ones((2, 3, 6))  # batch 2, T = 3, d = 6


def with_nan_at(shape, index):
    x = np.ones(shape)
    x[index] = np.nan
    return x


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (
            (np.ones(6), 2),
            {},
            ValueError,
            "apply_partial_rope: x must have at least 2 axes, got [1.0, 1.0, 1.0, 1.0, 1.0, 1.0] "
            "(shape (6,))",
        ),
        (
            (with_nan_at((2, 3, 6), (1, 0, 2)), 2),
            {},
            ValueError,
            "apply_partial_rope: x must be finite, got nan at index (1, 0, 2)",
        ),
        (
            (X_PARTIAL, 2.0),
            {},
            TypeError,
            "apply_partial_rope: rotary_dim must be an integer, got 2.0",
        ),
        (
            (X_PARTIAL, 1),  # one below the smallest allowed, 2
            {},
            ValueError,
            "apply_partial_rope: rotary_dim must be an integer >= 2, got 1",
        ),
        (
            (X_PARTIAL, 0),
            {},
            ValueError,
            "apply_partial_rope: rotary_dim must be an integer >= 2, got 0",
        ),
        (
            (X_PARTIAL, 3),  # odd, within d
            {},
            ValueError,
            "apply_partial_rope: rotary_dim must be even and at most the last axis of x (d=6), "
            "got 3",
        ),
        (
            (X_PARTIAL, 8),  # even, one pair past d
            {},
            ValueError,
            "apply_partial_rope: rotary_dim must be even and at most the last axis of x (d=6), "
            "got 8",
        ),
        (
            (X_PARTIAL, 7),  # odd and past d
            {},
            ValueError,
            "apply_partial_rope: rotary_dim must be even and at most the last axis of x (d=6), "
            "got 7",
        ),
        (
            (X_PARTIAL, 2),
            {"convention": "neox"},
            ValueError,
            "apply_partial_rope: convention must be one of 'interleaved', 'half', got 'neox'",
        ),
        (
            (X_PARTIAL, 2, [0.0, 1.0]),
            {},
            ValueError,
            "apply_partial_rope: positions must have shape (T,) = (3,) to match x of shape "
            "(2, 3, 6), got (2,)",
        ),
        (
            (X_PARTIAL, 2, [0.0, np.nan, 1.0]),
            {},
            ValueError,
            "apply_partial_rope: positions must be finite, got nan at index (1,)",
        ),
        (
            (X_PARTIAL, 2),
            {"base": 1.0},
            ValueError,
            "apply_partial_rope: base must be > 1, got 1.0",
        ),
    ],
)
def test_partial_rope_refuses_each_wrong_argument_naming_it_the_value_and_what_fits(
    args, kwargs, error, message
):
    with pytest.raises(error) as caught:
        apply_partial_rope(*args, **kwargs)
    assert str(caught.value) == message


# -- YaRN by hand: other bases and ends, the clamps and the zero-width guard ----------------------


def correction_dim_by_hand(turns, d, length, base):
    """The pair index i that turns ``turns`` times over ``length`` positions, from
    length * base ** (-2i / d) / (2 pi) = turns."""
    return d * math.log(length / (2 * math.pi * turns)) / (2 * math.log(base))


def index_ramp_by_hand(d, low, high):
    """1 - clip((i - low) / (high - low), 0, 1) for each pair i, with the code's guard."""
    if high == low:
        high = low + 0.001
    return [1.0 - min(max((i - low) / (high - low), 0.0), 1.0) for i in range(d // 2)]


# d=16 at 256 tokens, base 100, alpha 0.5, beta 8: the ends are at pair indices 2.83 and 7.64,
# which every default (base 10000, alpha 1, beta 32) would move.
YARN_CASE = {"d": 16, "original_len": 256, "base": 100.0, "alpha": 0.5, "beta": 8.0}


def test_yarn_correction_range_follows_base_alpha_and_beta():
    low = correction_dim_by_hand(8.0, 16, 256, 100.0)
    high = correction_dim_by_hand(0.5, 16, 256, 100.0)
    assert (round(low, 4), round(high, 4)) == (2.8279, 7.6444)
    assert yarn_correction_range(**YARN_CASE) == (2, 8)  # floor 2.83, ceil 7.64
    assert yarn_correction_range(16, 256, base=100.0) == (0, 7)  # floor 0.42, ceil 6.44
    assert yarn_correction_range(16, 256, alpha=0.5, beta=8.0) == (1, 4)  # base 10000: 1.41, 3.82


def test_yarn_correction_range_clamps_the_slow_end_to_d_minus_1():
    # base 4: pair 3 of d=8 turns 100 * 4 ** (-6/8) / (2 pi) = 5.6 times; the slow end (1 turn)
    # lies at index 7.98, ceil 8, beyond the head: clamped to d - 1 = 7
    assert correction_dim_by_hand(1.0, 8, 100, 4.0) == pytest.approx(7.9847, abs=1e-4)
    assert yarn_correction_range(8, 100, base=4.0) == (0, 7)
    np.testing.assert_allclose(yarn_ramp(8, 100, base=4.0), [1.0, 6 / 7, 5 / 7, 4 / 7])
    # base 2, d=4 at 1000 tokens: both ends beyond the head; low is only clamped below (0),
    # so it stays 4, past high = 3, as in the reference code
    assert yarn_correction_range(4, 1000, base=2.0) == (4, 3)


def test_yarn_index_ramp_clamps_the_rounded_ends_to_0_and_d_minus_1():
    np.testing.assert_allclose(yarn_index_ramp(8, 100, base=4.0), [1.0, 6 / 7, 5 / 7, 4 / 7])
    np.testing.assert_allclose(
        yarn_index_ramp(8, 100, base=4.0, truncate=False),  # ends 0 and min(7.98, 7) = 7
        [1.0, 6 / 7, 5 / 7, 4 / 7],
    )
    low, high = correction_dim_by_hand(32.0, 8, 100, 4.0), correction_dim_by_hand(1.0, 8, 100, 4.0)
    np.testing.assert_allclose(
        yarn_index_ramp(8, 100, base=4.0, truncate=False, clamp=False),
        index_ramp_by_hand(8, low, high),
    )


@pytest.mark.parametrize("truncate", [True, False])
@pytest.mark.parametrize("clamp", [True, False])
def test_yarn_index_ramp_follows_base_alpha_and_beta(truncate, clamp):
    low = correction_dim_by_hand(8.0, 16, 256, 100.0)
    high = correction_dim_by_hand(0.5, 16, 256, 100.0)
    if truncate:
        low, high = math.floor(low), math.ceil(high)  # 2, 8
    if clamp:
        low, high = max(low, 0.0), min(high, 15.0)
    expected = index_ramp_by_hand(16, low, high)
    got = yarn_index_ramp(**YARN_CASE, truncate=truncate, clamp=clamp)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    if truncate:
        np.testing.assert_allclose(got, [1, 1, 1, 5 / 6, 4 / 6, 3 / 6, 2 / 6, 1 / 6], rtol=1e-12)


def test_yarn_ramp_follows_base_alpha_and_beta_through_the_correction_range():
    expected = [1, 1, 1, 5 / 6, 4 / 6, 3 / 6, 2 / 6, 1 / 6]  # ends 2 and 8
    np.testing.assert_allclose(yarn_ramp(**YARN_CASE), expected, rtol=1e-12)
    np.testing.assert_allclose(yarn_ramp(**YARN_CASE, ramp="index"), expected, rtol=1e-12)


def test_yarn_paper_ramp_follows_the_base_alpha_and_beta():
    # turns r_i = 64 * 100 ** (-2i / 8) / (2 pi): 10.19, 3.22, 1.02, 0.32; gamma = (r - 0.5) / 7.5
    turns = [64 * 100.0 ** (-2 * i / 8) / (2 * math.pi) for i in range(4)]
    expected = [min(max((r - 0.5) / 7.5, 0.0), 1.0) for r in turns]
    assert expected[0] == 1.0 and 0 < expected[2] < expected[1] < 1 and expected[3] == 0.0
    got = yarn_ramp(8, 64, base=100.0, alpha=0.5, beta=8.0, ramp="turns")
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("ramp", "gamma"),
    [
        ("index", [1, 1, 1, 5 / 6, 4 / 6, 3 / 6, 2 / 6, 1 / 6]),
        (
            "turns",
            [
                min(max((256 * 100.0 ** (-2 * i / 16) / (2 * math.pi) - 0.5) / 7.5, 0.0), 1.0)
                for i in range(8)
            ],
        ),
    ],
)
def test_yarn_frequencies_mix_each_pair_by_the_ramp_of_its_own_base(ramp, gamma):
    theta = [100.0 ** (-2 * i / 16) for i in range(8)]
    expected = [(1 - g) * t / 4.0 + g * t for g, t in zip(gamma, theta, strict=True)]
    got = yarn_frequencies(16, 4.0, 256, base=100.0, alpha=0.5, beta=8.0, ramp=ramp)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_yarn_index_ramp_guards_ends_that_meet():
    # d=8 at 4 tokens: the ends are at -12.4 and -0.20, rounded to -13 and 0, clamped to 0 and 0:
    # the guard moves high to 0.001, so pair 0 is kept and pairs 1.. are interpolated
    assert math.ceil(correction_dim_by_hand(1.0, 8, 4, 10000.0)) == 0
    np.testing.assert_array_equal(yarn_index_ramp(8, 4), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(yarn_index_ramp(4, 4), [1.0, 0.0])
    # not rounded: alpha = 16 / (2 pi) turns put the slow end at exactly 0, where the clamped
    # fast end (-12.4 -> 0) is
    alpha = 16 / (2 * math.pi)
    assert correction_dim_by_hand(alpha, 8, 16, 10000.0) == 0.0
    np.testing.assert_array_equal(
        yarn_index_ramp(8, 16, alpha=alpha, truncate=False), [1.0, 0.0, 0.0, 0.0]
    )


def test_yarn_index_ramp_needs_a_positive_alpha():
    # the smallest alphas put the slow end far past the head: clamped to d - 1 = 7
    np.testing.assert_allclose(yarn_index_ramp(8, 32, alpha=1e-9), [1.0, 6 / 7, 5 / 7, 4 / 7])
    with pytest.raises(ValueError) as caught:
        yarn_index_ramp(8, 32, alpha=0.0)
    assert str(caught.value) == (
        "yarn_index_ramp: alpha must be > 0 (the slow end is at alpha turns), got 0.0"
    )
