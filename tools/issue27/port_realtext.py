"""Re-apply ch78's changes on top of the engine's posenc_lib/realtext.py (run in a checkout)."""
import re
import sys
from pathlib import Path

p = Path(sys.argv[1] if len(sys.argv) > 1 else "posenc_lib/realtext.py")
s = p.read_text()
mine = Path("/work/wt/ch78/posenc_lib/realtext.py").read_text()


def rep(old, new, count=1):
    global s
    assert s.count(old) == count, (old[:120], s.count(old))
    s = s.replace(old, new)


def block(src, start, stop):
    a = src.index(start)
    b = src.index(stop, a)
    return src[a:b]


# constants: N_SCORED, VARIANTS, SCHEME_STYLES
rep('''N_SCORED = 16384  # validation characters scored at every length, in both modes
START = max(EVAL_LENS)  # the first START characters of validation text are context only
''', block(mine, "N_SCORED = 31 * 1024", "SLIDING_FRACTION = 4"))
rep('''PAPER = {''', block(mine, "SCHEME_STYLES = {", "PAPER = {") + "PAPER = {")

# model_config with config=
rep(block(s, "def model_config(", "def sliding_stride("), block(mine, "def model_config(", "def sliding_stride("))

# evaluation_ids, scored_topics before windows
rep("def windows(ids, length, mode, *, n_scored=N_SCORED, start=START):",
    block(mine, "def evaluation_ids(", "def windows(") + "def windows(ids, length, mode, *, n_scored=N_SCORED, start=START):")

# char_bits and position_sums; score via them
char_bits = block(mine, "def char_bits(", "def score(")
char_bits = char_bits.replace('''    tokens, targets = np.asarray(tokens), np.asarray(targets)
    n, t = tokens.shape
    batch = max(1, batch_elements // (t * t))
    out = np.full((n, t), np.nan)
    for first in range(0, n, batch):
        rows = slice(first, first + batch)
        logits = forward(params, tokens[rows], config)
        valid = targets[rows] != IGNORE
        shifted = logits - logits.max(-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
        picked = np.take_along_axis(log_probs, np.where(valid, targets[rows], 0)[..., None], -1)
        out[rows] = np.where(valid, -picked[..., 0] / math.log(2), np.nan)
    return out
''', '''    tokens = check_ids("char_bits", "tokens", tokens, high=config.vocab_size, ndim=2)
    targets = np.asarray(targets)
    if targets.shape != tokens.shape:
        raise ValueError(
            f"char_bits: targets must have the shape of tokens {tokens.shape} (windows, length), "
            f"got shape {targets.shape}"
        )
    batch_elements = check_int("char_bits", "batch_elements", batch_elements, minimum=1)
    n, t = tokens.shape
    batch = max(1, batch_elements // (t * t))
    out = np.full((n, t), np.nan)
    for first in range(0, n, batch):
        rows = slice(first, first + batch)
        losses = token_losses(forward(params, tokens[rows], config), targets[rows])
        out[rows] = np.where(targets[rows] != IGNORE, bits_per_char(losses), np.nan)
    return out
''')
rep("def score(params, config, tokens, targets, *, batch_elements=2**20):", char_bits + "def score(params, config, tokens, targets, *, batch_elements=2**20):")
old_body = block(s, '''    tokens = check_ids("score", "tokens", tokens, high=config.vocab_size, ndim=2)''', "def score_text(")
rep(old_body, '''    bits = char_bits(params, config, tokens, targets, batch_elements=batch_elements)
    return position_sums(bits)


''' + block(mine, "def position_sums(", "def score_text("))

# sweep_jobs with variants
rep(block(s, "def sweep_jobs(", "def train_and_score("), block(mine, "def sweep_jobs(", "def _records("))

# train_and_score: evaluation_ids, char bits, excess
rep('''    corpus = load_corpus()
    config = model_config(job["scheme"], train_len=job["train_len"], vocab_size=corpus.vocab_size)''', '''    corpus = load_corpus()
    config = model_config(
        job["scheme"],
        train_len=job["train_len"],
        vocab_size=corpus.vocab_size,
        config=job["config"],
    )''')
