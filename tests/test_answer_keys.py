"""The chapters' multiple-choice answer keys, checked independently of their solutions.

A solution is generated from the key it should check, so a wrong key passes its own solution. Two
independent checks catch it: the right option's explanation is the one that starts "Right" (the
explanations were written for their options, not for the key), and each chapter question's answer
agrees with evidence computed here with the library (the course quiz has its own evidence in
test_exercises.py).
"""

import re
from pathlib import Path

import numpy as np
import pytest
from autograd import grad

from posenc_lib import (
    causal_mask,
    interpolate_positions,
    self_attention,
    sinusoidal_positions,
)
from posenc_lib.exercises import ChoiceExercise, all_exercises
from posenc_lib.experiments import load_study, summarize
from posenc_lib.model import ModelConfig, init_params, loss_fn
from posenc_lib.tasks import lookback

ROOT = Path(__file__).resolve().parents[1]

CHOICES = [(chapter, e) for chapter, e in all_exercises() if isinstance(e, ChoiceExercise)]


@pytest.mark.parametrize(
    ("chapter", "exercise"), CHOICES, ids=[f"{c}.{e.name}" for c, e in CHOICES]
)
def test_only_the_keyed_option_is_explained_as_right(chapter, exercise):
    right = [key for key, text in exercise.options.items() if text.startswith("Right")]
    assert right == [exercise.correct], (exercise.name, right, exercise.correct)


# -- evidence: what each chapter question's right answer must say -------------------------------

EVIDENCE = {}


def evidence(name):
    def register(func):
        EVIDENCE[name] = func
        return func

    return register


def _sentence(seed=0, t=6, d=8):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, d))
    return x, [rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3)]


ORDER = [3, 0, 5, 1, 4, 2]


def _keeps(outputs):
    """'keeps' when the shuffled sentence's outputs are the outputs shuffled, else 'breaks'."""
    out, shuffled = outputs
    return "keeps" if np.allclose(shuffled, out[ORDER], atol=1e-10) else "breaks"


@evidence("pooling")
def _():
    x, w = _sentence()
    pooled, pooled_shuffled = (
        self_attention(x, *w)[0].mean(0),
        self_attention(x[ORDER], *w)[0].mean(0),
    )
    return "keeps" if np.allclose(pooled, pooled_shuffled, atol=1e-10) else "breaks"


@evidence("causal")
def _():
    x, w = _sentence()
    mask = causal_mask(len(x))
    return _keeps((self_attention(x, *w, mask=mask)[0], self_attention(x[ORDER], *w, mask=mask)[0]))


@evidence("positions")
def _():
    x, w = _sentence()
    pe = sinusoidal_positions(len(x), x.shape[1])
    return _keeps((self_attention(x + pe, *w)[0], self_attention(x[ORDER] + pe, *w)[0]))


@evidence("temperature")
def _():
    x, (w_q, w_k, w_v) = _sentence()
    sharp = (2 * w_q, w_k, w_v)  # every score doubled
    return _keeps((self_attention(x, *sharp)[0], self_attention(x[ORDER], *sharp)[0]))


@evidence("hand")
def _():
    from posenc_lib.widgets import HelloSlider

    hello = HelloSlider()
    hello.position.value = 6
    degrees = int(hello.label.value.split(" = ")[1].split()[0])  # "... = 344 degrees = ..."
    assert 270 < degrees < 360 and "0 full turns" in hello.label.value
    return "a little before 12 o'clock"


@evidence("prediction")
def _():
    x, w = _sentence()
    gap = np.max(np.abs(self_attention(x[ORDER], *w)[0] - self_attention(x, *w)[0][ORDER]))
    assert 0 <= gap < 1e-12
    return "below 1e-12, rounding only"


@evidence("slider")
def _():
    from posenc_lib import frequencies

    degrees = np.degrees(30 * frequencies(16)[5])  # pair 5's turn from position 0 to 30
    assert 1 < degrees < 10
    return "a few degrees"


