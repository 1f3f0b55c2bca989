"""The course's claims, kept as tests: every qualitative sentence a chapter's prose makes about a result
(chapters 00-05 and 08; chapter 06's are in test_claims_ch06.py) is recomputed here with the library.

Each test's name is the claim; its docstring names the chapter and quotes or paraphrases the sentence.
`docs/claims.md` lists them all (`python tools/claims.py` rewrites it; a test keeps it current). If a
change to the library or a notebook falsifies a sentence, the test named after it fails.
"""

import dataclasses

import numpy as np
import pytest

from posenc_lib import (
    alibi_bias,
    alibi_slopes,
    apply_partial_rope,
    apply_rope,
    causal_mask,
    ch03_models,
    frequencies,
    interpolate_positions,
    ntk_base,
    permutation_matrix,
    rope_frequencies,
    self_attention,
    shift_matrix,
    sinusoidal_positions,
    softmax,
    toy_embeddings,
    transformer_block,
)
from posenc_lib.display import format_difference
from posenc_lib.learned import LearnedPositions, cosine_similarity, principal_axis
from posenc_lib.model import (
    evaluate,
    evaluate_positions,
    init_params,
    region_value,
    train,
)
from posenc_lib.rope import convention_permutation, rope_decay_bound
from posenc_lib.sinusoidal import (
    distance_by_shift,
    similarity_by_distance,
    sinusoidal_positions_loop,
)
from posenc_lib.tasks import IGNORE, chance_level, markov, markov_entropy, position_free_scores
from posenc_lib.word_order import compare_orders, split_words

ROUNDING = 1e-12


# -- chapter 00: start here ----------------------------------------------------------------------


def test_at_position_7_the_widget_checks_hand_has_turned_401_degrees():
    """00: a hand that turns one radian per position has turned 7 rad at position 7: 401 degrees,
    one full turn and 41 degrees more."""
    from posenc_lib.widgets import HelloSlider

    hello = HelloSlider()
    hello.position.value = 7
    assert hello.label.value == "position 7: 7.00 rad = 401 degrees = 1 full turn + 41 degrees"
    assert divmod(round(np.degrees(7.0)), 360) == (1, 41)


def test_the_first_checker_answers_each_shown_answer_with_what_to_fix():
    """00: None is told to make way for an array, np.arange(9) its shape (9,) against (10,), np.arange(10)
    that it holds integers where floats are asked; np.arange(10, dtype=float) passes."""
    from posenc_lib.exercises import ch00

    assert "replace None with a numpy array" in ch00.q2.evaluate(None).message
    assert "shape (9,), but shape (10,)" in ch00.q2.evaluate(np.arange(9)).message
    assert "integers" in ch00.q2.evaluate(np.arange(10)).message
    assert ch00.q2.evaluate(np.arange(10, dtype=float)).passed


# -- chapter 01: attention can't see order -------------------------------------------------------


@pytest.fixture(scope="module")
def sentences():
    """Chapter 1's layer and the two sentences, built as the notebook builds them."""
    rng = np.random.default_rng(0)
    layer = [rng.normal(0.0, 0.7, size=(8, 8)) for _ in range(3)]
    words_a = split_words("the dog bit the man .")
    words_b = split_words("the man bit the dog .")
    return (
        layer,
        toy_embeddings(words_a, 8),
        toy_embeddings(words_b, 8),
        words_a,
        [0, 4, 2, 3, 1, 5],
    )


def test_each_tokens_output_is_identical_merely_shuffled(sentences):
    """01: without positions B's outputs are A's, shuffled; the difference is rounding only."""
    layer, x_a, x_b, _, order = sentences
    out_a, weights_a = self_attention(x_a, *layer)
    out_b, weights_b = self_attention(x_b, *layer)
    assert np.max(np.abs(out_b - out_a[order])) < ROUNDING
    assert np.max(np.abs(weights_b - weights_a[np.ix_(order, order)])) < ROUNDING
    assert np.max(np.abs(out_a.mean(0) - out_b.mean(0))) < ROUNDING


def test_the_two_rows_for_the_are_identical_without_positions(sentences):
    """01: "the two rows for 'the' (rows 0 and 3) inside either pattern are identical"."""
    layer, x_a, _, words_a, _ = sentences
    weights = self_attention(x_a, *layer)[1]
    assert words_a[0] == words_a[3] == "the"
    assert np.max(np.abs(weights[0] - weights[3])) < ROUNDING


def test_the_dog_man_swap_is_its_own_inverse_and_the_cycle_is_not(sentences):
    """01: swapping "dog" and "man" is its own inverse (P = P^T); the cycle tells P from P^T."""
    _, x_a, _, _, order = sentences
    swap = permutation_matrix(order)
    assert np.array_equal(swap, swap.T)
    cycle = [3, 0, 4, 1, 5, 2]
    p_cycle = permutation_matrix(cycle)
    assert np.array_equal(p_cycle @ x_a, x_a[cycle])
    assert not np.array_equal(p_cycle.T @ x_a, x_a[cycle])


@pytest.mark.parametrize(
    "options", [{"positions": True}, {"causal": True}], ids=["positions", "mask"]
)
def test_positions_and_a_causal_mask_each_break_the_symmetry(sentences, options):
    """01: with positions a token output moves by up to 4.0 and the sentence vector by 0.85; a
    causal mask alone breaks the symmetry too (4.4 and 1.26)."""
    layer = sentences[0]
    comparison = compare_orders("the dog bit the man .", "the man bit the dog .", *layer, **options)
    expected = {"positions": (4.0, 0.85), "causal": (4.4, 1.26)}[next(iter(options))]
    assert round(comparison.token_gap, 1) == expected[0]
    assert comparison.pooled_gap == pytest.approx(expected[1], abs=0.01)


