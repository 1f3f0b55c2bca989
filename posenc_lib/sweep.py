"""One engine for the course's sweeps: what a chapter plugs in, and the one way to use it.

Chapter 06's study (`posenc_lib.experiments`) and chapter 07's real-text sweep
(`posenc_lib.realtext`) are two `Sweep` s: each says how to list its jobs (one model each, a dict
of JSON values), how to run one job (train, then score), what its records are called and how its
table reads. Both chapters then run, read, summarise and tabulate the same way, with the same
arguments and defaults:

- `Sweep.run` trains the models now (``experiments.run_study``, ``realtext.run_sweep``), in this
  process, in worker processes or on a Dask cluster (`posenc_lib.runner`), and with ``out=``
  writes the sweep's files there, resumably, each with its provenance
  (`posenc_lib.provenance`);
- `Sweep.load` reads them (``experiments.load_study``, ``realtext.load_sweep``), by default the
  committed data inside the package (``posenc_lib/data/<sweep>/``), so a chapter runs from any
  directory, on Colab too;
- `Sweep.summarize` and `Sweep.results_table` (``experiments.summarize``,
  ``realtext.summarize``, ...) read the records: mean, lowest and highest seed per cell, over the
  unseen positions by default (`posenc_lib.records.in_region`).

The records themselves are `posenc_lib.records`'s, the text tables `posenc_lib.tables`'s and the
command line `posenc_lib.cli`'s.
"""

import inspect
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._checks import check_bool, check_choice, check_int, short
from .provenance import provenance
from .records import (
    REGIONS,
    check_criteria,
    check_records,
    in_region,
    load_records,
    names,
    one_config,
    select,
    write_records,
)
from .runner import BACKENDS, run_jobs
from .tables import lengths_table

DATA = Path(__file__).resolve().parent / "data"


def _no_heading(**about):
    return ""


def _plain_column(eval_len, train_len, region):
    return f"L={eval_len}"


