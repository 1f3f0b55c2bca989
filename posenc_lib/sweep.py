"""One engine for the course's sweeps: train these models, record, summarise, tabulate, resume.

Chapter 06's study (`posenc_lib.experiments`) and chapter 07's real-text sweep
(`posenc_lib.realtext`) are two `Sweep` s: each says how to list its jobs (one model each, a dict
of JSON values) and how to run one job (train, then score). This module does the rest, once:

- **running**: `run_jobs` runs the jobs through joblib, in this process, in local worker
  processes (loky) or on a Dask cluster (``backend="dask"``), each worker limited to one BLAS
  thread by threadpoolctl. Every finished model is appended to a progress file as one JSON line,
  so an interrupted sweep resumes where it stopped;
- **recording**: `region_records` and `curve_record` turn per-position sums into records,
  `write_sweep` writes the files with their provenance (`posenc_lib.provenance`: the settings,
  the versions and a hash of the code that produced them), `load_records` reads them back;
- **reading**: `select`, `summarize`, `text_table`, `binned_curves`;
- **the command line** both chapters share: `main`.

The committed data of both chapters lives in the package (``posenc_lib/data/<sweep>/``), so a
chapter runs from any directory, on Colab too.
"""

import argparse
import contextlib
import json
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._checks import check_choice, check_int
from .provenance import provenance

DATA = Path(__file__).resolve().parent / "data"
BACKENDS = ("loky", "dask")
REGIONS = ("all", "unseen")
#: Stands for a summary cell that has no record at all ("not run"; None is "cannot run").
MISSING = object()


@dataclass(frozen=True)
class Sweep:
    """What a chapter plugs into the engine: its jobs, how to run one, what to write.

    Parameters
    ----------
    name : str
        The directory of the committed data under ``posenc_lib/data``.
    module : str
        The chapter's module, e.g. ``"posenc_lib.experiments"`` (its command line is
        ``python -m`` it).
    jobs : callable
        ``jobs(**options)`` -> list of jobs, each a dict of JSON values.
    run : callable
        ``run(job)`` -> {"job": job, "result": TrainResult, <output>: records...}: a module-level
        function, so that worker processes can import it.
    files : dict
        File name -> the key of ``run``'s output whose records it holds (a list of records, one
        record, or None).
    options : dict
        The full sweep's options for ``jobs`` (what the committed data was made with).
    quick, tiny : dict
        Replacements of ``options`` for ``--quick`` and ``--tiny`` (a seconds-long smoke run).
    settings : dict
        The chapter's constants that shape every model (recorded in the provenance).
    code_roots : tuple of str
        ``"module:name"`` of the functions that produce the data;
        `posenc_lib.provenance.code_hash` follows them.
    inputs : tuple of Path
        Data files the sweep reads (their bytes are hashed into the provenance).
    witnesses : tuple of dict
        Jobs (matched on these keys) whose trained parameters are saved beside the data, so a
        fast test can re-score them exactly.
    report : callable, optional
        ``report(records, out)``: draw out/results.png and return the tables to print.

    Examples
    --------
    >>> from posenc_lib import experiments, realtext
    >>> experiments.STUDY.directory.name, list(realtext.REALTEXT.files)
    ('study', ['results', 'curves'])
    """

    name: str
    module: str
    jobs: object
    run: object
    files: dict
    options: dict
    quick: dict = field(default_factory=dict)
    tiny: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    code_roots: tuple = ()
    inputs: tuple = ()
    witnesses: tuple = ()
    report: object = None

    @property
    def directory(self):
        """The committed data's directory, inside the installed package."""
        return DATA / self.name


# -- running ---------------------------------------------------------------------------------


def job_key(job):
    """Return the text that identifies a job in a progress file (its JSON, keys sorted).

    Parameters
    ----------
    job : dict
        A job: JSON values.

    Returns
    -------
    str

    Examples
    --------
    >>> job_key({"seed": 0, "scheme": "rope"})
    '{"scheme": "rope", "seed": 0}'
    """
    return json.dumps(job, sort_keys=True)