@evidence("bug_table")
def _():
    from posenc_lib.exercises.ch02 import MYSTERY

    def frozen(table):
        return int(np.sum(np.ptp(table, axis=0) < 0.01))

    n, d = MYSTERY.shape
    counts = {
        name: frozen(sinusoidal_positions(n, d, base=base))
        for name, base in (("correct", 1e4), ("A", 1e8), ("B", 1e2))
    }
    assert counts["correct"] == counts["B"] == 0 < counts["A"] == frozen(MYSTERY)
    assert np.allclose(MYSTERY, sinusoidal_positions(n, d, base=1e8))
    return "bug A, 10000^(-2 dim/d)"


@evidence("before_after")
def _():
    pe = sinusoidal_positions(64, 128)
    later, earlier = pe[37] @ pe[42], pe[37] @ pe[32]
    assert abs(later - earlier) < 1e-12
    return "they are equal"


@evidence("rows_with_gradient")
def _():
    config = ModelConfig(vocab_size=16, scheme="learned", d_model=8, max_len=64)
    tokens, targets = lookback(3).sample(0, 4, 32)
    rows = np.flatnonzero(
        np.any(grad(loss_fn)(init_params(config), tokens, targets, config)["pos"] != 0, axis=1)
    )
    return f"rows {rows.min()}-{rows.max()}"


@evidence("late_rows")
def _():
    from posenc_lib import ch03_models
    from posenc_lib.model import evaluate_positions, region_value, train
    from posenc_lib.tasks import markov

    config = ch03_models.CONFIG  # the chapter's learned-table model, trained as it trains it
    result = train(config, markov(), steps=300, progress=False, **ch03_models.TRAIN)
    table = result.params["pos"]

    def unseen_loss(rows):
        scored = evaluate_positions({**result.params, "pos": rows}, config, markov(), 64)
        return region_value(*scored, start=32)

    copies = np.vstack([table[:32], np.repeat(table[30:31], 32, axis=0)])
    return "it falls" if unseen_loss(copies) < unseen_loss(table) else "it rises"


@evidence("t5_stripe")
def _():
    from posenc_lib import study_models
    from posenc_lib.model import attention_at_offset, attention_peak_offsets
    from posenc_lib.tasks import lookback as lookback_task

    t5 = study_models.load()[("lookback-3", "t5", 0)]
    tokens, _ = lookback_task(3).sample(2024, 8, 256)
    peaks = attention_peak_offsets(t5.params, t5.config, tokens)[0, 0]  # head 0
    weight = attention_at_offset(t5.params, t5.config, tokens, 3)[0, 0]
    stays = np.mean(peaks[64:128] == 3) > 0.95
    fades = np.mean(weight[64:128]) < 0.5 * np.mean(weight[3:32])
    if stays and fades:
        return "grows fainter"
    return "as sharp as" if stays else "breaks up"


@evidence("deployed_at_32")
def _():
    from posenc_lib.extension_study import load_extension_study
    from posenc_lib.records import select

    (records,) = load_extension_study()

    def at_32(method):
        rows = select(records, method=method, eval_len=32, stage="before")
        return [r["value"] for r in sorted(rows, key=lambda r: (r["task"], r["config"], r["seed"]))]

    changes = {m: at_32(m) != at_32("plain") for m in ("llama3", "dynamic-ntk")}
    if changes["llama3"] and changes["dynamic-ntk"]:
        return "both"
    if changes["llama3"] or changes["dynamic-ntk"]:
        return "only Llama 3.1's scaling" if changes["llama3"] else "only dynamic NTK"
    return "neither"


