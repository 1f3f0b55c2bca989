"""Chapter 07's experiment: which characters each evaluation mode scores, bits per character
equal to the training loss, records in the study's format with the mode, a resumable sweep whose
results do not depend on the number of workers, the command line, the table and the figure."""

import math
import re
import subprocess
import sys

import numpy as np
import pytest

from posenc_lib import provenance, realtext, records, sweep
from posenc_lib.corpus import load_corpus
from posenc_lib.model import init_params, loss_fn, region_value
from posenc_lib.plots import plot_results
from posenc_lib.realtext import (
    MODES,
    model_config,
    results_table,
    score,
    sliding_stride,
    summarize,
    sweep_jobs,
    windows,
)
from posenc_lib.tasks import IGNORE


def score_text(params, config, ids, length, mode, *, n_scored=realtext.N_SCORED, start=None):
    """Per-position (bits, counts) of a model on ``ids``, as the sweep scores them (None where
    the model cannot run at ``length``): built here from the library's windows and score."""
    from posenc_lib.model import length_problem

    if length_problem(config, length):
        return None
    start = realtext.START if start is None else start
    return score(params, config, *windows(ids, length, mode, n_scored=n_scored, start=start))


TINY = {"steps": 3, "train_len": 8, "eval_lens": (8, 16, 32), "n_scored": 64, "variants": ()}
RECORD_KEYS = {
    "task",
    "scheme",
    "config",
    "seed",
    "train_len",
    "eval_len",
    "mode",
    "region",
    "metric",
    "value",
}


def scored_positions(ids, length, mode, **options):
    """The stream positions of the characters a mode scores."""
    tokens, targets = windows(np.arange(len(ids)), length, mode, **options)
    positions = tokens + 1  # a target is the character after its token
    return np.sort(positions[targets != IGNORE])


# -- which characters are scored ------------------------------------------------------------


@pytest.mark.parametrize("length", realtext.EVAL_LENS)
def test_both_modes_score_the_same_characters_at_every_length_each_once(length):
    ids = realtext.evaluation_ids(load_corpus().validation)
    expected = np.arange(realtext.START + 1, realtext.START + 1 + realtext.N_SCORED)
    for mode in MODES:
        assert np.array_equal(scored_positions(ids, length, mode), expected)


def test_the_sweep_scores_the_validation_text_from_its_first_character_on_every_topic():
    """All but the last 409 characters of the validation text are scored, and every
    validation topic is scored, all of it but the end of the last one."""
    corpus = load_corpus()
    ids = realtext.evaluation_ids(corpus.validation)
    _, targets = windows(ids, 1024, "nonoverlapping")
    assert np.array_equal(targets.ravel(), corpus.validation[: realtext.N_SCORED])
    assert len(corpus.validation) // 1024 * 1024 == realtext.N_SCORED
    assert len(corpus.validation) - realtext.N_SCORED == 409
    rows = realtext.scored_topics(corpus)
    assert [name for name, _, _ in rows] == list(corpus.validation_topics)
    assert all(scored == total for _, scored, total in rows[:-1])
    assert 0.95 < rows[-1][1] / rows[-1][2] < 1


def test_the_context_before_the_first_scored_character_is_validation_text():
    corpus = load_corpus()
    ids = realtext.evaluation_ids(corpus.validation)
    assert np.array_equal(ids[: realtext.START + 1], corpus.validation[-realtext.START - 1 :])
    with pytest.raises(ValueError, match="evaluation_ids: validation must be a 1-d stream"):
        realtext.evaluation_ids(np.arange(5), start=5)


@pytest.mark.parametrize("length", realtext.EVAL_LENS)
def test_every_character_a_sliding_window_scores_sees_three_quarters_of_a_window(length):
    ids = realtext.evaluation_ids(load_corpus().validation)
    tokens, targets = windows(ids, length, "sliding")
    scored = np.flatnonzero(np.any(targets != IGNORE, axis=0))
    assert scored.min() == length - sliding_stride(length) >= 3 * length // 4
    assert scored.max() == length - 1
    assert np.all(targets[:, scored] != IGNORE)


@pytest.mark.parametrize("mode", MODES)
def test_windows_are_runs_of_the_text_and_targets_are_the_next_characters(mode):
    stream = np.arange(40_000)  # ids equal to their position in the stream
    tokens, targets = windows(stream, 64, mode)
    assert np.all(np.diff(tokens, axis=1) == 1)
    scored = targets != IGNORE
    assert np.array_equal(targets[scored], tokens[scored] + 1)