def read_progress(path):
    """Return {job key: finished output} from a progress file; a torn last line is ignored.

    Parameters
    ----------
    path : str or Path or None
        A JSON-lines file that `run_jobs` appends to (None or a missing file: nothing done).

    Returns
    -------
    dict

    Examples
    --------
    >>> read_progress(None)
    {}
    """
    done = {}
    if path is None or not Path(path).exists():
        return done
    for line in Path(path).read_text().splitlines():
        try:
            out = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interrupt
        done[job_key(out["job"])] = out
    return done


def one_blas_thread(runner, job):
    """Run ``runner(job)`` with BLAS limited to one thread (threadpoolctl), in any process.

    Several workers that each start a BLAS thread per core oversubscribe the CPU and run many
    times slower; the limit is set where the job runs, so it holds on a cluster too.

    Parameters
    ----------
    runner : callable
        Runs one job.
    job : dict
        The job.

    Returns
    -------
    object
        What ``runner`` returns.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> def blas_threads(job):
    ...     return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    >>> one_blas_thread(blas_threads, {}) <= {1}
    True
    """
    from threadpoolctl import threadpool_limits

    keep_freed_memory()
    with threadpool_limits(limits=1, user_api="blas"):
        return runner(job)


def keep_freed_memory():
    """Let this process reuse the memory it frees (glibc), instead of handing it back at once.

    Scoring a long window allocates and frees attention arrays of tens of megabytes many times
    a second. glibc's defaults return each to the system and fault it in again on the next
    allocation; keeping it (no trimming, no separate mappings) scores real text about 30%
    faster (`benchmarks/RESULTS.md`), with the same bits: only where the arrays live changes.
    Elsewhere than glibc (macOS, Windows, musl) this does nothing.

    Returns
    -------
    bool
        True if glibc took the settings.

    Examples
    --------
    >>> isinstance(keep_freed_memory(), bool)
    True
    """
    import ctypes
    import ctypes.util

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    m_trim_threshold, m_mmap_max = -1, -4  # <malloc.h>
    return bool(mallopt(m_trim_threshold, 2**31 - 1)) and bool(mallopt(m_mmap_max, 0))


def _finished(jobs, runner, workers, backend):
    """Yield the outputs of ``jobs`` as they finish (any order), one BLAS thread per job."""
    if workers == 1 and backend == "loky":
        for job in jobs:
            yield one_blas_thread(runner, job)
        return
    from joblib import Parallel, delayed, parallel_config

    n_jobs = -1 if backend == "dask" else min(workers, len(jobs))
    with parallel_config(backend=backend, inner_max_num_threads=1 if backend == "loky" else None):
        yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(one_blas_thread)(runner, job) for job in jobs
        )


