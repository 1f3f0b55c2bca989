"""The study: record schema (regions, configurations), per-position curves, resumable sweeps,
one BLAS thread per worker, results independent of the worker count and backend (local
processes or a Dask cluster), the command line; and the context extension of its RoPE models
(posenc_lib.extension)."""

import dataclasses
import json
import os
import re
import time

import numpy as np
import pytest

from posenc_lib import experiments, extension, provenance, runner, sweep, tables
from posenc_lib.experiments import (
    compare_configs,
    extrapolation_gap,
    position_curves,
    results_table,
    study_jobs,
    summarize,
)
from posenc_lib.records import names, paired_differences, select

TINY = {"steps": 3, "train_len": 8, "eval_lens": (8, 16), "n_tokens": 64}
RECORD_KEYS = {
    "task",
    "scheme",
    "config",
    "seed",
    "train_len",
    "eval_len",
    "region",
    "metric",
    "value",
}


def run_jobs(jobs, **options):
    """The study's jobs run by the engine's runner, train_and_measure looked up when called."""
    return runner.run_jobs(jobs, lambda job: experiments.train_and_measure(job), **options)


def tiny_jobs(**changes):
    options = {"tasks": ("lookback-3",), "schemes": ("none", "learned"), "seeds": (0,), **TINY}
    return study_jobs(**{**options, **changes})


def test_records_have_all_and_unseen_regions_and_the_configuration_name():
    records, _, _ = experiments.run_study(
        tasks=("lookback-3",),
        schemes=("rope", "learned"),
        seeds=(0, 1),
        configs=("1x32",),
        progress=False,
        **TINY,
    )
    assert all(set(r) == RECORD_KEYS for r in records)
    assert {r["config"] for r in records} == {"1x32"}
    at_train = [r for r in records if r["eval_len"] == 8]
    assert {r["region"] for r in at_train} == {"all"}  # nothing is unseen at the training length
    longer = [r for r in records if r["eval_len"] == 16]
    assert sorted(r["region"] for r in longer) == ["all"] * 4 + ["unseen"] * 4
    learned_long = [r for r in longer if r["scheme"] == "learned"]
    assert learned_long and all(r["value"] is None for r in learned_long)
    assert all(0 <= r["value"] <= 1 for r in records if r["scheme"] == "rope")


def test_unseen_is_the_score_over_query_positions_from_the_training_length_on():
    (out,) = run_jobs(tiny_jobs(schemes=("rope",)), progress=False)
    curve = out["curve"]
    assert curve["eval_len"] == 16 and len(curve["totals"]) == len(curve["counts"]) == 16
    totals, counts = np.array(curve["totals"]), np.array(curve["counts"])
    value = {r["region"]: r["value"] for r in out["records"] if r["eval_len"] == 16}
    assert value["all"] == pytest.approx(totals.sum() / counts.sum())
    assert value["unseen"] == pytest.approx(totals[8:].sum() / counts[8:].sum())
    assert counts[:3].sum() == 0  # lookback-3 has no targets at positions 0-2


def test_results_do_not_depend_on_the_number_of_workers():
    jobs = tiny_jobs(schemes=("none", "t5", "rope"))
    one = run_jobs(jobs, workers=1, progress=False)
    two = run_jobs(jobs, workers=2, progress=False)
    assert [o["records"] for o in one] == [o["records"] for o in two]
    assert [o["job"] for o in two] == jobs  # outputs come back in job order


def blas_threads(job):
    """A runner that reports the BLAS threads of the process it runs in."""
    from threadpoolctl import threadpool_info

    threads = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    return {"job": job, "result": None, "threads": sorted(threads)}


def test_each_worker_process_uses_one_blas_thread():
    jobs = [{"n": n} for n in range(4)]
    outputs = runner.run_jobs(jobs, blas_threads, workers=2, progress=False)
    assert [o["job"] for o in outputs] == jobs
    assert all(o["threads"] in ([], [1]) for o in outputs)  # [] where numpy has no BLAS pool
    in_process = runner.run_jobs(jobs[:1], blas_threads, workers=1, progress=False)
    assert in_process[0]["threads"] in ([], [1])  # the limit holds in this process too


def test_kept_models_cannot_be_resumed_from_a_progress_file_so_asking_for_both_is_refused(tmp_path):
    with pytest.raises(
        ValueError, match="run_study: keep_models=True cannot be combined with out="
    ):
        experiments.run_study(out=tmp_path / "run", progress=False, keep_models=True, **TINY)
    assert not (tmp_path / "run").exists()  # refused before anything trained or was written


