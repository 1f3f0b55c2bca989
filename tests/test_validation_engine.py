"""Every public entry point of the experiment engine refuses bad input before it works.

Issue 35 found about a hundred probes of the engine, its two chapters and the figures; each listed
one here gets a ValueError or TypeError that names the function the caller called, the argument,
the value and what is allowed, before anything trains, is drawn or allocated. The messages are
checked word for word.
"""

import re
import time

import numpy as np
import pytest

from posenc_lib import _limits, alibi, experiments, plots, realtext, records, sweep, tables
from posenc_lib.experiments import load_study

STUDY, CURVES, EXTENSION = load_study()
TEXT, TEXT_CURVES = realtext.load_sweep()
TASK_NAMES = "['lookback-3', 'recent-marker', 'markov']"
CONFIG_NAMES = "['4x8+mlp', '1x32', '2L-4x8+mlp+bos']"
SCHEME_NAMES = "['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5']"


def refusal(error, call, *args, **kwargs):
    """The message of the error ``call`` raises, which must be of type ``error``."""
    with pytest.raises(error) as raised:
        call(*args, **kwargs)
    assert type(raised.value) is error
    return str(raised.value)


@pytest.fixture
def nothing_trains(monkeypatch):
    """Fail the test if a model would be trained (the engine's runner is never reached)."""

    def never(*args, **kwargs):
        raise AssertionError("a job ran before the refusal")

    monkeypatch.setattr(sweep, "run_jobs", never)


# -- the jobs of a study, refused before any model trains ----------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"steps": -5}, ValueError, "steps must be an integer >= 1, got -5"),
        ({"seeds": [-1]}, ValueError, "seeds[0] must be an integer >= 0, got -1"),
        ({"eval_lens": [0]}, ValueError, "eval_lens[0] must be an integer >= 1, got 0"),
        ({"train_len": 2.7}, TypeError, "train_len must be an integer, got 2.7"),
        ({"tasks": "markov"}, TypeError, "tasks must be a sequence of names, got 'markov'"),
        ({"n_tokens": 0}, ValueError, "n_tokens must be an integer >= 1, got 0"),
        (
            {"schemes": ["rope", "Rope"]},
            ValueError,
            "schemes[1] must be one of 'none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', "
            "got 'Rope'",
        ),
        ({"configs": []}, ValueError, "configs must not be empty, got []"),
        ({"seeds": [0, 0]}, ValueError, "seeds must not repeat an item, got 0 twice"),
        (
            {"train_len": 16},
            ValueError,
            "eval_lens must include train_len=16 (the trained length every table starts from), "
            "got [32, 64, 128, 256]",
        ),
    ],
    ids=[
        "negative-steps",
        "negative-seed",
        "zero-length",
        "fractional-train-len",
        "a-string-of-tasks",
        "no-tokens",
        "unknown-scheme",
        "no-configs",
        "a-seed-twice",
        "train-len-not-evaluated",
    ],
)
def test_study_jobs_and_run_study_refuse_bad_options_before_any_model_trains(
    options, error, message, nothing_trains
):
    assert refusal(error, experiments.study_jobs, **options) == f"study_jobs: {message}"
    assert refusal(error, experiments.run_study, **options) == f"run_study: {message}"


def test_run_one_with_no_tokens_is_refused_before_training_now():
    """The issue's run_one(n_tokens=0) trained first; run_study refuses at once."""
    start = time.perf_counter()
    assert refusal(ValueError, experiments.run_study, tasks=["markov"], n_tokens=0) == (
        "run_study: n_tokens must be an integer >= 1, got 0"
    )
    assert time.perf_counter() - start < 1.0  # no model was trained