def test_nonoverlapping_chunks_follow_each_other_without_gaps():
    tokens, _ = windows(np.arange(100), 8, "nonoverlapping", n_scored=32, start=10)
    assert tokens.ravel().tolist() == list(range(10, 42))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"ids": np.arange(100.0)}, TypeError, "windows: ids must be a 1-d array of int"),
        ({"length": 0}, ValueError, "windows: length must be an integer >= 1, got 0"),
        ({"mode": "strided"}, ValueError, "windows: mode must be one of 'nonoverlapping'"),
        ({"n_scored": 30}, ValueError, "n_scored must be a multiple of length=8, got 30"),
        ({"n_scored": 96}, ValueError, r"start \+ n_scored \+ 1 must be <= len\(ids\) = 100"),
        ({"mode": "sliding", "start": 5}, ValueError, "start must be >= 6 .* got 5"),
        # length 9 slides by 2: 9 scored characters would be 10 (5 windows of 2), so refused
        (
            {"length": 9, "n_scored": 9, "mode": "sliding"},
            ValueError,
            r"windows: n_scored must be a multiple of the sliding stride 2 \(sliding_stride\(9\)\), got 9",
        ),
    ],
)
def test_windows_reject_bad_arguments_naming_them(kwargs, error, message):
    arguments = {
        "ids": np.arange(100),
        "length": 8,
        "mode": "nonoverlapping",
        "n_scored": 32,
        "start": 10,
    }
    arguments.update(kwargs)
    ids = arguments.pop("ids")
    with pytest.raises(error, match=message):
        windows(ids, **arguments)


# -- bits per character ----------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope", "t5", "learned"])
@pytest.mark.parametrize("mode", MODES)
def test_scored_bits_per_character_equal_the_training_loss_in_bits(scheme, mode):
    config = model_config(scheme)
    params = init_params(config, 3)
    tokens, targets = windows(load_corpus().validation, 64, mode, n_scored=512, start=64)
    bits = region_value(*score(params, config, tokens, targets))
    nats = float(loss_fn(params, tokens, targets, config))
    assert bits == pytest.approx(nats / math.log(2), abs=1e-12)


def test_score_refuses_one_dimensional_tokens_and_targets_of_another_shape():
    config = model_config("alibi")
    params = init_params(config)
    tokens, targets = windows(load_corpus().validation, 8, "nonoverlapping", n_scored=16, start=8)
    with pytest.raises(ValueError, match=r"score: tokens must have 2 axes, got .*shape \(16,\)"):
        score(params, config, tokens.ravel(), targets.ravel())
    with pytest.raises(
        ValueError,
        match=r"score: targets must have the shape of tokens \(2, 8\).*got shape \(2, 7\)",
    ):
        score(params, config, tokens, targets[:, 1:])


def test_small_batches_score_what_one_batch_scores():
    config = model_config("alibi")
    params = init_params(config, 1)
    tokens, targets = windows(load_corpus().validation, 32, "sliding", n_scored=256, start=64)
    one = score(params, config, tokens, targets)
    many = score(params, config, tokens, targets, batch_elements=32 * 32 * 3)
    assert np.allclose(one[0], many[0], atol=1e-9) and np.array_equal(one[1], many[1])


def test_a_learned_table_cannot_run_past_its_rows():
    config = model_config("learned")
    params = init_params(config)
    ids = load_corpus().validation
    assert score_text(params, config, ids, 128, "sliding") is None
    assert score_text(params, config, ids, 64, "sliding", n_scored=64) is not None


def test_an_untrained_model_pays_about_log2_of_the_vocabulary():
    config = model_config("none")
    bits = region_value(
        *score_text(
            init_params(config),
            config,
            realtext.evaluation_ids(load_corpus().validation),
            64,
            "nonoverlapping",
        )
    )
    assert abs(bits - math.log2(103)) < 1.5


def test_t5_buckets_reach_the_training_length_and_shrink_for_short_ones():
    assert (model_config("t5").t5_buckets, model_config("t5").t5_max_distance) == (32, 64)
    assert (
        model_config("t5", train_len=8).t5_buckets,
        model_config("t5", train_len=8).t5_max_distance,
    ) == (8, 8)


# -- the sweep -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("realtext")
    realtext.run_sweep(
        out=out, schemes=("none", "learned", "alibi"), seeds=(0,), workers=1, progress=False, **TINY
    )
    return out, {"results": out / "results.json"}


def test_records_are_the_studys_format_plus_the_evaluation_mode(tiny_sweep):
    records, curves = realtext.load_sweep(tiny_sweep[0])
    assert all(set(r) == RECORD_KEYS for r in records)
    assert {r["task"] for r in records} == {"pydoc-topics"}
    assert {r["metric"] for r in records} == {"bits_per_char"}
    assert {r["mode"] for r in records} == set(MODES)
    # regions as in chapter 6: "unseen" only past the training length
    for r in records:
        if r["region"] == "unseen":
            assert r["eval_len"] > r["train_len"]
    per_model = len(TINY["eval_lens"]) * 2 + (len(TINY["eval_lens"]) - 1) * 2
    assert len(records) == 3 * per_model
    learned = [r for r in records if r["scheme"] == "learned" and r["eval_len"] > 8]
    assert learned and all(r["value"] is None for r in learned)
    assert {(c["scheme"], c["eval_len"]) for c in curves} == {
        ("none", 8),
        ("none", 32),
        ("learned", 8),
        ("alibi", 8),
        ("alibi", 32),
    }


def test_unseen_region_of_a_sliding_window_is_every_scored_character_from_2l_on(tiny_sweep):
    records, _ = realtext.load_sweep(tiny_sweep[0])
    for r in records:
        if (
            r["mode"] == "sliding"
            and r["eval_len"] >= 2 * r["train_len"]
            and r["value"] is not None
        ):
            twin = [
                s["value"]
                for s in records
                if {**s, "region": r["region"]} == r and s["region"] != r["region"]
            ]
            assert twin == [pytest.approx(r["value"])]


