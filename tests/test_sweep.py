"""The experiment engine's own parts: the command line a learner or teacher types (posenc_lib.cli),
the process settings every worker takes and the runner (posenc_lib.runner), the text tables
(posenc_lib.tables), the binning of curves (posenc_lib.records), and, on a toy sweep that trains
nothing, what `Sweep.run` hands run_jobs, Dask and the files it writes (posenc_lib.sweep). The
chapters' sweeps themselves are tested through the two chapters that use them
(tests/test_experiments.py, tests/test_realtext.py, tests/test_committed_data.py); the refusals of
every entry point in tests/test_validation_engine.py."""

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from posenc_lib import cli, experiments, realtext, records, runner, sweep, tables

HELP = {
    "out": "directory for the results",
    "quick": "seed 0 only",
    "tiny": "a seconds-long smoke run (tests)",
    "seeds": "seeds 0 .. N-1",
    "steps": "Adam steps per model",
    "workers": "local worker processes, one BLAS thread each",
    "backend": "loky: local processes; dask: a Dask cluster (pip install 'posenc-lib[cluster]')",
    "scheduler": "with --backend dask: the scheduler's address (default: a LocalCluster here)",
    "fresh": "discard DIR/progress.jsonl, start over",
    "no_progress": "no progress bar",
}


@pytest.mark.parametrize("spec", [experiments.STUDY, realtext.REALTEXT], ids=lambda s: s.name)
def test_the_command_line_says_what_each_option_does_and_defaults_to_the_committed_sweep(spec):
    parser = cli.parser(spec, "The sweep.", "seed 0 only")
    assert parser.prog == f"python -m {spec.module}"
    assert parser.description == "The sweep."
    helps = {a.dest: a.help for a in parser._actions if a.dest != "help"}
    assert helps == HELP
    args = parser.parse_args(["--out", "x"])
    assert (args.seeds, args.steps) == (len(spec.options["seeds"]), spec.options["steps"])
    assert (args.quick, args.tiny, args.fresh, args.no_progress) == (False,) * 4
    assert (args.backend, args.scheduler) == ("loky", None)
    assert args.workers == min(2, os.cpu_count() or 1)
    flags = parser.parse_args(["--out", "x", "--quick", "--tiny", "--fresh", "--no-progress"])
    assert (flags.quick, flags.tiny, flags.fresh, flags.no_progress) == (True,) * 4
    numbers = parser.parse_args(["--out", "x", "--seeds", "5", "--steps", "7", "--workers", "3"])
    assert (numbers.seeds, numbers.steps, numbers.workers) == (5, 7, 3)
    with pytest.raises(SystemExit):  # --out is required
        parser.parse_args([])
    with pytest.raises(SystemExit):  # only the two backends
        parser.parse_args(["--out", "x", "--backend", "ray"])


class FakeLibc:
    """Records the mallopt calls a worker makes, and answers like glibc (1: accepted)."""

    def __init__(self, answer=1):
        self.calls, self.answer = [], answer

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return self.answer


def test_each_worker_asks_glibc_to_keep_freed_memory_without_trimming_or_separate_mappings(
    monkeypatch,
):
    import ctypes

    libc = FakeLibc()
    monkeypatch.setattr(runner.platform, "system", lambda: "Linux")
    monkeypatch.setattr(runner.platform, "libc_ver", lambda: ("glibc", "2.36"))
    monkeypatch.setattr(ctypes, "CDLL", lambda name: libc)
    assert runner.keep_freed_memory() is True
    # <malloc.h>: M_TRIM_THRESHOLD = -1 (never trim), M_MMAP_MAX = -4 (0: no separate mappings)
    assert libc.calls == [(-1, 2**31 - 1), (-4, 0)]
    refused = FakeLibc(answer=0)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: refused)
    assert runner.keep_freed_memory() is False
    for system, libc_name in [("Darwin", ""), ("Windows", ""), ("Linux", "musl")]:
        untouched = FakeLibc()
        monkeypatch.setattr(ctypes, "CDLL", lambda name, lib=untouched: lib)
        monkeypatch.setattr(runner.platform, "system", lambda s=system: s)
        monkeypatch.setattr(runner.platform, "libc_ver", lambda n=libc_name: (n, ""))
        assert runner.keep_freed_memory() is False and untouched.calls == []


