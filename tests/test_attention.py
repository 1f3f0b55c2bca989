"""Self-attention without positions is permutation-equivariant; pooling makes it invariant; a
causal mask or added positions break the symmetry."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posenc_lib import (
    causal_mask,
    log_softmax,
    permutation_matrix,
    self_attention,
    sinusoidal_positions,
    softmax,
    toy_embeddings,
    transformer_block,
)
from posenc_lib.word_order import compare_orders, match_order, split_words

ENTRIES = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False, width=64)


def matrices(rows, cols):
    return hnp.arrays(np.float64, (rows, cols), elements=ENTRIES)


@st.composite
def layers(draw, min_tokens=2):
    """Hypothesis-drawn input and layer: T tokens of width d_model, projections to d_k (queries
    and keys) and d_v (values), three different widths, and a shuffle that moves something."""
    t = draw(st.integers(min_tokens, 7))
    d_model, d_k, d_v = draw(st.lists(st.integers(1, 6), min_size=3, max_size=3, unique=True))
    x = draw(matrices(t, d_model))
    weights = [
        draw(matrices(d_model, d_k)),
        draw(matrices(d_model, d_k)),
        draw(matrices(d_model, d_v)),
    ]
    order = np.array(draw(st.permutations(range(t))))
    if np.array_equal(order, np.arange(t)):
        order = np.roll(order, 1)
    return x, weights, order


@given(layers())
def test_outputs_move_with_the_inputs_when_there_are_no_positions(layer):
    x, weights, order = layer
    out, w = self_attention(x, *weights)
    assert out.shape == (len(x), weights[2].shape[1]) and w.shape == (len(x), len(x))
    out_shuffled, w_shuffled = self_attention(x[order], *weights)
    np.testing.assert_allclose(out_shuffled, out[order], atol=1e-10)
    np.testing.assert_allclose(w_shuffled, w[np.ix_(order, order)], atol=1e-12)


@given(layers())
def test_the_permutation_matrix_commutes_with_attention(layer):
    x, weights, order = layer
    p = permutation_matrix(order)
    np.testing.assert_allclose(
        self_attention(p @ x, *weights)[0], p @ self_attention(x, *weights)[0], atol=1e-10
    )


@given(layers())
def test_mean_pooled_outputs_are_identical_under_a_shuffle(layer):
    x, weights, order = layer
    pooled = self_attention(x, *weights)[0].mean(axis=0)
    np.testing.assert_allclose(
        self_attention(x[order], *weights)[0].mean(axis=0), pooled, atol=1e-10
    )


# -- the 1/sqrt(d_k) scale: properties that any other scale (or none) would break ------------------


@given(layers(), st.integers(1, 4))
def test_widening_queries_and_keys_with_zero_columns_cools_the_softmax_by_sqrt_of_the_widths(
    layer, extra
):
    """Zero columns leave every dot product q.k unchanged but raise d_k to d_k * m; only the scale
    1/sqrt(d_k) changes, so the weights are those of the narrow layer with q divided by sqrt(m)."""
    x, (w_q, w_k, w_v), _ = layer
    d_model, d_k = w_q.shape
    m = extra + 1  # width ratio: d_k -> d_k * m
    zeros = np.zeros((d_model, d_k * extra))
    wide = self_attention(x, np.hstack([w_q, zeros]), np.hstack([w_k, zeros]), w_v)
    narrow = self_attention(x, w_q / np.sqrt(m), w_k, w_v)
    np.testing.assert_allclose(wide[1], narrow[1], atol=1e-12)
    np.testing.assert_allclose(wide[0], narrow[0], atol=1e-10)


@given(layers())
def test_queries_multiplied_by_sqrt_d_k_give_the_softmax_of_the_raw_dot_products(layer):
    x, (w_q, w_k, w_v), _ = layer
    d_k = w_q.shape[1]
    out, weights = self_attention(x, w_q * np.sqrt(d_k), w_k, w_v)
    raw = softmax((x @ w_q) @ (x @ w_k).T, axis=-1)
    np.testing.assert_allclose(weights, raw, atol=1e-12)
    np.testing.assert_allclose(out, raw @ (x @ w_v), atol=1e-10)


@given(layers(min_tokens=3), st.data())
def test_with_a_causal_mask_a_query_never_depends_on_later_tokens(layer, data):
    x, weights, _ = layer
    i = data.draw(st.integers(0, len(x) - 2), label="query")
    changed = x.copy()
    changed[i + 1 :] = data.draw(matrices(len(x) - i - 1, x.shape[1]), label="later tokens")
    mask = causal_mask(len(x))
    before = self_attention(x, *weights, mask=mask)[0][: i + 1]
    after = self_attention(changed, *weights, mask=mask)[0][: i + 1]
    np.testing.assert_allclose(after, before, atol=1e-12)


def soft_layer(t, d, seed):
    """Distinct tokens and small weights, so the softmax mixes (a one-hot softmax would hide
    any symmetry breaking: each token would just copy itself)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, d))
    return x, [rng.normal(size=(d, d)) * 0.5 / np.sqrt(d) for _ in range(3)]