def test_a_rerun_resumes_from_the_progress_file_and_trains_nothing_again(tiny_sweep, monkeypatch):
    out, paths = tiny_sweep
    before = paths["results"].read_text()
    lines = (out / "progress.jsonl").read_text().count("\n")

    def fail(job):
        raise AssertionError(f"trained again: {job}")

    import dataclasses

    failing = dataclasses.replace(realtext.REALTEXT, runner=fail)
    failing.run(
        out=out, schemes=("none", "learned", "alibi"), seeds=(0,), workers=1, progress=False, **TINY
    )
    assert paths["results"].read_text() == before
    assert (out / "progress.jsonl").read_text().count("\n") == lines


def test_a_run_now_trains_the_models_the_sweep_records(tiny_sweep, capsys):
    swept = realtext.load_sweep(tiny_sweep[0])
    files, models = realtext.run_sweep(
        schemes=("none", "learned", "alibi"), progress=False, keep_models=True, **TINY
    )
    assert files == swept  # in job order, the same numbers
    assert capsys.readouterr().err == ""
    assert list(models) == [("none", 0), ("learned", 0), ("alibi", 0)]
    assert [len(m.losses) for m in models.values()] == [TINY["steps"]] * 3
    assert models["alibi", 0].config == model_config("alibi", train_len=8, vocab_size=None)
    (chosen, _), _ = realtext.run_sweep(
        schemes=("none",), seeds=(1,), progress=False, keep_models=True, **TINY
    )
    assert {r["seed"] for r in chosen} == {1}


def test_the_command_line_prints_both_modes_tables_and_resumes(tmp_path, monkeypatch, capsys):
    argv = ["--tiny", "--workers", "1", "--no-progress", "--out", str(tmp_path)]
    realtext.main(argv)
    printed = capsys.readouterr().out
    records = realtext.load_sweep(tmp_path)[0]
    tables = "\n\n".join(results_table(records, mode=m, region="all") for m in MODES) + "\n"
    assert printed.startswith(tables)
    assert printed.splitlines()[0] == (
        "bits per character, non-overlapping chunks, mean (min-max) over 1 seed"
    )
    assert "bits per character, sliding windows" in printed and "cannot run" in printed
    assert {r["scheme"] for r in records} == set(realtext.REALTEXT.tiny["schemes"])
    figure = tmp_path / "results.png"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and figure.stat().st_size > 10_000
    stamp = provenance.load_provenance(tmp_path / "results.json")
    assert stamp["settings"]["options"]["steps"] == realtext.REALTEXT.tiny["steps"]

    def trained_again(job, **_):
        raise AssertionError(f"trained again: {job}")

    real = sweep.run_jobs
    monkeypatch.setattr(sweep, "run_jobs", lambda jobs, _, **kw: real(jobs, trained_again, **kw))
    realtext.main(argv)  # every model is in progress.jsonl: the same tables, nothing trained
    assert capsys.readouterr().out.startswith(tables)


@pytest.mark.slow
def test_results_do_not_depend_on_the_number_of_workers(tiny_sweep, tmp_path):
    records = realtext.load_sweep(tiny_sweep[0])[0]
    parallel = realtext.run_sweep(
        out=tmp_path,
        schemes=("none", "learned", "alibi"),
        seeds=(0,),
        workers=2,
        progress=False,
        **TINY,
    )
    again = parallel[0]
    assert [r["value"] for r in again] == pytest.approx([r["value"] for r in records], abs=1e-9)


def test_sweep_jobs_reject_bad_settings_naming_them():
    with pytest.raises(ValueError, match=r"sweep_jobs: schemes\[1\] must be one of"):
        sweep_jobs(("alibi", "xpos"))
    with pytest.raises(ValueError, match="eval_lens must include train_len=64"):
        sweep_jobs(eval_lens=(128, 256))
    with pytest.raises(
        ValueError, match=r"sweep_jobs: eval_lens\[0\] must be an integer >= 64, got 32"
    ):
        sweep_jobs(eval_lens=(32, 64))
    with pytest.raises(TypeError, match="sweep_jobs: steps must be an integer"):
        sweep_jobs(steps=10.5)
    with pytest.raises(
        ValueError, match="sweep_jobs: n_scored must be a multiple of length=64, got 1000"
    ):
        sweep_jobs(n_scored=1000)  # refused before any model trains, not when it is scored
    with pytest.raises(ValueError, match="sweep_jobs: n_scored must be a multiple of the sliding"):
        sweep_jobs(train_len=9, eval_lens=(9,), n_scored=9)


def test_every_sliding_window_set_scores_exactly_n_scored_characters():
    ids = np.arange(400)
    for length in range(1, 20):
        stride = realtext.sliding_stride(length)
        n_scored = length * stride  # a multiple of both
        for mode in realtext.MODES:
            _, targets = windows(ids, length, mode, n_scored=n_scored, start=length)
            scored = targets[targets >= 0]
            assert scored.tolist() == list(range(length + 1, length + 1 + n_scored))