def test_an_interrupted_sweep_keeps_its_finished_models_and_resumes(tmp_path, monkeypatch):
    jobs = tiny_jobs(schemes=("none", "sinusoidal", "rope", "t5"))
    progress = tmp_path / "progress.jsonl"
    real = experiments.train_and_measure
    calls = []

    def interrupt_on_the_third(job, **kw):
        calls.append(job["scheme"])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(job, **kw)

    monkeypatch.setattr(experiments, "train_and_measure", interrupt_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        run_jobs(jobs, progress=False, progress_file=progress)
    assert len(progress.read_text().splitlines()) == 2  # two models finished and were kept
    with progress.open("a") as f:
        f.write('{"job": {"task": "lookback-3", "sch')  # a line torn by the interrupt

    calls.clear()
    monkeypatch.setattr(
        experiments,
        "train_and_measure",
        lambda job, **kw: calls.append(job["scheme"]) or real(job, **kw),
    )
    outputs = run_jobs(jobs, progress=False, progress_file=progress)
    assert calls == ["rope", "t5"]  # only the unfinished ones were trained
    assert [o["job"] for o in outputs] == jobs
    fresh = run_jobs(jobs, progress=False)
    assert [o["records"] for o in outputs] == [o["records"] for o in fresh]


def test_a_changed_setting_is_not_mistaken_for_a_finished_model(tmp_path):
    progress = tmp_path / "progress.jsonl"
    run_jobs(tiny_jobs(), progress=False, progress_file=progress)
    more_steps = tiny_jobs(steps=4)
    outputs = run_jobs(more_steps, progress=False, progress_file=progress)
    assert [o["job"]["steps"] for o in outputs] == [4, 4]
    assert len(progress.read_text().splitlines()) == 4


def test_the_command_line_writes_results_curves_and_a_figure(tmp_path, capsys):
    experiments.main(["--tiny", "--out", str(tmp_path), "--workers", "1", "--no-progress"])
    records, curves, extension = experiments.load_study(tmp_path)
    assert extension == []
    assert {r["scheme"] for r in records} == {"none", "learned", "t5"}
    assert {r["region"] for r in records} == {"all", "unseen"}
    assert all(set(r) == RECORD_KEYS for r in records)
    assert {c["scheme"] for c in curves} == {"none", "t5"}  # learned cannot run at 16
    assert (tmp_path / "results.png").stat().st_size > 1000
    out = capsys.readouterr().out
    assert "lookback-3" in out and "cannot run" in out and "L=8 (trained)" in out
    # rerunning finds every model done and rewrites the same results
    experiments.main(["--tiny", "--out", str(tmp_path), "--workers", "1", "--no-progress"])
    assert experiments.load_study(tmp_path)[0] == records
    stamp = provenance.load_provenance(tmp_path / "results.json")
    assert stamp["settings"]["options"]["steps"] == 5  # the settings it was made with
    assert stamp["code"] == provenance.code_hash(experiments.STUDY.code_roots)


def test_the_quick_sweep_covers_every_scheme_task_and_region():
    jobs = study_jobs(seeds=(0,), configs=("4x8+mlp",))
    assert len(jobs) == 18
    assert {j["scheme"] for j in jobs} == {"none", "sinusoidal", "learned", "rope", "alibi", "t5"}
    full = study_jobs(seeds=experiments.SEEDS, configs=tuple(experiments.CONFIGS), extension=True)
    assert len(full) == 3 * 6 * len(experiments.CONFIGS) * len(experiments.SEEDS)
    assert len(experiments.SEEDS) == 10  # enough for a paired interval to sign a comparison
    assert {j["steps"] for j in full} == {experiments.STEPS}  # one budget for every model
    with_extension = [j for j in full if j["extension"]]
    assert {(j["scheme"], j["task"]) for j in with_extension} == {
        ("rope", "lookback-3"),
        ("rope", "markov"),
    }


def record(task="t", scheme="s", config="c", seed=0, eval_len=32, region="all", value=0.5):
    return {
        "task": task,
        "scheme": scheme,
        "config": config,
        "seed": seed,
        "train_len": 32,
        "eval_len": eval_len,
        "region": region,
        "metric": "accuracy",
        "value": value,
    }


def test_summaries_pick_a_region_and_insist_on_one_configuration():
    records = [
        record(seed=s, eval_len=n, region=region, value=v + s / 10, config=c)
        for c in ("a", "b")
        for s in (0, 1, 2)
        for n, region, v in ((32, "all", 0.9), (64, "all", 0.6), (64, "unseen", 0.3))
    ]
    with pytest.raises(ValueError, match=r"several configurations \['a', 'b'\]; pass config="):
        summarize(records)
    everywhere = summarize(records, config="a", region="all")
    assert everywhere[("t", "s", 64)] == pytest.approx((0.7, 0.6, 0.8))
    unseen = summarize(records, config="b")  # the default: unseen, and all at the training length
    assert list(unseen) == [("t", "s", 32), ("t", "s", 64)]
    assert unseen[("t", "s", 64)][0] == pytest.approx(0.4)
    assert unseen[("t", "s", 32)] == everywhere[("t", "s", 32)]
    assert extrapolation_gap(records, "t", "s", config="a", region="all") == pytest.approx(
        0.6 - 0.9
    )
    assert extrapolation_gap(records, "t", "s", config="a") == pytest.approx(-0.6)  # unseen
    with pytest.raises(ValueError, match="region must be one of 'all', 'unseen', got 'late'"):
        summarize(records, config="a", region="late")
    only_train_len = [record(seed=s) for s in (0, 1)]  # no length beyond training: no unseen
    with pytest.raises(ValueError, match="extrapolation_gap: no 'unseen' records of 't', 's' at"):
        extrapolation_gap(only_train_len, "t", "s")


def test_old_records_without_regions_still_summarise():
    old = [
        {k: v for k, v in record(seed=s).items() if k not in ("region", "config")} for s in (0, 1)
    ]
    assert summarize(old)[("t", "s", 32)] == (0.5, 0.5, 0.5)
    assert len(select(old, region="all")) == 2 and select(old, region="unseen") == []


def test_the_table_leads_with_unseen_positions_and_shows_the_seed_range():
    records = [
        record(seed=s, eval_len=n, region=region, value=v)
        for s, shift in ((0, 0.0), (1, 0.1))
        for n, region, v in (
            (32, "all", 1.0 - shift),
            (64, "all", 0.6),
            (64, "unseen", 0.2 + shift),
        )
    ]
    text = results_table(records)
    assert "L=32 (trained)" in text and "L=64 unseen" in text
    assert "0.95 (0.90-1.00)" in text and "0.25 (0.20-0.30)" in text and "0.60" not in text


def test_table_columns_line_up_under_their_lengths_whatever_the_task_name_or_digits():
    records = [
        record(task=task, seed=s, eval_len=n, region=region, value=0.5)
        for task in ("t", "a-much-longer-task-name")
        for s in (0, 1)
        for n, region in ((32, "all"), (64, "all"), (64, "unseen"))
    ]
    for digits in (0, 1, 2, 3):
        blocks = results_table(records, digits=digits).split("\n\n")[1:]
        for block in blocks:
            heading, header, *rows = block.splitlines()
            assert heading.endswith("(accuracy)")
            assert {len(line) for line in rows} == {len(header)}  # right edges align
            assert all(re.search(r"\d\)\S", row) is None for row in rows)  # cells stand apart


def test_position_curves_bin_positions_and_spread_over_seeds():
    curves = [
        {"task": "t", "scheme": "s", "config": "c", "totals": totals, "counts": [0, 2, 2, 2]}
        for totals in ([0, 2, 1, 0], [0, 0, 2, 2])
    ]
    centres, mean, low, high = position_curves(curves, "t", config="c", bin_width=2)["s"]
    np.testing.assert_allclose(centres, [0.5, 2.5])
    np.testing.assert_allclose(mean, [0.5, 0.625])  # seed bins: (1.0, 0.25) and (0.0, 1.0)
    np.testing.assert_allclose(low, [0.0, 0.25])
    np.testing.assert_allclose(high, [1.0, 1.0])


def test_an_interrupted_command_says_what_it_kept_and_how_to_continue(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "progress.jsonl").write_text(
        "\n".join(json.dumps(o) for o in run_jobs(tiny_jobs(), progress=False)) + "\n"
    )

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep.Sweep, "run", interrupted)
    with pytest.raises(SystemExit) as stop:
        experiments.main(["--tiny", "--out", str(tmp_path), "--no-progress"])
    assert stop.value.code == 130
    out = capsys.readouterr().out
    assert "interrupted: 2 finished models are kept" in out and "run the same command again" in out


@pytest.fixture
def local_dask_cluster():
    distributed = pytest.importorskip(
        "dask.distributed",
        reason="dask is not installed: pip install 'posenc-lib[cluster]' (the test extra has it)",
    )
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.slow
def test_the_quick_study_runs_on_a_dask_cluster_with_the_results_of_local_processes(
    local_dask_cluster, tmp_path
):
    quick = {**experiments.FULL, **experiments.STUDY.quick}
    start = time.perf_counter()
    on_cluster = experiments.run_study(
        out=tmp_path / "dask", backend="dask", progress=False, **quick
    )
    dask_seconds = time.perf_counter() - start
    start = time.perf_counter()
    local = experiments.run_study(out=tmp_path / "loky", workers=2, progress=False, **quick)
    local_seconds = time.perf_counter() - start
    print(f"quick study: dask LocalCluster {dask_seconds:.0f} s, loky {local_seconds:.0f} s")
    assert on_cluster[:2] == local[:2]  # results and curves
    assert len(local[0]) == 18 * 7


def test_a_tiny_sweep_on_a_dask_cluster_resumes_from_its_progress_file(
    local_dask_cluster, tmp_path
):
    jobs = tiny_jobs(schemes=("none", "rope"))
    log = tmp_path / "progress.jsonl"
    on_cluster = run_jobs(jobs, backend="dask", progress=False, progress_file=log)
    assert [o["job"] for o in on_cluster] == jobs
    assert [o["records"] for o in on_cluster] == [
        o["records"] for o in run_jobs(jobs, progress=False)
    ]
    resumed = runner.run_jobs(jobs, never_called, backend="dask", progress=False, progress_file=log)
    assert resumed == on_cluster  # nothing ran again
    away = runner.run_jobs([{"n": 0}, {"n": 1}], job_pid, backend="dask", progress=False)
    assert os.getpid() not in {o["pid"] for o in away}  # on the cluster, though workers=1


def job_pid(job):
    return {"job": job, "pid": os.getpid()}


def never_called(job):
    raise AssertionError(f"trained again: {job}")


@pytest.mark.slow
def test_the_command_line_runs_on_a_local_dask_cluster_and_closes_it(tmp_path, capsys):
    pytest.importorskip(
        "dask.distributed",
        reason="dask is not installed: pip install 'posenc-lib[cluster]' (the test extra has it)",
    )
    from distributed.deploy.spec import SpecCluster  # keeps every cluster made, in _instances

    experiments.main(
        ["--tiny", "--backend", "dask", "--workers", "2", "--out", str(tmp_path), "--no-progress"]
    )
    assert {c.status.name for c in SpecCluster._instances} <= {"closed"}  # a live one stays in
    local = experiments.run_study(
        out=tmp_path / "local", workers=1, progress=False, **experiments.STUDY.tiny
    )
    assert experiments.load_study(tmp_path)[0] == local[0]
    assert "configuration 4x8+mlp" in capsys.readouterr().out


