"""Chapter 07's claims, kept as tests: every qualitative sentence the real-text chapter makes about a
result is recomputed here from the committed sweep (posenc_lib/data/realtext) or with the library.

Each test's name is the claim; its docstring starts with "07: " and paraphrases the sentence.
`docs/claims.md` lists them (`python tools/claims.py` rewrites it)."""

import math

import numpy as np
import pytest

from posenc_lib import alibi_slopes, realtext, rope_frequencies, t5_bucket
from posenc_lib.corpus import load_corpus
from posenc_lib.exercises import ch07
from posenc_lib.experiments import select
from posenc_lib.model import SCHEMES, init_params, n_parameters

RECORDS, CURVES = realtext.load_sweep()
CHUNKS = realtext.summarize(RECORDS, mode="nonoverlapping")
SLIDING = realtext.summarize(RECORDS, mode="sliding")
LONGER = realtext.EVAL_LENS[1:]
PAPER_SCHEMES = ("sinusoidal", "rope", "t5", "alibi")


def mean(summary, scheme, length):
    return summary[scheme, length][0]


def change(summary, scheme, length):
    return mean(summary, scheme, length) - mean(summary, scheme, 64)


def per_seed(scheme, length, mode):
    rows = select(RECORDS, scheme=scheme, eval_len=length, mode=mode, region="all")
    return {r["seed"]: r["value"] for r in rows}


def by_position(scheme, length, bin_width=1):
    return realtext.position_bits(CURVES, scheme, length, bin_width=bin_width)[1]


def paper_change(scheme, k):
    return math.log2(realtext.PAPER[scheme][k] / realtext.PAPER[scheme][0])


# -- the corpus and the model ------------------------------------------------------------------


# Claims of the first edition that the re-run sweep (the engine's separate random streams) no longer
# bears out as worded. Chapter 07 says so in a note at its top; its second edition (issue 27) rewrites
# these sentences and their tests from the new data. strict=True: a claim that holds again must be
# moved back out of this list.
STALE = pytest.mark.xfail(
    strict=True,
    reason="chapter 07's prose predates the re-run sweep; the second edition (issue 27) rewrites it",
)


def test_the_sweep_covers_6_schemes_5_lengths_2_modes_3_seeds():
    """07: the committed sweep trains every scheme with three seeds and scores each at 64 to 1,024
    characters in both modes; the learned table cannot run past its 64 rows."""
    cells = {
        (r["scheme"], r["seed"], r["eval_len"], r["mode"]) for r in select(RECORDS, region="all")
    }
    assert cells == {
        (s, seed, n, m)
        for s in SCHEMES
        for seed in (0, 1, 2)
        for n in realtext.EVAL_LENS
        for m in realtext.MODES
    }
    learned = select(RECORDS, scheme="learned", region=None)
    assert all((r["value"] is None) == (r["eval_len"] > 64) for r in learned)
    assert {r["task"] for r in RECORDS} == {"pydoc-topics"}


def test_every_scheme_has_the_same_parameters_but_the_learned_table_and_t5s_bias():
    """07: every scheme has the same 111,488 parameters except the learned table (64 x 64 more) and
    T5's bias (4 x 32 more)."""
    counts = {s: n_parameters(init_params(realtext.model_config(s))) for s in SCHEMES}
    assert {counts[s] for s in ("none", "sinusoidal", "rope", "alibi")} == {111_488}
    assert counts["learned"] == 111_488 + 64 * 64
    assert counts["t5"] == 111_488 + 4 * 32


def test_uniform_guessing_and_letter_counts_cost_6_69_and_4_76_bits():
    """07: guessing uniformly costs 6.69 bits per character; knowing only how often each character
    occurs, 4.76; every trained model is below that at the training length, and by 1,024 characters
    sinusoidal and RoPE are above it in both modes."""
    corpus = load_corpus()
    counts = np.bincount(corpus.train, minlength=corpus.vocab_size) + 1
    unigram = -np.mean(np.log2((counts / counts.sum())[corpus.validation]))
    assert f"{math.log2(corpus.vocab_size):.2f}" == "6.69"
    assert f"{unigram:.2f}" == "4.76"
    for summary in (CHUNKS, SLIDING):
        assert all(mean(summary, s, 64) < unigram for s in SCHEMES)
        assert all(mean(summary, s, 1024) > unigram for s in ("sinusoidal", "rope"))


# -- the headline figure ---------------------------------------------------------------------