def run_jobs(
    jobs,
    runner,
    *,
    workers=1,
    backend="loky",
    progress=True,
    progress_file=None,
    keep_models=False,
    on_output=None,
):
    """Run jobs and return their outputs in job order; resumable through ``progress_file``.

    ``runner(job)`` returns a dict holding the job under "job" and the trained model under
    "result"; everything else in it must be JSON. Each finished output is appended to
    ``progress_file`` (without "result") as soon as it arrives, and jobs already in the file are
    not run again. The outputs do not depend on ``workers`` or ``backend``: every model is
    seeded by its job.

    Parameters
    ----------
    jobs : list of dict
        The jobs (JSON values).
    runner : callable
        Runs one job; a module-level function, so that worker processes can import it.
    workers : int
        Local worker processes (loky); 1 runs the jobs in this process. Every job runs with one
        BLAS thread, wherever it runs, so that its numbers do not depend on where. Ignored with ``backend="dask"``, which uses every worker of the cluster.
    backend : {"loky", "dask"}
        Where the jobs run: local processes, or the Dask cluster of the current
        ``dask.distributed.Client`` (create one first).
    progress : bool
        Show a progress bar over the models.
    progress_file : str or Path, optional
        The JSON-lines file of finished outputs (its directory is created). Not with
        ``keep_models``: a trained model is not written to it, so a resumed run could not
        return it.
    keep_models : bool
        Keep each trained model in its output, under "result".
    on_output : callable, optional
        Called with each output as it arrives, before "result" is dropped (to save models).

    Returns
    -------
    list of dict
        One output per job, in the order of ``jobs``.

    Raises
    ------
    ValueError
        If ``progress_file`` is given with ``keep_models``, or ``backend`` is unknown.

    Examples
    --------
    >>> def square(job):
    ...     return {"job": job, "result": None, "value": job["x"] ** 2}
    >>> [out["value"] for out in run_jobs([{"x": 2}, {"x": 3}], square, progress=False)]
    [4, 9]
    """
    workers = check_int("run_jobs", "workers", workers, minimum=1)
    backend = check_choice("run_jobs", "backend", backend, BACKENDS)
    if keep_models and progress_file is not None:
        raise ValueError(
            "run_jobs: progress_file cannot be combined with keep_models=True (trained models are "
            f"not written to it, so a resumed run could not return them), got {str(progress_file)!r}"
        )
    path = None if progress_file is None else Path(progress_file)
    done = read_progress(path)
    todo = [job for job in jobs if job_key(job) not in done]
    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(jobs),
        initial=len(jobs) - len(todo),
        desc="models trained",
        leave=False,
        disable=not progress,
    )
    sink = None
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        sink = path.open("a")
        if sink.tell() and not path.read_bytes().endswith(b"\n"):
            sink.write("\n")  # end the line an interrupt cut short, so the next output is whole
    try:
        for out in _finished(todo, runner, workers, backend) if todo else ():
            if on_output is not None:
                on_output(out)
            if not keep_models:
                out = {k: v for k, v in out.items() if k != "result"}
            done[job_key(out["job"])] = out
            if sink is not None:
                sink.write(json.dumps(out) + "\n")
                sink.flush()
            bar.update(1)
    finally:
        if sink is not None:
            sink.close()
        bar.close()
    return [done[job_key(job)] for job in jobs]


# -- recording -------------------------------------------------------------------------------


def region_records(fields, scored, train_len, metric, *, keys=()):
    """Return the records of one model: a value per evaluation length (and ``keys``) and region.

    Region "all" counts every query position; "unseen" those >= ``train_len``, and exists only
    past the training length. A value is `~posenc_lib.model.region_value` of the per-position
    sums, None where the model cannot run (no sums).

    Parameters
    ----------
    fields : dict
        The fields every record starts with (task, scheme, config, seed, train_len).
    scored : dict
        ``(eval_len, *extra)`` -> ``(totals, counts)`` per query position, or None; in the
        order the records are written.
    train_len : int
        The training length: where the unseen region starts.
    metric : str
        Recorded as "metric".
    keys : tuple of str
        The names of ``extra`` (e.g. ``("mode",)``), written after "eval_len".

    Returns
    -------
    list of dict
        ``{**fields, eval_len, *keys, region, metric, value}``.

    Examples
    --------
    >>> scored = {(2,): (np.array([1.0, 1.0]), np.array([1, 1])),
    ...           (4,): (np.array([1.0, 1, 0, 0]), np.array([1, 1, 1, 1]))}
    >>> [(r["eval_len"], r["region"], r["value"]) for r in region_records({}, scored, 2, "accuracy")]
    [(2, 'all', 1.0), (4, 'all', 0.5), (4, 'unseen', 0.0)]
    """
    from .model import region_value  # the model (and autograd) load only when a sweep runs

    out = []
    for (length, *extra), sums in scored.items():
        for region in ("all",) if length <= train_len else REGIONS:
            start = 0 if region == "all" else train_len
            out.append(
                {
                    **fields,
                    "eval_len": length,
                    **dict(zip(keys, extra, strict=True)),
                    "region": region,
                    "metric": metric,
                    "value": None if sums is None else region_value(*sums, start),
                }
            )
    return out