def test_a_worker_keeps_freed_memory_and_runs_its_job_on_one_blas_thread(monkeypatch):
    from threadpoolctl import threadpool_info

    kept = []
    monkeypatch.setattr(runner, "keep_freed_memory", lambda: kept.append(True))

    def blas_threads(job):
        return job, {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    job, threads = runner.one_blas_thread(blas_threads, {"n": 1})
    assert job == {"n": 1} and threads <= {1} and kept == [True]


# -- reading the records: per-position curves in bins --------------------------------------------


def test_binned_curves_pool_each_bin_then_spread_over_the_records():
    first = {"totals": [0, 2, 4, 1, 3, 3, 9], "counts": [0, 4, 4, 1, 0, 0, 9]}
    second = {"totals": [1, 1, 2, 2, 6, 0, 9], "counts": [2, 2, 1, 1, 6, 2, 9]}
    centres, mean, low, high = records.binned_curves([first, second], bin_width=2)
    # bins of positions (0, 1), (2, 3), (4, 5); position 6 is not a whole bin
    # first:  2/4 = 0.5, 5/5 = 1.0, no targets -> NaN (no value, not zero)
    # second: 2/4 = 0.5, 4/2 = 2.0, 6/8 = 0.75
    assert centres.tolist() == [0.5, 2.5, 4.5]
    assert mean.tolist()[:2] == [0.5, 1.5] and np.isnan(mean[2])
    assert low.tolist()[:2] == [0.5, 1.0] and np.isnan(low[2])
    assert high.tolist()[:2] == [0.5, 2.0] and np.isnan(high[2])
    one_target = {"totals": [3, 5], "counts": [1, 0]}  # a bin of one target is its value
    centres, mean, _, _ = records.binned_curves([one_target])  # default: one position per bin
    assert centres.tolist() == [0.0, 1.0]
    assert mean[0] == 3.0 and np.isnan(mean[1])


def test_binned_curves_select_the_curves_and_bin_another_field():
    curves = [
        {"scheme": "a", "totals": [1, 1], "excess": [2, 4], "counts": [1, 2]},
        {"scheme": "b", "totals": [9, 9], "excess": [9, 9], "counts": [1, 1]},
    ]
    assert records.binned_curves(curves, scheme="a")[1].tolist() == [1.0, 0.5]
    assert records.binned_curves(curves, scheme="a", field="excess")[1].tolist() == [2.0, 2.0]


def test_every_binning_of_the_course_is_bin_positions():
    """The study's curves, chapter 07's bits by position and the floors' curve: one binning."""
    import inspect

    from posenc_lib import plots

    assert "bin_positions(" in inspect.getsource(records.binned_curves)
    assert "bin_positions(" in inspect.getsource(plots.draw_floors)
    assert "binned_curves(" in inspect.getsource(realtext.position_bits)
    assert "binned_curves(" in inspect.getsource(experiments.position_curves)
    for function in (realtext.position_bits, experiments.position_curves, plots.draw_floors):
        assert "reshape" not in inspect.getsource(function)


def test_binned_curves_refuse_a_bin_width_below_one_naming_it():
    one = [{"totals": [1], "counts": [1]}]
    assert records.binned_curves(one, bin_width=1)[1].tolist() == [1.0]
    with pytest.raises(
        ValueError, match=r"^binned_curves: bin_width must be an integer >= 1, got 0$"
    ):
        records.binned_curves(one, bin_width=0)
    with pytest.raises(TypeError, match=r"^binned_curves: bin_width must be an integer, got 1.5$"):
        records.binned_curves(one, bin_width=1.5)


# -- the chapters' entry points hand everything to the engine ------------------------------------


@pytest.mark.parametrize(
    ("module", "run", "load"),
    [(experiments, "run_study", "load_study"), (realtext, "run_sweep", "load_sweep")],
    ids=["study", "realtext"],
)
def test_a_chapter_runs_and_reads_its_sweep_through_the_one_engine(module, run, load, monkeypatch):
    calls = []
    files = tuple([] for _ in experiments.STUDY.files)  # what a run or a reading returns
    monkeypatch.setattr(
        sweep.Sweep, "run", lambda self, **kw: calls.append(("run", self, kw)) or files
    )
    monkeypatch.setattr(
        sweep.Sweep, "load", lambda self, d=None: calls.append(("load", self, d)) or files
    )
    spec = experiments.STUDY if module is experiments else realtext.REALTEXT
    getattr(module, run)()
    getattr(module, run)(out="x", workers=3, backend="dask", progress=False, fresh=True, steps=5)
    getattr(module, load)()
    getattr(module, load)("elsewhere")
    defaults = {"workers": 1, "backend": "loky", "progress": True, "fresh": False}
    defaults |= {"keep_models": False, "out": None}
    given = {"out": "x", "workers": 3, "backend": "dask", "progress": False, "fresh": True}
    given |= {"keep_models": False, "steps": 5}
    assert calls == [
        ("run", spec, defaults),
        ("run", spec, given),
        ("load", spec, None),
        ("load", spec, "elsewhere"),
    ]
    assert spec.verbs == {"run": run, "load": load}


@pytest.mark.parametrize("module", [experiments, realtext], ids=["study", "realtext"])
def test_both_chapters_run_summarise_and_tabulate_with_the_same_arguments_and_defaults(module):
    import inspect

    for name in ("summarize", "results_table"):
        assert inspect.signature(getattr(module, name)) == inspect.signature(
            getattr(experiments, name)
        )
    run = {"experiments": "run_study", "realtext": "run_sweep"}[module.__name__.split(".")[-1]]
    assert inspect.signature(getattr(module, run)) == inspect.signature(experiments.run_study)
    assert inspect.signature(experiments.summarize).parameters["region"].default == "unseen"


def test_run_hands_run_jobs_the_jobs_and_returns_the_files_records_and_the_models(monkeypatch):
    calls = []

    def run_jobs(jobs, runner, **kwargs):
        calls.append((jobs, runner, kwargs))
        return [
            {
                "job": job,
                "records": [{"n": i}],
                "curve": {"c": i},
                "extension": [],
                "training": {"t": i},
                "result": i,
            }
            for i, job in enumerate(jobs)
        ]

    monkeypatch.setattr(sweep, "run_jobs", run_jobs)
    files = experiments.run_study(tasks=("markov",), schemes=("rope",))
    (records, curves, extension), models = experiments.run_study(
        tasks=("lookback-3",),
        schemes=("none", "alibi"),
        seeds=(2, 5),
        configs=("1x32",),
        steps=9,
        train_len=16,
        eval_lens=(16, 32),
        n_tokens=64,
        workers=2,
        progress=False,
        keep_models=True,
    )
    (default_jobs, runner, defaults), (jobs, _, given) = calls
    assert runner is experiments.train_and_measure
    assert default_jobs == experiments.study_jobs(("markov",), ("rope",), (0,))
    assert files == ([{"n": 0}], [{"c": 0}], [])
    assert defaults == {"workers": 1, "backend": "loky", "progress": True, "keep_models": False}
    assert jobs == experiments.study_jobs(
        ("lookback-3",),
        ("none", "alibi"),
        (2, 5),
        configs=("1x32",),
        steps=9,
        train_len=16,
        eval_lens=(16, 32),
        n_tokens=64,
    )
    assert given == {"workers": 2, "backend": "loky", "progress": False, "keep_models": True}
    assert records == [{"n": i} for i in range(4)] and curves == [{"c": i} for i in range(4)]
    assert models == {(j["task"], j["scheme"], j["seed"]): i for i, j in enumerate(jobs)}


# -- a toy sweep: the engine's running, recording and command line, without training a model ------


class Trained:
    """Stands for a trained model: only the parameters a witness job saves."""

    def __init__(self, seed):
        self.params = {"w": np.array([1.0, 2.0, 3.0]) * (seed + 1), "b": np.full((2, 2), seed)}


def toy_jobs(seeds=(0, 1), steps=1, scale=1):
    return [
        {"task": "t", "scheme": "rope", "config": "c", "seed": s, "steps": steps, "scale": scale}
        for s in seeds
    ]


def toy_run(job):
    record = {"seed": job["seed"], "value": job["scale"] / 2}
    return {"job": job, "result": Trained(job["seed"]), "records": [record]}


TOY = sweep.Sweep(
    "toy",
    "tests.toy",
    toy_jobs,
    toy_run,
    {"results": "records"},
    {"seeds": (0, 1), "steps": 1},
    witnesses=({"seed": 1},),
)


def test_a_sweep_saves_each_witness_jobs_trained_parameters_where_witness_path_says(tmp_path):
    out = tmp_path / "new" / "nested"  # created, parents too
    (results,) = TOY.run(out=out, progress=False)
    assert (
        results
        == records.load_records(out / "results.json")
        == [
            {"seed": 0, "value": 0.5},
            {"seed": 1, "value": 0.5},
        ]
    )
    files = ["progress.jsonl", "results.json", "witness-t-rope-c-seed1.npz"]
    assert sorted(p.name for p in out.iterdir()) == files  # seed 0 is no witness
    with np.load(out / "witness-t-rope-c-seed1.npz") as saved:
        assert sorted(saved.files) == ["b", "w"]
        assert saved["w"].tolist() == [2.0, 4.0, 6.0] and saved["b"].tolist() == [[1, 1], [1, 1]]


def test_run_with_out_hands_run_jobs_the_jobs_of_its_options_and_a_progress_file(
    tmp_path, monkeypatch
):
    calls = []

    def run_jobs(jobs, runner, **kwargs):
        calls.append((jobs, runner, kwargs))
        return []

    monkeypatch.setattr(sweep, "run_jobs", run_jobs)
    TOY.run(out=tmp_path / "a")
    TOY.run(out=tmp_path / "b", workers=3, backend="dask", progress=False, scale=2)
    (jobs, runner, defaults), (more_jobs, _, given) = calls
    assert jobs == toy_jobs() and runner is toy_run and more_jobs == toy_jobs(scale=2)
    assert callable(defaults.pop("on_output")) and callable(given.pop("on_output"))
    progress = tmp_path / "a" / "progress.jsonl"
    assert defaults == {
        "workers": 1,
        "backend": "loky",
        "progress": True,
        "progress_file": progress,
    }
    progress = tmp_path / "b" / "progress.jsonl"
    assert given == {"workers": 3, "backend": "dask", "progress": False, "progress_file": progress}


def test_run_keeps_the_progress_file_unless_asked_to_start_fresh(tmp_path, monkeypatch):
    found = []

    def run_jobs(jobs, runner, *, progress_file, **kwargs):
        found.append(progress_file.exists())
        return []

    monkeypatch.setattr(sweep, "run_jobs", run_jobs)
    (tmp_path / "progress.jsonl").write_text("")
    TOY.run(out=tmp_path)
    TOY.run(out=tmp_path, fresh=True)
    assert found == [True, False]


def test_records_text_of_no_records_is_an_empty_list():
    assert records.records_text([]) == "[]\n"
    assert records.records_text([{"a": 1}]) == '[\n{"a": 1}\n]\n'


# -- text tables ---------------------------------------------------------------------------------


@pytest.mark.parametrize("digits, width", [(0, 11), (1, 14), (2, 17), (3, 21), (4, 25)])
def test_cell_width_is_the_larger_of_9_plus_4_and_11_plus_3_columns_per_decimal(digits, width):
    assert tables.cell_width(digits) == width


@pytest.mark.parametrize(
    "digits, header, width", [(2, 16, 17), (2, 17, 18), (2, 20, 21), (0, 13, 14), (4, 30, 31)]
)
def test_cell_width_fits_the_longest_header_and_a_space_before_it(digits, header, width):
    assert tables.cell_width(digits, ["h", "x" * header, "y"]) == width


def test_a_cell_by_default_shows_two_decimals_and_says_not_run_or_cannot_run():
    assert tables.cell((0.5, 0.25, 0.75)) == "0.50 (0.25-0.75)"
    assert tables.cell(tables.MISSING) == "not run"
    assert tables.cell(None) == "cannot run"


def test_text_table_by_default_has_a_12_column_label_and_cells_of_2_decimals_17_columns_wide():
    rows = [("rope", [(0.5, 0.25, 0.75), None]), ("alibi", [tables.MISSING, (1, 1, 1)])]
    assert tables.text_table("scheme", ["L=8", "L=16"], rows) == [
        "scheme      " + " " * 14 + "L=8" + " " * 13 + "L=16",
        "rope        " + " 0.50 (0.25-0.75)" + " " * 7 + "cannot run",
        "alibi       " + " " * 10 + "not run" + " 1.00 (1.00-1.00)",
    ]


def test_text_table_takes_the_column_width_label_width_digits_and_indent_given():
    lines = tables.text_table(
        "s", ["h"], [("r", [(1, 0, 2)])], digits=1, column_width=15, label_width=2, indent="> "
    )
    assert lines == ["> s " + " " * 14 + "h", "> r " + "  1.0 (0.0-2.0)"]


# -- the command line: options, Dask, an interrupted run, the last line ---------------------------


def toy_args(out, *flags):
    return cli.parser(TOY, "A toy sweep.", "seed 0").parse_args(["--out", str(out), *flags])


@pytest.mark.parametrize("cpus, workers", [(None, 1), (1, 1), (2, 2), (8, 2)])
def test_the_command_line_defaults_to_two_workers_or_the_one_core_there_is(
    monkeypatch, cpus, workers
):
    monkeypatch.setattr(cli.os, "cpu_count", lambda: cpus)
    assert toy_args("x").workers == workers


@pytest.fixture
def engine(monkeypatch):
    """Stand-ins for Sweep.run and Dask's Client and LocalCluster: the list of their calls."""
    distributed = pytest.importorskip(
        "dask.distributed",
        reason="dask is not installed: pip install 'posenc-lib[cluster]' (the test extra has it)",
    )
    calls = []

    class Client:
        def __init__(self, *args, **kwargs):
            calls.append(("Client", args, kwargs))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            calls.append(("close",))

    class LocalCluster:
        def __init__(self, *args, **kwargs):
            calls.append(("LocalCluster", args, kwargs))

        def __enter__(self):
            return "the local cluster"

        def __exit__(self, *exc):
            calls.append(("close cluster",))

    def run(spec, *, out, **kwargs):
        calls.append(("run", spec, out, kwargs))
        if kwargs.get("steps") == "interrupt":
            raise KeyboardInterrupt
        return ([{"value": 1.0}],)

    monkeypatch.setattr(distributed, "Client", Client)
    monkeypatch.setattr(distributed, "LocalCluster", LocalCluster)
    monkeypatch.setattr(sweep.Sweep, "run", run)
    return calls


def test_the_command_line_hands_the_run_its_workers_backend_progress_and_fresh(tmp_path, engine):
    records = cli.run_resumable(TOY, toy_args(tmp_path, "--workers", "3"), seeds=(0,), steps=4)
    assert records == [{"value": 1.0}]
    cli.run_resumable(TOY, toy_args(tmp_path, "--workers", "1", "--fresh", "--no-progress"))
    first = {"workers": 3, "backend": "loky", "progress": True, "fresh": False}
    second = {"workers": 1, "backend": "loky", "progress": False, "fresh": True}
    assert engine == [  # no Dask cluster with loky
        ("run", TOY, tmp_path, {**first, "seeds": (0,), "steps": 4}),
        ("run", TOY, tmp_path, second),
    ]


def test_the_dask_backend_starts_a_local_cluster_of_one_thread_per_worker_and_closes_both(
    tmp_path, engine
):
    cli.run_resumable(TOY, toy_args(tmp_path, "--backend", "dask", "--workers", "3"))
    given = {"workers": 3, "backend": "dask", "progress": True, "fresh": False}
    assert engine == [
        ("LocalCluster", (), {"n_workers": 3, "threads_per_worker": 1}),
        ("Client", ("the local cluster",), {}),
        ("run", TOY, tmp_path, given),
        ("close",),
        ("close cluster",),
    ]


def test_the_dask_backend_connects_to_the_scheduler_given_and_closes_the_client(tmp_path, engine):
    address = "tcp://10.0.0.7:8786"
    cli.run_resumable(TOY, toy_args(tmp_path, "--backend", "dask", "--scheduler", address))
    assert [call[:2] for call in engine] == [("Client", (address,)), ("run", TOY), ("close",)]
    assert engine[0][2] == {}


def test_an_interrupted_run_says_how_many_models_it_kept_where_and_how_to_continue(
    tmp_path, engine, capsys
):
    (tmp_path / "progress.jsonl").write_text('{"job": {"seed": 0}}\n{"job": {"seed": 1}}\n{"jo')
    args = toy_args(tmp_path, "--backend", "dask", "--workers", "1")
    with pytest.raises(SystemExit) as stop:
        cli.run_resumable(TOY, args, steps="interrupt")
    assert stop.value.code == 130
    assert capsys.readouterr().out == (
        f"interrupted: 2 finished models are kept in {tmp_path / 'progress.jsonl'}; "
        "run the same command again to continue\n"
    )
    assert engine[-2:] == [("close",), ("close cluster",)]  # closed on an interrupt too


def test_main_runs_the_options_of_its_flags_then_prints_the_report_and_the_records_written(
    tmp_path, monkeypatch, capsys
):
    import dataclasses
    import types

    calls = []

    def run_resumable(spec, args, **options):
        calls.append(options)
        return [{"value": 1.0}, {"value": 2.0}, {"value": 3.0}]

    monkeypatch.setattr(cli, "run_resumable", run_resumable)
    clock = iter([100.0, 102.6, 200.0, 200.4, 0.0, 0.0, 0.0, 0.0])
    monkeypatch.setattr(cli, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    spec = dataclasses.replace(
        TOY,
        quick={"seeds": (0,), "scale": 3},
        tiny={"steps": 2},
        report=lambda records, out: f"{len(records)} records drawn in {out.name}",
    )
    out = tmp_path / "res"
    records = cli.run_command(spec, toy_args(out, "--quick"), {"scale": 5})
    assert records == [{"value": 1.0}, {"value": 2.0}, {"value": 3.0}]
    assert capsys.readouterr().out == f"3 records drawn in res\n3 records in 3 s -> {out}\n"
    cli.run_command(TOY, toy_args(out, "--tiny", "--seeds", "3", "--steps", "7"), {})  # no report
    assert capsys.readouterr().out == f"3 records in 0 s -> {out}\n"
    cli.run_command(spec, toy_args(out, "--quick", "--tiny"), {})
    cli.run_command(spec, toy_args(out, "--tiny"), {"steps": 9})
    assert calls == [
        {"seeds": (0,), "steps": 1, "scale": 3},
        {"seeds": (0, 1, 2), "steps": 7},  # TOY has no tiny options
        {"seeds": (0,), "steps": 2, "scale": 3},
        {"seeds": (0, 1), "steps": 2},
    ]


def worker_pid(job):
    return {"job": job, "pid": os.getpid()}


def test_one_local_worker_runs_in_this_process_and_two_in_worker_processes():
    jobs = [{"n": k} for k in range(3)]
    here = runner.run_jobs(jobs, worker_pid, workers=1, progress=False)
    assert [o["job"] for o in here] == jobs and {o["pid"] for o in here} == {os.getpid()}
    away = runner.run_jobs(jobs, worker_pid, workers=2, progress=False)
    assert [o["job"] for o in away] == jobs and os.getpid() not in {o["pid"] for o in away}


def fail_on_two(job):
    if job["n"] == 2:
        raise ValueError("job 2 fails")
    return {"job": job, "pid": os.getpid()}


def children():
    import psutil

    return {p.pid for p in psutil.Process().children(recursive=True)}


POSIX = pytest.mark.skipif(os.name != "posix", reason="trackers are stopped on POSIX only")

# In a fresh process, so that nothing another test left running can mask what a run leaves.
RELEASE_SCRIPT = """
import multiprocessing, os, sys, time
import psutil
from posenc_lib import runner

def job(j):
    if j.get("fail"):
        if j["n"] == 1:
            time.sleep(0.5)
            raise ValueError("job 1 fails")
        lock = multiprocessing.RLock()  # a semaphore in the worker, as train's progress bar makes
        time.sleep(30)
    return {"job": j, "pid": os.getpid()}

if __name__ == "__main__":
    runner.run_jobs([{"n": k} for k in range(3)], job, workers=2, progress=False)
    print("finished:", sorted(runner.running_trackers()), len(psutil.Process().children()))
    try:
        runner.run_jobs([{"n": 0, "fail": 1}, {"n": 1, "fail": 1}], job, workers=2, progress=False)
    except ValueError:
        pass
    print("failed:", sorted(runner.running_trackers()))
    sys.stdout.flush()
    time.sleep(1.0)  # a tracker stopped now would report the killed job's semaphore as leaked
    print("END", file=sys.stderr, flush=True)  # the trackers left report at exit, after this
"""


@pytest.mark.skipif(
    sys.platform != "linux",
    reason="where processes start by spawn (macOS, Windows), the progress bar's lock starts "
    "multiprocessing's tracker before the run, so it is not the run's to stop",
)
def test_a_finished_run_ends_its_workers_and_trackers_and_a_failed_run_leaves_them_silently(
    tmp_path,
):
    script = tmp_path / "release.py"
    script.write_text(RELEASE_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "finished: [] 0",  # no worker, no tracker: a kernel shuts down at once
        "failed: ['loky', 'multiprocessing']",  # joblib killed the workers; trackers kept
    ]
    assert done.stderr.split("END")[0] == ""  # no warning while the program runs


@POSIX
def test_a_tracker_running_before_the_run_is_left_running():
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # as a Dask cluster or a learner's shared memory would
    pid = resource_tracker._resource_tracker._pid
    runner.run_jobs([{"n": k} for k in range(2)], worker_pid, workers=2, progress=False)
    assert "multiprocessing" in runner.running_trackers()
    assert pid in children()  # the same process, still serving whoever started it


@POSIX
def test_stopping_a_tracker_another_process_holds_waits_no_longer_than_its_timeout():
    import multiprocessing
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    holder = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(30,))
    holder.start()  # a spawned process holds the tracker's pipe, so the tracker does not end
    try:
        start = time.perf_counter()
        assert runner.release_workers(["multiprocessing"], timeout=0.3) is False
        assert time.perf_counter() - start < 5
    finally:
        holder.kill()
        holder.join()


@pytest.mark.parametrize("trackers", ["loky", ["Loky"], [None]])
def test_release_workers_names_the_trackers_it_knows_when_given_others(trackers):
    with pytest.raises(TypeError, match="release_workers: trackers must be a collection of names"):
        runner.release_workers(trackers)


def test_run_jobs_runs_in_this_process_with_a_progress_bar_unless_told_otherwise(capsys):
    jobs = [{"n": n} for n in range(3)]
    outputs = runner.run_jobs(jobs, worker_pid)
    assert {o["pid"] for o in outputs} == {os.getpid()}  # one worker: this process
    assert "models trained" in capsys.readouterr().err  # tqdm's bar, on standard error
    runner.run_jobs(jobs, worker_pid, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": 0}, "run_jobs: workers must be an integer >= 1, got 0"),
        ({"workers": -2}, "run_jobs: workers must be an integer >= 1, got -2"),
        ({"backend": "spark"}, "run_jobs: backend must be one of 'loky', 'dask', got 'spark'"),
        (
            {"progress_file": "progress.jsonl", "keep_models": True},
            "run_jobs: progress_file cannot be combined with keep_models=True (trained models are "
            "not written to it, so a resumed run could not return them), got 'progress.jsonl'",
        ),
    ],
)
def test_run_jobs_refuses_no_workers_an_unknown_backend_and_kept_models_with_a_log(
    options, message
):
    with pytest.raises(ValueError) as refused:
        runner.run_jobs([{"n": 0}], worker_pid, progress=False, **options)
    assert str(refused.value) == message