def test_the_full_sweep_is_6_schemes_by_10_seeds_at_5_lengths_in_2_modes_and_3_variants_by_3():
    jobs = sweep_jobs(seeds=realtext.SEEDS)
    assert len(jobs) == 60
    assert sweep_jobs() == [j for j in jobs if j["seed"] == 0]  # by default, seed 0
    assert {j["scheme"] for j in jobs} == set(realtext.SCHEMES)
    full = sweep_jobs(
        seeds=realtext.SEEDS,
        variants=tuple(realtext.VARIANTS),
        variant_seeds=realtext.VARIANT_SEEDS,
    )
    variants = full[60:]
    assert len(full) == 69 and {j["seed"] for j in variants} == {0, 1, 2}
    assert [(j["scheme"], j["config"]) for j in variants[::3]] == [
        ("t5", "t5-buckets-to-32"),
        ("alibi", "alibi-8-heads"),
        ("rope", "rope-2-heads"),
    ]
    assert len(realtext.REALTEXT.jobs(**realtext.FULL)) == 69
    assert sweep_jobs(("none",), variants=("t5-buckets-to-32",)) == sweep_jobs(("none",))
    with pytest.raises(ValueError, match=r"sweep_jobs: variants\[0\] must be one of"):
        sweep_jobs(variants=("rope-base-500",))
    assert {j["seed"] for j in jobs} == set(range(10))
    assert jobs[0]["eval_lens"] == [64, 128, 256, 512, 1024]
    assert jobs[0]["modes"] == ["nonoverlapping", "sliding"]


