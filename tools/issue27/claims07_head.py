"""Chapter 07's claims, kept as tests: every qualitative sentence the real-text chapter makes about a
result is recomputed here from the committed sweep (posenc_lib/data/realtext) or with the library.
Scheme-against-scheme statements are checked seed by seed (`realtext.paired_differences`).

Each test's name is the claim; its docstring starts with "07: " and paraphrases the sentence.
`docs/claims.md` lists them (`python tools/claims.py` rewrites it)."""

import math
from pathlib import Path

import numpy as np
import pytest

from posenc_lib import alibi_slopes, realtext, rope_frequencies, t5_bucket
from posenc_lib.corpus import load_corpus, read_topics
from posenc_lib.exercises import ch07
from posenc_lib.experiments import select
from posenc_lib.model import SCHEMES, init_params, n_parameters

RECORDS, CURVES = realtext.load_sweep()
CHUNKS = realtext.summarize(RECORDS, mode="nonoverlapping")
SLIDING = realtext.summarize(RECORDS, mode="sliding")
LONGER = realtext.EVAL_LENS[1:]
PAPER_SCHEMES = ("sinusoidal", "rope", "t5", "alibi")
CORPUS = load_corpus()
SCORED = CORPUS.decode(CORPUS.validation[: realtext.N_SCORED])
CHARS_PER_WORD = len(SCORED) / len(SCORED.split())


def mean(summary, scheme, length):
    return summary[scheme, length][0]


def change(summary, scheme, length):
    return mean(summary, scheme, length) - mean(summary, scheme, 64)


def paired(a, b, length, mode="nonoverlapping"):
    return np.array(list(realtext.paired_differences(RECORDS, a, b, length, mode=mode).values()))


def per_seed(scheme, length, mode):
    rows = select(
        RECORDS,
        scheme=scheme,
        eval_len=length,
        mode=mode,
        region="all",
        config=realtext.CONFIG_NAME,
    )
    return {r["seed"]: r["value"] for r in rows}


def by_position(scheme, length, bin_width=1, field="totals"):
    return realtext.position_bits(CURVES, scheme, length, bin_width=bin_width, field=field)[1]


def paper_change(scheme, k):
    return math.log2(realtext.PAPER[scheme][k] / realtext.PAPER[scheme][0])