def fail_after_the_others_are_written(job):
    """Jobs 0-2 finish at once; job 3 waits until the three are in the progress file, then fails."""
    if job["n"] < 3:
        return {"job": job}
    log, deadline = Path(job["log"]), time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= 3:
            break
        time.sleep(0.02)
    raise RuntimeError("job 3 failed")


def test_the_models_finished_before_a_job_fails_are_kept_for_the_next_run(tmp_path):
    # outputs are written as they finish, not when the last one does
    log = tmp_path / "progress.jsonl"
    jobs = [{"n": n, "log": str(log)} for n in range(4)]
    with pytest.raises(RuntimeError, match="job 3 failed"):
        runner.run_jobs(
            jobs, fail_after_the_others_are_written, workers=2, progress=False, progress_file=log
        )
    assert sorted(out["job"]["n"] for out in runner.read_progress(log).values()) == [0, 1, 2]


@pytest.fixture
def bars(monkeypatch):
    """Stand-in for tqdm's bar: the options of each bar run_jobs makes, and its count at close."""
    import tqdm.auto

    made = []

    class Bar:
        def __init__(self, **options):
            self.options, self.n = options, options.get("initial", 0)
            made.append(self)

        def update(self, n):
            self.n += n

        def close(self):
            self.closed_at = self.n

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    return made