@evidence("untrained_strips")
def _():
    from posenc_lib.learned import cosine_similarity

    rng = np.random.default_rng(0)
    before = rng.normal(size=(64, 32))
    after = np.concatenate([rng.normal(size=(32, 32)), before[32:]])  # only rows 0-31 trained
    old, new = cosine_similarity(before), cosine_similarity(after)
    assert np.allclose(old[32:, 32:], new[32:, 32:])  # untrained x untrained: unchanged
    strips_move = not np.allclose(old[32:, :32], new[32:, :32])
    assert np.all(np.abs(new[32:, :32]) > 0) and not np.allclose(new[32:, :32], new[:32, :32])
    return "they change" if strips_move else "they never change"


@evidence("why_sinusoids")
def _():
    from posenc_lib.learned import cosine_similarity
    from posenc_lib.sinusoidal import shift_matrix

    table = sinusoidal_positions(300, 16)
    assert np.allclose(table[:200] @ shift_matrix(7, 16).T, table[7:207])  # one M_k for every p
    assert sinusoidal_positions(5000, 16).shape == (5000, 16)  # a vector at every position
    assert cosine_similarity(sinusoidal_positions(64, 32)).min() > 0.3  # (c): not at right angles
    return "one matrix M_k for every p"


@evidence("pair_slider")
def _():
    from posenc_lib.widgets import RopeExplorer

    explorer = RopeExplorer()
    explorer.m.value, explorer.n.value = 3, 7
    slower = bool(np.all(np.diff(3 * explorer.theta) < 0))  # pair i turns by m theta_i
    score = explorer.score(3, 7)
    for i in range(8):  # the pair slider changes the drawing, not the score
        explorer.pair.value = i
        assert explorer.score(explorer.m.value, explorer.n.value) == score
    assert slower
    return "shrink from pair to pair"  # and the marker stays: the score does not move


@evidence("unseen_angles")
def _():
    from posenc_lib import rope_frequencies

    d, trained, used = 128, 2048, 8192
    theta = rope_frequencies(d)
    completed = (trained - 1) * theta >= 2 * np.pi  # pairs that saw every direction in training
    new_direction = (used - 1) * theta > (trained - 1) * theta
    assert np.all(new_direction)  # every angle grows ...
    assert completed[0] and not completed[-1]  # ... but only the slow pairs meet new directions
    return "the slow pairs, which never completed a turn"


@evidence("new_buckets")
def _():
    from posenc_lib.t5 import t5_bucket

    trained = set(t5_bucket(-np.arange(128), bidirectional=False).tolist())
    longer = set(t5_bucket(-np.arange(1000), bidirectional=False).tolist())
    return "none" if not longer - trained else f"{len(longer - trained)} new"


@evidence("trick_without_mask")
def _():
    from posenc_lib import softmax

    rng = np.random.default_rng(0)
    scores, m = rng.normal(size=(6, 6)), 0.5
    i, j = np.arange(6)[:, None], np.arange(6)[None, :]
    paper, shortcut = softmax(scores - m * np.abs(i - j)), softmax(scores + m * j)
    assert not np.allclose(paper, shortcut)
    masked = np.tril(np.ones((6, 6), dtype=bool))
    assert np.allclose(
        softmax(np.where(masked, scores - m * (i - j), -np.inf)),
        softmax(np.where(masked, scores + m * j, -np.inf)),
    )
    return "no longer differ by a constant along a row"


@evidence("gentle_head")
def _():
    from posenc_lib.widgets import AlibiExplorer

    explorer = AlibiExplorer()
    with_alibi = explorer.biased[7, 31, 28:].sum()
    without = explorer.plain[31, 28:].sum()
    assert abs(with_alibi - without) < 0.05
    return "nearly the same share"


@evidence("one_head_offset")
def _():
    from posenc_lib import alibi_bias, softmax

    weights = softmax(np.where(causal_mask(16), alibi_bias(16, 8), -np.inf))[:, 15, ::-1]
    assert set(np.argmax(weights, axis=1).tolist()) == {0}
    return "at distance 0, for every head"