@pytest.mark.slow
def test_the_command_line_writes_results_curves_and_a_figure(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "posenc_lib.realtext",
            "--tiny",
            "--no-progress",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "bits per character, non-overlapping chunks" in run.stdout
    assert "cannot run" in run.stdout
    for name in ("results.json", "curves.json", "results.png", "progress.jsonl"):
        assert (tmp_path / name).exists()


# -- reading the records ---------------------------------------------------------------------


def test_summaries_table_and_figure_read_the_records(tiny_sweep):
    import matplotlib.pyplot as plt

    from posenc_lib.plots import style_problems, use_house_style

    records, curves = realtext.load_sweep(tiny_sweep[0])
    summary = summarize(records, mode="sliding", region="all")
    assert summary[("learned", 16)] is None
    mean, low, high = summary[("alibi", 8)]
    assert low <= mean <= high
    table = results_table(records, mode="sliding", region="unseen")
    assert "cannot run" in table and "2L = 16" in table
    for digits in (0, 1, 2, 3):  # every cell stands apart from the next, at any precision
        rows = results_table(records, mode="sliding", digits=digits).splitlines()[2:]
        assert all(re.search(r"\)\S", row) is None for row in rows), rows
    with plt.rc_context():  # the house style changes global defaults; keep them to this test
        use_house_style()
        fig, ax = plt.subplots()
        plot_results(records, mode="sliding", region="all", axes=[ax])
        assert style_problems(fig) == []
        plt.close(fig)
    centres, mean, low, high = realtext.position_bits(curves, "alibi", 8, bin_width=4)
    assert centres.tolist() == [1.5, 5.5] and np.all(low <= mean) and np.all(mean <= high)
    with pytest.raises(ValueError, match="position_bits: no record has scheme='rope'"):
        realtext.position_bits(curves, "rope", 8)


def test_the_excess_curve_compares_each_character_with_itself_in_a_chunk_of_the_training_length(
    tiny_sweep,
):
    """At positions below the training length a long chunk gives a character exactly the
    context a short chunk gives it, so its excess there is zero up to rounding."""
    _, curves = realtext.load_sweep(tiny_sweep[0])
    centres, mean, low, high = realtext.position_bits(curves, "alibi", 32, field="excess")
    assert np.all(np.abs(high[:8]) < 1e-3) and np.all(np.abs(low[:8]) < 1e-3)
    assert np.any(np.abs(mean[8:]) > 1e-3)
    with pytest.raises(ValueError, match="no excess curve"):
        realtext.position_bits(curves, "alibi", 8, field="excess")


def test_paired_differences_are_per_seed_and_leave_out_models_that_cannot_run(tiny_sweep):
    recs, _ = realtext.load_sweep(tiny_sweep[0])
    chosen = {"eval_len": 16, "mode": "sliding", "region": "all", "config": realtext.CONFIG_NAME}
    pairs = records.paired_differences(recs, "scheme", "alibi", "none", **chosen)
    rows = {
        (r["scheme"], r["seed"]): r["value"]
        for r in recs
        if r["eval_len"] == 16 and r["mode"] == "sliding" and r["region"] == "all"
    }
    assert [p["difference"] for p in pairs] == [rows["alibi", 0] - rows["none", 0]]
    with pytest.raises(
        ValueError, match="paired_differences: no record of 'learned' has a partner"
    ):
        records.paired_differences(recs, "scheme", "learned", "none", **chosen)


# -- bad input, and the edges of the summaries -----------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: realtext.position_bits(hand_curves(), "rope", 4, bin_width=0),
            ValueError,
            "position_bits: bin_width must be an integer >= 1, got 0",
        ),
        (
            lambda: realtext.position_bits([], "rope", 64, field="bits"),
            ValueError,
            "position_bits: field must be one of 'totals', 'excess', got 'bits'",
        ),
        (
            lambda: realtext.scored_topics(n_scored=-1),
            ValueError,
            "scored_topics: n_scored must be an integer >= 0, got -1",
        ),
    ],
    ids=["bin-width", "field", "n-scored"],
)
def test_the_real_text_summaries_refuse_bad_arguments_naming_them(call, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        call()


def hand_curves():
    return [{"scheme": "rope", "eval_len": 4, "totals": [1.0] * 4, "counts": [1] * 4}]


def test_paired_differences_pair_only_the_seeds_both_models_have():
    rows = [
        {"scheme": s, "config": realtext.CONFIG_NAME, "seed": k, "eval_len": 64}
        | {"mode": "sliding", "region": "all", "value": v}
        for s, k, v in [("rope", 0, 2.0), ("rope", 1, 3.0), ("alibi", 1, 2.5), ("alibi", 2, 9.0)]
    ]
    pairs = records.paired_differences(rows, "scheme", "rope", "alibi", mode="sliding")
    assert [(p["seed"], p["difference"]) for p in pairs] == [(1, 0.5)]


def test_position_bits_average_each_bin_over_its_characters_and_take_curves_without_a_config():
    curve = {
        "scheme": "rope",
        "eval_len": 4,
        "totals": [3.0, 1.0, 4.0, 2.0],
        "counts": [1, 1, 1, 0],
    }
    centres, mean, low, high = realtext.position_bits([curve], "rope", 4, bin_width=2)
    # bins (0, 1) and (2, 3): 4 bits over 2 characters, 6 bits over 1 character
    assert centres.tolist() == [0.5, 2.5] and mean.tolist() == low.tolist() == [2.0, 6.0]
    centres, mean, _, _ = realtext.position_bits([curve], "rope", 4)  # one position per bin
    assert mean.tolist()[:3] == [3.0, 1.0, 4.0] and np.isnan(mean[3])  # nothing scored: no value
    other = {**curve, "config": "another"}
    with pytest.raises(ValueError, match="no totals curve of 'rope'"):
        realtext.position_bits([other], "rope", 4)


def test_scored_topics_count_the_characters_scored_in_each_validation_topic():
    corpus = load_corpus()
    assert realtext.scored_topics() == realtext.scored_topics(corpus)  # the corpus by default
    spans = corpus.validation_spans
    first_length = spans[0][2] - spans[0][1]
    counts = realtext.scored_topics(corpus, n_scored=first_length + 10)
    assert counts[0] == (spans[0][0], first_length, first_length)
    assert counts[1][1] == 10 - (spans[1][1] - spans[0][2])  # minus the newline between topics
    assert all(scored == 0 for _, scored, _ in counts[2:])  # topics past n_scored: none
    assert all(scored == 0 for _, scored, _ in realtext.scored_topics(corpus, n_scored=0))
    everything = realtext.scored_topics(corpus, n_scored=len(corpus.validation))  # the whole text
    assert [scored for _, scored, _ in everything] == [size for _, _, size in everything]
    with pytest.raises(ValueError, match=r"n_scored must be <= \d+ \(the validation text\)"):
        realtext.scored_topics(corpus, n_scored=len(corpus.validation) + 1)

    class Tiny:  # any corpus with a validation text and its topics' spans
        validation = "ab\ncd"
        validation_spans = (("first", 0, 2), ("second", 3, 5))

    assert realtext.scored_topics(Tiny(), n_scored=4) == [("first", 2, 2), ("second", 1, 2)]


def hand_records():
    """Two seeds of three schemes in both modes, a scheme only in sliding mode, another config."""

    def rec(scheme, seed, n, mode, region, value, config=realtext.CONFIG_NAME):
        return {"task": "pydoc-topics", "scheme": scheme, "config": config, "seed": seed} | {
            "train_len": 8,
            "eval_len": n,
            "mode": mode,
            "region": region,
            "metric": "bits_per_char",
            "value": value,
        }

    rows = []
    for mode, shift in [("nonoverlapping", 0.0), ("sliding", 0.5)]:
        for seed, s in [(0, 0.0), (1, 0.25)]:
            rows += [
                rec("rope", seed, 8, mode, "all", 2.0 + shift + s),
                rec("rope", seed, 16, mode, "all", 3.0 + shift + s),
                rec("rope", seed, 16, mode, "unseen", 4.0 + shift + s),
                rec("learned", seed, 8, mode, "all", 1.0 + shift + s),
                rec("learned", seed, 16, mode, "all", None),
                rec("learned", seed, 16, mode, "unseen", None),
                rec("alibi", seed, 8, mode, "all", 1.5 + shift + s),  # never run at 16
                rec("t5", seed, 8, mode, "all", 9.0, config="another"),
            ]
    rows += [rec("t5", 0, 16, "sliding", "unseen", 5.0)]  # a scheme not run at the training length
    return rows + [rec("sinusoidal", 2, 24, "sliding", "all", 7.0)]  # sliding mode only


def test_results_table_reads_one_mode_and_region_of_its_configuration_written_out():
    records = [r for r in hand_records() if r["scheme"] != "sinusoidal" or r["mode"] != "sliding"]
    assert results_table(records, region="all") == "\n".join(
        [
            "bits per character, non-overlapping chunks, mean (min-max) over 2 seeds",
            "scheme                  L = 8          2L = 16",
            "rope         2.12 (2.00-2.25) 3.12 (3.00-3.25)",
            "learned      1.12 (1.00-1.25)       cannot run",
            "alibi        1.62 (1.50-1.75)          not run",
        ]
    )
    # unseen: the training length's column is over all positions (nothing there is unseen)
    assert results_table(records, mode="sliding", region="unseen", digits=1) == "\n".join(
        [
            "bits per character, sliding windows, unseen positions (at L: all), mean (min-max) "
            "over 2 seeds",
            "scheme               L = 8       2L = 16",
            "rope         2.6 (2.5-2.8) 4.6 (4.5-4.8)",
            "learned      1.6 (1.5-1.8)    cannot run",
            "alibi        2.1 (2.0-2.2)       not run",
            "t5                 not run 5.0 (5.0-5.0)",  # no record at L = 8: not "cannot run"
        ]
    )
    one_seed = results_table([r for r in records if r["seed"] == 0], region="all").splitlines()
    assert one_seed[0].endswith("over 1 seed") and one_seed[2].startswith("rope         2.00")
    sliding_only = results_table(hand_records()).splitlines()  # another mode's scheme: absent
    assert [line.split()[0] for line in sliding_only[2:]] == ["rope", "learned", "alibi"]


def test_summarize_selects_one_mode_region_and_configuration():
    records = hand_records()
    assert realtext.summarize(records, mode="sliding", region="unseen") == {
        ("rope", 8): (2.625, 2.5, 2.75),  # at L, where nothing is unseen: all positions
        ("rope", 16): (4.625, 4.5, 4.75),
        ("learned", 8): (1.625, 1.5, 1.75),
        ("learned", 16): None,
        ("alibi", 8): (2.125, 2.0, 2.25),
        ("t5", 16): (5.0, 5.0, 5.0),
    }
    by_default = realtext.summarize(records)  # non-overlapping chunks, unseen, CONFIG_NAME
    assert by_default == realtext.summarize(
        records, mode="nonoverlapping", region="unseen", config=realtext.CONFIG_NAME
    )
    assert set(by_default) == {
        ("rope", 8),
        ("rope", 16),
        ("learned", 8),
        ("learned", 16),
        ("alibi", 8),
    }
    assert by_default["rope", 8] == (2.125, 2.0, 2.25)  # at L: all positions
    assert by_default["rope", 16] == (4.125, 4.0, 4.25)  # past it: the unseen ones
    assert realtext.summarize(records, config="another") == {("t5", 8): (9.0, 9.0, 9.0)}
    for name, value, message in [
        (
            "mode",
            "chunks",
            "no record has mode='chunks'; mode is one of ['nonoverlapping', 'sliding']",
        ),
        ("region", "seen", "region must be one of 'all', 'unseen', got 'seen'"),
    ]:
        with pytest.raises(ValueError, match=f"^summarize: {re.escape(message)}$"):
            realtext.summarize(records, **{name: value})


def test_the_report_draws_both_modes_side_by_side_sharing_the_bits_axis(tmp_path, monkeypatch):
    import matplotlib.figure

    from posenc_lib import plots

    drawn, saved = [], []
    plot_results_ = plots.plot_results

    def plot_results_spy(records, **kwargs):
        drawn.append({k: v for k, v in kwargs.items() if k != "axes"} | {"axes": kwargs["axes"]})
        return plot_results_(records, **kwargs)

    savefig = matplotlib.figure.Figure.savefig

    def savefig_spy(fig, *args, **kwargs):
        saved.append(fig)
        return savefig(fig, *args, **kwargs)

    monkeypatch.setattr(plots, "plot_results", plot_results_spy)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig_spy)
    records = realtext.load_sweep()[0]
    text = realtext.report(records, tmp_path)
    assert text == "\n\n".join(results_table(records, mode=m, region="all") for m in MODES) + "\n"
    (fig,) = saved
    left, right = fig.axes[:2]
    assert left.get_position().x1 <= right.get_position().x0  # side by side, not stacked
    assert [d["mode"] for d in drawn] == list(MODES)
    assert [d["axes"] for d in drawn] == [[left], [right]]
    assert all(d["config"] == realtext.CONFIG_NAME and d["region"] == "all" for d in drawn)
    assert [d["legend"] for d in drawn] == [False, True]  # one legend, beside the right panel
    assert [ax.get_title() for ax in (left, right)] == [realtext.MODE_NAMES[m] for m in MODES]
    assert left.get_shared_y_axes().joined(left, right)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    png = (tmp_path / "results.png").read_bytes()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (880, 288)  # 11 x 3.6 inches at 80 dpi


