"""posenc_lib: the helper library of posenc, a course on positional encoding in transformers.

The math lives in one small numpy module per chapter; plots, widgets, exercises and the tiny
trainer are submodules imported on first use, so ``import posenc_lib`` stays fast.
"""

from .attention import causal_mask, permutation_matrix, self_attention, softmax, toy_embeddings
from .sinusoidal import frequencies, shift_matrix, sinusoidal_positions, wavelengths

__version__ = "0.1.0"

__all__ = [
    "causal_mask",
    "frequencies",
    "permutation_matrix",
    "self_attention",
    "shift_matrix",
    "sinusoidal_positions",
    "softmax",
    "toy_embeddings",
    "wavelengths",
]
