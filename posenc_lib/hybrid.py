"""Chapter 8's layer plans: NoPE layers among RoPE layers, two RoPE bases, a sliding window.

Two patterns of today's models (chapter 8's table):

- Llama 4 leaves RoPE out of every fourth layer (Meta's reference code: layer ``i`` has no
  positions when ``(i + 1) % nope_layer_interval == 0``, interval 4; Hugging Face's
  ``no_rope_layers``): those layers see no position at all (NoPE) and attend to the whole context,
  while its RoPE layers attend within chunks of 8,192 tokens (``chunk+nope`` here, with chunks
  of 8); at long context its NoPE layers also scale their queries up with the position
  ("temperature tuning", not modelled here);
- Gemma 3 rotates its sliding-window ("local") layers at base 10,000 and its global layers at base
  1,000,000, five local layers to one global.

A plan is one `~posenc_lib.model.Layer` per attention layer, saying whether that layer rotates
queries and keys, at which base, and how far back it may look; `~posenc_lib.model.hybrid_forward`,
`~posenc_lib.model.train_hybrid` and `~posenc_lib.model.evaluate_hybrid_positions` run a model of
chapter 6 (scheme "rope", the same parameters) by such a plan. `PLANS` holds the two-layer plans
chapter 8 trains (`posenc_lib.hybrid_study`).

Examples
--------
>>> [layer.rope for layer in PLANS["rope+nope"]]
[True, False]
>>> PLANS["local+global"][0].window, PLANS["local+global"][1].base, PLANS["chunk+nope"][0].chunk
(8, 1000000.0, 8)
"""

from .model import Layer

ROPE, NOPE = Layer(), Layer(rope=False)
LOCAL_BASE, GLOBAL_BASE = 10_000.0, 1_000_000.0  # Gemma 3's rope_local_base_freq and rope_theta
WINDOW = 8  # a quarter of the training length: the local layers' sliding window

CHUNK = 8  # Llama 4's RoPE layers attend within chunks (8,192 tokens there); a quarter here

#: The two-layer plans chapter 8 trains, named bottom layer first.
PLANS = {
    "rope+rope": (ROPE, ROPE),  # chapter 6's two-layer RoPE model
    "rope+nope": (ROPE, NOPE),  # Llama 4's layer without positions, without its chunks
    "nope+rope": (NOPE, ROPE),
    "nope+nope": (NOPE, NOPE),  # chapter 6's two-layer model without positions
    "chunk+nope": (Layer(chunk=CHUNK), NOPE),  # Llama 4: RoPE in chunks, then global NoPE
    "chunk+rope": (Layer(chunk=CHUNK), ROPE),  # the same with RoPE on top
    "local+global": (Layer(base=LOCAL_BASE, window=WINDOW), Layer(base=GLOBAL_BASE)),  # Gemma 3
    "rope+global": (ROPE, Layer(base=GLOBAL_BASE)),  # the two bases, no window
    "local+rope": (Layer(window=WINDOW), ROPE),  # the window, one base
    # the window varied: 4 and 16 (a window of 8 above)
    "local4+global": (Layer(base=LOCAL_BASE, window=4), Layer(base=GLOBAL_BASE)),
    "local4+rope": (Layer(window=4), ROPE),
    "local16+global": (Layer(base=LOCAL_BASE, window=16), Layer(base=GLOBAL_BASE)),
    "local16+rope": (Layer(window=16), ROPE),
}
