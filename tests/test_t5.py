"""T5's relative position bias: the bucket rule (exact near, logarithmic far, one bucket past
max_distance), causal and bidirectional variants, the bias from a table, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.t5 import T5RelativeBias, t5_bias, t5_bias_traced, t5_bucket, t5_buckets


def published_bucket(relative, bidirectional, n_buckets, max_distance):
    """T5's rule for one relative position (key - query), written from the paper's code's
    description independently of the library: plain Python, one number at a time."""
    offset = 0
    if bidirectional:
        n_buckets //= 2
        if relative > 0:
            offset = n_buckets
        n = abs(relative)
    else:
        n = max(-relative, 0)
    exact = n_buckets // 2
    if n < exact:
        return offset + n
    far = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (n_buckets - exact))
    return offset + min(far, n_buckets - 1)


settings = st.sampled_from([(32, 128), (16, 32), (8, 16), (12, 40), (4, 4), (6, 100)])


@given(st.integers(-2000, 2000), st.booleans(), settings)
def test_buckets_follow_the_published_rule(relative, bidirectional, setting):
    n_buckets, max_distance = setting
    if bidirectional and n_buckets // 2 // 2 >= max_distance:
        return  # not a valid setting: the exact buckets would reach past max_distance
    expected = published_bucket(relative, bidirectional, n_buckets, max_distance)
    got = t5_bucket(
        [relative], bidirectional=bidirectional, n_buckets=n_buckets, max_distance=max_distance
    )
    assert got.tolist() == [expected]


def test_t5_defaults_causal_by_hand():
    # 32 causal buckets: distances 0-15 exact, 16-127 logarithmic into 16-31, then all 31.
    distances = np.arange(0, 300)
    buckets = t5_bucket(-distances, bidirectional=False)
    assert buckets[:16].tolist() == list(range(16))
    assert buckets[16] == 16 and buckets[127] == 31 and np.all(buckets[128:] == 31)
    assert set(buckets[16:128].tolist()) == set(range(16, 32))  # every log bucket is used


def test_bidirectional_defaults_split_the_buckets_by_direction():
    past = t5_bucket(-np.arange(200))
    future = t5_bucket(np.arange(1, 200))
    assert past[:8].tolist() == list(range(8)) and np.all(past < 16) and past[-1] == 15
    assert future[:7].tolist() == list(range(17, 24)) and np.all(future >= 16)
    assert future[-1] == 31


@given(st.booleans(), settings)
def test_buckets_never_decrease_with_distance_and_stay_in_range(bidirectional, setting):
    n_buckets, max_distance = setting
    if bidirectional and n_buckets // 4 >= max_distance:
        return
    d = np.arange(0, 3 * max_distance + 5)
    for sign in (-1, 1) if bidirectional else (-1,):
        b = t5_bucket(
            sign * d, bidirectional=bidirectional, n_buckets=n_buckets, max_distance=max_distance
        )
        assert np.all(np.diff(b) >= 0)
        assert b.min() >= 0 and b.max() <= n_buckets - 1


@given(st.booleans(), settings)
def test_every_distance_from_max_distance_on_shares_the_last_bucket(bidirectional, setting):
    n_buckets, max_distance = setting
    if bidirectional and n_buckets // 4 >= max_distance:
        return
    far = -np.arange(max_distance, max_distance + 500)
    b = t5_bucket(far, bidirectional=bidirectional, n_buckets=n_buckets, max_distance=max_distance)
    last = (n_buckets // 2 if bidirectional else n_buckets) - 1
    assert np.all(b == last)


def test_causal_buckets_give_future_keys_bucket_zero():
    assert np.all(t5_bucket(np.arange(0, 50), bidirectional=False) == 0)


def test_the_bucket_matrix_depends_only_on_key_minus_query():
    b = t5_buckets(40, bidirectional=True, n_buckets=16, max_distance=20)
    for k in range(-39, 40):
        diagonal = np.diagonal(b, offset=k)
        assert np.all(diagonal == diagonal[0])


def test_bias_picks_each_heads_bucket_value():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(3, 8))
    bias = t5_bias(table, 30, bidirectional=False, max_distance=16)
    buckets = t5_buckets(30, bidirectional=False, n_buckets=8, max_distance=16)
    assert bias.shape == (3, 30, 30)
    for h in range(3):
        for i in range(30):
            for j in range(30):
                assert bias[h, i, j] == table[h, buckets[i, j]]


def test_the_trainers_matrix_product_equals_the_gather():
    table = np.random.default_rng(1).normal(size=(4, 16))
    buckets = t5_buckets(50, bidirectional=False, n_buckets=16, max_distance=32)
    np.testing.assert_allclose(t5_bias_traced(table, buckets), table[:, buckets], atol=1e-15)


def test_the_learned_table_is_seeded_and_serves_any_length():
    a = T5RelativeBias(4, 16, 32, bidirectional=False, rng=3)
    b = T5RelativeBias(4, 16, 32, bidirectional=False, rng=3)
    np.testing.assert_array_equal(a.table, b.table)
    assert not np.allclose(a.table, T5RelativeBias(4, 16, 32, rng=4).table)
    long = a(500)
    assert long.shape == (4, 500, 500)
    np.testing.assert_array_equal(long[:, :40, :40], a(40))  # a prefix of a longer sequence
    assert "n_buckets=16" in repr(a)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: t5_bucket([1.5]),
            ValueError,
            "relative_position must hold whole numbers, got 1.5",
        ),
        (lambda: t5_bucket(["a"]), TypeError, "t5_bucket: relative_position must be a numeric"),
        (lambda: t5_bucket([1], n_buckets=1), ValueError, "n_buckets must be an integer >= 2"),
        (
            lambda: t5_bucket([1], n_buckets=3, bidirectional=True),
            ValueError,
            "at least 2 buckets per direction, got n_buckets=3",
        ),
        (
            lambda: t5_bucket([1], n_buckets=32, max_distance=8),
            ValueError,
            "max_distance must exceed the 8 exact buckets",
        ),
        (lambda: t5_bucket([1], bidirectional="yes"), TypeError, "bidirectional must be True or"),
        (lambda: t5_bias(np.zeros(4), 3), ValueError, "t5_bias: table must have at least 2 axes"),
        (lambda: t5_bias(np.zeros((1, 2, 3)), 3), ValueError, "shape (n_heads, n_buckets)"),
        (lambda: t5_buckets(-1), ValueError, "t5_buckets: seq_len must be an integer >= 0"),
        (lambda: T5RelativeBias(0), ValueError, "T5RelativeBias: n_heads must be an integer >= 1"),
        (lambda: T5RelativeBias(2, init_std=-1.0), ValueError, "init_std must be >= 0, got -1.0"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


# -- edges ---------------------------------------------------------------------------------------


def test_with_one_exact_bucket_distance_one_opens_the_logarithmic_range():
    """Three causal buckets: one exact (distance 0), then distance 1 starts the log buckets."""
    assert t5_bucket(
        [0, -1, -2, -3, -4], bidirectional=False, n_buckets=3, max_distance=4
    ).tolist() == [
        0,
        1,
        2,
        2,
        2,
    ]


def test_the_traced_bias_keeps_the_tables_precision():
    table = np.arange(8, dtype=np.float32).reshape(2, 4)
    buckets = t5_buckets(5, bidirectional=False, n_buckets=4, max_distance=4)
    out = t5_bias_traced(table, buckets)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, table[:, buckets])


def test_the_learned_bias_uses_its_own_settings():
    bias = T5RelativeBias(3, 8, 16, bidirectional=False, rng=2)
    assert T5RelativeBias(3).bidirectional is True and bias.bidirectional is False
    np.testing.assert_array_equal(
        bias(20), t5_bias(bias.table, 20, bidirectional=False, max_distance=16)
    )
    wide = T5RelativeBias(64, 32, rng=0, init_std=0.5).table
    assert abs(wide.mean()) < 0.05 and wide.std() == pytest.approx(0.5, rel=0.05)
    np.testing.assert_array_equal(wide, np.random.default_rng(0).normal(0.0, 0.5, (64, 32)))
    assert np.all(T5RelativeBias(2, init_std=0.0).table == 0)


def test_buckets_of_a_sequence_follow_the_settings_given():
    positions = np.arange(12)
    relative = positions[None, :] - positions[:, None]
    for options in (
        {"bidirectional": False, "n_buckets": 6, "max_distance": 8},
        {"bidirectional": True, "n_buckets": 8, "max_distance": 5},
    ):
        np.testing.assert_array_equal(t5_buckets(12, **options), t5_bucket(relative, **options))