@evidence("flat_line")
def _():
    records = load_study()[0]
    summary = summarize(records, config="4x8+mlp")
    alibi = [summary[("lookback-3", "alibi", n)][0] for n in (32, 64, 128, 256)]
    best = max(summary[("lookback-3", s, 32)][0] for s in ("sinusoidal", "learned", "rope"))
    assert max(alibi) - min(alibi) < 0.1  # flat ...
    assert alibi[0] < best - 0.3  # ... at a level far below what the task allows (at 400 steps;
    # tests/test_claims_ch06.py trains it 400 steps more and it keeps learning)
    return "had not learnt"


@evidence("interpolation")
def _():
    query, key = interpolate_positions([10.0, 7.0], 4.0)
    far_query, far_key = interpolate_positions([19.0, 7.0], 4.0)
    assert far_query - far_key == 3.0  # the key 12 back now sits at the learnt offset 3
    return f"offset {query - key}"


@evidence("which_mode")
def _():
    from posenc_lib import realtext

    records, _ = realtext.load_sweep()
    # the whole window's score, starved chunk starts included (sliding scores only unseen positions)
    chunks, sliding = (
        realtext.summarize(records, mode=m, region="all") for m in ("nonoverlapping", "sliding")
    )

    def better(scheme):
        return (
            "sliding" if sliding[(scheme, 128)][0] < chunks[(scheme, 128)][0] else "non-overlapping"
        )

    return f"{better('sinusoidal')} is better for sinusoidal, {better('alibi')} is better for ALiBi"


@evidence("split_by_topic")
def _():
    from posenc_lib.corpus import read_topics, split_topics

    topics = read_topics()["topics"]
    train, validation = split_topics(topics)  # the split by topic alone, before any passage is cut
    assert "else" in validation
    read = any(topics["else"] in topics[name] for name in train)
    return "has read those characters" if read else "never saw the topic"


@evidence("turning_pairs")
def _():
    from posenc_lib.rope import pairs_completing_a_turn

    turning = pairs_completing_a_turn(8, 32).tolist()  # a head of width 8, 32 training positions
    return "only pair 0" if turning == [0] else f"pairs {turning}"


@evidence("fair_test")
def _():
    records = load_study()[0]
    lengths = {}
    for r in records:  # every model: trained at 32, then the same parameters scored longer
        key = (r["task"], r["scheme"], r["config"], r["seed"])
        assert r["train_len"] == 32
        lengths.setdefault(key, set()).add(r["eval_len"])
    assert all(n == {32, 64, 128, 256} for n in lengths.values())
    return "the same trained model"


@evidence("read_interval")
def _():
    from posenc_lib.stats import paired_interval, t_quantile

    spread = np.array([-1.0, 1.0] * 5)  # ten differences with mean +0.030 ...
    half = 0.040  # ... and a half-width of 0.040: s = 0.040 sqrt(10) / t(0.975, 9)
    d = 0.030 + spread * half * np.sqrt(10) / t_quantile(0.975, 9) * np.sqrt(9 / 10)
    mean, low, high = paired_interval(d)
    assert (round(mean, 3), round(low, 3), round(high, 3)) == (0.03, -0.01, 0.07)
    return "not established" if low <= 0 <= high else "established"


def _option_texts(exercise):
    """Each option's words: from the prompt for lettered options, '(a) ...;', else the key."""
    described = dict(re.findall(r"\((\w)\) ([^;]*)", exercise.prompt))
    return {key: described.get(key, str(key)) for key in exercise.options}


CHAPTER_QUESTIONS = {e.name: e for chapter, e in CHOICES if chapter != "ch08"}  # ch08: the quiz


def test_every_chapter_question_has_its_own_evidence():
    assert set(EVIDENCE) == set(CHAPTER_QUESTIONS)


@pytest.mark.parametrize("name", sorted(EVIDENCE))
def test_the_chapter_answer_key_agrees_with_the_evidence(name):
    phrase = EVIDENCE[name]()
    question = CHAPTER_QUESTIONS[name]
    holding = [key for key, text in _option_texts(question).items() if phrase in text]
    assert holding == [question.correct], (phrase, holding)