def test_a_run_now_and_a_resumable_run_into_a_directory_give_the_same_records(
    tmp_path, monkeypatch, capsys
):
    study = {"tasks": ["lookback-3"], "schemes": ["rope"], "seeds": [1], "configs": ["1x32"]}
    options = {**study, **TINY}
    (one, curves, extension), models = experiments.run_study(keep_models=True, **options)
    assert capsys.readouterr().err != ""  # a progress bar unless told otherwise
    assert {r["seed"] for r in one} == {1} and {r["config"] for r in one} == {"1x32"}
    assert [r["eval_len"] for r in one] == [8, 16, 16] and extension == [] and len(curves) == 1
    ((key, result),) = models.items()
    assert key == ("lookback-3", "rope", 1)
    assert (len(result.losses), result.config.scheme, result.config.d_model) == (3, "rope", 32)
    (other_seed, _, _) = experiments.run_study(progress=False, **{**options, "seeds": [0]})
    assert [r["value"] for r in other_seed] != [r["value"] for r in one]

    written = experiments.run_study(out=tmp_path, workers=1, progress=False, **options)
    assert written == experiments.load_study(tmp_path) and written[0] == one
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "curves.json",
        "extension.json",
        "progress.jsonl",
        "results.json",
        "training.json",
    ]
    stamp = provenance.load_provenance(tmp_path / "results.json")
    assert stamp["settings"]["options"]["seeds"] == [1]
    assert stamp["settings"]["options"]["steps"] == TINY["steps"]
    assert stamp["settings"]["options"]["extension"] is False  # the default, recorded too

    def trained_again(job, **_):
        raise AssertionError(f"trained again: {job}")

    spec = dataclasses.replace(experiments.STUDY, runner=trained_again)
    assert spec.run(out=tmp_path, workers=1, progress=False, **options)[0] == one  # resumed
    with pytest.raises(AssertionError, match="trained again"):  # fresh=True starts over
        spec.run(out=tmp_path, workers=1, progress=False, fresh=True, **options)


def test_the_extension_table_shows_each_methods_mean_and_range_before_and_after():
    _, _, ext = experiments.load_study()
    summary = extension.extension_summary(ext, "lookback-3", config="4x8+mlp")
    lines = extension.extension_table(ext, "lookback-3", config="4x8+mlp", digits=3).splitlines()
    assert lines[0] == (
        "lookback-3, configuration 4x8+mlp, length 128 (trained at 32), unseen positions, 10 seeds"
    )
    assert lines[1].split() == ["method", "before", "after", "40", "steps"]
    methods = names(select(ext, task="lookback-3"), "method")
    assert [line.split()[0] for line in lines[2:]] == methods
    for line, method in zip(lines[2:], methods, strict=True):
        assert line[:14] == method.ljust(14)  # the method column is 14 wide
        cells = [float(x) for x in re.findall(r"\d+\.\d{3}", line)]
        assert cells == [
            float(f"{v:.3f}") for stage in ("before", "after") for v in summary[method, stage]
        ]
    markov = extension.extension_table(ext, "markov", config="4x8+mlp", region="all").splitlines()
    assert markov[0].startswith("markov, configuration 4x8+mlp,")
    assert "all positions" in markov[0]
    assert re.fullmatch(r"\S+ +\d\.\d\d \(\d\.\d\d-\d\.\d\d\) .*", markov[2])


def test_paired_differences_pair_only_models_trained_on_the_same_seed():
    rows = [
        {"scheme": s, "seed": k, "config": c, "value": v}
        for s, k, c, v in [
            ("a", 0, "x", 1.0),
            ("b", 0, "x", 0.5),
            ("a", 1, "x", 0.2),
            ("b", 1, "y", 0.9),
            ("a", 2, "x", None),
            ("b", 2, "x", 0.1),
        ]
    ]
    pairs = paired_differences(rows, "scheme", "a", "b")
    assert [(p["seed"], p["difference"]) for p in pairs] == [(0, 0.5)]
    with pytest.raises(ValueError, match="no record has the field 'method'"):
        paired_differences(rows, "method", "a", "b")


# -- the text tables and curve summaries of chapter 06: exact text -----------------------------

LONG_CONFIG = "a-long-configuration"  # 20 characters: wider than a cell of two decimals


def compare_configs_records():
    # rope's unseen records come before the first record of "none", its "all" ones after it;
    # config "c" has no record of "none" at 256, and "none" cannot run there in LONG_CONFIG;
    # another task has a scheme of its own.
    return [
        record(scheme="rope", seed=1, eval_len=256, region="unseen", value=0.3),
        record(scheme="rope", seed=0, eval_len=256, region="unseen", value=0.1),
        record(scheme="none", eval_len=32, value=1.0),
        record(scheme="rope", seed=0, eval_len=256, value=0.9),
        record(scheme="rope", seed=1, eval_len=256, value=0.7),
        record(scheme="rope", config=LONG_CONFIG, eval_len=256, region="unseen", value=0.25),
        record(scheme="rope", config=LONG_CONFIG, eval_len=256, value=0.5),
        record(scheme="none", config=LONG_CONFIG, eval_len=256, region="unseen", value=None),
        record(scheme="none", config=LONG_CONFIG, eval_len=256, value=None),
        record(task="u", scheme="alibi", eval_len=256, region="unseen", value=0.7),
    ]


def test_compare_configs_by_default_shows_unseen_positions_at_256_with_columns_as_wide_as_a_name():
    assert compare_configs(compare_configs_records(), "t") == (
        "t, unseen positions at L=256: mean (min-max) over seeds\n"
        "scheme                           c  a-long-configuration\n"
        "rope              0.20 (0.10-0.30)      0.25 (0.25-0.25)\n"
        "none                       not run            cannot run"
    )


def test_compare_configs_selects_length_region_and_digits_and_lists_only_the_tasks_schemes():
    records = compare_configs_records()
    assert compare_configs(records, "t", region="all", digits=1) == (
        "t, all positions at L=256: mean (min-max) over seeds\n"
        "scheme                           c  a-long-configuration\n"
        "rope                 0.8 (0.7-0.9)         0.5 (0.5-0.5)\n"
        "none                       not run            cannot run"
    )
    assert compare_configs(records, "t", eval_len=32, region="all", digits=3) == (
        "t, all positions at L=32: mean (min-max) over seeds\n"
        "scheme                           c  a-long-configuration\n"
        "rope                       not run               not run\n"
        "none           1.000 (1.000-1.000)               not run"
    )
    short_names = [{**r, "config": "b"} if r["config"] == LONG_CONFIG else r for r in records]
    assert compare_configs(short_names, "u").splitlines()[1:] == [
        "scheme                      c                b",  # columns as wide as a cell
        "alibi        0.70 (0.70-0.70)          not run",
    ]


def extension_record(method, stage, region, value, *, task="t", config="4x8+mlp", seed=0, **more):
    lengths = {"eval_len": 128, "train_len": 32, "finetune_steps": 40, **more}
    return {
        "task": task,
        "scheme": "rope",
        "config": config,
        "seed": seed,
        **lengths,
        "metric": "accuracy",
        "method": method,
        "stage": stage,
        "region": region,
        "value": value,
    }


def extension_records():
    stages, regions = ("before", "after"), ("all", "unseen")
    other_task = [
        extension_record(
            "plain", st, rg, 0.5, task="u", config=c, seed=5, eval_len=64, train_len=16
        )
        for c in ("4x8+mlp", "1x32")
        for st in stages
        for rg in regions
    ]
    one_head_all = {  # seeds 2 and 0 of 1x32, region "all" (its "unseen" values are all 0)
        ("plain", "before"): (0.4, 0.2),
        ("plain", "after"): (0.6, 0.8),
        ("interpolation", "before"): (0.1, 0.1),
        ("interpolation", "after"): (0.9, 0.7),
    }
    one_head = [
        extension_record(
            m,
            st,
            rg,
            values[i] if rg == "all" else 0.0,
            config="1x32",
            seed=seed,
            eval_len=256,
            train_len=64,
            finetune_steps=20,
        )
        for (m, st), values in one_head_all.items()
        for i, seed in enumerate((2, 0))
        for rg in regions
    ]
    unseen = {  # seeds 1 and 0 of 4x8+mlp, region "unseen" (its "all" values are all 1)
        ("ntk", "before"): (0.3, 0.5),
        ("ntk", "after"): (0.7, 0.9),
        ("plain", "before"): (0.1, 0.1),
        ("plain", "after"): (0.2, 0.4),
    }
    # plain's "all" records come first, ntk's before plain's "unseen" ones
    default = [extension_record("plain", st, "all", 1.0, seed=s) for s in (1, 0) for st in stages]
    default += [
        extension_record(m, st, rg, values[i] if rg == "unseen" else 1.0, seed=seed)
        for m in ("ntk", "plain")
        for st in stages
        for rg in (("all", "unseen") if m == "ntk" else ("unseen",))
        for i, seed in enumerate((1, 0))
        for values in [unseen[m, st]]
    ]
    return other_task + one_head + default