def test_the_command_line_help_names_the_sweep_and_what_quick_runs(capsys):
    with pytest.raises(SystemExit):
        realtext.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: python -m posenc_lib.realtext")
    first, second = realtext.__doc__.split("\n\n")[:2]
    assert " ".join(first.split()) in text and " ".join(second.split()) not in text
    assert "--quick seed 0 only (6 models)" in text


def test_train_and_score_assembles_records_curves_excess_and_training_bits_from_its_model():
    from posenc_lib.corpus import text_task
    from posenc_lib.model import train

    options = {"steps": 52, "train_len": 8, "eval_lens": (8, 32), "n_scored": 64, "variants": ()}
    (job,) = realtext.sweep_jobs(("rope",), (1,), **options)
    job = {**job, "start": 40}  # not the default start: it must reach the scored windows
    out = realtext.train_and_score(job)
    corpus = load_corpus()
    config = model_config("rope", train_len=8, vocab_size=corpus.vocab_size)
    model = out["result"]
    assert model.config == config
    again = train(config, text_task(corpus), steps=52, length=8, seed=1, **realtext.TRAIN)
    assert np.array_equal(again.losses, model.losses)  # the job's seed and budget
    # the training bits: the mean loss of the last 50 steps, in bits
    assert out["train_bits"] == float(np.mean(model.losses[2:])) / math.log(2)
    ids = realtext.evaluation_ids(corpus.validation, 40)
    bits = {
        (n, mode): realtext.char_bits(
            model.params, config, *windows(ids, n, mode, n_scored=64, start=40)
        )
        for n in (8, 32)
        for mode in MODES
    }
    scored = {key: realtext.position_sums(b) for key, b in bits.items()}
    base = {k: job[k] for k in ("task", "scheme", "config", "seed", "train_len")}
    assert out["records"] == records.region_records(
        base, scored, 8, "bits_per_char", keys=("mode",)
    )
    short, long = out["curves"]
    for curve, n in [(short, 8), (long, 32)]:
        totals, counts = scored[n, "nonoverlapping"]
        assert {k: curve[k] for k in ("eval_len", "mode", "metric")} == {
            "eval_len": n,
            "mode": "nonoverlapping",
            "metric": "bits_per_char",
        }
        assert curve["totals"] == [round(float(t), 3) for t in totals]
        assert curve["counts"] == [int(c) for c in counts]
    # the excess: per position of a 32-character chunk, the bits it costs over 8-character chunks,
    # summed over the 64 characters' two chunks (the same characters, in the same order)
    extra = bits[32, "nonoverlapping"].ravel() - bits[8, "nonoverlapping"].ravel()
    per_position = [round(float(extra[p] + extra[p + 32]), 3) for p in range(32)]
    assert "excess" not in short and long["excess"] == per_position
    variant = {**job, "eval_lens": [8], "steps": 2, "config": "rope-2-heads"}
    only_train_len = realtext.train_and_score(variant)
    assert ["excess" in c for c in only_train_len["curves"]] == [False]
    assert only_train_len["result"].config == model_config(
        "rope", train_len=8, vocab_size=corpus.vocab_size, config="rope-2-heads"
    )