def test_a_whole_block_is_equivariant_until_positions_or_a_mask_come_in(sentences):
    """01: a whole block (layer norm, attention, MLP, residual connections), and two stacked, is
    permutation-equivariant (rounding only) for the cycle shuffle; with positions added it moves a
    token's output by up to 5.776, with a causal mask by more."""
    (w_q, w_k, w_v), x_a, *_ = sentences
    rng = np.random.default_rng(1)
    w_o = rng.normal(0.0, 0.7, size=(8, 8))
    w_in = rng.normal(0.0, 0.7, size=(8, 32))
    w_out = rng.normal(0.0, 0.7, size=(32, 8))

    def block(x, causal=False):
        return transformer_block(x, w_q, w_k, w_v, w_o, w_in, w_out, causal=causal)

    P = permutation_matrix([3, 0, 4, 1, 5, 2])
    assert np.max(np.abs(block(P @ x_a) - P @ block(x_a))) < ROUNDING
    assert np.max(np.abs(block(block(P @ x_a)) - P @ block(block(x_a)))) < ROUNDING
    pe = sinusoidal_positions(6, 8)
    assert f"{np.max(np.abs(block(P @ x_a + pe) - P @ block(x_a + pe))):.3f}" == "5.776"
    assert np.max(np.abs(block(P @ x_a, causal=True) - P @ block(x_a, causal=True))) > 5.776


def test_the_mask_breaks_the_symmetry_by_where_it_ties_keys_not_by_how_many(sentences):
    """01: under a cyclic band mask every token sees exactly three tokens and the symmetry is still
    broken (a token's output moves by up to 4.54, the sentence vector by 0.443); the causal mask moved
    with the words gives unequal counts and keeps the outputs merely shuffled (rounding only)."""
    (w_q, w_k, w_v), x_a, x_b, _, order = sentences
    offset = (np.arange(6)[None, :] - np.arange(6)[:, None]) % 6
    band = (offset == 0) | (offset == 1) | (offset == 5)
    assert np.all(band.sum(1) == 3)
    out_a = self_attention(x_a, w_q, w_k, w_v, mask=band)[0]
    out_b = self_attention(x_b, w_q, w_k, w_v, mask=band)[0]
    assert f"{np.max(np.abs(out_b - out_a[order])):.3g}" == "4.54"
    assert f"{np.max(np.abs(out_a.mean(0) - out_b.mean(0))):.3g}" == "0.443"
    mask = causal_mask(6)
    moved = mask[np.ix_(order, order)]
    assert len(set(moved.sum(1))) == 6
    out_a = self_attention(x_a, w_q, w_k, w_v, mask=mask)[0]
    out_b = self_attention(x_b, w_q, w_k, w_v, mask=moved)[0]
    assert np.max(np.abs(out_b - out_a[order])) < ROUNDING


def test_a_mask_keeps_exactly_the_shuffles_that_carry_it_onto_itself(sentences):
    """01: the cyclic shift keeps the band (rounding only) and breaks the causal mask (3.17); of the
    720 shuffles exactly the 12 that carry the band onto itself (the six rotations and six
    reflections) keep the outputs merely shuffled, and only the identity keeps the causal mask; a
    second random layer (weights seed 1) keeps the same shuffles."""
    from itertools import permutations

    layer, x_a, *_ = sentences
    offset = (np.arange(6)[None, :] - np.arange(6)[:, None]) % 6
    band = (offset == 0) | (offset == 1) | (offset == 5)
    mask = causal_mask(6)
    shift = [1, 2, 3, 4, 5, 0]
    for m, gap in ((band, None), (mask, "3.17")):
        out = self_attention(x_a, *layer, mask=m)[0]
        moved = np.max(np.abs(self_attention(x_a[shift], *layer, mask=m)[0] - out[shift]))
        assert moved < ROUNDING if gap is None else f"{moved:.3g}" == gap
    rng = np.random.default_rng(1)
    other = [rng.normal(0.0, 0.7, size=(8, 8)) for _ in range(3)]
    rotations = {tuple(np.roll(np.arange(6), -k)) for k in range(6)}
    reflections = {tuple(np.roll(np.arange(6)[::-1], k)) for k in range(6)}
    for weights in (layer, other):
        for m, expected in ((band, rotations | reflections), (mask, {tuple(range(6))})):
            out = self_attention(x_a, *weights, mask=m)[0]
            kept = {
                s
                for s in permutations(range(6))
                if np.max(np.abs(self_attention(x_a[list(s)], *weights, mask=m)[0] - out[list(s)]))
                < ROUNDING
            }
            carried = {s for s in permutations(range(6)) if np.array_equal(m[np.ix_(s, s)], m)}
            assert kept == carried == expected


def test_the_static_twins_sentence_vectors_part_most_in_dimension_2(sentences):
    """01 (figure and alt text): with sinusoidal positions or the causal mask the two sentence
    vectors part most visibly in dimension 2 (-0.80 against -1.65 with positions, 0.07 against
    -1.19 with the mask)."""
    layer = sentences[0]
    for options, expected in (
        ({"positions": True}, ("-0.80", "-1.65")),
        ({"causal": True}, ("0.07", "-1.19")),
    ):
        c = compare_orders("the dog bit the man .", "the man bit the dog .", *layer, **options)
        assert np.argmax(np.abs(c.pooled_a - c.pooled_b)) == 2
        assert (f"{c.pooled_a[2]:.2f}", f"{c.pooled_b[2]:.2f}") == expected


def test_under_the_mask_as_dog_keeps_most_weight_on_itself_and_bs_dog_looks_at_man(sentences):
    """01: under a causal mask A's "dog" gives 0.868 to itself and 0.132 to "the"; B's "dog" gives
    0.950 to "man"."""
    (w_q, w_k, w_v), x_a, x_b, *_ = sentences
    mask = causal_mask(6)
    _, weights_a = self_attention(x_a, w_q, w_k, w_v, mask=mask)
    _, weights_b = self_attention(x_b, w_q, w_k, w_v, mask=mask)
    assert np.allclose(weights_a[1].round(3), [0.132, 0.868, 0, 0, 0, 0])
    assert round(float(weights_b[4, 1]), 3) == 0.950 and weights_b[4].argmax() == 1


# -- chapter 02: sinusoidal positions as clock hands ---------------------------------------------


def test_both_articles_printed_values_are_reproduced():
    """02: "Transformer on-ramp" prints [0, 1, 0, 1] and [0.8415, 0.5403, 0.3110, 0.9504]; "09. Positional
    Encoding" shows code, not output: its (10, 512) comment holds, and its loop prints position 5's
    first values [-0.959, 0.284, -0.994, 0.111, -0.998]."""
    pe = sinusoidal_positions(50, 16)
    assert np.allclose(pe[0, :4], [0, 1, 0, 1])
    assert np.allclose(pe[1, :4].round(4), [0.8415, 0.5403, 0.3110, 0.9504])
    five = sinusoidal_positions(10, 512)[5, :5].round(3)
    assert np.allclose(five, [-0.959, 0.284, -0.994, 0.111, -0.998])
    assert np.allclose(sinusoidal_positions_loop(10, 512), sinusoidal_positions(10, 512))