def test_extension_table_by_default_shows_the_unseen_positions_of_the_configuration_given():
    assert extension.extension_table(extension_records(), "t", config="4x8+mlp") == (
        "t, configuration 4x8+mlp, length 128 (trained at 32), unseen positions, 2 seeds\n"
        "method                   before   after 40 steps\n"
        "ntk            0.40 (0.30-0.50) 0.80 (0.70-0.90)\n"
        "plain          0.10 (0.10-0.10) 0.30 (0.20-0.40)"
    )


def test_extension_table_selects_task_configuration_region_and_digits():
    text = extension.extension_table(
        extension_records(), "t", config="1x32", region="all", digits=3
    )
    assert text == (
        "t, configuration 1x32, length 256 (trained at 64), all positions, 2 seeds\n"
        "method                       before       after 20 steps\n"
        "plain           0.300 (0.200-0.400)  0.700 (0.600-0.800)\n"
        "interpolation   0.100 (0.100-0.100)  0.800 (0.700-0.900)"
    )


def test_extension_table_heading_reads_the_lengths_and_steps_of_the_first_matching_record():
    # records that disagree (a rerun of seed 1 at another length, with more steps, appended)
    records = [
        extension_record("plain", st, "unseen", 0.5, seed=s, **more)
        for st in ("before", "after")
        for s, more in ((0, {}), (1, {"eval_len": 64, "train_len": 16, "finetune_steps": 80}))
    ]
    assert extension.extension_table(records, "t").splitlines()[:2] == [  # the only config
        "t, configuration 4x8+mlp, length 128 (trained at 32), unseen positions, 2 seeds",
        "method                   before   after 40 steps",
    ]


@pytest.mark.parametrize("digits", [0, 1, 2])
def test_extension_table_headers_stand_apart_at_any_precision(digits):
    # at 0 or 1 decimals the header "after 40 steps" is wider than a cell: the column fits it
    lines = extension.extension_table(
        extension_records(), "t", config="4x8+mlp", digits=digits
    ).splitlines()
    assert lines[1].split() == ["method", "before", "after", "40", "steps"]
    assert len({len(line) for line in lines[1:]}) == 1  # every row as wide as the header


def loss_record(scheme, config, seed, value):
    return {**record(scheme=scheme, config=config, seed=seed, value=value), "metric": "loss"}


def test_paired_table_of_losses_sorts_seeds_and_counts_lower_as_better_and_rounded_ties_as_equal():
    records = [
        loss_record(s, c, seed, v)
        for c, seed, a, b in [
            ("c", 2, 1.003, 1.0),  # +0.003: rounds to +0.00 at two decimals, a tie
            ("c", 0, 0.5, 1.0),
            ("c", 1, 1.1, 1.0),  # t5 worse by less than 1
            ("wide", 1, 0.7, 1.0),
            ("wide", 0, 0.8, 1.0),
        ]
        for s, v in (("t5", a), ("rope", b))
    ]
    assert tables.paired_table(records, "scheme", "t5", "rope") == (
        "t5 - rope, seed by seed (loss: lower is better)\n"
        "c     -0.50 +0.10 +0.00   mean -0.13 (95% interval -0.93 to +0.67)   t5 better in 1 of 3"
        " (1 equal)\n"
        "wide  -0.20 -0.30   mean -0.25 (95% interval -0.89 to +0.39)   t5 better in 2 of 2"
    )


def test_paired_table_reads_records_without_a_metric_as_accuracy_higher_better_in_groups_of_fields():
    records = [
        {"method": m, "seed": seed, "config": c, "stage": st, "value": v}
        for c, st, seed, a, b in [
            ("c", "before", 1, 0.54, 0.5),  # +0.04: rounds to +0.0 at one decimal, a tie
            ("c", "before", 0, 0.8, 0.5),
            ("c", "after", 1, 0.9, 0.3),
            ("c", "after", 0, 0.5, 0.7),
            ("x", "after", 0, 0.0, 1.0),  # another configuration, left out by config="c"
        ]
        for m, v in (("yarn", a), ("ntk", b))
    ]
    text = tables.paired_table(
        records, "method", "yarn", "ntk", rows=("config", "stage"), digits=1, config="c"
    )
    assert text == (
        "yarn - ntk, seed by seed (accuracy: higher is better)\n"
        "c before  +0.3 +0.0   mean +0.2 (95% interval -1.5 to +1.8)   yarn better in 1 of 2"
        " (1 equal)\n"
        "c after   -0.2 +0.6   mean +0.2 (95% interval -4.9 to +5.3)   yarn better in 1 of 2"
    )


def test_paired_table_refuses_records_mixing_a_score_and_a_cost_and_reads_each_alone():
    """A loss 1.00 higher is worse, an accuracy 0.25 higher better: one "better" cannot say both."""
    records = [
        {**record(scheme=s, task=task, seed=0, value=v), "metric": metric}
        for task, metric, a, b in [("t", "loss", 2.0, 1.0), ("u", "accuracy", 0.5, 0.25)]
        for s, v in (("a", a), ("b", b))
    ]
    with pytest.raises(ValueError) as refused:
        tables.paired_table(records, "scheme", "a", "b", rows=("task",))
    assert str(refused.value) == (
        "paired_table: the records mix metrics where higher is better and lower is better "
        "(accuracy, loss); select one task (e.g. task=...)"
    )
    assert tables.paired_table(records, "scheme", "a", "b", rows=("task",), task="t") == (
        "a - b, seed by seed (loss: lower is better)\nt  +1.00   mean +1.00   a better in 0 of 1"
    )


def test_paired_table_sorts_a_record_without_a_seed_as_seed_0():
    records = [
        {"scheme": s, "config": "c", "eval_len": n, **seed, "value": v}
        for n, seed, a, b in [(64, {}, 0.25, 0.0), (128, {"seed": 0}, 0.0, 0.55)]
        for s, v in (("a", a), ("b", b))
    ]
    assert tables.paired_table(records, "scheme", "a", "b").splitlines()[1] == (
        # in record order: a tie at seed 0
        "c  +0.25 -0.55   mean -0.15 (95% interval -5.23 to +4.93)   a better in 1 of 2"
    )


def test_paired_table_without_pairs_says_which_were_asked_for():
    records = [record(scheme=s) for s in ("a", "b")]
    with pytest.raises(ValueError) as refused:
        tables.paired_table(records, "scheme", "a", "z", task="t")
    assert str(refused.value) == (
        "paired_table: no record has scheme='z'; scheme is one of ['a', 'b']"
    )


def curve(scheme, totals, *, task="t", config="4x8+mlp", counts=None, **more):
    counts = [1] * len(totals) if counts is None else counts
    return {
        "task": task,
        "scheme": scheme,
        "config": config,
        **more,
        "totals": totals,
        "counts": counts,
    }


def test_position_curves_by_default_bin_8_positions_and_need_a_configuration_among_several():
    curves = [
        curve("t5", [1] * 8 + [0] * 8),
        curve("rope", [0] * 16, config="1x32"),  # another configuration
        curve("alibi", [0] * 16, task="u"),  # another task
        curve("rope", [1] * 4 + [0] * 12),
    ]
    assert message_of(ValueError, position_curves, curves, "t") == (
        "position_curves: these records hold several configurations ['4x8+mlp', '1x32']; pass "
        "config= one of them"
    )
    binned = position_curves(curves, "t", config="4x8+mlp")
    assert list(binned) == ["t5", "rope"]
    centres, mean, low, high = binned["rope"]
    np.testing.assert_array_equal(centres, [3.5, 11.5])
    np.testing.assert_array_equal(mean, [0.5, 0.0])
    np.testing.assert_array_equal(binned["t5"][1], [1.0, 0.0])
    (centres, mean, low, high), *_ = position_curves(curves, "t", config="1x32").values()
    np.testing.assert_array_equal(mean, [0.0, 0.0])