def test_run_refuses_an_unknown_option_and_its_own_bad_arguments(tmp_path, nothing_trains):
    assert refusal(TypeError, experiments.run_study, seed=1) == (
        "run_study: no option 'seed'; the options are tasks, schemes, seeds, configs, steps, "
        "train_len, eval_lens, n_tokens, extension"
    )
    assert refusal(TypeError, realtext.run_sweep, task="x") == (
        "run_sweep: no option 'task'; the options are schemes, seeds, steps, train_len, "
        "eval_lens, n_scored, variants, variant_seeds"
    )
    assert refusal(ValueError, experiments.run_study, workers=0) == (
        "run_study: workers must be an integer >= 1, got 0"
    )
    assert refusal(ValueError, realtext.run_sweep, backend="spark") == (
        "run_sweep: backend must be one of 'loky', 'dask', got 'spark'"
    )
    assert refusal(TypeError, experiments.run_study, progress="yes") == (
        "run_study: progress must be True or False, got 'yes'"
    )
    assert refusal(TypeError, experiments.run_study, out=3) == (
        "run_study: out must be a directory (a path), got 3"
    )
    assert refusal(ValueError, experiments.run_study, fresh=True) == (
        "run_study: fresh=True needs out= (the run to start over)"
    )
    assert refusal(
        ValueError, experiments.run_study, configs=["1x32", "4x8+mlp"], keep_models=True
    ) == (
        "run_study: keep_models=True names each model by ('task', 'scheme', 'seed'), and two jobs "
        "are ('lookback-3', 'none', 0): run one configuration (variant) at a time"
    )
    assert refusal(ValueError, realtext.run_sweep, seeds=[-2]) == (
        "run_sweep: seeds[0] must be an integer >= 0, got -2"
    )
    assert refusal(TypeError, realtext.run_sweep, schemes="alibi") == (
        "run_sweep: schemes must be a sequence of names, got 'alibi'"
    )


def test_load_refuses_a_directory_no_sweep_wrote(tmp_path):
    assert refusal(ValueError, experiments.load_study, tmp_path) == (
        f"load_study: {tmp_path} holds no results.json: not a directory the study sweep wrote"
    )
    assert (
        refusal(TypeError, realtext.load_sweep, 7) == "load_sweep: directory must be a path, got 7"
    )


# -- reading records: selection, summaries, tables --------------------------------------------


def test_select_refuses_a_misspelt_field_instead_of_returning_nothing():
    assert refusal(ValueError, records.select, STUDY, regoin="unseen") == (
        "select: no record has the field 'regoin'; fields: ['config', 'eval_len', 'metric', "
        "'region', 'scheme', 'seed', 'task', 'train_len', 'value']"
    )
    assert refusal(ValueError, records.select, STUDY, region="Unseen") == (
        "select: region must be one of 'all', 'unseen', got 'Unseen'"
    )
    assert refusal(TypeError, records.select, "records") == (
        "select: records must be a list of records (dicts), got 'records'"
    )
    assert records.select([], task="t") == []  # nothing to choose from: nothing chosen


def test_position_curves_refuse_an_unknown_configuration_instead_of_an_empty_dict():
    assert refusal(
        ValueError, experiments.position_curves, CURVES, "lookback-3", config="nope"
    ) == (f"position_curves: no record has config='nope'; config is one of {CONFIG_NAMES}")
    assert refusal(ValueError, experiments.position_curves, CURVES, "Markov") == (
        f"position_curves: no record has task='Markov'; task is one of {TASK_NAMES}"
    )
    assert refusal(
        ValueError, experiments.position_curves, CURVES, "markov", config="1x32", bin_width=300
    ) == ("position_curves: bin_width must be at most the 256 positions, got 300")


def test_compare_configs_refuses_an_unknown_task_or_length_instead_of_an_empty_table():
    assert refusal(ValueError, experiments.compare_configs, STUDY, "nope") == (
        f"compare_configs: no record has task='nope'; task is one of {TASK_NAMES}"
    )
    assert refusal(ValueError, experiments.compare_configs, STUDY, "markov", eval_len=512) == (
        "compare_configs: no record has eval_len=512; eval_len is one of [32, 64, 128, 256]"
    )


def test_extrapolation_gap_refuses_a_scheme_no_record_has_instead_of_an_index_error():
    assert refusal(
        ValueError, experiments.extrapolation_gap, STUDY, "lookback-3", "Rope", config="1x32"
    ) == (f"extrapolation_gap: no record has scheme='Rope'; scheme is one of {SCHEME_NAMES}")
    assert refusal(ValueError, experiments.extrapolation_gap, [], "t", "s") == (
        "extrapolation_gap: records must hold at least one record, got []"
    )