def test_both_index_bugs_are_the_right_formula_with_another_base():
    """02: bug A (2*dim in the exponent) is base 10^8, bug B (i/d) is base 100."""
    d = 64
    dims = np.arange(0, d, 2)
    assert np.allclose(10000.0 ** (-2 * dims / d), frequencies(d, base=1e8))
    assert np.allclose(10000.0 ** (-np.arange(d // 2) / d), frequencies(d, base=1e2))


def test_bug_a_freezes_28_columns_and_bug_b_has_no_slow_clock():
    """02: over 1000 positions bug A leaves 28 of 64 columns nearly constant (33, 35, 37, 39 and
    40-63, not simply the right 28); bug B's slowest
    wavelength is about 550 positions."""
    frozen = np.flatnonzero(np.ptp(sinusoidal_positions(1000, 64, base=1e8), axis=0) < 0.01)
    assert list(frozen) == [33, 35, 37, 39, *range(40, 64)]
    assert 540 < 2 * np.pi / frequencies(64, base=1e2)[-1] < 550


def test_fast_pairs_alone_identify_every_position_and_slow_pairs_alone_do_not():
    """02: closest two of positions 0-9999: 16 fastest pairs 1.942, all 64 pairs 1.953, 16 slowest
    pairs 0.002."""
    k = np.arange(1, 10_000)
    assert distance_by_shift(k, 128, pairs=slice(0, 16)).min() == pytest.approx(1.942, abs=5e-4)
    assert distance_by_shift(k, 128).min() == pytest.approx(1.953, abs=5e-4)
    assert distance_by_shift(k, 128, pairs=slice(48, 64)).min() == pytest.approx(0.002, abs=5e-4)


def test_slow_pairs_measure_distance_monotonically_and_fast_pairs_oscillate():
    """02: the slow band's similarity falls monotonically over 2,000 distances; the fast band's
    drops 12% in one step, is negative by 10 and then oscillates (3.7 at 100, -4.4 at 1000)."""
    k = np.arange(0, 2001)
    slow = similarity_by_distance(k, 128, pairs=slice(48, 64))
    fast = similarity_by_distance(k, 128, pairs=slice(0, 16))
    assert np.all(np.diff(slow) < 0)
    assert 1 - fast[1] / fast[0] == pytest.approx(0.12, abs=0.005)
    assert fast[10] < 0 and round(fast[100], 1) == 3.7 and round(fast[1000], 1) == -4.4


def test_similarity_peaks_at_distance_zero_and_first_rises_again_at_12():
    """02: similarity is largest at k = 0 and drops overall, but first rises again at distance 12."""
    s = similarity_by_distance(np.arange(0, 1001), 128)
    assert s.argmax() == 0
    assert np.argmax(np.diff(s) > 0) + 1 == 12


def test_a_head_whose_key_map_is_m_k_transposed_scores_k_back_highest():
    """02: with W_K = M_3^T every query p >= 3 scores key p - 3 highest (64 against 62.09 either
    side for query 40)."""
    pe = sinusoidal_positions(64, 128)
    scores = pe @ (pe @ shift_matrix(3, 128).T).T
    assert np.array_equal(scores[3:].argmax(axis=1), np.arange(61))
    assert np.allclose(scores[40, 36:39].round(2), [62.09, 64.0, 62.09])


def test_the_m3_head_is_a_soft_pointer_and_scaling_its_key_map_sharpens_it():
    """02: after the 1/sqrt(d_k) scaling query 40 gives key 37 only 0.083 (top five 0.083, 0.070,
    0.070, 0.046, 0.046); the intervention, W_K scaled by sqrt(d_k), gives 0.769 and by
    2 sqrt(d_k) 0.958, for every query p >= 3 the weight on p - 3 grows with the scale."""
    d = 128
    pe = sinusoidal_positions(64, d)
    eye = np.eye(d)
    on_target = []
    for factor, top_five in [
        (1.0, [0.083, 0.070, 0.070, 0.046, 0.046]),
        (np.sqrt(d), None),
        (2 * np.sqrt(d), None),
    ]:
        _, weights = self_attention(pe, eye, factor * shift_matrix(3, d).T, eye)
        assert weights[40].argmax() == 37
        if top_five is not None:
            assert np.allclose(np.sort(weights[40])[::-1][:5].round(3), top_five)
        on_target.append(weights[np.arange(3, 64), np.arange(61)])
    assert round(float(on_target[1][40 - 3]), 3) == 0.769
    assert round(float(on_target[2][40 - 3]), 3) == 0.958
    assert np.all(on_target[0] < on_target[1]) and np.all(on_target[1] < on_target[2])
    assert np.all(on_target[0] < 0.2)


def test_fast_pairs_give_fine_resolution_and_all_pairs_add_long_range():
    """02: through the 16 fastest pairs alone p + 3920 lies 3.679 from p, barely farther than p + 2
    (3.616); with all 64 pairs every shift k >= 50 lands at least 7.62 from p."""
    k = np.arange(1, 10_000)
    fast = distance_by_shift(k, 128, pairs=slice(0, 16))
    nearest = np.argsort(fast)[:3]
    assert list(k[nearest]) == [1, 2, 3920]
    assert f"{fast[1]:.3f}" == "3.616" and f"{fast[3919]:.3f}" == "3.679"
    assert f"{distance_by_shift(k, 128)[k >= 50].min():.2f}" == "7.62"


def test_the_concatenated_layout_has_the_same_dot_products_as_the_interleaved():
    """02: the [sin / cos] layout of tensor2tensor holds the same numbers in another column order,
    so every dot product PE_p . PE_q is the same (rounding only)."""
    pe = sinusoidal_positions(50, 8)
    concatenated = np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)
    assert not np.allclose(pe, concatenated)
    assert np.max(np.abs(pe @ pe.T - concatenated @ concatenated.T)) < ROUNDING


def test_the_halving_sine_columns_step_by_0_96_then_half_as_much_each():
    """02: the sine columns with speeds 2^-i move from one position to the next by up to 0.96, 0.49,
    0.25, 0.12, 0.06, 0.03."""
    sines = sinusoidal_positions(64, 12, base=2.0**6)[:, 0::2]
    steps = np.abs(np.diff(sines, axis=0)).max(axis=0)
    assert np.allclose(steps.round(2), [0.96, 0.49, 0.25, 0.12, 0.06, 0.03])


def test_a_plain_dot_product_cannot_tell_before_from_after():
    """02: PE_37 . PE_42 = PE_37 . PE_32."""
    pe = sinusoidal_positions(64, 128)
    assert abs(pe[37] @ pe[42] - pe[37] @ pe[32]) < ROUNDING


def test_scaling_by_sqrt_d_model_lets_the_word_outweigh_the_position():
    """02: unscaled, dog@1 is closer to man@1 (0.997) than to dog@4 (0.828); scaled, 0.945 against 0.375."""
    d = 512
    table = np.random.default_rng(0).normal(0.0, 1 / np.sqrt(d), size=(2, d))
    pe = sinusoidal_positions(5, d)

    def cosine(a, b):
        return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))

    for scale, (same_word, same_position) in [(1.0, (0.828, 0.997)), (np.sqrt(d), (0.945, 0.375))]:
        dog, man = scale * table
        assert round(cosine(dog + pe[1], dog + pe[4]), 3) == same_word
        assert round(cosine(dog + pe[1], man + pe[1]), 3) == same_position