# Breaking a symmetry is shown on examples (a property would need every input to break it, and
# degenerate ones, all-equal tokens, do not): seeded draws of several shapes.
EXAMPLES = [(t, d, seed) for t, d in ((3, 2), (5, 4), (8, 8), (6, 3)) for seed in (0, 1)]


@pytest.mark.parametrize(("t", "d", "seed"), EXAMPLES)
def test_a_causal_mask_alone_breaks_equivariance(t, d, seed):
    x, weights = soft_layer(t, d, seed)
    order = np.roll(np.arange(t), 1)  # the last token moves to the front
    mask = causal_mask(t)
    out = self_attention(x, *weights, mask=mask)[0]
    out_shuffled = self_attention(x[order], *weights, mask=mask)[0]
    assert np.max(np.abs(out_shuffled - out[order])) > 1e-6


@pytest.mark.parametrize(("t", "d", "seed"), EXAMPLES)
def test_added_positions_break_equivariance(t, d, seed):
    x, weights = soft_layer(t, d, seed)
    order = np.roll(np.arange(t), 1)
    pe = sinusoidal_positions(t, d)
    out = self_attention(x + pe, *weights)[0]
    out_shuffled = self_attention(x[order] + pe, *weights)[0]
    assert np.max(np.abs(out_shuffled - out[order])) > 1e-6


@given(layers(), st.booleans())
def test_weight_rows_sum_to_one_and_masked_entries_are_exactly_zero(layer, causal):
    x, weights, _ = layer
    mask = causal_mask(len(x)) if causal else None
    _, w = self_attention(x, *weights, mask=mask)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    if causal:
        assert np.all(w[~mask] == 0.0)


def test_leading_batch_and_head_axes_broadcast():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 5, 4))
    weights = [rng.normal(size=(4, 4)) for _ in range(3)]
    out, w = self_attention(x, *weights, mask=causal_mask(5))
    assert out.shape == (2, 3, 5, 4) and w.shape == (2, 3, 5, 5)
    np.testing.assert_allclose(out[1, 2], self_attention(x[1, 2], *weights, mask=causal_mask(5))[0])


def test_bias_is_added_to_the_scaled_scores():
    x = np.eye(3)
    bias = np.array([[0.0, -np.log(2), 0.0]] * 3)
    _, plain = self_attention(x, np.zeros((3, 3)), np.zeros((3, 3)), x)
    _, biased = self_attention(x, np.zeros((3, 3)), np.zeros((3, 3)), x, bias=bias)
    np.testing.assert_allclose(plain, 1 / 3)
    np.testing.assert_allclose(biased[0], [0.4, 0.2, 0.4])


def test_softmax_is_stable_and_gives_masked_scores_zero_weight():
    np.testing.assert_allclose(softmax([1e4, 1e4 - np.log(3)]), [0.75, 0.25])
    assert softmax([0.0, -np.inf])[1] == 0.0