@STALE
def test_at_the_training_length_t5_is_best_and_no_positions_learnt_least():
    """07: at 64 characters T5's bias is best (2.52), then RoPE, sinusoidal, ALiBi and the learned
    table; with no positions the model learnt least, more than 0.7 bits behind any other."""
    order = sorted(SCHEMES, key=lambda s: mean(CHUNKS, s, 64))
    assert order == ["t5", "rope", "sinusoidal", "alibi", "learned", "none"]
    assert f"{mean(CHUNKS, 't5', 64):.2f}" == "2.52"
    assert mean(CHUNKS, "none", 64) - mean(CHUNKS, "learned", 64) > 0.7


@STALE
def test_sinusoidal_breaks_at_once_and_keeps_climbing():
    """07: past the training length sinusoidal jumps by more than a bit at once (3.80 at 128) and
    keeps climbing, in chunks; in both modes it is worse by more than a bit at every longer length."""
    values = [mean(CHUNKS, "sinusoidal", n) for n in realtext.EVAL_LENS]
    assert np.all(np.diff(values) > 0)
    assert f"{values[1]:.2f}" == "3.80"
    for summary in (CHUNKS, SLIDING):
        assert all(change(summary, "sinusoidal", n) > 1 for n in LONGER)


@STALE
def test_rope_loses_little_at_twice_the_length_then_collapses_past_sinusoidal():
    """07: RoPE loses only 0.23 bits at 128 and then collapses, ending above sinusoidal at 1,024 in
    every seed (5.25 on average)."""
    assert f"{change(CHUNKS, 'rope', 128):.2f}" == "0.23"
    assert change(CHUNKS, "rope", 256) > 1
    rope, sinusoidal = (
        per_seed("rope", 1024, "nonoverlapping"),
        per_seed("sinusoidal", 1024, "nonoverlapping"),
    )
    assert all(rope[seed] > sinusoidal[seed] for seed in rope)
    assert f"{mean(CHUNKS, 'rope', 1024):.2f}" == "5.25"


@STALE
def test_t5_holds_at_twice_the_length_and_then_climbs():
    """07: T5 holds at 128 (2.55, 0.04 worse) and then climbs to 3.79; it loses 0.28 at four times
    and 1.28 at sixteen."""
    assert f"{mean(CHUNKS, 't5', 128):.2f}" == "2.55"
    assert 0 < change(CHUNKS, "t5", 128) < 0.05
    assert f"{change(CHUNKS, 't5', 256):.2f}" == "0.28"
    assert f"{change(CHUNKS, 't5', 1024):.2f}" == "1.28"
    assert f"{mean(CHUNKS, 't5', 1024):.2f}" == "3.79"


@STALE
def test_alibi_is_flat_to_sixteen_times_its_training_length_in_both_modes():
    """07: ALiBi does not move by more than 0.02 bits from 64 to 1,024 in chunks (and by less than
    0.03 with sliding windows): flat to 16 times its training length."""
    assert all(abs(change(CHUNKS, "alibi", n)) <= 0.02 for n in LONGER)
    assert all(abs(change(SLIDING, "alibi", n)) < 0.03 for n in LONGER)


@STALE
def test_alibi_trails_the_schemes_with_exact_positions_at_the_training_length():
    """07: ALiBi pays at the training length: 0.06 to 0.23 bits behind sinusoidal, RoPE and T5."""
    behind = [mean(CHUNKS, "alibi", 64) - mean(CHUNKS, s, 64) for s in ("sinusoidal", "rope", "t5")]
    assert f"{min(behind):.2f}" == "0.06" and f"{max(behind):.2f}" == "0.23"


@STALE
def test_sliding_windows_help_every_scheme_with_positions_at_64_and_hurt_all_but_alibi_past_it():
    """07: at 64 every scheme that has positions scores better in sliding windows than in chunks;
    past 64 every scheme but ALiBi scores clearly worse, most of all at 128 (sinusoidal 5.09, RoPE
    3.52), while ALiBi's two modes agree within 0.01 bits from 128 on."""
    for scheme in ("sinusoidal", "learned", "rope", "alibi", "t5"):
        assert mean(SLIDING, scheme, 64) < mean(CHUNKS, scheme, 64)
    for scheme in ("none", "sinusoidal", "rope", "t5"):
        gaps = [mean(SLIDING, scheme, n) - mean(CHUNKS, scheme, n) for n in LONGER]
        assert min(gaps) > 0.05
    for scheme in ("sinusoidal", "rope"):
        gaps = [mean(SLIDING, scheme, n) - mean(CHUNKS, scheme, n) for n in LONGER]
        assert np.argmax(gaps) == 0 or scheme == "rope"
    assert f"{mean(SLIDING, 'sinusoidal', 128):.2f}" == "5.09"
    assert f"{mean(SLIDING, 'rope', 128):.2f}" == "3.52"
    assert all(abs(mean(SLIDING, "alibi", n) - mean(CHUNKS, "alibi", n)) < 0.01 for n in LONGER)