def test_the_windows_score_from_where_they_are_told_to_start():
    corpus = load_corpus()
    config = model_config("alibi", train_len=8, vocab_size=corpus.vocab_size)
    params = init_params(config, seed=0)
    ids = realtext.evaluation_ids(corpus.validation)
    for start in (16, 40):
        tokens, targets = windows(ids, 8, "sliding", n_scored=64, start=start)
        expected = realtext.score(params, config, tokens, targets)
        got = score_text(params, config, ids, 8, "sliding", n_scored=64, start=start)
        assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))
    at_16 = score_text(params, config, ids, 8, "sliding", n_scored=64, start=16)
    assert not np.array_equal(at_16[0], got[0])  # another start scores other characters


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"seeds": (-1,)}, ValueError, "sweep_jobs: seeds[0] must be an integer >= 0, got -1"),
        ({"seeds": (0.5,)}, TypeError, "sweep_jobs: seeds[0] must be an integer, got 0.5"),
        ({"n_scored": 0}, ValueError, "sweep_jobs: n_scored must be an integer >= 1, got 0"),
        ({"steps": 0}, ValueError, "sweep_jobs: steps must be an integer >= 1, got 0"),
        (
            {"train_len": 1, "eval_lens": (1,)},
            ValueError,
            "sweep_jobs: train_len must be an integer >= 2, got 1",
        ),
        (
            {"variants": "rope-2-heads"},
            TypeError,
            "sweep_jobs: variants must be a sequence of names, got 'rope-2-heads'",
        ),
    ],
    ids=["seed", "seed-type", "n-scored", "steps", "train-len", "variants-str"],
)
def test_sweep_jobs_refuse_each_bad_setting_with_its_exact_message(options, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        sweep_jobs(**options)


def test_sweep_jobs_accept_their_smallest_settings_and_score_variants_in_chunks_only():
    (job,) = sweep_jobs(("rope",), (0,), steps=1, train_len=2, eval_lens=(2,), n_scored=2)
    assert (job["seed"], job["steps"], job["train_len"], job["n_scored"]) == (0, 1, 2, 2)
    assert job["modes"] == ["nonoverlapping", "sliding"]
    plain, variant = sweep_jobs(("rope",), (0,), variants=("rope-2-heads",))
    assert (plain["config"], plain["modes"]) == (realtext.CONFIG_NAME, list(MODES))
    assert (variant["config"], variant["modes"]) == ("rope-2-heads", ["nonoverlapping"])


def test_evaluation_ids_start_anywhere_from_the_first_character_on():
    validation = load_corpus().validation
    assert realtext.evaluation_ids(validation, start=0)[0] == 0  # a start of 0 is allowed
    message = "evaluation_ids: start must be an integer >= 0, got -1"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        realtext.evaluation_ids(validation, start=-1)


def test_char_bits_refuse_bad_windows_and_batch_sizes_naming_themselves():
    config = model_config("alibi", train_len=8)
    params = init_params(config, seed=0)
    windows_ = np.zeros((2, 8), dtype=int)
    assert np.array_equal(  # the smallest batch gives the same bits, one window at a time
        realtext.char_bits(params, config, windows_, windows_, batch_elements=1),
        realtext.char_bits(params, config, windows_, windows_),
    )
    message = "char_bits: batch_elements must be an integer >= 1, got 0"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        realtext.char_bits(params, config, windows_, windows_, batch_elements=0)
    with pytest.raises(ValueError, match=r"^char_bits: tokens must have 2 axes, got "):
        realtext.char_bits(params, config, windows_[0], windows_[0])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"scheme": "xpos"},
            "model_config: scheme must be one of 'none', 'sinusoidal', 'learned', 'rope', "
            "'alibi', 't5', got 'xpos'",
        ),
        (
            {"scheme": "rope", "train_len": 1},
            "model_config: train_len must be an integer >= 2, got 1",
        ),
    ],
)
def test_model_config_refuses_an_unknown_scheme_and_a_window_of_one_naming_itself(options, message):
    with pytest.raises(ValueError) as refused:
        realtext.model_config(**options)
    assert str(refused.value) == message
    assert realtext.model_config("rope", train_len=2).max_len >= 2  # two characters are enough