rep(block(s, "    scored = {\n        (n, mode): score_text(", "    return {\n        \"job\": job,"), '''    ids = evaluation_ids(corpus.validation, job["start"])
    bits = {}
    for n in job["eval_lens"]:
        for mode in job["modes"]:
            if length_problem(config, n):
                bits[n, mode] = None
                continue
            tokens, targets = windows(ids, n, mode, n_scored=job["n_scored"], start=job["start"])
            bits[n, mode] = char_bits(result.params, config, tokens, targets)
    scored = {k: None if b is None else position_sums(b) for k, b in bits.items()}
    base = {k: job[k] for k in RECORD_FIELDS}
    short, longest = job["train_len"], max(job["eval_lens"])
    curves = []
    for n in sorted({short, longest}):
        if scored[n, "nonoverlapping"] is None:
            continue
        curve = sweep.curve_record(
            base, {"eval_len": n, "mode": "nonoverlapping"}, METRIC, *scored[n, "nonoverlapping"],
            digits=3,
        )
        if n == longest > short:
            # the same characters, in the same order, in chunks of `longest` and of `short`
            extra = bits[longest, "nonoverlapping"].ravel() - bits[short, "nonoverlapping"].ravel()
            curve["excess"] = [round(float(v), 3) for v in extra.reshape(-1, longest).sum(0)]
        curves.append(curve)
''')

# summarize with config
rep('''def summarize(records, *, mode="nonoverlapping", region="all"):''', '''def summarize(records, *, mode="nonoverlapping", region="all", config=CONFIG_NAME):''')
rep('''    region : {"all", "unseen"}
        Every scored character, or those at window positions >= the training length only.

    Returns
    -------
    dict
        ``(scheme, eval_len)`` -> ``(mean, min, max)``''', '''    region : {"all", "unseen"}
        Every scored character, or those at window positions >= the training length only.
    config : str or None
        The configuration summarized (`CONFIG_NAME`, a name in `VARIANTS`; None: any).

    Returns
    -------
    dict
        ``(scheme, eval_len)`` -> ``(mean, min, max)``''')
rep('''    >>> recs = [{"scheme": "alibi", "eval_len": 64, "mode": "sliding", "region": "all",
    ...          "value": v} for v in (2.0, 2.5)]''', '''    >>> recs = [{"scheme": "alibi", "eval_len": 64, "mode": "sliding", "region": "all",
    ...          "config": CONFIG_NAME, "value": v} for v in (2.0, 2.5)]''')
rep('''    return sweep.summarize(records, ("scheme", "eval_len"), mode=mode, region=region)''',
    '''    return sweep.summarize(records, ("scheme", "eval_len"), mode=mode, region=region, config=config)''')
# paired differences after summarize
rep('''def results_table(records,''', block(mine, "def paired_differences(", "def _names(") + '''def results_table(records,''')
rep('''    summary = summarize(records, mode=mode, region=region)
    rows = select(records, mode=mode, region=None)''', '''    summary = summarize(records, mode=mode, region=region)
    rows = select(records, mode=mode, region=None, config=CONFIG_NAME)''')
# position_bits with field/config
rep(block(s, "def position_bits(", "def report("), block(mine, "def position_bits(", "# -- command line").rstrip() + "\n\n\n")
# scheme_style + plot_bits_per_char, before report
rep("def report(records, out):", block(mine, "def scheme_style(", "def position_bits(").replace("_names(rows", "names(rows") + "def report(records, out):")
# full sweep runs the variants
rep('''    "n_scored": N_SCORED,
}
REALTEXT''', '''    "n_scored": N_SCORED,
    "variants": tuple(VARIANTS),
}
REALTEXT''')
p.write_text(s)
print("ported")
s = p.read_text()
s = s.replace('''    >>> import posenc_lib
    >>> committed = Path(posenc_lib.__file__).parents[1] / "notebooks" / "data" / "realtext"
''', "")
s = s.replace("load_sweep(committed)", "load_sweep()")
s = s.replace('''    "n_scored": 64,
    },
    settings=''', '''    "n_scored": 64,
        "variants": (),
    },
    settings=''')
p.write_text(s)
print("docstrings patched")
s = p.read_text()
old = '''    >>> tiny = {"schemes": ("none", "alibi"), "seeds": (0,), "steps": 2, "train_len": 8,
    ...         "eval_lens": (8, 16), "n_scored": 64}'''
if old in s:
    s = s.replace(old, '''    >>> tiny = {"schemes": ("none", "alibi"), "seeds": (0,), "steps": 2, "train_len": 8,
    ...         "eval_lens": (8, 16), "n_scored": 64, "variants": ()}''')
p.write_text(s)
