"""The study: record schema (regions, configurations), per-position curves, resumable sweeps,
one BLAS thread per worker, results independent of the worker count and backend (local
processes or a Dask cluster), the command line."""

import json
import re
import time

import numpy as np
import pytest

from posenc_lib import experiments, sweep
from posenc_lib.experiments import (
    extrapolation_gap,
    position_curves,
    results_table,
    run_jobs,
    select,
    study_jobs,
    summarize,
)

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


def tiny_jobs(**changes):
    options = {"tasks": ("lookback-3",), "schemes": ("none", "learned"), "seeds": (0,), **TINY}
    return study_jobs(**{**options, **changes})


def test_records_have_all_and_unseen_regions_and_the_configuration_name():
    records = experiments.run_study(
        ("lookback-3",), ("rope", "learned"), (0, 1), configs=("1x32",), progress=False, **TINY
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
    outputs = sweep.run_jobs(jobs, blas_threads, workers=2, progress=False)
    assert [o["job"] for o in outputs] == jobs
    assert all(o["threads"] in ([], [1]) for o in outputs)  # [] where numpy has no BLAS pool
    in_process = sweep.run_jobs(jobs[:1], blas_threads, workers=1, progress=False)
    assert in_process[0]["threads"] in ([], [1])  # the limit holds in this process too


def test_kept_models_cannot_be_resumed_from_a_progress_file_so_asking_for_both_is_refused(tmp_path):
    log = tmp_path / "progress.jsonl"
    with pytest.raises(ValueError, match="run_jobs: progress_file cannot be combined with keep_"):
        experiments.run_jobs(tiny_jobs(), progress=False, progress_file=log, keep_models=True)
    assert not log.exists()  # refused before anything trained or was written


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
    stamp = sweep.load_provenance(tmp_path / "results.json")
    assert stamp["settings"]["options"]["steps"] == 5  # the settings it was made with
    assert stamp["code"] == sweep.code_hash(experiments.STUDY.code_roots)


def test_the_quick_sweep_covers_every_scheme_task_and_region():
    jobs = study_jobs(seeds=(0,), configs=("4x8+mlp",))
    assert len(jobs) == 18
    assert {j["scheme"] for j in jobs} == {"none", "sinusoidal", "learned", "rope", "alibi", "t5"}
    full = study_jobs(seeds=experiments.SEEDS, configs=tuple(experiments.CONFIGS), extension=True)
    assert len(full) == 3 * 6 * len(experiments.CONFIGS) * 3
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
    assert summarize(records, config="a")[("t", "s", 64)] == pytest.approx((0.7, 0.6, 0.8))
    unseen = summarize(records, config="b", region="unseen")
    assert list(unseen) == [("t", "s", 64)] and unseen[("t", "s", 64)][0] == pytest.approx(0.4)
    assert extrapolation_gap(records, "t", "s", config="a") == pytest.approx(0.6 - 0.9)
    assert extrapolation_gap(records, "t", "s", config="a", region="unseen") == pytest.approx(-0.6)
    with pytest.raises(ValueError, match="region must be one of 'all', 'unseen', got 'late'"):
        summarize(records, config="a", region="late")
    only_train_len = [record(seed=s) for s in (0, 1)]  # no length beyond training: no unseen
    with pytest.raises(ValueError, match="extrapolation_gap: no 'unseen' records of 't', 's' at"):
        extrapolation_gap(only_train_len, "t", "s", region="unseen")


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

    monkeypatch.setattr(sweep, "run_sweep", interrupted)
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
    on_cluster = experiments.run_sweep(tmp_path / "dask", backend="dask", progress=False, **quick)
    dask_seconds = time.perf_counter() - start
    start = time.perf_counter()
    local = experiments.run_sweep(tmp_path / "loky", workers=2, progress=False, **quick)
    local_seconds = time.perf_counter() - start
    print(f"quick study: dask LocalCluster {dask_seconds:.0f} s, loky {local_seconds:.0f} s")
    for name in ("results", "curves"):
        assert sweep.load_records(on_cluster[name]) == sweep.load_records(local[name])
    assert len(sweep.load_records(local["results"])) == 18 * 7


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
    resumed = sweep.run_jobs(jobs, None, backend="dask", progress=False, progress_file=log)
    assert resumed == on_cluster  # nothing ran again (the runner None would fail)


@pytest.mark.slow
def test_the_command_line_runs_on_a_local_dask_cluster(tmp_path, capsys):
    pytest.importorskip(
        "dask.distributed",
        reason="dask is not installed: pip install 'posenc-lib[cluster]' (the test extra has it)",
    )
    experiments.main(
        ["--tiny", "--backend", "dask", "--workers", "2", "--out", str(tmp_path), "--no-progress"]
    )
    local = experiments.run_sweep(
        tmp_path / "local", workers=1, progress=False, **experiments.STUDY.tiny
    )
    assert experiments.load_study(tmp_path)[0] == sweep.load_records(local["results"])
    assert "configuration 4x8+mlp" in capsys.readouterr().out


def test_run_one_and_the_resumable_sweep_give_the_records_of_the_same_job(
    tmp_path, monkeypatch, capsys
):
    options = {"config": "1x32", **TINY}
    one = experiments.run_one("lookback-3", "rope", 1, **options)
    assert capsys.readouterr().err == ""  # no progress bar unless asked
    assert {r["seed"] for r in one} == {1} and {r["config"] for r in one} == {"1x32"}
    assert [r["eval_len"] for r in one] == [8, 16, 16]
    other_seed = experiments.run_one("lookback-3", "rope", 0, **options)
    assert [r["value"] for r in other_seed] != [r["value"] for r in one]
    records, result = experiments.run_one("lookback-3", "rope", 1, keep_model=True, **options)
    assert records == one
    assert (len(result.losses), result.config.scheme, result.config.d_model) == (3, "rope", 32)

    study = {"tasks": ["lookback-3"], "schemes": ["rope"], "seeds": [1], "configs": ["1x32"]}
    sweep_options = {**study, "extension": False, **TINY}
    paths = experiments.run_sweep(tmp_path, workers=1, progress=False, **sweep_options)
    assert sorted(paths) == ["curves", "extension", "results"]
    made, curves, extension = experiments.load_study(tmp_path)
    assert made == one and extension == [] and len(curves) == 1
    stamp = sweep.load_provenance(paths["results"])
    assert stamp["settings"]["options"]["seeds"] == [1]
    assert stamp["settings"]["options"]["steps"] == TINY["steps"]

    def trained_again(job, **_):
        raise AssertionError(f"trained again: {job}")

    monkeypatch.setattr(experiments, "train_and_measure", trained_again)
    experiments.run_sweep(tmp_path, workers=1, progress=False, **sweep_options)  # resumes
    assert experiments.load_study(tmp_path)[0] == one
    with pytest.raises(AssertionError, match="trained again"):  # fresh=True starts over
        experiments.run_sweep(tmp_path, workers=1, progress=False, fresh=True, **sweep_options)


def test_the_extension_table_shows_each_methods_mean_and_range_before_and_after():
    _, _, extension = experiments.load_study()
    summary = experiments.extension_summary(extension, "lookback-3")
    lines = experiments.extension_table(extension, "lookback-3", digits=3).splitlines()
    assert lines[0] == (
        "lookback-3, configuration 4x8+mlp, length 128 (trained at 32), unseen positions, 3 seeds"
    )
    assert lines[1].split() == ["method", "before", "after", "40", "steps"]
    methods = sweep.names(select(extension, task="lookback-3"), "method")
    assert [line.split()[0] for line in lines[2:]] == methods
    for line, method in zip(lines[2:], methods, strict=True):
        assert line[:14] == method.ljust(14)  # the method column is 14 wide
        cells = [float(x) for x in re.findall(r"\d+\.\d{3}", line)]
        assert cells == [
            float(f"{v:.3f}") for stage in ("before", "after") for v in summary[method, stage]
        ]
    markov = experiments.extension_table(extension, "markov", region="all").splitlines()
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
    pairs = experiments.paired_differences(rows, "scheme", "a", "b")
    assert [(p["seed"], p["difference"]) for p in pairs] == [(0, 0.5)]
    with pytest.raises(ValueError, match="no record has the field by='method'"):
        experiments.paired_differences(rows, "method", "a", "b")