def test_causal_mask_is_lower_triangular():
    m = causal_mask(4)
    assert m.dtype == bool and np.array_equal(m, np.tril(np.ones((4, 4), bool)))
    assert causal_mask(0).shape == (0, 0)


def test_toy_embeddings_give_the_same_word_the_same_vector_whatever_its_neighbours():
    a = toy_embeddings("the dog bit the man .", d_model=6)
    b = toy_embeddings(["man", "the"], d_model=6)
    np.testing.assert_array_equal(a[0], a[3])
    np.testing.assert_array_equal(a[4], b[0])
    assert not np.allclose(toy_embeddings("dog", 6, seed=1), toy_embeddings("dog", 6, seed=0))


def test_the_articles_six_tokens_in_two_orders():
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(8, 8)) for _ in range(3)]
    same = compare_orders("the dog bit the man .", "the man bit the dog .", *weights)
    assert len(same.words_a) == 6 and same.token_gap < 1e-12 and same.pooled_gap < 1e-12
    moved = compare_orders(
        "the dog bit the man .", "the man bit the dog .", *weights, positions=True
    )
    assert moved.token_gap > 1e-3 and moved.pooled_gap > 1e-3
    masked = compare_orders("the dog bit the man .", "the man bit the dog .", *weights, causal=True)
    assert masked.pooled_gap > 1e-3


def test_match_order_finds_the_shuffle_or_says_there_is_none():
    words = split_words("the dog bit the man .")
    assert match_order(words, split_words("the man bit the dog .")) == [0, 4, 2, 3, 1, 5]
    assert match_order(words, words[:-1]) is None
    assert match_order(words, split_words("the cat bit the man .")) is None


# -- bad input: a clear error naming the argument ------------------------------------------------

X = np.ones((4, 3))
W = np.ones((3, 2))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: self_attention(X, np.ones((2, 2)), W, W),
            r"w_q must have shape \(d_model, width\) = \(3, \.\.\.\)",
        ),
        (
            lambda: self_attention(X, W, np.ones((3, 5)), W),
            "w_q and w_k must have the same width d_k",
        ),
        (lambda: self_attention(X, W, W, np.ones(3)), r"w_v must have shape"),
        (
            lambda: self_attention(np.ones(3), W, W, W),
            r"x must have at least 2 axes, got \[1.0, 1.0, 1.0\] \(shape \(3,\)\)",
        ),
        (
            lambda: self_attention(X, W, W, W, mask=np.ones((3, 3), bool)),
            r"mask must broadcast to the scores' shape \(4, 4\)",
        ),
        (lambda: self_attention(X, W, W, W, bias=np.ones((2, 4))), r"bias must broadcast"),
        (
            lambda: self_attention(X, W, W, W, mask=np.zeros((4, 4), bool)),
            "leaves a query with no key",
        ),
        (
            lambda: self_attention(np.full((4, 3), np.nan), W, W, W),
            r"x must be finite, got nan at index \(0, 0\)",
        ),
        (lambda: self_attention(X, W * np.inf, W, W), "w_q must be finite"),
        (lambda: causal_mask(-1), "seq_len must be an integer >= 0, got -1"),
        (lambda: permutation_matrix([0, 0, 1]), r"order must list each of 0..n-1 exactly once"),
    ],
)
def test_bad_input_raises_a_value_error_that_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: self_attention(X, W, W, W, mask=np.ones((4, 4))),
            "mask must be boolean, got dtype float64",
        ),
        (lambda: self_attention("text", W, W, W), "x must be a numeric array"),
        (lambda: causal_mask(2.5), "seq_len must be an integer, got 2.5"),
        (lambda: split_words(3), "sentence must be a str"),
    ],
)
def test_wrong_types_raise_a_type_error_that_names_the_argument(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_rotate_is_applied_to_queries_and_keys_only():
    from posenc_lib import apply_rope

    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 4))
    w = [rng.normal(size=(4, 4)) for _ in range(3)]
    out, weights = self_attention(x, *w, rotate=apply_rope)
    q, k = apply_rope(x @ w[0]), apply_rope(x @ w[1])
    expected = softmax(q @ k.T / 2.0)
    np.testing.assert_allclose(weights, expected)
    np.testing.assert_allclose(out, expected @ (x @ w[2]))


