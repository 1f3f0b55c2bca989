"""The command line both sweeps share: ``python -m posenc_lib.experiments`` and ``... realtext``.

`parser` reads the options every sweep has (``--out``, ``--quick``, ``--tiny``, ``--seeds``,
``--steps``, ``--workers``, ``--backend``, ``--scheduler``, ``--fresh``, ``--no-progress``),
`run_command` runs the sweep into ``--out`` with `posenc_lib.sweep.Sweep.run`, draws results.png
and prints the tables; `run_resumable` keeps the finished models on Ctrl-C and says how to
continue. Each chapter's ``main(argv)`` calls them.
"""

import argparse
import contextlib
import os
import time
from pathlib import Path

from .runner import BACKENDS, read_progress


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
    ('x', True, 10, 400, 'loky', False)
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
    >>> import dataclasses, tempfile
    >>> from posenc_lib import experiments
    >>> def interrupted(job):
    ...     raise KeyboardInterrupt
    >>> stopping = dataclasses.replace(experiments.STUDY, runner=interrupted)
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
            records = sweep.run(
                out=args.out,
                workers=args.workers,
                backend=args.backend,
                progress=not args.no_progress,
                fresh=args.fresh,
                **options,
            )[0]
        except KeyboardInterrupt:
            done = len(read_progress(args.out / "progress.jsonl"))
            print(
                f"interrupted: {done} finished models are kept in {args.out / 'progress.jsonl'}; "
                "run the same command again to continue"
            )
            raise SystemExit(130) from None
    return records


def run_command(sweep, args, options):
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
    ...         records = run_command(experiments.STUDY, args, {})
    >>> len(records)
    9
    """
    options = {**sweep.options, "seeds": tuple(range(args.seeds)), "steps": args.steps, **options}
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