def test_position_curves_keep_single_positions_and_ignore_a_region_field():
    curves = [curve("s", [1, 0, 1], region="unseen"), curve("s", [0, 0, 1], region="all")]
    (centres, mean, low, high), *_ = position_curves(curves, "t", bin_width=1).values()
    np.testing.assert_array_equal(centres, [0, 1, 2])
    np.testing.assert_array_equal(mean, [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(low, [0.0, 0.0, 1.0])


@pytest.mark.parametrize(
    "bin_width, error, message",
    [
        (0, ValueError, "position_curves: bin_width must be an integer >= 1, got 0"),
        (-3, ValueError, "position_curves: bin_width must be an integer >= 1, got -3"),
        (2.0, TypeError, "position_curves: bin_width must be an integer, got 2.0"),
    ],
)
def test_position_curves_refuse_a_bin_width_below_1_naming_the_function(bin_width, error, message):
    with pytest.raises(error) as refused:
        position_curves([curve("s", [1, 1])], "t", bin_width=bin_width)
    assert str(refused.value) == message


# -- summaries, the results table, gaps and pairs: every selection, default and message --------


def message_of(error, call, *args, **kwargs):
    with pytest.raises(error) as raised:
        call(*args, **kwargs)
    return str(raised.value)


def test_summarize_names_itself_when_it_refuses():
    records = [record(config=c) for c in ("a", "b")]
    assert message_of(ValueError, summarize, records, config="a", region="late") == (
        "summarize: region must be one of 'all', 'unseen', got 'late'"
    )
    assert message_of(ValueError, summarize, records) == (
        "summarize: these records hold several configurations ['a', 'b']; pass config= one of them"
    )


def results_table_records():
    # config "c": task t (accuracy) at 32 and 64, seeds 1 and 0, "learned" cannot run at 64;
    # task u (loss) with one seed of rope at 32, 64 and 128, none of "learned"; config "d" besides
    records = [
        record(scheme=s, seed=seed, eval_len=n, region=rg, value=v)
        for s, seed, values in [
            ("rope", 1, {(32, "all"): 0.9, (64, "all"): 0.6, (64, "unseen"): 0.3}),
            ("rope", 0, {(32, "all"): 1.0, (64, "all"): 0.6, (64, "unseen"): 0.2}),
            ("learned", 1, {(32, "all"): 1.0, (64, "all"): None, (64, "unseen"): None}),
            ("learned", 0, {(32, "all"): 1.0, (64, "all"): None, (64, "unseen"): None}),
        ]
        for (n, rg), v in values.items()
    ]
    records += [
        {**record(task="u", scheme="rope", eval_len=n, region=rg, value=v), "metric": "loss"}
        for n, rg, v in [
            (32, "all", 2.0),
            (64, "all", 3.0),
            (64, "unseen", 4.0),
            (128, "all", 4.5),
            (128, "unseen", 5.0),
        ]
    ]
    records += [record(scheme="rope", config="d", eval_len=n, value=0.0) for n in (32, 64)]
    return records


def test_results_table_of_one_configuration_shows_trained_then_unseen_columns_per_task():
    assert results_table(results_table_records(), config="c") == (
        "configuration c; mean (min-max) over 2 seeds; trained at L=32\n"
        "\n"
        "t (accuracy)\n"
        "  scheme         L=32 (trained)      L=64 unseen     L=128 unseen\n"
        "  rope         0.95 (0.90-1.00) 0.25 (0.20-0.30)          not run\n"
        "  learned      1.00 (1.00-1.00)       cannot run          not run\n"
        "\n"
        "u (loss)\n"
        "  scheme         L=32 (trained)      L=64 unseen     L=128 unseen\n"
        "  rope         2.00 (2.00-2.00) 4.00 (4.00-4.00) 5.00 (5.00-5.00)\n"
        "  learned               not run          not run          not run"
    )


def test_results_table_of_all_positions_one_seed_and_no_configuration_name():
    records = [
        {k: v for k, v in r.items() if k != "config"}
        for r in results_table_records()
        if r["seed"] == 0 and r["config"] == "c" and r["task"] == "t"
    ]
    assert results_table(records, region="all", digits=1) == (
        "configuration (one); mean (min-max) over 1 seed; trained at L=32\n"
        "\n"
        "t (accuracy)\n"
        "  scheme       L=32 (trained)       L=64 all\n"
        "  rope          1.0 (1.0-1.0)  0.6 (0.6-0.6)\n"
        "  learned       1.0 (1.0-1.0)     cannot run"
    )
    assert results_table([record()]) == (
        "configuration (one); mean (min-max) over 1 seed; trained at L=32\n"
        "\n"
        "t (accuracy)\n"
        "  scheme         L=32 (trained)\n"
        "  s            0.50 (0.50-0.50)"
    )
    assert message_of(ValueError, results_table, results_table_records()) == (
        "results_table: these records hold several configurations ['c', 'd']; "
        "pass config= one of them"
    )


def gap_records():
    # t/s in configuration c: 0.9 at 32, 0.5 (all) and 0.1 (unseen) at 128
    records = [
        record(seed=seed, eval_len=n, region=rg, value=v)
        for seed, values in [
            (1, [(32, "all", 1.0), (64, "all", 0.7), (128, "all", 0.6), (128, "unseen", 0.2)]),
            (0, [(32, "all", 0.8), (64, "all", 0.7), (128, "all", 0.4), (128, "unseen", 0.0)]),
        ]
        for n, rg, v in values
    ]
    records += [record(scheme="other", eval_len=n, value=1.0 - n / 128) for n in (32, 128)]
    records += [record(task="u", config="e", eval_len=n, value=0.0) for n in (32, 256)]
    return records


def test_extrapolation_gap_reads_the_scheme_of_the_task_in_its_one_configuration():
    records = gap_records()
    assert extrapolation_gap(records, "t", "s", region="all") == pytest.approx(0.5 - 0.9)
    # the default reads the unseen positions at the longest length: the chapter's measure
    assert extrapolation_gap(records, "t", "s") == pytest.approx(0.1 - 0.9)
    another = records + [record(config="d", eval_len=n, value=n / 128) for n in (32, 128)]
    assert extrapolation_gap(another, "t", "s", config="c") == pytest.approx(0.1 - 0.9)
    assert extrapolation_gap(another, "t", "s", config="d", region="all") == pytest.approx(
        1.0 - 0.25
    )
    assert message_of(ValueError, extrapolation_gap, another, "t", "s") == (
        "extrapolation_gap: these records hold several configurations ['c', 'd']; "
        "pass config= one of them"
    )
    # at the training length the gap starts from all positions, whatever else is recorded there
    odd = records + [record(seed=seed, region="unseen", value=0.0) for seed in (0, 1)]
    assert extrapolation_gap(odd, "t", "s", region="all") == pytest.approx(0.5 - 0.9)
    assert extrapolation_gap(odd, "t", "s") == pytest.approx(0.1 - 0.9)


def test_extrapolation_gap_of_a_model_measured_only_at_its_training_length():
    assert extrapolation_gap([record(value=0.75)], "t", "s", region="all") == 0.0
    assert message_of(ValueError, extrapolation_gap, [record()], "t", "s") == (
        "extrapolation_gap: no 'unseen' records of 't', 's' at eval_len=32 (an unseen region "
        "needs an evaluation length beyond train_len=32 and records with a 'region' field; "
        "region='all' reads every position)"
    )
    cannot_run = [
        record(scheme="learned"),
        record(scheme="learned", eval_len=64, value=None),
        record(scheme="learned", eval_len=64, region="unseen", value=None),
    ]
    assert extrapolation_gap(cannot_run, "t", "learned") is None


def test_extrapolation_gap_refuses_several_training_lengths_instead_of_reading_the_first():
    mixed = [record(value=0.9), {**record(eval_len=64, region="unseen"), "train_len": 16}]
    assert message_of(ValueError, extrapolation_gap, mixed, "t", "s") == (
        "extrapolation_gap: the records of 't', 's' hold several training lengths [32, 16]; "
        "select the records of one first"
    )


def test_paired_differences_pair_every_region_unless_one_is_asked_for_and_keep_the_shared_fields():
    records = [
        record(scheme=s, seed=seed, eval_len=64, region=rg, value=v)
        for rg, seed, a, b in [
            ("all", 0, 0.75, 0.25),
            ("unseen", 0, 0.5, 0.25),
            ("all", 1, 0.5, None),
        ]
        for s, v in (("a", a), ("b", b))
    ]
    shared = {"task": "t", "config": "c", "seed": 0, "train_len": 32, "eval_len": 64}
    both = paired_differences(records, "scheme", "a", "b")
    assert both == [
        {**shared, "region": "all", "metric": "accuracy", "difference": 0.5},
        {**shared, "region": "unseen", "metric": "accuracy", "difference": 0.25},
    ]
    assert paired_differences(records, "scheme", "a", "b", region="unseen") == both[1:]
    assert paired_differences(records, "scheme", "b", "a", seed=0, region="all") == [
        {**shared, "region": "all", "metric": "accuracy", "difference": -0.5}
    ]
    assert message_of(ValueError, paired_differences, records, "method", "a", "b") == (
        "paired_differences: no record has the field 'method'; fields: ['config', 'eval_len', "
        "'metric', 'region', 'scheme', 'seed', 'task', 'train_len', 'value']"
    )


def test_extension_summary_by_default_reads_the_unseen_positions_of_the_configuration_given():
    summary = extension.extension_summary(extension_records(), "t", config="4x8+mlp")
    assert list(summary) == [
        ("ntk", "before"),
        ("ntk", "after"),
        ("plain", "before"),
        ("plain", "after"),
    ]
    assert summary == {
        ("ntk", "before"): pytest.approx((0.4, 0.3, 0.5)),
        ("ntk", "after"): pytest.approx((0.8, 0.7, 0.9)),
        ("plain", "before"): pytest.approx((0.1, 0.1, 0.1)),
        ("plain", "after"): pytest.approx((0.3, 0.2, 0.4)),
    }
    one_head = extension.extension_summary(extension_records(), "t", config="1x32", region="all")
    assert one_head == {
        ("plain", "before"): pytest.approx((0.3, 0.2, 0.4)),
        ("plain", "after"): pytest.approx((0.7, 0.6, 0.8)),
        ("interpolation", "before"): pytest.approx((0.1, 0.1, 0.1)),
        ("interpolation", "after"): pytest.approx((0.8, 0.7, 0.9)),
    }
    other = extension.extension_summary(extension_records(), "u", config="1x32")
    assert other == {("plain", "before"): (0.5, 0.5, 0.5), ("plain", "after"): (0.5, 0.5, 0.5)}


# -- jobs and model configurations ---------------------------------------------------------------


def test_study_jobs_by_default_are_every_task_and_scheme_once_in_the_default_configuration():
    jobs = study_jobs()
    assert jobs[0] == {
        "task": "lookback-3",
        "scheme": "none",
        "config": "4x8+mlp",
        "seed": 0,
        "steps": 400,
        "train_len": 32,
        "eval_lens": [32, 64, 128, 256],
        "n_tokens": 4096,
        "extension": False,
    }
    schemes = ["none", "sinusoidal", "learned", "rope", "alibi", "t5"]
    assert [(j["task"], j["scheme"]) for j in jobs] == [
        (t, s) for t in ("lookback-3", "recent-marker", "markov") for s in schemes
    ]
    assert {(j["config"], j["seed"], j["extension"]) for j in jobs} == {("4x8+mlp", 0, False)}


def test_study_jobs_go_task_configuration_scheme_seed_and_extend_only_rope_on_the_extension_tasks():
    jobs = study_jobs(
        ["recent-marker", "markov"],
        ["rope", "none"],
        (1, 0),
        configs=("1x32", "4x8+mlp"),
        steps=5,
        train_len=8,
        eval_lens=(8, 16),
        n_tokens=64,
        extension=True,
    )
    assert [(j["task"], j["config"], j["scheme"], j["seed"], j["extension"]) for j in jobs] == [
        ("recent-marker", "1x32", "rope", 1, False),
        ("recent-marker", "1x32", "rope", 0, False),
        ("recent-marker", "1x32", "none", 1, False),
        ("recent-marker", "1x32", "none", 0, False),
        ("recent-marker", "4x8+mlp", "rope", 1, False),
        ("recent-marker", "4x8+mlp", "rope", 0, False),
        ("recent-marker", "4x8+mlp", "none", 1, False),
        ("recent-marker", "4x8+mlp", "none", 0, False),
        ("markov", "1x32", "rope", 1, True),
        ("markov", "1x32", "rope", 0, True),
        ("markov", "1x32", "none", 1, False),
        ("markov", "1x32", "none", 0, False),
        ("markov", "4x8+mlp", "rope", 1, True),
        ("markov", "4x8+mlp", "rope", 0, True),
        ("markov", "4x8+mlp", "none", 1, False),
        ("markov", "4x8+mlp", "none", 0, False),
    ]
    assert {(j["steps"], j["train_len"], tuple(j["eval_lens"]), j["n_tokens"]) for j in jobs} == {
        (5, 8, (8, 16), 64)
    }
    assert study_jobs(["markov"], ["rope"])[0]["extension"] is False


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"tasks": ["nope"]},
            "study_jobs: tasks[0] must be one of 'lookback-3', 'recent-marker', 'markov', got 'nope'",
        ),
        (
            {"schemes": ["nope"]},
            "study_jobs: schemes[0] must be one of 'none', 'sinusoidal', 'learned', 'rope', "
            "'alibi', 't5', got 'nope'",
        ),
        (
            {"configs": ["nope"]},
            "study_jobs: configs[0] must be one of '4x8+mlp', '1x32', '2L-4x8+mlp+bos', got 'nope'",
        ),
    ],
)
def test_study_jobs_refuse_an_unknown_name_saying_which(changes, message):
    assert message_of(ValueError, study_jobs, **changes) == message