@dataclass(frozen=True)
class Sweep:
    """What a chapter plugs into the engine, and the one way to run, read and summarise it.

    Parameters
    ----------
    name : str
        The directory of the committed data under ``posenc_lib/data``.
    module : str
        The chapter's module, e.g. ``"posenc_lib.experiments"`` (its command line is
        ``python -m`` it).
    jobs : callable
        ``jobs(**options)`` -> list of jobs, each a dict of JSON values; its keyword arguments
        and their defaults are the options of `run` (its errors name the function called).
    runner : callable
        ``runner(job)`` -> {"job": job, "result": TrainResult, <output>: records...}: a
        module-level function, so that worker processes can import it.
    files : dict
        File name -> the key of ``runner``'s output whose records it holds (a list of records,
        one record, or None).
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
    cell : tuple of str
        The fields that name a cell of `summarize` (and of the table).
    models_by : tuple of str
        The fields of a job that name its model in `run`'s ``models``.
    config : str, optional
        The configuration `summarize` reads when none is given (None: the records' only one).
    selection : dict
        Criteria `summarize` applies unless given (chapter 07's mode).
    heading : callable
        ``heading(config=, region=, seeds=, train_len=, criteria=)`` -> the table's first line.
    column : callable
        ``column(eval_len, train_len, region)`` -> a column's header.
    verbs : dict
        The chapter's names of `run` and `load` (e.g. ``{"run": "run_study"}``), in errors.

    Examples
    --------
    >>> from posenc_lib import experiments, realtext
    >>> experiments.STUDY.directory.name, list(realtext.REALTEXT.files)
    ('study', ['results', 'curves', 'training'])
    """

    name: str
    module: str
    jobs: object
    runner: object
    files: dict
    options: dict
    quick: dict = field(default_factory=dict)
    tiny: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    code_roots: tuple = ()
    inputs: tuple = ()
    witnesses: tuple = ()
    report: object = None
    cell: tuple = ("task", "scheme", "eval_len")
    models_by: tuple = ("task", "scheme", "seed")
    config: object = None
    selection: dict = field(default_factory=dict)
    heading: object = _no_heading
    column: object = _plain_column
    verbs: dict = field(default_factory=dict)

    @property
    def directory(self):
        """The committed data's directory, inside the installed package."""
        return DATA / self.name

    # -- running --------------------------------------------------------------------------------

    def run(
        self,
        *,
        out=None,
        workers=1,
        backend="loky",
        progress=True,
        fresh=False,
        keep_models=False,
        **options,
    ):
        """Train and score the sweep's models now; with ``out``, write its files there.

        The options are those of the sweep's ``jobs`` (tasks, schemes, seeds, steps, ...), with
        its defaults: one seed of the main configuration. ``options`` of ``self.options`` run
        the full sweep. The records do not depend on ``workers`` or ``backend``: every model is
        seeded by its job.

        Parameters
        ----------
        out : str or Path, optional
            Write the sweep's files here (created if needed), each with its provenance, and the
            witness models' parameters; out/progress.jsonl makes the run resumable.
        workers : int
            Local worker processes, one BLAS thread each; 1 runs the jobs in this process.
        backend : {"loky", "dask"}
            Local processes, or the Dask cluster of the current ``dask.distributed.Client``
            (which uses every worker of the cluster).
        progress : bool
            Show a progress bar over the models.
        fresh : bool
            With ``out``: delete out/progress.jsonl first, so that every model is trained again.
        keep_models : bool
            Also return the trained models (not with ``out``: a resumed run could not return
            the models it did not train).
        **options
            Arguments of the sweep's ``jobs``.

        Returns
        -------
        tuple of list of dict
            The records of each of ``self.files``, in order, as `load` returns them.
        models : dict, optional
            Only with ``keep_models``: the pair ``(records, models)`` is returned, ``models``
            mapping the ``models_by`` fields of each job (e.g. (task, scheme, seed)) to its
            `~posenc_lib.model.TrainResult`.

        Raises
        ------
        ValueError, TypeError
            Before anything trains, for an unknown option or a bad value (named as the
            chapter's function, e.g. ``run_study``).

        Examples
        --------
        >>> from posenc_lib import experiments
        >>> (records, curves, extension, training), models = experiments.STUDY.run(
        ...     tasks=["lookback-3"], schemes=["none", "learned"], steps=2, train_len=8,
        ...     eval_lens=[8, 16], n_tokens=64, progress=False, keep_models=True)
        >>> [(r["scheme"], r["eval_len"], r["region"]) for r in records]
        [('none', 8, 'all'), ('none', 16, 'all'), ('none', 16, 'unseen'),
         ('learned', 8, 'all'), ('learned', 16, 'all'), ('learned', 16, 'unseen')]
        >>> sorted(models), len(curves), extension, len(training)  # one validation curve a model
        ([('lookback-3', 'learned', 0), ('lookback-3', 'none', 0)], 1, [], 2)
        """
        func = self.verbs.get("run", "run")
        if out is not None and not isinstance(out, str | Path):
            raise TypeError(f"{func}: out must be a directory (a path), got {short(out)}")
        workers = check_int(func, "workers", workers, minimum=1)
        backend = check_choice(func, "backend", backend, BACKENDS)
        check_bool(func, "progress", progress)
        check_bool(func, "fresh", fresh)
        check_bool(func, "keep_models", keep_models)
        if keep_models and out is not None:
            raise ValueError(
                f"{func}: keep_models=True cannot be combined with out= (trained models are not "
                f"written, so a resumed run could not return them), got out={str(out)!r}"
            )
        if fresh and out is None:
            raise ValueError(f"{func}: fresh=True needs out= (the run to start over)")
        options = self.full_options(func, options)
        jobs = self.make_jobs(func, options)
        if keep_models:
            keys = [tuple(job[k] for k in self.models_by) for job in jobs]
            if len(set(keys)) < len(keys):
                twice = next(k for k in keys if keys.count(k) > 1)
                raise ValueError(
                    f"{func}: keep_models=True names each model by {self.models_by}, and two jobs "
                    f"are {twice}: run one configuration (variant) at a time"
                )
        if out is None:
            outputs = run_jobs(
                jobs,
                self.runner,
                workers=workers,
                backend=backend,
                progress=progress,
                keep_models=keep_models,
            )
            files = tuple(_rows(outputs, key) for key in self.files.values())
            if not keep_models:
                return files
            models = {tuple(o["job"][k] for k in self.models_by): o["result"] for o in outputs}
            return files, models
        out = Path(out)
        progress_file = out / "progress.jsonl"
        if fresh and progress_file.exists():
            progress_file.unlink()
        out.mkdir(parents=True, exist_ok=True)

        def save_witness(output):
            if is_witness(self, output["job"]):
                np.savez(witness_path(out, output["job"]), **output["result"].params)

        outputs = run_jobs(
            jobs,
            self.runner,
            workers=workers,
            backend=backend,
            progress=progress,
            progress_file=progress_file,
            on_output=save_witness,
        )
        write_sweep(self, out, outputs, options)
        return self.load(out)

    def full_options(self, func, options):
        """Return ``options`` with the jobs' defaults filled in, refusing an unknown one.

        Parameters
        ----------
        func : str
            The function the learner called (named in the error).
        options : dict
            Arguments of ``jobs``.

        Returns
        -------
        dict
            Every argument of ``jobs``, in its order: what the provenance records.

        Examples
        --------
        >>> from posenc_lib import realtext
        >>> realtext.REALTEXT.full_options("run_sweep", {"steps": 5})["steps"]
        5
        >>> realtext.REALTEXT.full_options("run_sweep", {"seed": 1})
        Traceback (most recent call last):
        ...
        TypeError: run_sweep: no option 'seed'; the options are schemes, seeds, steps, train_len, eval_lens, n_scored, variants, variant_seeds
        """
        parameters = inspect.signature(self.jobs).parameters
        for key in options:
            if key not in parameters:
                raise TypeError(
                    f"{func}: no option {key!r}; the options are {', '.join(parameters)}"
                )
        return {
            key: options.get(key, p.default)
            for key, p in parameters.items()
            if key in options or p.default is not inspect.Parameter.empty
        }

    def make_jobs(self, func, options):
        """Return ``jobs(**options)``, its refusals naming ``func`` (the function called).

        Parameters
        ----------
        func : str
            The function the learner called.
        options : dict
            Arguments of ``jobs``.

        Returns
        -------
        list of dict

        Examples
        --------
        >>> from posenc_lib import experiments
        >>> experiments.STUDY.make_jobs("run_study", {"steps": -5})
        Traceback (most recent call last):
        ...
        ValueError: run_study: steps must be an integer >= 1, got -5
        """
        own = self.jobs.__name__
        try:
            return self.jobs(**options)
        except (TypeError, ValueError) as error:
            text = str(error)
            if not text.startswith(f"{own}: "):
                raise
            raise type(error)(f"{func}: {text[len(own) + 2 :]}") from None

    # -- reading ------------------------------------------------------------------------------

    def load(self, directory=None):
        """Read the sweep's files: a list of records per file, in the order of ``self.files``.

        Parameters
        ----------
        directory : str or Path, optional
            A directory `run` wrote; default: the committed data, inside the installed package.

        Returns
        -------
        tuple of list of dict

        Examples
        --------
        >>> from posenc_lib import realtext
        >>> [len(rows) for rows in realtext.REALTEXT.load()]
        [1161, 128, 69]
        """
        func = self.verbs.get("load", "load")
        if directory is not None and not isinstance(directory, str | Path):
            raise TypeError(f"{func}: directory must be a path, got {short(directory)}")
        directory = self.directory if directory is None else Path(directory)
        missing = [f"{n}.json" for n in self.files if not (directory / f"{n}.json").is_file()]
        if missing:
            raise ValueError(
                f"{func}: {directory} holds no {missing[0]}: not a directory the "
                f"{self.name} sweep wrote"
            )
        return tuple(load_records(directory / f"{name}.json") for name in self.files)

    def _read(self, func, records, region, config, criteria):
        """Check the arguments of a reading and return (rows of the cells, summary, config)."""
        check_choice(func, "region", region, REGIONS)
        records = check_records(func, records, fields=(*self.cell, "seed", "train_len", "value"))
        criteria = {**self.selection, **criteria}
        check_criteria(func, records, criteria, values=True)
        config = one_config(records, self.config if config is None else config, func)
        rows = select(records, config=config, region=None, **criteria)
        if not rows:
            raise ValueError(f"{func}: no record matches config={config!r} and {criteria}")
        groups = {}
        for r in in_region(rows, region):
            groups.setdefault(tuple(r[k] for k in self.cell), []).append(r)
        for key, group in groups.items():
            seeds = [r["seed"] for r in group]
            if len(set(seeds)) < len(seeds):
                varying = sorted(
                    k
                    for k in {k for r in group for k in r} - {"seed", "value"}
                    if len({repr(r.get(k)) for r in group}) > 1
                )
                raise ValueError(
                    f"{func}: the records hold several values per seed of {key}; choose one of "
                    f"{', '.join(f'{k}=' for k in varying) or 'them'}"
                )
        summary = {
            key: None
            if any(r["value"] is None for r in group)
            else (
                float(np.mean([r["value"] for r in group])),
                float(np.min([r["value"] for r in group])),
                float(np.max([r["value"] for r in group])),
            )
            for key, group in groups.items()
        }
        return rows, summary, config

    def summarize(self, records, *, region="unseen", config=None, **criteria):
        """Summarise records per cell: (mean, min, max) over seeds, None where a model cannot run.

        Parameters
        ----------
        records : list of dict
            Records of this sweep's results (`load`, `run`).
        region : {"unseen", "all"}
            "unseen": the positions past the training length, and all positions at the training
            length, where none is unseen (`~posenc_lib.records.in_region`); "all": every
            position.
        config : str, optional
            The configuration (default: ``self.config``, else the records' only one).
        **criteria
            Further fields every record must match (`~posenc_lib.records.select`), e.g. chapter
            07's ``mode="sliding"`` (default: ``self.selection``).

        Returns
        -------
        dict
            Cell (the ``self.cell`` fields, e.g. (task, scheme, eval_len)) -> (mean, min, max)
            of floats over the seeds, or None where the scheme cannot run.

        Raises
        ------
        ValueError
            If a field, value or configuration matches no record, the records hold several
            configurations and none is given, or a cell holds two records of one seed.

        Examples
        --------
        >>> from posenc_lib import experiments
        >>> recs = [{"task": "t", "scheme": "s", "seed": k, "train_len": 8, "eval_len": 16,
        ...          "region": "unseen", "value": v} for k, v in [(0, 0.5), (1, 0.7)]]
        >>> experiments.STUDY.summarize(recs)[("t", "s", 16)]
        (0.6, 0.5, 0.7)
        """
        return self._read("summarize", records, region, config, criteria)[1]

    def results_table(self, records, *, region="unseen", config=None, digits=2, **criteria):
        """Text: one row per scheme, mean (min-max over seeds) at every evaluation length.

        A block per task when the sweep has several. With ``region="unseen"`` the column at the
        training length shows all positions (they are the trained ones), the longer lengths
        only the positions past it.

        Parameters
        ----------
        records : list of dict
            Records of this sweep's results (`load`, `run`).
        region : {"unseen", "all"}
            The query positions counted past the training length.
        config : str, optional
            The configuration shown (default: ``self.config``, else the records' only one).
        digits : int
            Decimals shown.
        **criteria
            Further fields every record must match, e.g. ``mode="sliding"`` (default:
            ``self.selection``).

        Returns
        -------
        str
            A heading line, then the table(s); "cannot run" where a scheme cannot run at that
            length, "not run" where there is no such record.

        Raises
        ------
        ValueError
            As `summarize`, or when the records hold several training lengths.

        Examples
        --------
        >>> from posenc_lib import experiments
        >>> print(experiments.STUDY.results_table(experiments.load_study()[0],
        ...                                       config="1x32").splitlines()[0])
        configuration 1x32; mean (min-max) over 10 seeds; trained at L=32
        """
        func = "results_table"
        digits = check_int(func, "digits", digits, minimum=0)
        rows, summary, config = self._read(func, records, region, config, criteria)
        train_lens = names(rows, "train_len")
        if len(train_lens) > 1:
            raise ValueError(
                f"{func}: the records hold several training lengths {train_lens}; select one"
            )
        train_len = train_lens[0]
        lengths = sorted({r["eval_len"] for r in rows})
        seeds = len({r["seed"] for r in rows})
        blocks = names(rows, "task") if self.cell[0] == "task" else None
        metric = {r["task"]: r.get("metric", "value") for r in rows}
        row_field = self.cell[-2]  # the field naming a row: "scheme", or "layers" (chapter 08)
        lines = lengths_table(
            summary,
            names(rows, row_field),
            blocks=blocks,
            block_titles={task: f"{task} ({metric[task]})" for task in metric},
            columns={n: self.column(n, train_len, region) for n in lengths},
            heading=self.heading(
                config=config,
                region=region,
                seeds=seeds,
                train_len=train_len,
                criteria={**self.selection, **criteria},
            ),
            digits=digits,
            corner=row_field,
        )
        return "\n".join(lines)


def _rows(outputs, key):
    """Return the records under ``key`` of every output, in job order."""
    rows = []
    for o in outputs:
        value = o[key]
        rows += [] if value is None else [value] if isinstance(value, dict) else value
    return rows


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
    model = job["scheme"] if "scheme" in job else job["layers"]  # chapter 8 names plans
    name = f"witness-{job['task']}-{model}-{job['config']}-seed{job['seed']}.npz"
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


def write_sweep(sweep, out, outputs, options):
    """Write the files of a sweep from its outputs, each with the provenance of ``options``.

    Parameters
    ----------
    sweep : Sweep
        The chapter's sweep.
    out : str or Path
        The directory.
    outputs : list of dict
        What ``sweep.runner`` returned for each job, in job order.
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
        paths[name] = write_records(Path(out) / f"{name}.json", _rows(outputs, key), stamp)
    return paths