def test_a_resumed_run_starts_its_bar_at_the_models_already_trained(tmp_path, bars):
    log = tmp_path / "progress.jsonl"
    jobs = [{"n": n} for n in range(4)]
    runner.run_jobs(jobs[:1], worker_pid, progress_file=log)
    runner.run_jobs(jobs, worker_pid, progress=False, progress_file=log)
    assert [bar.options for bar in bars] == [
        {"total": 1, "initial": 0, "desc": "models trained", "leave": False, "disable": False},
        {"total": 4, "initial": 1, "desc": "models trained", "leave": False, "disable": True},
    ]
    assert [bar.closed_at for bar in bars] == [1, 4]  # one step per model


def never_called(job):
    raise AssertionError(f"trained again: {job}")


def test_a_finished_run_resumes_to_its_outputs_without_starting_a_pool(tmp_path):
    log = tmp_path / "deep" / "er" / "progress.jsonl"  # folders made as needed
    jobs = [{"n": n} for n in range(3)]
    done = runner.run_jobs(jobs, worker_pid, progress=False, progress_file=log)
    again = runner.run_jobs(jobs, never_called, workers=2, progress=False, progress_file=log)
    assert again == done  # a pool of 0 processes would fail


def test_the_job_key_does_not_depend_on_the_order_of_the_settings():
    assert runner.job_key({"seed": 0, "scheme": "rope"}) == runner.job_key(
        {"scheme": "rope", "seed": 0}
    )


