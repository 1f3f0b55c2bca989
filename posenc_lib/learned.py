"""Learned absolute positions (GPT-2, BERT), chapter 3: one trainable vector per position."""

import numpy as np

from ._checks import check_array, check_int, check_real, check_rng


def table_too_short(max_len, seq_len):
    """Why a learned table of ``max_len`` rows cannot serve ``seq_len`` positions, or None.

    The one place the library decides that a learned table is too short: `LearnedPositions`
    raises with this text, the model of chapter 6 refuses to run (`~posenc_lib.model.forward`)
    or reports "cannot run" (`~posenc_lib.model.evaluate`), and its explorer says so.

    Parameters
    ----------
    max_len : int
        Rows in the table: positions 0 .. max_len - 1.
    seq_len : int
        Positions asked for: 0 .. seq_len - 1.

    Returns
    -------
    str or None
        The explanation, or None when the table is long enough.

    Examples
    --------
    >>> table_too_short(512, 512) is None
    True
    >>> table_too_short(512, 600)[:58]
    'asked for 600 positions but the table has only max_len=512'
    """
    max_len = check_int("table_too_short", "max_len", max_len, minimum=0)
    seq_len = check_int("table_too_short", "seq_len", seq_len, minimum=0)
    if seq_len <= max_len:
        return None
    return (
        f"asked for {seq_len} positions but the table has only max_len={max_len} rows "
        f"(positions 0..{max_len - 1}). A learned table has no vector for unseen positions: "
        f"build a longer table and train it, or use a scheme defined for every position "
        f"(sinusoidal, RoPE, ALiBi)."
    )


class LearnedPositions:
    """A table of ``max_len`` position vectors of width ``d_model``.

    Parameters
    ----------
    max_len : int
        The longest sequence the table can serve: there is no row for position ``max_len``.
    d_model : int
    rng : numpy.random.Generator, numpy.random.SeedSequence or int, optional
        Seeds the initial values (default: seed 0, so the table is reproducible).
    init_std : float
        Standard deviation of the initial entries (OpenAI's GPT-2 code: 0.01 for positions;
        BERT and Hugging Face's models: 0.02).

    Examples
    --------
    >>> table = LearnedPositions(512, 8, rng=0)
    >>> table(10).shape
    (10, 8)
    >>> table.n_parameters
    4096
    """

    def __init__(self, max_len, d_model, *, rng=None, init_std=0.02):
        self.max_len = check_int("LearnedPositions", "max_len", max_len, minimum=1)
        self.d_model = check_int("LearnedPositions", "d_model", d_model, minimum=1)
        init_std = check_real("LearnedPositions", "init_std", init_std, greater_than=0)
        rng = check_rng("LearnedPositions", "rng", rng)
        self.table = rng.normal(0.0, init_std, size=(self.max_len, self.d_model))

    @property
    def n_parameters(self):
        """Numbers in the table: max_len * d_model."""
        return self.table.size

    def __call__(self, seq_len):
        """Return the first ``seq_len`` rows, shape (seq_len, d_model)."""
        seq_len = check_int("LearnedPositions", "seq_len", seq_len, minimum=0)
        problem = table_too_short(self.max_len, seq_len)
        if problem:
            raise ValueError(f"LearnedPositions: {problem}")
        return self.table[:seq_len]

    def __repr__(self):
        """Show the table's size, not its values."""
        return f"LearnedPositions(max_len={self.max_len}, d_model={self.d_model})"


def cosine_similarity(table):
    """Return the (N, N) matrix of cosines between the rows of a (N, d) table.

    Parameters
    ----------
    table : array_like, shape (N, d)
        Rows with no zero row (a zero row has no direction).

    Returns
    -------
    ndarray, shape (N, N)
        Symmetric, ones on the diagonal, entries in [-1, 1].

    Examples
    --------
    >>> cosine_similarity(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -2.0]])).round(3)
    array([[ 1.   ,  0.707,  0.   ],
           [ 0.707,  1.   , -0.707],
           [ 0.   , -0.707,  1.   ]])
    """
    table = check_array("cosine_similarity", "table", table, ndim=2)
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("cosine_similarity: a row of zeros has no direction")
    unit = table / norms
    return unit @ unit.T


def principal_axis(table):
    """Return the direction along which the rows of a table spread most, and how much they do.

    The rows are centred, and the first principal component found by an SVD. For a learned
    position table this asks whether training arranged the positions along one line (a ramp
    from early to late) or used many directions.

    Parameters
    ----------
    table : array_like, shape (N, d)

    Returns
    -------
    share : float
        Fraction of the total variance along the first principal axis, in [0, 1].
    projection : ndarray, shape (N,)
        Each centred row's coordinate along that axis, signed so that the last row's
        coordinate is at least the first row's (early negative, late positive on a ramp).

    Examples
    --------
    >>> ramp = np.outer(np.arange(5.0), [1.0, 2.0]) + [[0.0, 0.1], [0.1, 0.0], [0, 0], [0, 0], [0, 0]]
    >>> share, projection = principal_axis(ramp)
    >>> round(share, 3), projection.round(2)
    (1.0, array([-4.41, -2.22, -0.03,  2.21,  4.45]))
    """
    table = check_array("principal_axis", "table", table, ndim=2)
    if table.shape[0] < 2:
        raise ValueError(
            f"principal_axis: table must be 2-D with at least 2 rows, got shape {table.shape}"
        )
    centred = table - table.mean(axis=0)
    _, singular, axes = np.linalg.svd(centred, full_matrices=False)
    projection = centred @ axes[0]
    if projection[-1] < projection[0]:
        projection = -projection
    return float(singular[0] ** 2 / np.sum(singular**2)), projection