def curve_record(fields, evaluation, metric, totals, counts, *, digits):
    """Return the per-position record of one model at one length: its sums and counts.

    Parameters
    ----------
    fields, evaluation : dict
        The record's first fields (task, scheme...), then those of the evaluation (eval_len,
        mode...).
    metric : str
        Recorded as "metric".
    totals : array_like of float
        Per position: the summed metric.
    counts : array_like of int
        Per position: the number of targets.
    digits : int
        Decimals kept of every total; 0 stores integers (counts of correct predictions).

    Returns
    -------
    dict
        ``{**fields, **evaluation, metric, totals, counts}``.

    Examples
    --------
    >>> curve_record({"scheme": "rope"}, {"eval_len": 2}, "loss", [1.23456, 2.0], [1, 1], digits=2)
    {'scheme': 'rope', 'eval_len': 2, 'metric': 'loss', 'totals': [1.23, 2.0], 'counts': [1, 1]}
    """
    return {
        **fields,
        **evaluation,
        "metric": metric,
        "totals": [round(float(v), digits) if digits else int(round(v)) for v in totals],
        "counts": [int(n) for n in counts],
    }


def records_text(rows):
    r"""Return a JSON list with one record per line: readable diffs, small files.

    Parameters
    ----------
    rows : list of dict

    Returns
    -------
    str

    Examples
    --------
    >>> print(records_text([{"a": 1}, {"a": 2}]), end="")
    [
    {"a": 1},
    {"a": 2}
    ]
    >>> records_text([])
    '[]\n'
    """
    return "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n" if rows else "[]\n"


def write_records(path, rows, stamp):
    """Write ``rows`` to ``path`` as {"provenance": ..., "records": [one record per line]}.

    The records part is `records_text` of ``rows``, byte for byte.

    Parameters
    ----------
    path : str or Path
        The file to write.
    rows : list of dict
        The records.
    stamp : dict
        What made them (`posenc_lib.provenance.provenance`).

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_records(Path(tmp) / "r.json", [{"value": 0.5}], {"sweep": "demo"})
    ...     print(path.read_text(), end="")
    {"provenance": {"sweep": "demo"},
    "records": [
    {"value": 0.5}
    ]
    }
    """
    path = Path(path)
    path.write_text(
        '{"provenance": ' + json.dumps(stamp) + ',\n"records": ' + records_text(rows) + "}\n"
    )
    return path


def load_records(path):
    """Return the records of a file `write_records` wrote (or of a plain JSON list).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> len(load_records(DATA / "study" / "results.json"))  # chapter 06's committed study
    1134
    """
    data = json.loads(Path(path).read_text())
    return data if isinstance(data, list) else data["records"]


def witness_path(directory, job):
    """Where the trained parameters of a witness job are saved (an .npz beside the data).

    Parameters
    ----------
    directory : str or Path
        The sweep's directory.
    job : dict
        The job.

    Returns
    -------
    Path

    Examples
    --------
    >>> witness_path("d", {"task": "t", "scheme": "rope", "config": "c", "seed": 0}).name
    'witness-t-rope-c-seed0.npz'
    """
    name = f"witness-{job['task']}-{job['scheme']}-{job['config']}-seed{job['seed']}.npz"
    return Path(directory) / name


def is_witness(sweep, job):
    """Return True when ``job`` matches one of ``sweep.witnesses`` (its parameters are saved).

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    job : dict
        One of its jobs.

    Returns
    -------
    bool

    Examples
    --------
    >>> demo = Sweep("demo", "m", None, None, {}, {}, witnesses=({"seed": 0},))
    >>> is_witness(demo, {"seed": 0, "scheme": "rope"}), is_witness(demo, {"seed": 1})
    (True, False)
    """
    return any(all(job.get(k) == v for k, v in w.items()) for w in sweep.witnesses)