def test_make_config_takes_the_vocabulary_from_the_task_and_the_length_from_training():
    from posenc_lib.tasks import lookback

    task = lookback(3, vocab_size=10)

    def shape(c):
        return (c.vocab_size, c.scheme, c.max_len, c.d_model, c.n_heads, c.n_layers, c.mlp, c.bos)

    assert shape(experiments.make_config(task, "t5")) == (10, "t5", 32, 32, 4, 1, True, False)
    deep = experiments.make_config(task, "rope", "2L-4x8+mlp+bos", train_len=8)
    assert shape(deep) == (10, "rope", 8, 32, 4, 2, True, True)
    assert shape(experiments.make_config(task, "none", "1x32")) == (
        10,
        "none",
        32,
        32,
        1,
        1,
        False,
        False,
    )
    small = experiments.make_config(task, "rope", {"d_model": 8, "n_heads": 2, "mlp": False})
    assert shape(small) == (10, "rope", 32, 8, 2, 1, False, False)
    assert message_of(ValueError, experiments.make_config, task, "rope", "nope") == (
        "make_config: config must be one of '4x8+mlp', '1x32', '2L-4x8+mlp+bos', got 'nope'"
    )


# -- interventions: a chosen YaRN ramp, chosen ALiBi slopes, the extension variants -------------


def rope_config_base_100():
    # head width 8, trained at 32, base 100: the pairs turn 16/pi * 100**(-i/4) times in 32 tokens
    return experiments.make_config(experiments.TASKS["lookback-3"](), "rope").with_(base=100.0)


def turns(i):
    return 16 / np.pi * 100 ** (-i / 4)


@pytest.mark.parametrize(
    "ramp, alpha, beta",
    [
        ([1, 0.5, 0, 0], turns(2), turns(2) + (turns(1) - turns(2)) / 0.5),  # through pair 1's half
        ([1, 1, 0, 0], turns(2), turns(1)),  # a step: between the last 0 and the first 1
        ([1, 1, 1, 1], 0.0, turns(3)),  # every pair kept
        ([0, 0, 0, 0], turns(0), turns(0) + 1.0),  # every pair interpolated: one turn beyond
    ],
)
def test_yarn_config_with_ramp_writes_the_ramp_as_its_ends_in_turns(ramp, alpha, beta):
    config = rope_config_base_100()
    new = extension.yarn_config_with_ramp(config, 1.5, ramp)
    assert (new.yarn_alpha, new.yarn_beta) == (pytest.approx(alpha), pytest.approx(beta))
    assert (new.yarn_scale, new.yarn_ramp) == (1.5, "turns")
    assert new.with_(yarn_scale=1.0, yarn_ramp="index", yarn_alpha=1.0, yarn_beta=32.0) == config


