"""Chapter 7's pipeline, from token ids to the first attention block: a toy embedding lookup."""

import numpy as np

from ._checks import check_ids, check_int


def embed_token_ids(ids, d_model, *, seed=0):
    """Toy embedding-table lookup for integer token ids, shape (T, d_model).

    Row ``id`` is drawn from a generator seeded by (``seed``, id), so the table never has to
    exist in full: a 50,257 x 768 table would take 300 MB. Entries have standard deviation
    1 / sqrt(d_model), as in the original Transformer's code (tensor2tensor); other
    code starts elsewhere (PyTorch's ``nn.Embedding``: 1; GPT-2, BERT: 0.01-0.02).

    Parameters
    ----------
    ids : array_like of int, shape (T,)
        Token ids, 0 or more (a tokenizer's output).
    d_model : int
        Width of each embedding.
    seed : int
        Which toy table: the same (seed, id) always gives the same row.

    Returns
    -------
    ndarray, shape (T, d_model)
        One row per id.

    Examples
    --------
    >>> embed_token_ids([1024, 8453, 291], 768).shape
    (3, 768)
    """
    ids = check_ids("embed_token_ids", "ids", ids, ndim=1)
    d_model = check_int("embed_token_ids", "d_model", d_model, minimum=1)
    seed = check_int("embed_token_ids", "seed", seed, minimum=0)
    rows = [np.random.default_rng([seed, int(i)]).normal(0, d_model**-0.5, d_model) for i in ids]
    return np.array(rows).reshape(len(rows), d_model)