def run_sweep(sweep, out, *, workers=2, backend="loky", progress=True, fresh=False, **options):
    """Run a sweep, resumably, into the directory ``out``; return {file name: path written}.

    ``options`` replace the sweep's full options (``sweep.options``). Every file carries the
    provenance of the run; the trained parameters of the witness jobs are saved beside them.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    out : str or Path
        The directory to write (created if needed); its progress.jsonl resumes an interrupted
        run.
    workers : int
        Local worker processes, one BLAS thread each.
    backend : {"loky", "dask"}
        See `run_jobs`.
    progress : bool
        Show a progress bar over the models.
    fresh : bool
        Delete out/progress.jsonl first, so that every model is trained again.
    **options
        Arguments of ``sweep.jobs``.

    Returns
    -------
    dict of Path
        One per file of ``sweep.files``.

    Examples
    --------
    See `posenc_lib.experiments.run_sweep` and `posenc_lib.realtext.run_sweep`, which call it:

    >>> from posenc_lib import experiments
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = run_sweep(experiments.STUDY, tmp, workers=1, progress=False,
    ...                       **experiments.STUDY.tiny)
    ...     print(sorted(paths), len(load_records(paths["results"])))
    ['curves', 'extension', 'results'] 9
    """
    out = Path(out)
    options = {**sweep.options, **options}
    progress_file = out / "progress.jsonl"
    if fresh and progress_file.exists():
        progress_file.unlink()
    out.mkdir(parents=True, exist_ok=True)

    def save_witness(output):
        if is_witness(sweep, output["job"]):
            np.savez(witness_path(out, output["job"]), **output["result"].params)

    outputs = run_jobs(
        sweep.jobs(**options),
        sweep.run,
        workers=workers,
        backend=backend,
        progress=progress,
        progress_file=progress_file,
        on_output=save_witness,
    )
    return write_sweep(sweep, out, outputs, options)


def write_sweep(sweep, out, outputs, options):
    """Write the files of a sweep from its outputs, each with the provenance of ``options``.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    out : str or Path
        The directory.
    outputs : list of dict
        What ``sweep.run`` returned for each job, in job order.
    options : dict
        The options the jobs were made with.

    Returns
    -------
    dict of Path
        One per file of ``sweep.files``.

    Examples
    --------
    >>> import tempfile
    >>> from posenc_lib.provenance import load_provenance
    >>> demo = Sweep("demo", "m", None, None, {"results": "records"}, {})
    >>> outputs = [{"job": {}, "records": [{"value": 1.0}]}, {"job": {}, "records": []}]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = write_sweep(demo, tmp, outputs, {"seeds": [0]})
    ...     print(load_records(paths["results"]), load_provenance(paths["results"])["sweep"])
    [{'value': 1.0}] demo
    """
    stamp = provenance(sweep, options)
    paths = {}
    for name, key in sweep.files.items():
        rows = []
        for o in outputs:
            value = o[key]
            rows += [] if value is None else [value] if isinstance(value, dict) else value
        paths[name] = write_records(Path(out) / f"{name}.json", rows, stamp)
    return paths


def load_sweep_files(sweep, directory=None):
    """Return the records of every file of a sweep, in the order of ``sweep.files``.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    directory : str or Path, optional
        Default: the committed data in the installed package (``sweep.directory``).

    Returns
    -------
    tuple of list of dict

    Examples
    --------
    >>> from posenc_lib import realtext
    >>> [len(rows) for rows in load_sweep_files(realtext.REALTEXT)]
    [405, 51]
    """
    directory = sweep.directory if directory is None else Path(directory)
    return tuple(load_records(directory / f"{name}.json") for name in sweep.files)