def test_seed_ranges_are_narrower_than_the_gaps_between_schemes_at_64():
    """07: the shaded ranges over three seeds are narrow: the ordering at the training length is
    the same in every seed."""
    for seed in (0, 1, 2):
        values = {s: per_seed(s, 64, "nonoverlapping")[seed] for s in SCHEMES}
        assert sorted(values, key=values.get) == [
            "t5",
            "rope",
            "sinusoidal",
            "alibi",
            "learned",
            "none",
        ]


# -- beside the paper ------------------------------------------------------------------------


def test_at_the_papers_training_length_all_four_are_within_half_a_point():
    """07: at 512 tokens the paper's four schemes are within half a point of perplexity."""
    at_512 = [realtext.PAPER[s][0] for s in PAPER_SCHEMES]
    assert max(at_512) - min(at_512) < 0.5


@STALE
def test_at_twice_the_training_length_the_miniature_matches_the_papers_changes():
    """07: at about twice the training length sinusoidal loses 1.12 bits in the paper and here;
    rotary loses a little (0.09 per token there, 0.23 per character here); T5 and ALiBi change by
    less than a tenth of a bit (the paper's two improve slightly, our T5 loses 0.04)."""
    assert f"{paper_change('sinusoidal', 1):.2f}" == f"{change(CHUNKS, 'sinusoidal', 128):.2f}"
    assert f"{paper_change('sinusoidal', 1):.2f}" == "1.12"
    assert f"{paper_change('rope', 1):.2f}" == "0.09"
    for scheme in ("t5", "alibi"):
        assert -0.1 < paper_change(scheme, 1) < 0
        assert abs(change(CHUNKS, scheme, 128)) < 0.1
    assert f"{change(CHUNKS, 't5', 128):.2f}" == "0.04"


def test_the_order_of_what_each_scheme_loses_at_twice_the_length_is_the_papers():
    """07: Press et al.'s ordering of what each scheme loses past the training length (sinusoidal
    most, then rotary, then T5, ALiBi nothing) holds here at twice the training length."""
    paper = sorted(PAPER_SCHEMES, key=lambda s: -paper_change(s, 1))
    ours = sorted(PAPER_SCHEMES, key=lambda s: -change(CHUNKS, s, 128))
    assert paper == ours == ["sinusoidal", "rope", "t5", "alibi"]


@STALE
def test_further_out_the_papers_alibi_improves_and_ours_stays_flat():
    """07: the paper's ALiBi keeps improving, by 0.11 bits per token at 30 times its training length;
    ours stays flat, within 0.02; the paper's T5 is only 0.05 bits worse at five times."""
    assert f"{paper_change('alibi', 3):.2f}" == "-0.11"
    assert all(paper_change("alibi", k) < 0 for k in (1, 2, 3))
    assert max(abs(change(CHUNKS, "alibi", n)) for n in LONGER) <= 0.02
    assert f"{paper_change('t5', 2):.2f}" == "0.05"


# -- why: the evaluation ---------------------------------------------------------------------


@STALE
def test_the_early_token_curse_lasts_three_characters():
    """07: every scheme pays 4.0 to 4.4 bits for a chunk's first character, 3.2 to 3.5 for the second,
    about 3 for the third; from the fourth on, the schemes with positions predict within a few
    hundredths of a bit as well as in sliding windows (48 or more characters of context)."""
    for scheme in SCHEMES:
        bits = by_position(scheme, 64)
        assert 4.0 <= bits[0] <= 4.45
        assert 3.2 <= bits[1] <= 3.5
        assert 2.9 <= bits[2] <= 3.45
    for scheme in ("sinusoidal", "learned", "rope", "alibi", "t5"):
        assert abs(by_position(scheme, 64)[3:].mean() - mean(SLIDING, scheme, 64)) < 0.03