def test_the_all_pairs_similarity_curve_as_its_snapshot_describes_it():
    """02 (alt text): all 64 pairs fall from 64 to 30.54 at k = 100, then decline slowly as a ripply
    band, with means 20.5, 13.53, 9.89 and 8.19 over k = 100-499, 500-999, 1,000-1,499 and
    1,500-1,949; the curve first dips below zero at k = 1,707 and reaches its lowest, -1.82, at
    k = 1,970, among a few more dips below zero after k = 1,950."""
    curve = similarity_by_distance(np.arange(2001), 128)
    assert curve[0] == pytest.approx(64) and f"{curve[100]:.2f}" == "30.54"
    means = [curve[a:b].mean() for a, b in [(100, 500), (500, 1000), (1000, 1500), (1500, 1950)]]
    assert [f"{m:.2f}" for m in means] == ["20.50", "13.53", "9.89", "8.19"]
    assert np.all(np.diff(means) < 0), "it declines"
    assert (
        np.argmax(curve < 0) == 1707 and curve.argmin() == 1970 and f"{curve.min():.2f}" == "-1.82"
    )
    below = np.flatnonzero(curve < 0)
    assert below[0] == 1707 and np.all(below[1:] > 1950) and len(below) > 3


def test_the_fast_and_slow_quarters_as_their_snapshots_describe_them():
    """02: the fastest quarter swings between about -8 and +8 (3.7 at k = 100); the slowest stays near its maximum of 16 for a few hundred positions and bends down to about 9.5 at k = 2,000 (16.0 at k = 100)."""
    k = np.arange(2001)
    fast = similarity_by_distance(k, 128, pairs=slice(0, 16))
    slow = similarity_by_distance(k, 128, pairs=slice(48, 64))
    assert round(float(fast[10:].min())) == -8 and round(float(fast[10:].max())) == 8
    assert round(float(fast[100]), 1) == 3.7 and round(float(slow[100]), 1) == 16.0
    assert slow[:300].min() > 15.5 and round(float(slow[2000]), 1) == 9.5


def test_the_explorer_table_shows_81_rows_around_p_a_few_pixel_rows_each():
    """02: the explorer's table shows the rows p - 40 .. p + 40, row p on the black line, each row
    about three pixel rows high, so even pair 0 (6.3 rows per turn) is drawn wave by wave; drawn
    whole, the table of 4,968 positions (d_model = 16) would put about 23 positions in each pixel
    row (46 of 10,000 at 64), where the fastest columns repeat and their values average to about
    0 (a grey-purple that is no value on the colour bar)."""
    from posenc_lib.widgets import SinusoidalExplorer

    for d_model, seq_len, whole in ((16, 4968, 23), (64, 10_000, 46)):
        explorer = SinusoidalExplorer(d_model=d_model)
        rows = explorer.positions_per_pixel_row()
        assert explorer.seq_len == seq_len and round(1 / rows) == 3
        assert round(seq_len * rows / 81) == pytest.approx(whole, abs=1)  # 22.8 on mpl 3.7
        (image,) = [im for ax in explorer.live.fig.axes for im in ax.get_images()]
        assert image.get_array().shape == (81, d_model)
        assert explorer.wavelength[0] / rows > 10, "pair 0: more than 10 pixel rows per turn"
        fastest = sinusoidal_positions(whole, d_model)[:, :2]  # one pixel row of the whole table
        assert np.all(np.abs(fastest.mean(axis=0)) < 0.1)
    explorer.position.value = 500
    np.testing.assert_allclose(explorer.heat.get_array()[40], explorer.table[500])
    assert list(explorer.row_cursor.get_ydata()) == [0, 0]


def test_the_waves_are_drawn_between_the_rows_where_joined_rows_cut_pair_0_short():
    """02: the drawn waves at whole positions are the table's rows (rounding only); joined row by
    row, pair 0's highest entry in a turn is anywhere from 0.894 to 1.000; from position 0 to 99
    pair 0 goes round 15.76 times, pair 4 4.98, pair 10 0.89 and pair 20 0.05 (its sine at 0.308,
    its cosine 0.951); the clocks of d_model 16 turn 57.3 and 18.1 degrees per position (pairs 0
    and 1), the last ones less than one, and pair 0 goes round 7.96 times by position 50."""
    table = sinusoidal_positions(100, 64)
    between = np.arange(99 * 8 + 1) / 8
    angles = between[:, None] * frequencies(64)[None, :]
    assert np.max(np.abs(np.sin(angles[::8]) - table[:, 0::2])) < ROUNDING
    turn = np.arange(100) // (2 * np.pi)
    peaks = [table[turn == t, 0].max() for t in range(15)]
    assert (f"{min(peaks):.3f}", f"{max(peaks):.3f}") == ("0.894", "1.000")
    assert np.sin(angles[:, 0]).max() == pytest.approx(1, abs=1e-3), "drawn finely, it reaches 1"
    turns = [f"{99 * frequencies(64)[i] / (2 * np.pi):.2f}" for i in (0, 4, 10, 20)]
    assert turns == ["15.76", "4.98", "0.89", "0.05"]
    assert (f"{table[99, 40]:.3f}", f"{table[99, 41]:.3f}") == ("0.308", "0.951")
    degrees = np.degrees(frequencies(16))
    assert list(degrees[:2].round(1)) == [57.3, 18.1] and np.all(degrees[4:] < 1)
    assert f"{50 / (2 * np.pi):.2f}" == "7.96"