def test_embed_token_ids_is_a_consistent_lookup():
    from posenc_lib.pipeline import embed_token_ids

    a = embed_token_ids([5, 7, 5], 16)
    np.testing.assert_array_equal(a[0], a[2])
    np.testing.assert_array_equal(a[1], embed_token_ids([7], 16)[0])
    with pytest.raises(TypeError, match=r"embed_token_ids: ids must hold integer ids, got \[1.5\]"):
        embed_token_ids([1.5], 4)
    with pytest.raises(ValueError, match=r"ids must hold ids 0 or more, got -1 at index \(1,\)"):
        embed_token_ids([3, -1], 4)


# -- the softmax on every axis and at its edges --------------------------------------------------


def test_softmax_and_log_softmax_normalise_along_the_axis_asked_for():
    x = np.array([[0.0, np.log(3.0)], [5.0, 5.0]])
    np.testing.assert_allclose(softmax(x), [[0.25, 0.75], [0.5, 0.5]])
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T).T)
    np.testing.assert_allclose(log_softmax(x), np.log([[0.25, 0.75], [0.5, 0.5]]))
    np.testing.assert_allclose(log_softmax(x, axis=0), log_softmax(x.T).T)


def test_each_row_is_shifted_by_its_own_maximum():
    """Rows on very different scales: one shift for the whole array would underflow a row."""
    x = np.array([[1000.0, 1000.0], [0.0, np.log(3.0)]])
    np.testing.assert_allclose(softmax(x), [[0.5, 0.5], [0.25, 0.75]])
    np.testing.assert_allclose(np.exp(log_softmax(x)), [[0.5, 0.5], [0.25, 0.75]])


def test_a_softmax_over_one_entry_is_one():
    np.testing.assert_array_equal(softmax([[2.0], [-7.0]]), [[1.0], [1.0]])


def test_masked_scores_get_zero_weight_and_minus_infinite_log_probability():
    np.testing.assert_array_equal(softmax([[0.0, -np.inf], [-np.inf, 1.0]]), [[1, 0], [0, 1]])
    assert log_softmax([0.0, -np.inf])[1] == -np.inf


@pytest.mark.parametrize(
    ("x", "axis", "message"),
    [
        (
            np.array([[0.0, 1.0], [-np.inf, -np.inf]]),
            -1,
            "some slice along axis -1 is all -inf: no finite score",
        ),
        (
            [1.0, np.nan],
            -1,
            r"x must be finite or -inf \(a masked score\), got nan at index \(1,\)",
        ),
        (
            [np.inf, 1.0],
            -1,
            r"x must be finite or -inf \(a masked score\), got inf at index \(0,\)",
        ),
        (3.0, -1, "x must have at least 1 axis, got a scalar 3.0"),
        (np.zeros((2, 2)), 2, r"axis must be in -2..1 for x of shape \(2, 2\), got 2"),
        (np.zeros((2, 2)), -3, r"axis must be in -2..1 for x of shape \(2, 2\), got -3"),
        (np.zeros((2, 0)), -1, r"axis -1 of x is empty \(shape \(2, 0\)\): nothing to weigh"),
    ],
)
def test_scores_a_softmax_cannot_weigh_are_refused_with_the_reason(x, axis, message):
    for func in (softmax, log_softmax):
        with pytest.raises(ValueError, match=rf"^{func.__name__}: {message}$"):
            func(x, axis=axis)


def test_a_mask_must_leave_every_query_a_key_in_every_batch():
    mask = np.ones((2, 3, 3), dtype=bool)
    mask[1, 2] = False  # query 2 of batch 1 sees nothing; every column still has a True
    x = np.ones((2, 3, 2))
    with pytest.raises(
        ValueError, match=r"^self_attention: mask leaves a query with no key to attend to$"
    ):
        self_attention(x, np.eye(2), np.eye(2), np.eye(2), mask=mask)