@STALE
def test_chunking_at_64_costs_the_schemes_with_positions_only_hundredths_of_a_bit():
    """07: chunking at 64 costs the schemes with positions only 0.02 to 0.06 bits per character
    (ALiBi 0.040); for no positions, sliding windows cost 0.11 bits instead."""
    costs = {s: mean(CHUNKS, s, 64) - mean(SLIDING, s, 64) for s in SCHEMES}
    assert all(0.015 < costs[s] < 0.06 for s in ("sinusoidal", "learned", "rope", "alibi", "t5"))
    assert f"{costs['alibi']:.3f}" == "0.040"
    assert f"{costs['none']:.2f}" == "-0.11"


def test_no_positions_predicts_later_characters_worse_than_early_ones():
    """07: no positions is the odd one out: it predicts later characters of a chunk worse than
    early ones."""
    bits = by_position("none", 64)
    assert bits[32:].mean() > bits[3:32].mean()


@STALE
def test_alibi_wins_back_a_little_in_chunks_and_gets_worse_with_context_in_sliding_windows():
    """07: ALiBi's chunk line wins back 0.017 bits by 256 characters (2.749 to 2.732) and meets the
    sliding line, which rises slightly with length (2.709 at 64, 2.738 at 1,024): hundreds of
    characters of context predict no better than 48 to 63."""
    assert f"{mean(CHUNKS, 'alibi', 64):.3f}" == "2.749"
    assert f"{mean(CHUNKS, 'alibi', 256):.3f}" == "2.732"
    assert f"{-change(CHUNKS, 'alibi', 256):.3f}" == "0.017"
    assert abs(mean(CHUNKS, "alibi", 256) - mean(SLIDING, "alibi", 256)) < 0.002
    sliding = [mean(SLIDING, "alibi", n) for n in realtext.EVAL_LENS]
    assert np.all(np.diff(sliding) > 0)
    assert f"{sliding[0]:.3f}" == "2.709" and f"{sliding[-1]:.3f}" == "2.738"


@STALE
def test_positions_past_the_trained_ones_break_each_scheme_differently():
    """07: in chunks of 1,024, sinusoidal breaks at the first positions it never saw; RoPE still
    predicts well at 64-127 (about 3.0 bits) and breaks from 128; T5 degrades gradually across the
    chunk; ALiBi does not break anywhere."""
    bins = {s: by_position(s, 1024, bin_width=64) for s in SCHEMES if s != "learned"}
    assert bins["sinusoidal"][0] < 3 and bins["sinusoidal"][1] > 5
    assert f"{bins['rope'][1]:.1f}" == "3.0" and bins["rope"][2:].min() > 5
    t5 = bins["t5"]
    assert t5[-1] - t5[0] > 1.5
    assert np.corrcoef(np.arange(len(t5)), t5)[0, 1] > 0.9
    assert bins["alibi"].max() < 3.1 and bins["alibi"].max() - bins["alibi"].min() < 0.6


def test_far_from_the_training_length_sinusoidal_and_rope_predict_worse_than_no_positions():
    """07: sinusoidal and RoPE are defined at position 1,000, and both predict there worse than a
    model with no positions at all."""
    bins = {s: by_position(s, 1024, bin_width=64) for s in ("none", "sinusoidal", "rope")}
    for scheme in ("sinusoidal", "rope"):
        assert bins[scheme][-1] > bins["none"][-1]
        for summary in (CHUNKS, SLIDING):
            assert mean(summary, scheme, 1024) > mean(summary, "none", 1024)


@STALE
def test_the_mode_check_sliding_favours_alibi_and_chunks_favour_sinusoidal_at_128():
    """07: at 128 characters chunks are far better for sinusoidal (3.805 against 5.087) and sliding
    windows better for ALiBi by a hair (2.726 against 2.734, in each of the three seeds), a fifth of
    its 0.040 margin at 64; exercise q2's answer (c) says so."""
    assert f"{mean(CHUNKS, 'sinusoidal', 128):.3f}" == "3.805"
    assert f"{mean(SLIDING, 'sinusoidal', 128):.3f}" == "5.087"
    assert f"{mean(SLIDING, 'alibi', 128):.3f}" == "2.726"
    assert f"{mean(CHUNKS, 'alibi', 128):.3f}" == "2.734"
    chunks, sliding = per_seed("alibi", 128, "nonoverlapping"), per_seed("alibi", 128, "sliding")
    assert all(sliding[seed] < chunks[seed] for seed in chunks)
    margin = mean(CHUNKS, "alibi", 128) - mean(SLIDING, "alibi", 128)
    assert 0.15 < margin / (mean(CHUNKS, "alibi", 64) - mean(SLIDING, "alibi", 64)) < 0.25
    assert ch07.q2.correct == "c"
    assert ch07.q2.evaluate("c").passed