def test_added_positions_dominate_the_dot_product_while_the_cross_terms_stay_small():
    """02: for the toy tokens scaled to a position vector's length (d_model = 512), the cross terms are
    small (-1.57 and 2.16, mean |cosine| 0.020) but PE_1 . PE_4 = 211.75 is 8.6 times the content
    term -24.64; even 59 positions apart PE_1 . PE_60 = 125.92."""
    d = 512
    x = toy_embeddings(split_words("the dog bit the man ."), d)
    x = x / np.linalg.norm(x, axis=1, keepdims=True) * np.sqrt(d / 2)
    pe = sinusoidal_positions(61, d)
    assert f"{x[1] @ pe[4]:.2f}" == "-1.57" and f"{pe[1] @ x[4]:.2f}" == "2.16"
    assert f"{pe[1] @ pe[4]:.2f}" == "211.75" and f"{x[1] @ x[4]:.2f}" == "-24.64"
    assert f"{abs(pe[1] @ pe[4] / (x[1] @ x[4])):.1f}" == "8.6"
    assert f"{pe[1] @ pe[60]:.2f}" == "125.92"
    unit_x = x / np.linalg.norm(x, axis=1, keepdims=True)
    unit_pe = pe[:6] / np.linalg.norm(pe[:6], axis=1, keepdims=True)
    assert f"{np.mean(np.abs(unit_x @ unit_pe.T)):.3f}" == "0.020"


# -- chapter 03: learned positions ------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained_table():
    """Chapter 3's run: a 64-row table trained on Markov text at length 32 for 300 steps."""
    config = ch03_models.CONFIG  # the chapter's model (its comparison models change one field)
    result = train(
        config, markov(), steps=300, snapshot_every=25, progress=False, **ch03_models.TRAIN
    )
    return config, result


def _without_loss_at(task, position):
    """Chapter 3's intervention: the task with no target (IGNORE) at one position."""

    def sampler(rng, batch, length):
        tokens, targets = task.sample(rng, batch, length)
        targets = targets.copy()
        targets[:, position] = IGNORE
        return tokens, targets

    return dataclasses.replace(
        task, name=f"{task.name}-{position}", sampler=sampler, position_free=None
    )


def _late_loss(params, config, pos):
    """The loss on positions 32-63 at length 64 with the position table ``pos``."""
    totals, counts = evaluate_positions({**params, "pos": pos}, config, markov(), 64)
    return region_value(totals, counts, start=32)


def _zeroed(pos):
    return np.concatenate([pos[:32], np.zeros((32, pos.shape[1]))])


@pytest.fixture(scope="module")
def no_position_model(trained_table):
    """Chapter 3's baseline: the same model and training with no position vectors."""
    none = trained_table[0].with_(scheme="none")
    return none, train(none, markov(), steps=300, batch_size=16, length=32, seed=0, progress=False)


def test_the_sinusoidal_cosine_panel_is_positive_everywhere_not_a_thin_band():
    """03: the sinusoidal table (64 x 32) is blue everywhere: smallest cosine 0.33, mean off the
    diagonal 0.61, so no two positions point apart."""
    cosines = cosine_similarity(sinusoidal_positions(64, 32))
    assert f"{cosines.min():.2f}" == "0.33"
    assert f"{cosines[~np.eye(64, dtype=bool)].mean():.2f}" == "0.61"


@pytest.mark.slow
def test_rows_past_the_training_length_never_move(trained_table):
    """03: rows 32-63 have not moved at all; rows 0-31 have."""
    config, result = trained_table
    initial = init_params(config, seed=0)["pos"]
    moved = np.abs(result.params["pos"] - initial)
    assert np.all(moved[32:] == 0) and moved[:32].max() > 1


@pytest.mark.slow
def test_the_trained_table_is_an_early_to_late_ramp(trained_table):
    """03: over 90% of the trained rows' variance lies along one direction, and along it the rows
    rise steadily from row 0 to row 30; rows 16 apart point opposite ways."""
    _, result = trained_table
    share, ramp = principal_axis(result.params["pos"][:32])
    assert share > 0.9
    assert ramp[0] == ramp[:31].min() and ramp[30] == ramp[:31].max()
    assert np.mean(np.diff(ramp[:31]) > 0) > 0.9
    similarity = cosine_similarity(result.params["pos"][:32])
    assert np.mean(np.diagonal(similarity, 1)) > 0.8 and np.mean(np.diagonal(similarity, 16)) < -0.5


@pytest.mark.slow
def test_training_has_not_reached_the_best_possible_loss(trained_table):
    """03: after 300 steps the loss (about 1.85) is still well above the chain's entropy (1.23)."""
    config, result = trained_table
    assert evaluate(result.params, config, markov(), 32) - markov_entropy() > 0.5


@pytest.mark.slow
def test_untrained_rows_make_length_64_worse_than_no_positions(trained_table, no_position_model):
    """03: at length 32 the table helps; at 64 the same model is worse than at 32 and worse than a
    model with no positions."""
    config, result = trained_table
    none, baseline = no_position_model
    learned_32, learned_64 = (evaluate(result.params, config, markov(), n) for n in (32, 64))
    none_32, none_64 = (evaluate(baseline.params, none, markov(), n) for n in (32, 64))
    assert learned_32 < none_32
    assert learned_64 > learned_32 and learned_64 > none_64


@pytest.mark.slow
def test_the_last_trained_row_lags_though_rows_29_and_30_moved_fully(trained_table):
    """03: row 31 falls back towards the middle of the ramp (0.4): its norm (0.89) and its move from
    the start (0.86) are under a third of row 30's (3.37, 3.43), while rows 29 and 30, reached by the
    loss at three and two positions, moved nearly as far as row 0."""
    config, result = trained_table
    learned, start = result.params["pos"], init_params(config, seed=0)["pos"]
    _, ramp = principal_axis(learned[:32])
    assert round(float(ramp[31]), 1) == 0.4 and 0 < ramp[31] < ramp[30] / 4
    norms = np.linalg.norm(learned, axis=1)
    moved = np.linalg.norm(learned - start, axis=1)
    assert norms[31] < norms[30] / 3 and moved[31] < moved[30] / 3
    assert min(moved[29], moved[30]) > 0.8 * moved[0]