def test_yarn_config_with_ramp_refuses_what_the_model_cannot_run_naming_itself():
    config, ramp, func = rope_config_base_100(), [1, 0.5, 0, 0], extension.yarn_config_with_ramp
    alibi = experiments.make_config(experiments.TASKS["lookback-3"](), "alibi")
    assert message_of(ValueError, func, alibi, 4, ramp) == (
        "yarn_config_with_ramp: needs a RoPE model, got scheme 'alibi'"
    )
    assert message_of(TypeError, func, {"scheme": "rope"}, 4, ramp) == (
        "yarn_config_with_ramp: config must be a ModelConfig, got {'scheme': 'rope'}"
    )
    assert message_of(ValueError, func, config, 1, ramp) == (
        "yarn_config_with_ramp: factor must be > 1, got 1.0"
    )
    assert message_of(ValueError, func, config, 4, [ramp]) == (
        "yarn_config_with_ramp: ramp must have 1 axes, got [[1, 0.5, 0, 0]] (shape (1, 4))"
    )
    for bad, shown in [
        ([1, 0.5, 0], "[1.  0.5 0. ]"),  # head_dim / 2 is 4
        ([1.5, 0.5, 0, 0], "[1.5 0.5 0.  0. ]"),
        ([1, 0.5, 0, -0.5], "[ 1.   0.5  0.  -0.5]"),
    ]:
        assert message_of(ValueError, func, config, 4, bad) == (
            f"yarn_config_with_ramp: ramp must hold head_dim / 2 values in [0, 1], got {shown}"
        )
    assert message_of(ValueError, func, config, 4, [1, 0.5, 0.5, 0]) == (
        "yarn_config_with_ramp: the model cannot run this ramp (not a clipped line in turns): "
        "[1.  0.5 0.5 0. ]"
    )
    # 5e-9 where the line gives 0: more than the 1e-9 allowed
    assert message_of(ValueError, func, config, 4, [1, 0.5, 0, 5e-9]).startswith(
        "yarn_config_with_ramp: the model cannot run this ramp (not a clipped line in turns): "
    )
    func(config, 4, [1, 0.5, 0, 5e-10])  # within 1e-9


def test_an_alibi_model_takes_its_slopes_from_its_configuration_and_no_global_changes():
    from posenc_lib.model import SCHEME_PARTS, ModelConfig

    standard = SCHEME_PARTS["alibi"]
    two_heads = ModelConfig(vocab_size=16, scheme="alibi", d_model=8, n_heads=2)
    steeper = two_heads.with_(alibi_slopes=[1.0, 0.25])
    assert steeper.alibi_slopes == (1.0, 0.25)  # a tuple: the configuration stays hashable
    bias = SCHEME_PARTS["alibi"].bias(None, steeper, 3)
    assert bias.dtype == np.float64
    np.testing.assert_array_equal(
        bias,
        [
            [[0.0, -1.0, -2.0], [-1.0, 0.0, -1.0], [-2.0, -1.0, 0.0]],
            [[0.0, -0.25, -0.5], [-0.25, 0.0, -0.25], [-0.5, -0.25, 0.0]],
        ],
    )
    np.testing.assert_array_equal(  # the recipe's slopes without them: 1/16 and 1/256 of 2 heads
        SCHEME_PARTS["alibi"].bias(None, two_heads, 2)[:, 0, 1], [-(2.0**-4), -(2.0**-8)]
    )
    assert SCHEME_PARTS["alibi"] is standard


def slopes_in_a_worker(job):
    """Run in a worker process: the bias of the configuration the job names."""
    from posenc_lib.model import SCHEME_PARTS, ModelConfig

    config = ModelConfig(vocab_size=16, scheme="alibi", alibi_slopes=job["slopes"])
    return {"job": job, "bias": SCHEME_PARTS["alibi"].bias(None, config, 2)[0, 0, 1]}


def test_chosen_alibi_slopes_travel_to_a_worker_process_with_the_configuration():
    jobs = [{"slopes": [0.5]}, {"slopes": [0.125]}]
    outputs = runner.run_jobs(jobs, slopes_in_a_worker, workers=2, progress=False)
    assert [o["bias"] for o in outputs] == [-0.5, -0.125]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"alibi_slopes": (0.5, 0.0)}, "got (0.5, 0.0) (shape (2,))"),
        ({"alibi_slopes": (-1.0,)}, "got (-1.0,) (shape (1,))"),
        ({"alibi_slopes": (0.5, 0.5, 0.5)}, "got (0.5, 0.5, 0.5) (shape (3,))"),
    ],
)
def test_alibi_slopes_must_be_positive_and_one_per_head(changes, message):
    from posenc_lib.model import ModelConfig

    two_heads = {"vocab_size": 16, "scheme": "alibi", "d_model": 8, "n_heads": 2}
    assert message_of(ValueError, ModelConfig, **two_heads, **changes) == (
        "ModelConfig: alibi_slopes must hold n_heads=2 positive numbers, one per head, " + message
    )
    assert message_of(ValueError, ModelConfig, 16, "rope", alibi_slopes=(0.5,)) == (
        "ModelConfig: alibi_slopes are for scheme 'alibi' only, got alibi_slopes=(0.5,) with "
        "scheme 'rope'"
    )


def test_extension_variants_are_the_rope_model_scaled_every_way():
    config = rope_config_base_100()
    variants = extension.extension_variants(config, 2)
    assert list(variants) == ["plain", "interpolation", "ntk", "yarn", "yarn-paper"]
    assert variants["plain"] == config
    assert variants["interpolation"] == config.with_(rope_positions_scale=2.0)
    ntk = variants["ntk"]
    assert ntk.base == pytest.approx(100.0 * 2 ** (8 / 6))  # base * factor^(d/(d-2))
    assert ntk.with_(base=100.0) == config
    assert variants["yarn"] == config.with_(yarn_scale=2.0, yarn_ramp="index")
    assert variants["yarn-paper"] == config.with_(yarn_scale=2.0, yarn_ramp="turns")
    assert message_of(ValueError, extension.extension_variants, config.with_(scheme="t5"), 2) == (
        "extension_variants: needs a RoPE model, got scheme 't5'"
    )


# -- what a study job runs, with training and scoring replaced by recorders (no training) -------