@pytest.mark.parametrize("module", [experiments, realtext], ids=["study", "realtext"])
def test_results_table_and_summarize_refuse_empty_records_and_unknown_configurations(module):
    for name in ("results_table", "summarize"):
        function = getattr(module, name)
        assert refusal(ValueError, function, []) == (
            f"{name}: records must hold at least one record, got []"
        )
        committed = STUDY if module is experiments else TEXT
        configs = (
            CONFIG_NAMES
            if module is experiments
            else ("['2L-4x16+mlp', 't5-buckets-to-32', 'alibi-8-heads', 'rope-2-heads']")
        )
        assert refusal(ValueError, function, committed, config="nope") == (
            f"{name}: no record has config='nope'; config is one of {configs}"
        )
        assert refusal(ValueError, function, committed, region="late") == (
            f"{name}: region must be one of 'all', 'unseen', got 'late'"
        )
        assert refusal(ValueError, function, committed, regoin="unseen").startswith(
            f"{name}: no record has the field 'regoin'; fields: "
        )
        assert refusal(ValueError, function, [{"task": "t"}]) == (
            f"{name}: every record must have the fields "
            + (
                "['task', 'scheme', 'eval_len', "
                if module is experiments
                else "['scheme', 'eval_len', "
            )
            + "'seed', 'train_len', 'value']; records[0] has no "
            + ("'scheme'" if module is experiments else "'scheme'")
            + " (its fields: ['task'])"
        )


def test_the_real_text_table_of_a_misspelt_mode_names_results_table_not_summarize():
    assert refusal(ValueError, realtext.results_table, TEXT, mode="Sliding") == (
        "results_table: no record has mode='Sliding'; mode is one of ['nonoverlapping', 'sliding']"
    )


def test_a_summary_refuses_records_with_two_values_for_one_seed_naming_the_field_to_choose():
    doubled = [{**r, "mode": m} for r in STUDY[:7] for m in ("a", "b")]
    assert refusal(ValueError, experiments.summarize, doubled) == (
        "summarize: the records hold several values per seed of ('lookback-3', 'none', 32); "
        "choose one of mode="
    )
    assert refusal(ValueError, experiments.results_table, STUDY, digits=-1) == (
        "results_table: digits must be an integer >= 0, got -1"
    )


def test_binned_curves_refuse_no_curves_ragged_curves_and_a_field_they_lack():
    assert refusal(ValueError, records.binned_curves, []) == (
        "binned_curves: curves must hold at least one record, got []"
    )
    ragged = [{"totals": [1, 2], "counts": [1, 1]}, {"totals": [1, 2, 3], "counts": [1, 1, 1]}]
    assert refusal(ValueError, records.binned_curves, ragged) == (
        "binned_curves: every curve must have one totals and one count per position, all of one "
        "length; got lengths [2, 3]"
    )
    assert refusal(ValueError, records.binned_curves, ragged[:1], field="excess") == (
        "binned_curves: every record must have the fields ['excess', 'counts']; curves[0] has no "
        "'excess' (its fields: ['counts', 'totals'])"
    )
    assert refusal(ValueError, records.binned_curves, ragged[:1], bin_width=3) == (
        "binned_curves: bin_width must be at most the 2 positions, got 3"
    )
    assert refusal(ValueError, records.bin_positions, [1, 2], [1]) == (
        "bin_positions: totals and counts must be 1-d, one of each per position, got shapes (2,) "
        "and (1,)"
    )


def test_an_empty_bin_has_no_value_in_every_binning_of_the_course():
    """realtext.position_bits reported 0.0 bits for a bin with no scored character."""
    curve = {"scheme": "s", "eval_len": 4, "totals": [1.0, 0.0, 2.0, 2.0], "counts": [1, 0, 2, 2]}
    assert np.isnan(realtext.position_bits([curve], "s", 4)[1][1])
    assert np.isnan(records.binned_curves([curve])[1][1])
    assert np.isnan(records.bin_positions(curve["totals"], curve["counts"])[1][1])