@pytest.mark.slow
def test_the_trained_baseline_falls_short_of_the_rule_without_positions(
    trained_table, no_position_model
):
    """03: chance is the best constant guess, 2.762 (below ln 16 = 2.773); at length 32 the rule
    without positions (2.259) beats the trained no-position model by 0.16, and the learned table beats
    the rule by 0.49 (not the 0.65 it gains over the trained baseline)."""
    config, result = trained_table
    none, baseline = no_position_model
    assert round(chance_level(markov()), 3) == 2.762 and chance_level(markov()) < np.log(16)
    rule = region_value(*position_free_scores(markov(), 32))
    learned = evaluate(result.params, config, markov(), 32)
    trained_none = evaluate(baseline.params, none, markov(), 32)
    assert round(trained_none - rule, 2) == 0.16
    assert round(rule - learned, 2) == 0.49 and round(trained_none - learned, 2) == 0.65


@pytest.mark.slow
def test_the_harm_past_the_trained_rows_is_the_missing_signal_not_the_rows_values(
    trained_table, no_position_model
):
    """03: the ablation at length 64: rows 32-63 as trained, set to zero or redrawn from another seed
    give the same loss (within 0.001; the notebook prints 0.0005); copies of row 31 (barely trained) do
    not help; the untrained rows are over 40 times shorter than a token row; all the harm is on positions
    32-63, worse there than chance, than the causal model without position vectors and than the rule
    without positions."""
    config, result = trained_table
    learned = result.params["pos"]
    token_norm = np.linalg.norm(result.params["tok"], axis=1).mean()
    assert token_norm / np.linalg.norm(learned[32:], axis=1).mean() > 40
    regions = _length_64_regions(config, result)
    for name in ("zero", "redrawn"):
        assert abs(regions[name][0] - regions["trained"][0]) < 0.001
    assert regions["row 31"][0] > regions["trained"][0] - 0.001
    none, baseline = no_position_model
    totals, counts = evaluate_positions(baseline.params, none, markov(), 64)
    rule = region_value(*position_free_scores(markov(), 64), start=32)
    for name in ("trained", "zero", "redrawn", "row 31"):
        _whole, early, late = regions[name]
        assert abs(early - evaluate(result.params, config, markov(), 32)) < 0.05
        assert late > chance_level(markov()) and late > region_value(totals, counts, start=32)
        assert late > rule