def test_outputs_after_a_torn_line_are_read_and_a_resumed_run_starts_on_a_new_line(tmp_path):
    log = tmp_path / "progress.jsonl"
    log.write_text('{"job": {"n": 0}}\n{"job": {"n"')  # interrupted while writing job 1
    runner.run_jobs([{"n": n} for n in range(3)], worker_pid, progress=False, progress_file=log)
    assert log.read_text().startswith('{"job": {"n": 0}}\n{"job": {"n"\n{"job": {"n": 1}')
    assert sorted(out["job"]["n"] for out in runner.read_progress(log).values()) == [0, 1, 2]


def blas_threads_here(job):
    from threadpoolctl import threadpool_info

    return {
        "job": job,
        "threads": sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}),
    }


def test_one_blas_thread_holds_blas_to_one_thread_where_more_are_allowed():
    from threadpoolctl import threadpool_info, threadpool_limits

    if not any(p["user_api"] == "blas" for p in threadpool_info()):
        pytest.skip("this numpy has no BLAS thread pool to limit")
    with threadpool_limits(2, user_api="blas"):
        assert blas_threads_here({})["threads"] == [2]
        assert runner.one_blas_thread(blas_threads_here, {"n": 0})["threads"] == [1]


def test_region_records_refuse_more_settings_than_names():
    sums = (np.array([1.0, 0.0]), np.array([1, 1]))
    with pytest.raises(ValueError, match="zip"):
        records.region_records({}, {(2, "chunks"): sums}, 2, "loss", keys=())
    (record,) = records.region_records({}, {(2, "chunks"): sums}, 2, "loss", keys=("mode",))
    assert record["mode"] == "chunks"


def test_load_records_reads_a_file_of_records_without_provenance(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('[{"value": 1.0}]')
    assert records.load_records(path) == [{"value": 1.0}]