def test_paired_differences_refuse_unknown_fields_values_and_sides_without_partners():
    assert refusal(ValueError, records.paired_differences, STUDY, "scheme", "Rope", "alibi") == (
        f"paired_differences: no record has scheme='Rope'; scheme is one of {SCHEME_NAMES}"
    )
    assert refusal(ValueError, records.paired_differences, STUDY, "sheme", "rope", "alibi") == (
        "paired_differences: no record has the field 'sheme'; fields: ['config', 'eval_len', "
        "'metric', 'region', 'scheme', 'seed', 'task', 'train_len', 'value']"
    )
    assert refusal(
        ValueError, records.paired_differences, STUDY, ("scheme", "config"), "rope", "alibi"
    ) == (
        "paired_differences: a and b must give one value per field of by=('scheme', 'config'), "
        "got a='rope' and b='alibi'"
    )
    learned_long = {"eval_len": 256, "region": "all"}
    assert refusal(
        ValueError, records.paired_differences, STUDY, "scheme", "learned", "rope", **learned_long
    ) == (
        "paired_differences: no record of 'learned' has a partner of 'rope' (the same fields but "
        "['scheme'], both able to run) among the records matching {'eval_len': 256}"
    )


# -- the text tables --------------------------------------------------------------------------


def test_a_cell_refuses_a_value_that_is_not_a_mean_and_its_range():
    assert refusal(TypeError, tables.cell, (1, 2)) == (
        "cell: a value must be (mean, min, max), None (cannot run) or MISSING (not run), got (1, 2)"
    )
    assert refusal(TypeError, tables.cell, ("a", 1, 2)) == (
        "cell: a value must be (mean, min, max), None (cannot run) or MISSING (not run), got "
        "('a', 1, 2)"
    )


def test_text_table_refuses_negative_digits_and_rows_of_another_width():
    assert refusal(ValueError, tables.text_table, "s", ["h"], [], digits=-1) == (
        "text_table: digits must be an integer >= 0, got -1"
    )
    assert refusal(ValueError, tables.text_table, "s", ["h"], [("r", [None, None])]) == (
        "text_table: every row must have one value per header (1), got 2 for 'r'"
    )
    assert refusal(
        ValueError, tables.paired_table, STUDY, "scheme", "rope", "alibi", digits=-2
    ) == ("paired_table: digits must be an integer >= 0, got -2")


# -- the figures -----------------------------------------------------------------------------


@pytest.fixture
def ax():
    from matplotlib.figure import Figure

    return Figure().add_subplot()


def test_heatmap_refuses_reversed_limits_and_a_matrix_that_is_not_2_d(ax):
    assert refusal(ValueError, plots.heatmap, ax, np.eye(3), vmin=1, vmax=0) == (
        "heatmap: vmin must be <= vmax, got vmin=1 and vmax=0"
    )
    assert refusal(ValueError, plots.heatmap, ax, [1.0, 2.0, 3.0]) == (
        "heatmap: matrix must be a 2-d array (rows, columns) with at least one of each, got "
        "shape (3,)"
    )
    assert refusal(TypeError, plots.heatmap, ax, [["a", "b"]]) == (
        "heatmap: matrix must be a 2-d array of numbers, got [['a', 'b']]"
    )
    assert refusal(TypeError, plots.heatmap, ax, np.eye(2), vmin="low") == (
        "heatmap: vmin must be a real number, got 'low'"
    )
    assert len(ax.images) == 0  # nothing was drawn


def test_category_heatmap_refuses_codes_outside_its_names(ax):
    assert refusal(ValueError, plots.category_heatmap, ax, [[0, 2]], ["a", "b"]) == (
        "category_heatmap: matrix must hold category codes 0..1 (one per name), got 2 at index "
        "(0, 1)"
    )
    assert refusal(ValueError, plots.category_heatmap, ax, [[0, 0.5]], ["a", "b"]) == (
        "category_heatmap: matrix must hold category codes 0..1 (one per name), got 0.5 at index "
        "(0, 1)"
    )
    assert refusal(TypeError, plots.category_heatmap, ax, [[0]], "ab") == (
        "category_heatmap: names must be a non-empty sequence of labels, got 'ab'"
    )
    assert len(ax.images) == 0