def test_scoring_refuses_a_character_the_model_has_no_embedding_for():
    config = realtext.model_config("rope", train_len=8, vocab_size=5)
    params = init_params(config, seed=0)
    tokens = np.array([[0, 1, 2, 5]])  # 5 is one past the model's last character
    with pytest.raises(ValueError) as refused:
        realtext.char_bits(params, config, tokens, np.zeros_like(tokens))
    assert str(refused.value) == "char_bits: tokens must hold ids 0..4, got 5 at index (0, 3)"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: windows(np.arange(20), 4, "nonoverlapping", n_scored=0),
            "windows: n_scored must be an integer >= 1, got 0",
        ),
        (
            lambda: windows(np.arange(20), 4, "nonoverlapping", n_scored=8, start=-1),
            "windows: start must be an integer >= 0, got -1",
        ),
        (  # one character short: the last target would be past the text
            lambda: windows(np.arange(20), 4, "nonoverlapping", n_scored=8, start=12),
            "windows: start + n_scored + 1 must be <= len(ids) = 20, got 12 + 8 + 1",
        ),
        (  # a sliding window of 16 reads 12 characters of context before its 4 scored ones
            lambda: windows(np.arange(60), 16, "sliding", n_scored=16, start=11),
            "windows: start must be >= 12 (the context of a sliding window of 16), got 11",
        ),
        (
            lambda: realtext.sliding_stride(0),
            "sliding_stride: length must be an integer >= 1, got 0",
        ),
        (
            lambda: realtext.model_config("alibi", config="rope-2-heads"),
            "model_config: config 'rope-2-heads' is a variant of 'rope', got scheme='alibi'",
        ),
        (
            lambda: realtext.model_config("rope", config="huge"),
            "model_config: config must be one of '2L-4x16+mlp', 't5-buckets-to-32', "
            "'alibi-8-heads', 'rope-2-heads', got 'huge'",
        ),
    ],
)
def test_windows_and_their_settings_refuse_word_for_word(call, message):
    with pytest.raises(ValueError) as refused:
        call()
    assert str(refused.value) == message


def test_windows_reach_the_last_character_and_the_first_full_context():
    tokens, targets = windows(np.arange(20), 4, "nonoverlapping", n_scored=8, start=11)
    assert targets[-1, -1] == 19 and tokens[0, 0] == 11  # the text's last character is a target
    assert windows(np.arange(5), 4, "nonoverlapping", n_scored=4, start=0)[0].tolist() == [
        [0, 1, 2, 3]
    ]
    tokens, targets = windows(np.arange(60), 16, "sliding", n_scored=16, start=12)
    assert tokens[0, 0] == 0 and targets[0].tolist() == [IGNORE] * 12 + [13, 14, 15, 16]
    assert realtext.sliding_stride(1) == 1


def test_ngram_bits_is_a_count_model_that_cuts_its_context_like_chunks():
    """A cycle is learnt exactly from counts; cut at chunks of 1, every character sees only one
    character before it; bad arguments are named."""
    text = np.array([0, 1, 2, 3] * 30)
    cycle = realtext.ngram_bits(text, text, context=2, n_scored=40, start=3)
    assert cycle < 0.01
    # cut at chunks of 1 every character sees one character: its counts are fewer, so it pays more
    cut = realtext.ngram_bits(text, text, context=2, cut=1, n_scored=40, start=3)
    assert cycle < cut < 0.1
    assert realtext.ngram_bits(text, text, context=0, n_scored=40, start=3) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="ngram_bits: discount"):
        realtext.ngram_bits(text, text, context=2, n_scored=40, start=3, discount=1.5)
    with pytest.raises(ValueError, match="ngram_bits"):
        realtext.ngram_bits(text, text, context=-1, n_scored=40, start=3)
    with pytest.raises(ValueError, match="ngram_bits: start"):
        realtext.ngram_bits(text, text, context=2, n_scored=200, start=3)