def test_rotate_must_keep_the_shape_of_what_it_rotates():
    x = np.ones((3, 2))
    with pytest.raises(
        ValueError,
        match=r"^self_attention: rotate must return an array of the shape it is given, got "
        r"\(2,\) for an input of shape \(3, 2\)$",
    ):
        self_attention(x, np.eye(2), np.eye(2), np.eye(2), rotate=lambda z: z[0])
    out, _ = self_attention(
        x, np.eye(2), np.eye(2), np.eye(2), rotate=lambda z: [list(r) for r in z]
    )
    assert out.dtype == np.float64


def test_an_order_must_be_one_list_of_positions():
    with pytest.raises(ValueError, match=r"^permutation_matrix: order must have 1 axes"):
        permutation_matrix([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"^permutation_matrix: order must list each of 0..n-1"):
        permutation_matrix([0, 2])


def test_transformer_block_is_the_pre_norm_residual_formula_and_equivariant():
    """transformer_block = x + attn(LN x) W_O, then + ReLU(LN h W_in) W_out; equivariant without a
    mask, not with one."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 4))
    w_q, w_k, w_v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    w_o, w_in, w_out = rng.normal(size=(2, 4)), rng.normal(size=(4, 6)), rng.normal(size=(6, 4))

    def norm(z):
        z = z - z.mean(axis=1, keepdims=True)
        return z / np.sqrt((z**2).mean(axis=1, keepdims=True) + 1e-5)

    h = x + self_attention(norm(x), w_q, w_k, w_v)[0] @ w_o
    expected = h + np.maximum(norm(h) @ w_in, 0) @ w_out
    out = transformer_block(x, w_q, w_k, w_v, w_o, w_in, w_out)
    assert np.allclose(out, expected, atol=1e-12)
    order = [4, 2, 0, 1, 3]
    shuffled = transformer_block(x[order], w_q, w_k, w_v, w_o, w_in, w_out)
    assert np.allclose(shuffled, out[order], atol=1e-12)
    causal = transformer_block(x[order], w_q, w_k, w_v, w_o, w_in, w_out, causal=True)
    causal_out = transformer_block(x, w_q, w_k, w_v, w_o, w_in, w_out, causal=True)
    assert not np.allclose(causal, causal_out[order], atol=1e-3)


# -- transformer_block on a batch, its defaults and its exact refusals ---------------------------


def block_weights(d_model=4, d_k=3, d_v=2, d_hidden=6, seed=7):
    """Random weights of a block whose widths all differ: w_q, w_k, w_v, w_o, w_in, w_out."""
    rng = np.random.default_rng(seed)
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v), (d_v, d_model)]
    shapes += [(d_model, d_hidden), (d_hidden, d_model)]
    return [rng.normal(size=s) for s in shapes]


def reference_block(x, w_q, w_k, w_v, w_o, w_in, w_out, causal):
    """One token sequence (T, d_model) through the block, written out with loops over tokens."""
    t = len(x)

    def norm(z):
        out = np.empty_like(z)
        for i, row in enumerate(z):
            centred = row - row.sum() / len(row)
            out[i] = centred / np.sqrt((centred**2).sum() / len(row) + 1e-5)
        return out

    n = norm(x)
    q, k, v = n @ w_q, n @ w_k, n @ w_v
    mixed = np.zeros((t, v.shape[1]))
    for i in range(t):
        keys = range(i + 1) if causal else range(t)
        scores = np.array([q[i] @ k[j] / np.sqrt(k.shape[1]) for j in keys])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        mixed[i] = sum(w * v[j] for w, j in zip(weights, keys, strict=True))
    h = x + mixed @ w_o
    return h + np.maximum(norm(h) @ w_in, 0.0) @ w_out


@pytest.mark.parametrize("causal", [False, True])
def test_transformer_block_normalises_each_token_of_each_batch_entry_on_its_own(causal):
    """A batch of 2 sequences of 3 tokens of width 4 (every axis a different length): each
    sequence comes out as the block written out with loops gives it on its own."""
    x = np.random.default_rng(1).normal(size=(2, 3, 4)) * [[[1.0], [3.0], [0.5]]]
    w = block_weights()
    out = transformer_block(x, *w, causal=causal)
    assert out.shape == (2, 3, 4)
    for b in range(2):
        np.testing.assert_allclose(out[b], reference_block(x[b], *w, causal), atol=1e-12)


def test_transformer_block_has_no_causal_mask_unless_asked():
    x = np.random.default_rng(2).normal(size=(2, 3, 4))
    w = block_weights()
    np.testing.assert_array_equal(transformer_block(x, *w), transformer_block(x, *w, causal=False))
    assert not np.allclose(transformer_block(x, *w), transformer_block(x, *w, causal=True))


X_BLOCK = np.ones((2, 3, 4))  # batch 2, T = 3, d_model = 4
W_Q, W_K, W_V, W_O, W_IN, W_OUT = block_weights()  # d_k 3, d_v 2, d_hidden 6


def with_nan(shape):
    w = np.ones(shape)
    w[0, 1] = np.nan
    return w


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        (
            {"x": np.ones(4)},
            ValueError,
            "transformer_block: x must have at least 2 axes, got [1.0, 1.0, 1.0, 1.0] (shape (4,))",
        ),
        (
            {"w_q": np.ones((3, 3))},
            ValueError,
            "transformer_block: w_q must have shape (d_model, width) = (4, ...) to multiply x of "
            "shape (2, 3, 4), got (3, 3)",
        ),
        (
            {"w_o": np.ones((3, 4))},
            ValueError,
            "transformer_block: w_o must have shape (d_v, width) = (2, ...), got (3, 4)",
        ),
        (
            {"w_o": np.ones(2)},  # one axis only, of the right length d_v
            ValueError,
            "transformer_block: w_o must have shape (d_v, width) = (2, ...), got (2,)",
        ),
        (
            {"w_o": np.ones((2, 4, 1))},  # three axes, the first of the right length d_v
            ValueError,
            "transformer_block: w_o must have shape (d_v, width) = (2, ...), got (2, 4, 1)",
        ),
        (
            {"w_o": np.ones((2, 3))},  # 3 columns: T, not d_model
            ValueError,
            "transformer_block: w_o must map back to d_model = 4 columns, got (2, 3)",
        ),
        (
            {"w_o": with_nan((2, 4))},
            ValueError,
            "transformer_block: w_o must be finite, got nan at index (0, 1)",
        ),
        (
            {"w_o": "w"},
            TypeError,
            "transformer_block: w_o must be a numeric array, got 'w'",
        ),
        (
            {"w_in": np.ones((3, 6))},  # 3 rows: T, not d_model
            ValueError,
            "transformer_block: w_in must have shape (d_model, width) = (4, ...), got (3, 6)",
        ),
        (
            {"w_in": with_nan((4, 6))},
            ValueError,
            "transformer_block: w_in must be finite, got nan at index (0, 1)",
        ),
        (
            {"w_out": np.ones((5, 4))},
            ValueError,
            "transformer_block: w_out must have shape (d_hidden, width) = (6, ...), got (5, 4)",
        ),
        (
            {"w_out": np.ones((6, 3))},  # 3 columns: T, not d_model
            ValueError,
            "transformer_block: w_out must map back to d_model = 4 columns, got (6, 3)",
        ),
        (
            {"w_out": with_nan((6, 4))},
            ValueError,
            "transformer_block: w_out must be finite, got nan at index (0, 1)",
        ),
        (
            {"causal": 1},
            TypeError,
            "transformer_block: causal must be True or False, got 1",
        ),
    ],
)
def test_transformer_block_refuses_each_wrong_argument_naming_it_the_value_and_what_fits(
    changes, error, message
):
    call = {
        "x": X_BLOCK,
        "w_q": W_Q,
        "w_k": W_K,
        "w_v": W_V,
        "w_o": W_O,
        "w_in": W_IN,
        "w_out": W_OUT,
        "causal": False,
    }
    with pytest.raises(error) as caught:
        transformer_block(**{**call, **changes})
    assert str(caught.value) == message