def test_plot_results_refuses_no_records_an_unknown_configuration_and_too_few_axes(ax):
    assert refusal(ValueError, plots.plot_results, []) == (
        "plot_results: records must hold at least one record, got []"
    )
    assert refusal(ValueError, plots.plot_results, STUDY, config="nope") == (
        f"plot_results: no record has config='nope'; config is one of {CONFIG_NAMES}"
    )
    assert refusal(ValueError, plots.plot_results, STUDY, config="1x32", axes=[ax]) == (
        "plot_results: axes must hold one Axes per task (3: ['lookback-3', 'recent-marker', "
        "'markov']), got 1"
    )
    assert refusal(ValueError, plots.plot_results, TEXT, config="2L-4x16+mlp", mode="Sliding") == (
        "plot_results: no record has mode='Sliding'; mode is one of ['nonoverlapping', 'sliding']"
    )


def test_plot_position_curves_refuses_an_unknown_task_instead_of_an_index_error():
    assert refusal(ValueError, plots.plot_position_curves, CURVES, "nope") == (
        f"plot_position_curves: no record has task='nope'; task is one of {TASK_NAMES}"
    )
    assert refusal(ValueError, plots.plot_position_curves, [], "markov") == (
        "plot_position_curves: curves must hold at least one record, got []"
    )


def test_draw_floors_refuses_both_or_neither_of_its_two_layouts(ax):
    assert refusal(ValueError, plots.draw_floors, ax, "markov") == (
        "draw_floors: give either lengths= (with train_len=) or length=, got lengths=None and "
        "length=None"
    )
    assert refusal(ValueError, plots.draw_floors, ax, "markov", length=16, bin_width=32) == (
        "draw_floors: bin_width must be at most length=16, got 32"
    )


# -- memory ------------------------------------------------------------------------------------


def test_alibi_bias_refuses_a_size_the_machine_cannot_hold_saying_how_much_it_needs(monkeypatch):
    """alibi_bias(10**5, 8) built a 74.5 GiB intermediate before a MemoryError."""
    monkeypatch.setattr(_limits, "physical_memory", lambda: 16 * 2**30)
    start = time.perf_counter()
    assert refusal(ValueError, alibi.alibi_bias, 10**5, 8) == (
        "alibi_bias: seq_len=100000 and n_heads=8 (the (8, 100000, 100000) bias and the "
        "(100000, 100000) distances) need 670.6 GiB of memory, more than this machine's 16.0 GiB"
    )
    assert time.perf_counter() - start < 0.5  # refused, not attempted
    assert alibi.alibi_bias(4, 2).shape == (2, 4, 4)  # a size that fits is built
    monkeypatch.setattr(_limits, "physical_memory", lambda: None)  # a system that does not say
    assert alibi.alibi_bias(2, 1).shape == (1, 2, 2)


def test_alibi_bias_takes_slopes_one_positive_number_per_head():
    np.testing.assert_array_equal(alibi.alibi_bias(3, 2, slopes=[1.0, 0.5])[1, 0], [0, -0.5, -1])
    np.testing.assert_array_equal(alibi.alibi_bias(5, 4), alibi.alibi_bias(5, 4, slopes=None))
    np.testing.assert_array_equal(
        alibi.alibi_bias(5, 4), alibi.alibi_bias(5, 4, slopes=alibi.alibi_slopes(4))
    )
    for bad, shown in [([1.0], "[1.0] (shape (1,))"), ([1.0, -1.0], "[1.0, -1.0] (shape (2,))")]:
        assert refusal(ValueError, alibi.alibi_bias, 3, 2, slopes=bad) == (
            f"alibi_bias: slopes must hold n_heads=2 positive numbers, one per head, got {shown}"
        )
    assert re.match(
        r"alibi_bias: slopes must have 1 axes",
        refusal(ValueError, alibi.alibi_bias, 3, 2, slopes=[[1.0, 0.5]]),
    )
