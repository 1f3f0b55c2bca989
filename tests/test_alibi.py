"""ALiBi: the published slopes for any head count, the bias values and sign, the shift trick."""

import math

import numpy as np
import pytest

from posenc_lib import alibi_bias, alibi_slopes, causal_mask, self_attention, softmax


def published_slopes(n):
    """The rule as reference.md states it, written independently of the library."""

    def geometric(m):
        return [2 ** (-8 * (h + 1) / m) for h in range(m)]

    c = 2 ** int(math.log2(n))
    return geometric(c) + geometric(2 * c)[0::2][: n - c]


@pytest.mark.parametrize("n", range(1, 17))
def test_slopes_follow_the_published_rule(n):
    np.testing.assert_allclose(alibi_slopes(n), published_slopes(n))


def test_eight_and_twelve_heads():
    np.testing.assert_allclose(alibi_slopes(8), 1 / 2 ** np.arange(1, 9))
    np.testing.assert_allclose(
        np.log2(alibi_slopes(12)), [-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5]
    )


def test_bias_is_minus_slope_times_distance():
    bias = alibi_bias(5, 4)
    assert bias.shape == (4, 5, 5)
    slopes = alibi_slopes(4)
    for h in range(4):
        for i in range(5):
            for j in range(5):
                assert bias[h, i, j] == -slopes[h] * abs(i - j)
    assert np.all(bias <= 0) and np.all(np.diagonal(bias, axis1=1, axis2=2) == 0)


def test_the_causal_shift_trick_gives_identical_weights():
    t, heads = 9, 4
    scores = np.random.default_rng(0).normal(size=(heads, t, t))
    slopes = alibi_slopes(heads)[:, None, None]
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    mask = causal_mask(t)
    official = softmax(np.where(mask, scores + slopes * j, -np.inf))
    paper = softmax(np.where(mask, scores - slopes * (i - j), -np.inf))
    np.testing.assert_allclose(official, paper, atol=1e-12)


def test_the_bias_feeds_self_attention_per_head():
    x = np.random.default_rng(0).normal(size=(6, 4))
    w = np.eye(4)
    _, weights = self_attention(x, w, w, w, mask=causal_mask(6), bias=alibi_bias(6, 2))
    assert weights.shape == (2, 6, 6)
    np.testing.assert_allclose(weights.sum(-1), 1.0)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: alibi_slopes(0), ValueError, "n_heads must be an integer >= 1, got 0"),
        (lambda: alibi_slopes(2.0), TypeError, "n_heads must be an integer, got 2.0"),
        (lambda: alibi_bias(-3, 2), ValueError, "seq_len must be an integer >= 0, got -3"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