# -- reading the records ---------------------------------------------------------------------


def select(records, **criteria):
    """Return the records matching every ``key=value`` given (a value of None matches anything).

    Records without a region count as region "all".

    Parameters
    ----------
    records : list of dict
        Records (results, curves or extension records).
    **criteria
        The value each key must have (None: any).

    Returns
    -------
    list of dict
        The matching records, in their order.

    Examples
    --------
    >>> recs = [{"task": "t", "region": "all"}, {"task": "t", "region": "unseen"}, {"task": "u"}]
    >>> len(select(recs, region="all")), len(select(recs, task="t", region=None))
    (2, 2)
    """
    defaults = {"region": "all"}

    def matches(r):
        return all(v is None or r.get(k, defaults.get(k)) == v for k, v in criteria.items())

    return [r for r in records if matches(r)]


def names(records, field):
    """Return the distinct values of ``field`` in the records, in their order.

    Parameters
    ----------
    records : list of dict
        The records.
    field : str
        The field whose values are listed.

    Returns
    -------
    list

    Examples
    --------
    >>> names([{"s": "b"}, {"s": "a"}, {"s": "b"}], "s")
    ['b', 'a']
    """
    return list(dict.fromkeys(r[field] for r in records))


def one_config(records, config, func):
    """Return ``config``, or None when the records hold one configuration; else refuse.

    Parameters
    ----------
    records : list of dict
    config : str or None
        The configuration asked for.
    func : str
        The function called (named in the error).

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        If ``config`` is None and the records hold several configurations.

    Examples
    --------
    >>> one_config([{"config": "a"}], None, "f") is None
    True
    """
    if config is not None:
        return config
    found = names([{"config": r.get("config")} for r in records], "config")
    if len(found) > 1:
        raise ValueError(
            f"{func}: these records hold several configurations {found}; pass config= one of them"
        )
    return None


def summarize(records, by, **criteria):
    """{tuple of the ``by`` fields: (mean, min, max) over the rest}, None where one cannot run.

    Parameters
    ----------
    records : list of dict
        Records with a "value".
    by : tuple of str
        The fields that make a group (e.g. ``("task", "scheme", "eval_len")``).
    **criteria
        Passed to `select` first (region "all" unless given).

    Returns
    -------
    dict
        Group -> (mean, min, max) of floats, or None when any record of the group is None.

    Examples
    --------
    >>> recs = [{"s": "a", "value": v} for v in (0.5, 0.7)] + [{"s": "b", "value": None}]
    >>> summarize(recs, ("s",))
    {('a',): (0.6, 0.5, 0.7), ('b',): None}
    """
    groups = {}
    for r in select(records, **criteria):
        groups.setdefault(tuple(r[k] for k in by), []).append(r["value"])
    return {
        key: None
        if any(v is None for v in values)
        else (float(np.mean(values)), float(np.min(values)), float(np.max(values)))
        for key, values in groups.items()
    }


def cell_width(digits, headers=()):
    """Columns for a `cell` and the space before it: "m.mm (m.mm-m.mm)" at any ``digits``.

    Wide enough for each of ``headers`` too, with a space before it.

    Parameters
    ----------
    digits : int
        Decimals shown.
    headers : sequence of str
        Column headers the width must fit.

    Returns
    -------
    int

    Examples
    --------
    >>> cell_width(2), cell_width(2, ["a very long column header"])
    (17, 26)
    """
    return max(9 + 4 * digits, 11 + 3 * digits, *(len(text) + 1 for text in headers))


