"""Chapter 7's pipeline, from token ids to the first attention block: a toy embedding lookup."""

import numpy as np

from ._checks import check_int


def embed_token_ids(ids, d_model, *, seed=0):
    """Toy embedding-table lookup for integer token ids, shape (T, d_model).

    Row ``id`` is drawn from a generator seeded by (``seed``, id), so the table never has to
    exist in full: a 50,257 x 768 table would take 300 MB. Entries have standard deviation
    1 / sqrt(d_model), as in the original Transformer's code (tensor2tensor); other
    code starts elsewhere (PyTorch's ``nn.Embedding``: 1; GPT-2, BERT: 0.01-0.02).

    Examples
    --------
    >>> embed_token_ids([1024, 8453, 291], 768).shape
    (3, 768)
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer) or np.any(ids < 0):
        raise ValueError(
            f"embed_token_ids: ids must be a 1-D list of non-negative integers, got {ids.tolist()}"
        )
    d_model = check_int("embed_token_ids", "d_model", d_model, minimum=1)
    rows = [np.random.default_rng([seed, int(i)]).normal(0, d_model**-0.5, d_model) for i in ids]
    return np.array(rows).reshape(len(rows), d_model)