def _length_64_regions(config, result):
    """Chapter 3's table variants at length 64: (all, positions 0-31, positions 32-63) losses."""
    learned = result.params["pos"]
    redrawn = LearnedPositions(64, 32, rng=1, init_std=config.learned_init_std)(64)[32:]
    tables = {
        "trained": learned,
        "zero": np.concatenate([learned[:32], np.zeros((32, 32))]),
        "redrawn": np.concatenate([learned[:32], redrawn]),
        "row 31": np.concatenate([learned[:32], np.repeat(learned[31:32], 32, axis=0)]),
        "row 30": np.concatenate([learned[:32], np.repeat(learned[30:31], 32, axis=0)]),
        "twice": np.concatenate([learned[:32], learned[:32]]),
        "stretched": learned[np.arange(64) // 2],
    }
    regions = {}
    for name, pos in tables.items():
        totals, counts = evaluate_positions({**result.params, "pos": pos}, config, markov(), 64)
        regions[name] = (
            region_value(totals, counts),
            region_value(totals[:32], counts[:32]),
            region_value(totals, counts, start=32),
        )
    return regions


@pytest.mark.slow
def test_late_positions_need_trained_rows_that_look_late(trained_table, no_position_model):
    """03: handing positions 32-63 trained rows: copies of row 30 cut their loss (3.245 to 2.773) but
    stay worse than the no-position baseline; rows 0-31 repeated barely help (3.173); the stretched
    table (position p reads row p // 2) gives 1.999 there, better than the no-position baseline and the
    rule without positions, at a cost on positions 0-31 (1.930 instead of 1.749)."""
    config, result = trained_table
    regions = _length_64_regions(config, result)
    none, baseline = no_position_model
    totals, counts = evaluate_positions(baseline.params, none, markov(), 64)
    baseline_late = region_value(totals, counts, start=32)
    rule_late = region_value(*position_free_scores(markov(), 64), start=32)
    trained_late = regions["trained"][2]
    assert regions["row 30"][2] < trained_late - 0.3 and regions["row 30"][2] > baseline_late
    assert 0 < trained_late - regions["twice"][2] < 0.15
    assert regions["stretched"][2] < min(baseline_late, rule_late)
    assert regions["stretched"][1] > regions["trained"][1] + 0.1
    assert (
        regions["stretched"][0] < regions["row 30"][0] < regions["twice"][0] < regions["trained"][0]
    )


def test_one_causal_layer_reads_proportions_and_a_second_reads_order():
    """03: with random causal blocks (width 8, toy word vectors, no positions), 'the dog bit the man .'
    against 'man the the bit dog .', and 'the dog .' against 'the dog . the dog .': after one block the
    last outputs agree up to rounding, after two they differ (4.62 and 0.291)."""
    rng = np.random.default_rng(0)
    shapes = [(8, 8)] * 4 + [(8, 32), (32, 8)]
    blocks = [[rng.normal(0.0, 0.7, size=shape) for shape in shapes] for _ in range(2)]

    def last(sentence, n):
        x = toy_embeddings(split_words(sentence), 8)
        for weights in blocks[:n]:
            x = transformer_block(x, *weights, causal=True)
        return x[-1]

    pairs = [
        ("the dog bit the man .", "man the the bit dog ."),
        ("the dog .", "the dog . the dog ."),
    ]
    for (a, b), two in zip(pairs, ("4.62", "0.291"), strict=True):
        assert np.max(np.abs(last(a, 1) - last(b, 1))) < ROUNDING
        assert format_difference(np.max(np.abs(last(a, 2) - last(b, 2)))) == two
    # the same holds for any one-layer weights: a fresh random block
    other = [np.random.default_rng(7).normal(size=shape) for shape in shapes]
    x_a, x_b = (toy_embeddings(split_words(s), 8) for s in pairs[1])
    gap = (
        transformer_block(x_a, *other, causal=True)[-1]
        - transformer_block(x_b, *other, causal=True)[-1]
    )
    assert np.max(np.abs(gap)) < ROUNDING


@pytest.mark.slow
def test_without_the_loss_at_30_row_29_lags_and_row_30_moves_out(trained_table):
    """03: trained 200 steps without the loss at position 30, row 29 stays near the middle of the ramp
    (+0.3, against +2.0 in the full run at step 200) and row 30 moves out (+2.8); row 31 stays near the
    middle in both."""
    config, result = trained_table
    masked = train(
        config,
        _without_loss_at(markov(), 30),
        steps=200,
        batch_size=16,
        length=32,
        seed=0,
        progress=False,
    )
    full = principal_axis(result.snapshots[200]["pos"][:32])[1]
    cut = principal_axis(masked.params["pos"][:32])[1]
    assert [f"{v:+.1f}" for v in (full[29], cut[29], cut[30])] == ["+2.0", "+0.3", "+2.8"]
    assert abs(full[31]) < 0.3 and abs(cut[31]) < 0.3 and cut[29] < full[29] / 4


@pytest.mark.slow
def test_trained_at_length_33_the_last_row_lags_instead(trained_table):
    """03: a test of the course trains the same model on sequences of 33 tokens: then row 32 lags and
    row 31 does not."""
    config, _ = trained_table
    longer = train(config, markov(), steps=300, batch_size=16, length=33, seed=0, progress=False)
    ramp = principal_axis(longer.params["pos"][:33])[1]
    assert ramp[31] > 2.5 and abs(ramp[32]) < ramp[31] / 3


@pytest.mark.slow
def test_started_at_the_token_scale_the_table_keeps_its_random_rows(trained_table):
    """03: started at std 1.0 (150 steps), 12% of the trained rows' variance lies along one direction
    (58% for the small start at step 150), 16% of their change; the untrained rows are as long as
    token rows, and zeroing them lowers the loss on positions 32-63 from 2.692 to 2.620 (2.567 either
    way for the small start); a test checks that this still holds at 300 steps."""
    config, result = trained_table
    wide = config.with_(learned_init_std=1.0)
    short = train(
        wide,
        markov(),
        steps=150,
        batch_size=16,
        length=32,
        seed=0,
        snapshot_every=150,
        progress=False,
    )
    pos, start = short.params["pos"], short.snapshots[0]["pos"]
    assert f"{principal_axis(pos[:32])[0]:.0%}" == "12%"
    assert f"{principal_axis(pos[:32] - start[:32])[0]:.0%}" == "16%"
    small = result.snapshots[150]
    assert f"{principal_axis(small['pos'][:32])[0]:.0%}" == "58%"
    assert [f"{_late_loss(short.params, wide, t):.3f}" for t in (pos, _zeroed(pos))] == [
        "2.692",
        "2.620",
    ]
    assert {
        f"{_late_loss(small, config, t):.3f}" for t in (small["pos"], _zeroed(small["pos"]))
    } == {"2.567"}
    assert (
        np.linalg.norm(pos[32:], axis=1).mean()
        > 0.9 * np.linalg.norm(short.params["tok"], axis=1).mean()
    )
    for seed in (0, 1):  # at the full budget, two seeds: no ramp, and zeroing helps
        full = train(wide, markov(), steps=300, batch_size=16, length=32, seed=seed, progress=False)
        table = full.params["pos"]
        assert principal_axis(table[:32])[0] < 0.2
        assert (
            _late_loss(full.params, wide, _zeroed(table))
            < _late_loss(full.params, wide, table) - 0.05
        )


@pytest.mark.slow
@pytest.mark.parametrize("position_std", [0.02, 0.01])
def test_at_gpt2_and_bert_scales_the_rows_line_up_and_zeroing_is_harmless(
    trained_table, position_std
):
    """03: with token tables at 0.02 and position tables at 0.02 (BERT, Hugging Face) or 0.01 (GPT-2's
    positions), trained 300 steps, two seeds: the rows line up along one direction (over half the
    variance) and zeroing the untrained rows changes the loss on positions 32-63 by under 0.01."""
    config, _ = trained_table
    small = config.with_(learned_init_std=position_std)
    for seed in (0, 1):
        init = init_params(small, seed)
        init["tok"] = 0.02 * init["tok"]  # the token table at std 0.02
        trained = train(
            small,
            markov(),
            steps=300,
            batch_size=16,
            length=32,
            seed=seed,
            progress=False,
            init=init,
        )
        table = trained.params["pos"]
        assert principal_axis(table[:32])[0] > 0.5
        change = _late_loss(trained.params, small, _zeroed(table)) - _late_loss(
            trained.params, small, table
        )
        assert abs(change) < 0.01


# -- chapter 04: RoPE ---------------------------------------------------------------------------------


def test_rope_scores_depend_only_on_the_offset():
    """04: (3, 7), (103, 107) and (5003, 5007) score the same up to rounding (below 1e-9); (7, 3) differs."""
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(1, 64)), rng.normal(size=(1, 64))

    def score(m, n):
        return (apply_rope(q, positions=[m]) @ apply_rope(k, positions=[n]).T).item()

    for m, n in [(103, 107), (5003, 5007)]:
        assert abs(score(m, n) - score(3, 7)) < 1e-9
    assert abs(score(7, 3) - score(3, 7)) > 1


def test_the_explorer_score_cannot_be_read_off_pair_0_alone():
    """04: at (3, 7) pair 0's arrows point 126 degrees apart, so pair 0 contributes -0.07, while the total is +1.618."""
    from posenc_lib.widgets import RopeExplorer

    explorer = RopeExplorer()
    q, k = explorer.rotated(explorer.q, 3)[:2], explorer.rotated(explorer.k, 7)[:2]
    angle = np.degrees(np.arccos(q @ k / np.linalg.norm(q) / np.linalg.norm(k)))
    assert round(float(angle)) == 126
    assert round(float(q @ k), 2) == -0.07
    assert round(explorer.score(3, 7), 3) == 1.618


def test_partial_rotary_rotates_only_its_width_and_keeps_scores_relative():
    """04: partial rotary (4 of 16 dimensions, half layout) rotates the first 4 as apply_rope would
    a width-4 vector, leaves the other 12 unchanged, and scores at (3, 7) and (103, 107) agree."""
    x = np.random.default_rng(1).normal(size=(10, 16))
    partial = apply_partial_rope(x, 4, convention="half")
    assert np.max(np.abs(partial[:, :4] - apply_rope(x[:, :4], convention="half"))) < ROUNDING
    assert np.array_equal(partial[:, 4:], x[:, 4:])
    assert not np.allclose(partial[:, :4], x[:, :4])

    def score(m, n):
        q = apply_partial_rope(x[:1], 4, positions=[m])
        return (q @ apply_partial_rope(x[1:2], 4, positions=[n]).T).item()

    assert abs(score(3, 7) - score(103, 107)) < 1e-9 and abs(score(3, 7) - score(7, 3)) > 1e-3