def cell(value, digits=2):
    """One summary cell: "mean (min-max)", "cannot run" (None) or "not run" (`MISSING`).

    Parameters
    ----------
    value : tuple or None or MISSING
        (mean, min, max).
    digits : int
        Decimals shown.

    Returns
    -------
    str

    Examples
    --------
    >>> cell((0.5, 0.25, 0.75)), cell(None), cell(MISSING)
    ('0.50 (0.25-0.75)', 'cannot run', 'not run')
    """
    if value is MISSING:
        return "not run"
    if value is None:
        return "cannot run"
    mean, low, high = value
    return f"{mean:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def text_table(corner, headers, rows, *, digits=2, column_width=None, label_width=12, indent=""):
    r"""Return the lines of a text table: a header, then one row of `cell` s per name.

    Parameters
    ----------
    corner : str
        The first column's header.
    headers : sequence of str
        The other columns' headers.
    rows : sequence of (str, sequence)
        Each row's name and its cells' values (see `cell`).
    digits : int
        Decimals shown.
    column_width : int, optional
        Columns per cell (default: `cell_width` of ``digits`` and ``headers``).
    label_width : int
        Columns of the first column.
    indent : str
        Put before every line.

    Returns
    -------
    list of str

    Examples
    --------
    >>> print("\n".join(text_table("scheme", ["L=8"], [("rope", [(1.0, 1.0, 1.0)])])))
    scheme                   L=8
    rope        1.00 (1.00-1.00)
    """
    width = cell_width(digits, headers) if column_width is None else column_width
    lines = [f"{indent}{corner:<{label_width}}" + "".join(f"{h:>{width}}" for h in headers)]
    for name, values in rows:
        lines.append(
            f"{indent}{name:<{label_width}}"
            + "".join(f"{cell(v, digits):>{width}}" for v in values)
        )
    return lines


