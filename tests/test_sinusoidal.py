"""Sinusoidal encodings: the articles' printed values, the index convention, the shift property."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import frequencies, shift_matrix, sinusoidal_positions, wavelengths
from posenc_lib.sinusoidal import (
    distance_by_shift,
    similarity_by_distance,
    sinusoidal_positions_loop,
)


def test_article_000_values_for_50_positions_of_width_16():
    pe = sinusoidal_positions(50, 16)
    assert pe.shape == (50, 16)
    np.testing.assert_array_equal(pe[0, :4], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(pe[1, :4], [0.8415, 0.5403, 0.3110, 0.9504], atol=5e-5)


def test_article_004_values_for_10_positions_of_width_512():
    pe = sinusoidal_positions(10, 512)
    assert pe.shape == (10, 512)
    np.testing.assert_array_equal(pe[0, :5].round(3), [0.0, 1.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(pe[5, :5].round(3), [-0.959, 0.284, -0.994, 0.111, -0.998])


@given(st.integers(0, 40), st.integers(1, 33), st.floats(1.5, 1e5))
def test_the_vectorized_table_equals_the_formula_written_as_a_loop(seq_len, d_model, base):
    np.testing.assert_allclose(
        sinusoidal_positions(seq_len, d_model, base=base),
        sinusoidal_positions_loop(seq_len, d_model, base=base),
        atol=1e-12,
    )


def test_pair_i_uses_dimension_index_2i_in_the_exponent():
    pe = sinusoidal_positions(3, 8)
    omega = 10000.0 ** (-np.arange(0, 8, 2) / 8)  # 2i / d with 2i = 0, 2, 4, 6
    np.testing.assert_allclose(pe[2, 0::2], np.sin(2 * omega))
    np.testing.assert_allclose(pe[2, 1::2], np.cos(2 * omega))


def test_odd_width_ends_with_a_lone_sin_column():
    pe = sinusoidal_positions(6, 5)
    omega_last = 10000.0 ** (-4 / 5)
    np.testing.assert_allclose(pe[:, 4], np.sin(np.arange(6) * omega_last))
    assert frequencies(5).shape == (3,)


def test_wavelengths_run_from_2_pi_towards_base_times_2_pi():
    lam = wavelengths(512)
    assert lam[0] == pytest.approx(2 * np.pi)
    assert 2 * np.pi * 1000 < lam[-1] < 2 * np.pi * 10000
    assert np.all(np.diff(lam) > 0)


@given(
    st.integers(0, 10_000),
    st.floats(-500, 500, allow_nan=False),
    st.integers(1, 32).map(lambda n: 2 * n),
)
def test_a_shift_by_k_is_one_fixed_matrix_for_every_position(p, k, d_model):
    pe_p = sinusoidal_positions(p + 1, d_model)[p]
    angles = (p + k) * frequencies(d_model)
    pe_pk = np.empty(d_model)
    pe_pk[0::2], pe_pk[1::2] = np.sin(angles), np.cos(angles)
    np.testing.assert_allclose(shift_matrix(k, d_model) @ pe_p, pe_pk, atol=1e-9)


@given(st.floats(-100, 100, allow_nan=False), st.integers(1, 16).map(lambda n: 2 * n))
def test_shift_matrices_are_rotations(k, d_model):
    m = shift_matrix(k, d_model)
    np.testing.assert_allclose(m @ m.T, np.eye(d_model), atol=1e-12)
    np.testing.assert_allclose(shift_matrix(-k, d_model), m.T, atol=1e-12)


def test_values_stay_finite_and_bounded_far_out():
    big = sinusoidal_positions(10**6 + 1, 4, dtype=np.float32)[-1]
    assert np.all(np.isfinite(big)) and np.all(np.abs(big) <= 1)
    exact = [np.sin(1e6), np.cos(1e6), np.sin(1e6 / 100), np.cos(1e6 / 100)]
    np.testing.assert_allclose(big, exact, atol=1e-6)


def test_every_row_has_norm_sqrt_of_half_the_width():
    norms = np.linalg.norm(sinusoidal_positions(300, 128), axis=1)
    np.testing.assert_allclose(norms, np.sqrt(64))


def test_similarity_depends_on_the_distance_only():
    pe = sinusoidal_positions(400, 32)
    for k in (0, 1, 7, 150):
        dots = np.einsum("pd,pd->p", pe[: 400 - k], pe[k:])
        np.testing.assert_allclose(dots, similarity_by_distance(k, 32), atol=1e-9)


def test_float32_tables_are_float32():
    assert sinusoidal_positions(4, 6, dtype=np.float32).dtype == np.float32


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: sinusoidal_positions(-1, 8),
            ValueError,
            "seq_len must be an integer >= 0, got -1",
        ),
        (lambda: sinusoidal_positions(2.5, 8), TypeError, "seq_len must be an integer, got 2.5"),
        (lambda: sinusoidal_positions(4, 0), ValueError, "d_model must be an integer >= 1, got 0"),
        (lambda: sinusoidal_positions(4, 8, base=1.0), ValueError, "base must be > 1"),
        (
            lambda: sinusoidal_positions(4, 8, base=np.inf),
            ValueError,
            "base must be finite, got inf",
        ),
        (lambda: sinusoidal_positions(4, 8, base="10000"), TypeError, "base must be a real number"),
        (lambda: shift_matrix(1, 7), ValueError, "d_model must be even"),
        (lambda: shift_matrix(np.nan, 8), ValueError, "k must be finite"),
        (lambda: frequencies(True), TypeError, "d_model must be an integer, got True"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- edges: other bases, other shapes, exact messages ------------------------------------------


def test_every_helper_follows_the_base_it_is_given():
    d, base = 6, 100.0
    omega = base ** (-np.arange(0, d, 2) / d)
    np.testing.assert_allclose(frequencies(d, base=base), omega)
    np.testing.assert_allclose(wavelengths(d, base=base), 2 * np.pi / omega)
    pe = sinusoidal_positions(40, d, base=base)
    np.testing.assert_allclose(shift_matrix(7, d, base=base) @ pe[3], pe[10], atol=1e-12)
    k = np.array([1.0, 5.0, 17.0])
    np.testing.assert_allclose(
        similarity_by_distance(k, d, base=base), np.cos(np.outer(k, omega)).sum(-1)
    )
    np.testing.assert_allclose(
        distance_by_shift(k, d, base=base), [np.linalg.norm(pe[int(s)] - pe[0]) for s in k]
    )


def test_similarity_and_distance_keep_the_shape_of_their_distances():
    grid = np.array([[0.0, 1.0, 2.0], [10.0, 20.0, 30.0]])
    for func in (similarity_by_distance, distance_by_shift):
        np.testing.assert_allclose(func(grid, 8), [func(row, 8) for row in grid])


def test_pairs_pick_a_band_of_one_list_or_a_slice_and_never_nothing():
    np.testing.assert_allclose(
        similarity_by_distance([3.0], 8, pairs=[0, 2]),
        similarity_by_distance([3.0], 8, pairs=slice(0, 3, 2)),
    )
    with pytest.raises(
        ValueError,
        match=r"^similarity_by_distance: pairs selects no pair of the 4, got slice\(0, 0, None\)$",
    ):
        similarity_by_distance([3.0], 8, pairs=slice(0, 0))
    with pytest.raises(ValueError, match=r"^distance_by_shift: pairs must have 1 axes"):
        distance_by_shift([3.0], 8, pairs=[[0, 1]])


def test_the_table_is_computed_in_float64_then_stored_in_the_dtype_asked_for():
    table = sinusoidal_positions(3000, 4, dtype=np.float32)
    assert table.dtype == np.float32
    np.testing.assert_array_equal(table, sinusoidal_positions(3000, 4).astype(np.float32))
    with pytest.raises(
        TypeError,
        match=r"^sinusoidal_positions: dtype must be a numpy floating type, got <class 'int'>$",
    ):
        sinusoidal_positions(3, 4, dtype=int)