def test_the_decay_bound_values_and_it_is_not_monotone():
    """04: 32.5, 20.85, 12.63, 10.23, 7.24 at distances 0, 5, 50, 100, 200 (computed from the
    formula; the paper's figure is not reproduced); it rises again after 18."""
    bound = rope_decay_bound(np.arange(0, 1001), 128)
    for distance, value in [(5, "20.85"), (50, "12.63"), (100, "10.23"), (200, "7.24")]:
        assert f"{bound[distance]:.2f}" == value
    assert bound[0] == pytest.approx(32.5, abs=0.06)
    rises = np.flatnonzero(np.diff(bound) > 0)
    assert rises[0] == 18 and len(rises) > 100


def test_half_and_interleaved_layouts_are_one_rotation_up_to_a_permutation():
    """04: half(x[perm]) equals interleaved(x)[perm]; without the permutation they differ."""
    x = np.random.default_rng(1).normal(size=(10, 16))
    perm = convention_permutation(16)
    same = apply_rope(x[:, perm], convention="half") - apply_rope(x)[:, perm]
    assert np.max(np.abs(same)) < ROUNDING
    assert np.max(np.abs(apply_rope(x, convention="half") - apply_rope(x))) > 1


def test_ntk_keeps_the_fastest_pair_and_interpolation_shrinks_every_pair():
    """04: at 4x of 2048, 23 of 64 pairs never turned in training; plain overshoots by 4 everywhere,
    interpolation brings every pair back to 1.00, NTK keeps the fastest pair at 4 and the slow
    pairs at 1.00 to 1.62."""
    d, length, scale = 128, 2048, 4
    theta = rope_frequencies(d)
    trained = (length - 1) * theta
    slow = trained < 2 * np.pi
    assert slow.sum() == 23
    interpolated = interpolate_positions([scale * length - 1], scale)[0] * theta / trained
    ntk = (scale * length - 1) * rope_frequencies(d, base=ntk_base(10000.0, scale, d)) / trained
    assert np.allclose(interpolated.round(2), 1.0)
    assert round(ntk[0], 2) == 4.0
    assert round(ntk[slow].min(), 2) == 1.0 and round(ntk[slow].max(), 2) == 1.62


# -- chapter 05: ALiBi -------------------------------------------------------------------------------


def test_alibi_slopes_follow_the_fixed_recipe():
    """05: 8 heads 1/2 ... 1/256; the 8-head slopes are the first 8 of the 12-head ones, and heads
    8-11 fall halfway (log scale) between the largest ones; one head gets 2^-8."""
    assert np.allclose(np.log2(alibi_slopes(8)), -np.arange(1, 9))
    assert np.allclose(alibi_slopes(12)[:8], alibi_slopes(8))
    assert np.allclose(np.log2(alibi_slopes(12)[8:]), [-0.5, -1.5, -2.5, -3.5])
    assert np.allclose(alibi_slopes(1), 2.0**-8)


def test_the_shift_trick_gives_the_same_weights_under_a_causal_mask():
    """05: -m(i-j) and +m j give identical weights under a causal mask, though the biases differ by 7.5."""
    t = 16
    scores = np.random.default_rng(0).normal(size=(8, t, t))
    slopes = alibi_slopes(8)[:, None, None]
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    mask = causal_mask(t)
    paper = softmax(np.where(mask, scores - slopes * (i - j), -np.inf))
    official = softmax(np.where(mask, scores + slopes * j, -np.inf))
    assert np.max(np.abs(paper - official)) < ROUNDING
    assert np.max(np.abs((-slopes * (i - j) - slopes * j)[:, mask])) == pytest.approx(7.5)


def test_no_single_alibi_head_prefers_a_key_three_back_over_the_nearest():
    """05: with equal content scores every head's weight is largest at distance 0 and falls with distance."""
    t = 16
    for h in range(8):
        weights = softmax(np.where(causal_mask(t), alibi_bias(t, 8)[h], -np.inf))[t - 1][::-1]
        assert np.argmax(weights) == 0 and np.all(np.diff(weights) < 0)


def test_two_alibi_heads_combined_through_the_output_can_peak_at_distance_three():
    """05: heads 0 and 1 (query 15 of 16, as in section 7), combined with least-squares coefficients towards "all
    the weight on distance 3", give weights peaking at distance 3 (0.187 against 0.178 and 0.175
    beside it, about 0 at distance 0), though neither head alone peaks anywhere but 0."""
    t = 16
    two = np.stack(
        [
            softmax(np.where(causal_mask(t), alibi_bias(t, 8)[h], -np.inf))[t - 1][::-1]
            for h in (0, 1)
        ],
        axis=1,
    )
    assert np.all(two.argmax(axis=0) == 0)
    coefficients = np.linalg.lstsq(two, np.eye(t)[3], rcond=None)[0]
    combined = two @ coefficients
    assert combined.argmax() == 3
    assert np.allclose(combined[2:5].round(3), [0.178, 0.187, 0.175])
    assert abs(combined[0]) < 0.01 and coefficients.min() < 0 < coefficients.max()


def test_alibi_halving_distances_and_the_bias_eight_back():
    """05: slope 1/2 halves a weight every 1.4 positions, slope 1/256 every 177.4; head 0 biases the
    key 8 back by -4, head 7 by -0.03."""
    slopes = alibi_slopes(8)
    assert f"{np.log(2) / slopes[0]:.1f}" == "1.4" and f"{np.log(2) / slopes[7]:.1f}" == "177.4"
    bias = alibi_bias(16, 8)
    assert bias[0][8, 0] == -4 and f"{bias[7][8, 0]:.2f}" == "-0.03"


def test_the_extra_slopes_are_appended_unsorted_not_interleaved():
    """05 (recap): for 12 heads the 4 extra slopes come after the 8 power-of-two slopes, unsorted."""
    slopes = alibi_slopes(12)
    assert np.allclose(slopes[:8], alibi_slopes(8))
    assert np.any(np.diff(slopes) > 0)  # not sorted: head 8 is steeper than head 7