def binned_curves(curves, *, bin_width=1, missing=np.nan):
    """Per-position curves in bins of ``bin_width`` positions: (centres, mean, min, max) over them.

    Parameters
    ----------
    curves : list of dict
        Records with "totals" and "counts" per position (one per seed), all of one length.
    bin_width : int
        Positions per bin; positions past the last whole bin are left out.
    missing : float
        The value of a bin without targets.

    Returns
    -------
    centres, mean, low, high : ndarray of float
        The middle position of each bin, and the bin's value (summed totals / summed counts):
        mean, minimum and maximum over the records.

    Examples
    --------
    >>> c = {"totals": [0, 2, 4, 1], "counts": [0, 4, 4, 4]}
    >>> binned_curves([c], bin_width=2)[1]
    array([0.5  , 0.625])
    """
    bin_width = check_int("binned_curves", "bin_width", bin_width, minimum=1)
    values = []
    for r in curves:
        totals, counts = np.asarray(r["totals"], float), np.asarray(r["counts"], float)
        n_bins = len(totals) // bin_width
        t = totals[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
        c = counts[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
        values.append(np.where(c > 0, t / np.maximum(c, 1), missing))
    values = np.array(values)
    centres = np.arange(values.shape[1]) * bin_width + (bin_width - 1) / 2
    return centres, values.mean(0), values.min(0), values.max(0)


# -- command line ----------------------------------------------------------------------------


def parser(sweep, description, quick_help):
    """Return the command-line parser of a sweep.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    description : str
        The first line of ``--help``.
    quick_help : str
        What ``--quick`` runs.

    Returns
    -------
    argparse.ArgumentParser
        Options ``--out`` (default: a new directory ``results/<sweep>``), ``--quick``,
        ``--tiny``, ``--seeds``, ``--steps``, ``--workers``, ``--backend``, ``--scheduler``,
        ``--fresh`` and ``--no-progress``; a chapter adds its own.

    Examples
    --------
    >>> from posenc_lib import experiments
    >>> args = parser(experiments.STUDY, "A sweep.", "seed 0").parse_args(["--out", "x", "--quick"])
    >>> (str(args.out), args.quick, args.seeds, args.steps, args.backend, args.fresh)
    ('x', True, 3, 400, 'loky', False)
    """
    p = argparse.ArgumentParser(prog=f"python -m {sweep.module}", description=description)
    p.add_argument("--out", type=Path, required=True, help="directory for the results")
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--tiny", action="store_true", help="a seconds-long smoke run (tests)")
    p.add_argument("--seeds", type=int, default=len(sweep.options["seeds"]), help="seeds 0 .. N-1")
    p.add_argument("--steps", type=int, default=sweep.options["steps"], help="Adam steps per model")
    p.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="local worker processes, one BLAS thread each",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="loky",
        help="loky: local processes; dask: a Dask cluster (pip install 'posenc-lib[cluster]')",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        help="with --backend dask: the scheduler's address (default: a LocalCluster here)",
    )
    p.add_argument("--fresh", action="store_true", help="discard DIR/progress.jsonl, start over")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def run_resumable(sweep, args, **options):
    """Run a sweep for the command line: Ctrl-C keeps the finished models and says so.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    args : argparse.Namespace
        Parsed by `parser`.
    **options
        The sweep's options (seeds, steps, ...).

    Returns
    -------
    list of dict
        The records of ``results.json``. On Ctrl-C it says how many models are kept and how to
        continue, and exits with status 130 (no traceback).

    Examples
    --------
    >>> import tempfile
    >>> from posenc_lib import experiments
    >>> def interrupted(job):
    ...     raise KeyboardInterrupt
    >>> stopping = Sweep("demo", "m", experiments.study_jobs, interrupted, {}, experiments.FULL)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     args = parser(stopping, "A sweep.", "seed 0").parse_args(["--out", out, "--workers", "1"])
    ...     try:
    ...         run_resumable(stopping, args, seeds=(0,))
    ...     except SystemExit as stop:
    ...         print("exit status", stop.code)  # doctest: +ELLIPSIS
    interrupted: 0 finished models are kept in ...progress.jsonl; run the same command again to continue
    exit status 130
    """
    with contextlib.ExitStack() as dask:  # closes the client, then the cluster it started
        if args.backend == "dask":
            from dask.distributed import Client, LocalCluster

            if args.scheduler:
                dask.enter_context(Client(args.scheduler))
            else:
                cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1)
                dask.enter_context(Client(dask.enter_context(cluster)))
        try:
            paths = run_sweep(
                sweep,
                args.out,
                workers=args.workers,
                backend=args.backend,
                progress=not args.no_progress,
                fresh=args.fresh,
                **options,
            )
        except KeyboardInterrupt:
            done = len(read_progress(args.out / "progress.jsonl"))
            print(
                f"interrupted: {done} finished models are kept in {args.out / 'progress.jsonl'}; "
                "run the same command again to continue"
            )
            raise SystemExit(130) from None
    return load_records(paths["results"])


def main(sweep, args, options):
    """Run a sweep from parsed arguments, draw results.png and print the tables.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    args : argparse.Namespace
        From `parser` (plus the chapter's own options, already folded into ``options``).
    options : dict
        The sweep's options for this run.

    Returns
    -------
    list of dict
        The records written to results.json.

    Examples
    --------
    The study's ``--tiny`` run (see `posenc_lib.experiments.main`):

    >>> import contextlib, io, tempfile
    >>> from posenc_lib import experiments
    >>> with tempfile.TemporaryDirectory() as out:
    ...     args = parser(experiments.STUDY, "", "").parse_args(
    ...         ["--out", out, "--tiny", "--workers", "1", "--no-progress"])
    ...     with contextlib.redirect_stdout(io.StringIO()):
    ...         records = main(experiments.STUDY, args, {})
    >>> len(records)
    9
    """
    options = {"seeds": tuple(range(args.seeds)), "steps": args.steps, **options}
    if args.quick:
        options.update(sweep.quick)
    if args.tiny:
        options.update(sweep.tiny)
    start = time.perf_counter()
    records = run_resumable(sweep, args, **options)
    if sweep.report is not None:
        print(sweep.report(records, args.out))
    print(f"{len(records)} records in {time.perf_counter() - start:.0f} s -> {args.out}")
    return records
