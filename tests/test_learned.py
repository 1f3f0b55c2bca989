"""Learned position tables (chapter 3): the table's draw, its hard length limit, and the two
readings of a trained table the chapter uses, cosine similarity and the principal axis."""

import numpy as np
import pytest

from posenc_lib.learned import (
    LearnedPositions,
    cosine_similarity,
    principal_axis,
    table_too_short,
)


def test_the_table_is_drawn_from_a_normal_with_the_given_spread():
    table = LearnedPositions(400, 50, rng=1, init_std=0.3).table
    assert table.shape == (400, 50)
    assert abs(table.mean()) < 0.01 and table.std() == pytest.approx(0.3, rel=0.02)
    np.testing.assert_array_equal(table, np.random.default_rng(1).normal(0.0, 0.3, (400, 50)))


def test_a_table_serves_every_length_up_to_its_rows_and_no_further():
    table = LearnedPositions(5, 2, rng=0)
    assert table(0).shape == (0, 2)
    np.testing.assert_array_equal(table(5), table.table)
    np.testing.assert_array_equal(table(3), table.table[:3])
    assert table_too_short(5, 5) is None and table_too_short(0, 0) is None
    assert table_too_short(5, 6) == (
        "asked for 6 positions but the table has only max_len=5 rows (positions 0..4). A learned "
        "table has no vector for unseen positions: build a longer table and train it, or use a "
        "scheme defined for every position (sinusoidal, RoPE, ALiBi)."
    )
    with pytest.raises(ValueError, match=r"^LearnedPositions: asked for 6 positions"):
        table(6)
    assert repr(table) == "LearnedPositions(max_len=5, d_model=2)" and table.n_parameters == 10


def test_cosine_similarity_compares_directions_whatever_the_lengths():
    table = np.array([[3.0, 0.0], [0.0, 0.5], [-2.0, 2.0], [10.0, 10.0]])
    expected = [
        [1.0, 0.0, -np.sqrt(0.5), np.sqrt(0.5)],
        [0.0, 1.0, np.sqrt(0.5), np.sqrt(0.5)],
        [-np.sqrt(0.5), np.sqrt(0.5), 1.0, 0.0],
        [np.sqrt(0.5), np.sqrt(0.5), 0.0, 1.0],
    ]
    np.testing.assert_allclose(cosine_similarity(table), expected, atol=1e-15)
    with pytest.raises(ValueError, match=r"^cosine_similarity: a row of zeros has no direction$"):
        cosine_similarity([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match=r"^cosine_similarity: table must have 2 axes"):
        cosine_similarity([1.0, 2.0])


def test_the_principal_axis_of_a_noisy_ramp_is_the_ramp_from_early_to_late():
    rng = np.random.default_rng(0)
    direction = np.array([3.0, -4.0, 0.0]) / 5  # the ramp runs along this unit vector
    steps = np.arange(10.0)
    table = 7.0 + np.outer(steps, direction) + rng.normal(0, 0.01, (10, 3))  # offset: not centred
    share, projection = principal_axis(table)
    assert 0.999 < share <= 1.0
    np.testing.assert_allclose(projection, steps - steps.mean(), atol=0.05)
    reversed_share, reversed_projection = principal_axis(table[::-1])
    assert reversed_share == pytest.approx(share)
    assert (
        reversed_projection[-1] > reversed_projection[0]
    )  # signed so that the last is the largest


def test_the_principal_share_is_the_first_singular_value_squared_over_the_sum():
    table = np.array([[2.0, 0.0, 0.0], [-2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0]])
    share, projection = principal_axis(table)  # variances along the axes: 8 and 2 (of 10)
    assert share == pytest.approx(0.8)
    np.testing.assert_allclose(np.abs(projection), [2.0, 2.0, 0.0, 0.0], atol=1e-12)
    wide = np.array(
        [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0, 0.0]]
    )  # more columns than rows
    share, projection = principal_axis(wide)
    assert share == pytest.approx(1.0)
    np.testing.assert_allclose(projection, [-np.sqrt(2.5), np.sqrt(2.5)])
    with pytest.raises(
        ValueError, match=r"^principal_axis: table must be 2-D with at least 2 rows"
    ):
        principal_axis([[1.0, 2.0]])


@pytest.mark.parametrize(
    "steps",
    [[0.0, -1.0, 5.0, 2.0], [0.0, 2.5, -2.0, 1.5], [3.0, 1.0, 0.0, -1.0], [1.0, 0.0, -6.0, 2.0]],
    ids=["second-below-first", "last-below-second", "falling", "largest-against-the-trend"],
)
def test_the_projection_is_signed_so_that_the_last_row_is_not_below_the_first(steps):
    """The axis's sign is the SVD's choice; the projection fixes it by the last and first rows.

    (LAPACK tends to make the largest entry positive: the last case needs the flip.)
    """
    steps = np.array(steps)
    direction = np.array([0.6, 0.8])
    centred = steps - steps.mean()
    expected = centred if centred[-1] >= centred[0] else -centred
    for table in (np.outer(steps, direction), -np.outer(steps, direction)):
        share, projection = principal_axis(table)
        assert share == pytest.approx(1.0)
        np.testing.assert_allclose(projection, expected, atol=1e-12)