# -- why: the configuration ------------------------------------------------------------------


def test_alibis_four_slopes_penalise_64_characters_by_16_down_to_a_quarter():
    """07: with 4 heads the ALiBi slopes are 1/4 to 1/256: over 64 characters a penalty of 16 (e^16
    is 9 million) in one head and 0.25 (e^0.25 is 1.3) in another."""
    slopes = alibi_slopes(4)
    assert np.allclose(1 / slopes, [4, 16, 64, 256])
    assert np.allclose(64 * slopes, [16, 4, 1, 0.25])
    assert f"{math.exp(16) / 1e6:.0f}" == "9" and f"{math.exp(0.25):.1f}" == "1.3"


def test_t5s_last_bucket_covers_5_trained_distances_and_965_at_1024():
    """07: T5's last bucket, shared by every distance from 59 on, was trained on only 5 distances
    and covers 965 at 1,024 characters; T5's own setting (up to 128) at 512 tokens would put most
    training distances in it."""
    distances = np.arange(1024)
    buckets = t5_bucket(-distances, bidirectional=False, n_buckets=32, max_distance=64)
    first = int(np.argmax(buckets == buckets.max()))
    assert (first, 64 - first, 1024 - first) == (59, 5, 965)
    t5_own = t5_bucket(-np.arange(512), bidirectional=False, n_buckets=32, max_distance=128)
    assert np.mean(t5_own == t5_own.max()) > 0.5
    assert realtext.model_config("t5").t5_max_distance == 64


def test_five_of_ropes_8_pairs_turn_less_than_half_a_circle_in_64_positions():
    """07: RoPE's heads are 16 wide: 8 rotation pairs, of which 5 turn less than half a circle within
    64 positions (the slowest 3 less than a twentieth)."""
    turns = 64 * rope_frequencies(realtext.model_config("rope").head_dim) / (2 * np.pi)
    assert len(turns) == 8
    assert np.sum(turns < 0.5) == 5 and np.all(turns[3:] < 0.5)
    assert np.sum(turns < 0.05) == 3 and np.all(turns[5:] < 0.05)


def test_the_sweep_is_a_million_characters_about_2_4_passes():
    """07: 1,000 steps of 16 windows of 64 characters is about a million characters, 2.4 passes over
    the 433 thousand training characters."""
    characters = realtext.STEPS * realtext.TRAIN["batch_size"] * realtext.TRAIN_LEN
    assert characters == 1_024_000
    assert f"{characters / len(load_corpus().train):.1f}" == "2.4"


# -- the live run ----------------------------------------------------------------------------


@STALE
@pytest.mark.slow
def test_the_live_run_shows_the_papers_picture_after_250_steps():
    """07: in the live run both models learn (from about 5.2 bits to 3.20 and 2.95); ALiBi is ahead
    at 64 characters (3.40 against 3.61 in chunks); at 1,024 sinusoidal has lost 0.62 bits (4.24),
    ALiBi 0.11 (3.51)."""
    records, models = realtext.run_models(
        ("sinusoidal", "alibi"),
        workers=2,
        progress=False,
        steps=250,
        eval_lens=(64, 1024),
        n_scored=2048,
    )
    for (scheme, _), result in models.items():
        start = np.mean(result.losses[:10]) / math.log(2)
        end = np.mean(result.losses[-10:]) / math.log(2)
        assert 5.1 < start < 5.3
        assert f"{end:.2f}" == {"sinusoidal": "3.20", "alibi": "2.95"}[scheme]
    chunks = realtext.summarize(records, mode="nonoverlapping")
    assert (
        f"{chunks['alibi', 64][0]:.2f}" == "3.40" and f"{chunks['sinusoidal', 64][0]:.2f}" == "3.61"
    )
    assert f"{chunks['sinusoidal', 1024][0] - chunks['sinusoidal', 64][0]:.2f}" == "0.62"
    assert f"{chunks['alibi', 1024][0] - chunks['alibi', 64][0]:.2f}" == "0.11"