class Recorders:
    """Stand-ins for train and evaluate_positions that record how they are called."""

    def __init__(self, monkeypatch):
        self.trained, self.scored = [], []
        for module in (experiments, extension):
            monkeypatch.setattr(module, "train", self.train)
            monkeypatch.setattr(module, "evaluate_positions", self.evaluate)

    def train(self, config, task, **options):
        from posenc_lib.model import TrainResult

        self.trained.append((config, task.name, options))
        params = {"tuned": len(self.trained)} if "init" in options else {"trained": True}
        return TrainResult(config, params, [], {})

    def evaluate(self, params, config, task, length, *, n_tokens):
        """Loss 0.1234567 everywhere; accuracy: a trained model is right at every other position
        up to length 8 and, longer, on its training positions only; a fine-tuned one everywhere."""
        self.scored.append((params, config, length, n_tokens))
        counts = np.ones(length)
        if config.scheme == "learned" and length > config.max_len:
            return None
        if task.metric == "loss":
            return np.full(length, 0.1234567), counts
        if "tuned" in params:
            return np.ones(length), counts
        if length <= 8:
            return np.tile([1.0, 0.0], length // 2), counts
        return (np.arange(length) < config.max_len).astype(float), counts


def test_train_and_measure_trains_scores_and_extends_a_rope_model_as_its_job_says(monkeypatch):
    fake = Recorders(monkeypatch)
    extended = []
    monkeypatch.setattr(
        experiments,
        "context_extension_records",
        lambda result, task, **options: extended.append((result, task.name, options)) or ["ext"],
    )
    (job,) = study_jobs(
        ["markov"],
        ["rope"],
        [2],
        configs=["1x32"],
        steps=7,
        train_len=4,
        eval_lens=(4, 8),
        n_tokens=64,
        extension=True,
    )
    out = experiments.train_and_measure(job)
    config = experiments.make_config(experiments.TASKS["markov"](), "rope", "1x32", train_len=4)
    assert fake.trained == [
        (
            config,
            "markov",
            {
                "steps": 7,
                "length": 4,
                "seed": 2,
                "snapshot_every": experiments.CHECKPOINT_EVERY,
                "progress": False,
                "batch_size": 16,
                "lr": 0.01,
            },
        )
    ]
    assert fake.scored == [({"trained": True}, config, n, 64) for n in (4, 8)]
    assert out["job"] is job and out["result"].params == {"trained": True}
    fields = {"task": "markov", "scheme": "rope", "config": "1x32", "seed": 2, "train_len": 4}
    assert out["records"] == [
        {**fields, "eval_len": n, "region": rg, "metric": "loss", "value": pytest.approx(0.1234567)}
        for n, rg in ((4, "all"), (8, "all"), (8, "unseen"))
    ]
    assert out["curve"] == {
        **fields,
        "eval_len": 8,
        "metric": "loss",
        "totals": [0.123457] * 8,
        "counts": [1] * 8,
    }  # losses kept to 6 decimals
    assert extended == [
        (
            out["result"],
            "markov",
            {"seed": 2, "config_name": "1x32", "n_tokens": 64, "factor": 4, "finetune_steps": 40},
        )
    ]
    assert out["extension"] == ["ext"]
    # the validation curve scores every snapshot (the stand-in keeps none) at the training length
    assert out["training"] == {
        **fields,
        "eval_len": 4,
        "metric": "loss",
        "steps": [],
        "values": [],
    }


def test_train_and_measure_keeps_accuracy_counts_whole_and_has_no_curve_where_it_cannot_run(
    monkeypatch,
):
    fake = Recorders(monkeypatch)
    monkeypatch.setattr(experiments, "context_extension_records", None)  # must not be called
    learned, rope = study_jobs(
        ["lookback-3"], ["learned", "rope"], steps=3, train_len=4, eval_lens=(4, 8), n_tokens=32
    )
    out = experiments.train_and_measure(learned)
    assert out["curve"] is None and out["extension"] == []
    assert [r["value"] for r in out["records"]] == [0.5, None, None]
    out = experiments.train_and_measure({**rope, "extension": False}, progress=True)
    assert fake.trained[-1][2]["progress"] is True
    assert out["curve"]["totals"] == [1, 0, 1, 0, 1, 0, 1, 0]
    assert {type(v) for v in out["curve"]["totals"]} == {int}  # correct predictions: counts
    assert out["extension"] == []
    none = {**study_jobs(["lookback-3"], ["none"], **TINY)[0], "extension": True}
    assert experiments.train_and_measure(none)["extension"] == []  # only RoPE models are extended


def test_context_extension_records_fine_tune_every_method_at_4x_the_length_by_default(monkeypatch):
    fake = Recorders(monkeypatch)
    task = experiments.TASKS["lookback-3"]()
    config = experiments.make_config(task, "rope", train_len=4)
    from posenc_lib.model import TrainResult

    result = TrainResult(config, {"trained": True}, [], {})
    records = extension.context_extension_records(result, task)
    methods = ["plain", "interpolation", "ntk", "yarn", "yarn-paper"]
    variants = extension.extension_variants(config, 4)
    assert fake.trained == [
        (
            variants[m],
            "lookback-3",
            {
                "steps": 40,
                "batch_size": 8,
                "length": 16,
                "lr": 3e-3,
                "seed": 0,
                "progress": False,
                "init": {"trained": True},
            },
        )
        for m in methods
    ]
    assert [(params, c, n, tokens) for params, c, n, tokens in fake.scored] == [
        (params, variants[m], 16, 4096)
        for i, m in enumerate(methods)
        for params in ({"trained": True}, {"tuned": i + 1})
    ]
    base = {
        "task": "lookback-3",
        "scheme": "rope",
        "config": None,
        "seed": 0,
        "train_len": 4,
        "eval_len": 16,
        "finetune_steps": 40,
        "metric": "accuracy",
    }
    # before: right on the 4 trained positions of 16 only; after: right everywhere
    values = {
        ("before", "all"): 0.25,
        ("before", "unseen"): 0.0,
        ("after", "all"): 1.0,
        ("after", "unseen"): 1.0,
    }
    assert records == [
        {**base, "method": m, "stage": st, "region": rg, "value": values[st, rg]}
        for m in methods
        for st in ("before", "after")
        for rg in ("all", "unseen")
    ]


def test_context_extension_records_take_their_settings_and_refuse_an_unknown_method(monkeypatch):
    fake = Recorders(monkeypatch)
    task = experiments.TASKS["markov"]()
    config = experiments.make_config(task, "rope", "1x32", train_len=4)
    from posenc_lib.model import TrainResult

    result = TrainResult(config, {"trained": True}, [], {})
    records = extension.context_extension_records(
        result,
        task,
        factor=2.5,
        finetune_steps=3,
        finetune_batch=5,
        seed=7,
        config_name="1x32",
        methods=["ntk", "plain"],
        n_tokens=100,
    )
    assert [(c, options) for c, _, options in fake.trained] == [
        (
            extension.extension_variants(config, 2.5)[m],
            {
                "steps": 3,
                "batch_size": 5,
                "length": 10,
                "lr": 3e-3,
                "seed": 7,
                "progress": False,
                "init": {"trained": True},
            },
        )
        for m in ("ntk", "plain")
    ]
    assert {(n, tokens) for _, _, n, tokens in fake.scored} == {(10, 100)}
    assert [(r["method"], r["stage"], r["region"]) for r in records][:4] == [
        ("ntk", "before", "all"),
        ("ntk", "before", "unseen"),
        ("ntk", "after", "all"),
        ("ntk", "after", "unseen"),
    ]
    assert {
        (r["config"], r["seed"], r["eval_len"], r["finetune_steps"], r["metric"]) for r in records
    } == {("1x32", 7, 10, 3, "loss")}
    fake.trained.clear()
    assert message_of(
        ValueError, extension.context_extension_records, result, task, methods=["ntk", "nope"]
    ) == (
        "context_extension_records: methods[1] must be one of 'plain', 'interpolation', 'ntk', "
        "'yarn', 'yarn-paper', got 'nope'"
    )
    assert fake.trained == []  # refused before the first fine-tune


# -- the command line's report and options -------------------------------------------------------


def test_report_draws_the_first_configuration_and_returns_every_configurations_table(
    tmp_path, monkeypatch
):
    import matplotlib.pyplot as plt

    from posenc_lib import plots

    drawn = []

    def plot_results(records, *, config=None):
        fig, ax = plt.subplots(figsize=(2, 1))
        drawn.append((config, fig))
        return [ax]

    monkeypatch.setattr(plots, "plot_results", plot_results)
    records = [record(config="c", value=0.5), record(config="d", value=0.25)]
    assert experiments.report(records, tmp_path) == (
        "configuration c; mean (min-max) over 1 seed; trained at L=32\n"
        "\n"
        "t (accuracy)\n"
        "  scheme         L=32 (trained)\n"
        "  s            0.50 (0.50-0.50)\n"
        "\n"
        "configuration d; mean (min-max) over 1 seed; trained at L=32\n"
        "\n"
        "t (accuracy)\n"
        "  scheme         L=32 (trained)\n"
        "  s            0.25 (0.25-0.25)\n"
    )
    ((config, fig),) = drawn
    assert config == "c" and not plt.fignum_exists(fig.number)  # drawn, saved and closed
    png = (tmp_path / "results.png").read_bytes()
    size = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert size == (160, 80)  # 2 x 1 inches at 80 dpi


def test_the_command_line_passes_the_configurations_asked_for_to_the_sweep(
    tmp_path, monkeypatch, capsys
):
    runs = []
    from posenc_lib import cli

    monkeypatch.setattr(
        cli, "run_command", lambda study, args, options: runs.append((study, args, options))
    )
    experiments.main(["--out", str(tmp_path), "--configs", "1x32", "4x8+mlp"])
    experiments.main(["--out", str(tmp_path)])
    assert [(study, args.out, options) for study, args, options in runs] == [
        (experiments.STUDY, tmp_path, {"configs": ("1x32", "4x8+mlp")}),
        (experiments.STUDY, tmp_path, {}),
    ]
    assert runs[1][1].configs is None
    with pytest.raises(SystemExit) as stop:
        experiments.main(["--out", str(tmp_path), "--configs", "nope"])
    assert stop.value.code == 2 and len(runs) == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        experiments.main(["--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: python -m posenc_lib.experiments")
    assert (
        "Train short, test long: every position scheme trained at one length, measured at "
        "longer ones. options:"
    ) in text
    assert "--quick configuration 4x8+mlp only, seed 0, no context extension (18 models)" in text
    assert "--configs {4x8+mlp,1x32,2L-4x8+mlp+bos} [{4x8+mlp,1x32,2L-4x8+mlp+bos} ...]" in text
