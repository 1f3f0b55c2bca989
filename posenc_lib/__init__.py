"""posenc_lib: the helper library of posenc, a course on positional encoding in transformers.

The math lives in one small numpy module per chapter; plots, widgets, exercises and the tiny
trainer are submodules imported on first use, so ``import posenc_lib`` stays fast.
"""

from .alibi import alibi_bias, alibi_slopes
from .attention import (
    causal_mask,
    log_softmax,
    permutation_matrix,
    self_attention,
    softmax,
    transformer_block,
)
from .learned import LearnedPositions
from .rope import (
    apply_partial_rope,
    apply_rope,
    interpolate_positions,
    ntk_base,
    rope_frequencies,
    yarn_attention_factor,
    yarn_frequencies,
)
from .sinusoidal import frequencies, shift_matrix, sinusoidal_positions, wavelengths
from .t5 import T5RelativeBias, t5_bias, t5_bucket
from .word_order import toy_embeddings

__version__ = "0.1.0"

__all__ = [
    "LearnedPositions",
    "T5RelativeBias",
    "alibi_bias",
    "alibi_slopes",
    "apply_partial_rope",
    "apply_rope",
    "causal_mask",
    "frequencies",
    "interpolate_positions",
    "log_softmax",
    "ntk_base",
    "permutation_matrix",
    "rope_frequencies",
    "self_attention",
    "shift_matrix",
    "sinusoidal_positions",
    "softmax",
    "t5_bias",
    "t5_bucket",
    "toy_embeddings",
    "transformer_block",
    "wavelengths",
    "yarn_attention_factor",
    "yarn_frequencies",
]
