"""Train short, test long: every position scheme trained at one length, measured at longer ones.

Chapter 6's study, in several model configurations and seeds: a `~posenc_lib.sweep.Sweep` of the
course's experiment engine (`posenc_lib.sweep` trains, records, resumes and tabulates; this module
says what a job of the study is and how to read its records).

    python -m posenc_lib.experiments --quick --out results/          # 18 models, about a minute
    python -m posenc_lib.experiments --out posenc_lib/data/study     # the committed sweep
    python -m posenc_lib.experiments --backend dask --out results/   # on a Dask cluster

The sweep is resumable: every finished model appends one JSON line to DIR/progress.jsonl, and a
rerun with the same settings skips the models already there (``--fresh`` starts over). When all
are done it writes, under DIR, each file with the provenance of its numbers (settings, versions,
a hash of the code that made them):

- results.json: one record per {task, scheme, config, seed, train_len, eval_len, region, metric,
  value}. ``region`` is "all" (every query position) or "unseen" (query positions >= train_len;
  there is no "unseen" record at eval_len == train_len). ``value`` is null where a scheme cannot
  run at that length (a learned table shorter than eval_len).
- curves.json: per-position results at the longest evaluation length, one record per model
  that can run that long (a learned table cannot), with ``totals`` and ``counts`` per query
  position (``totals / counts`` is the curve).
- extension.json: context extension of the RoPE models (every method of
  `EXTENSION_VARIANTS`), before and after a short fine-tune at 4 x the training length.
- the trained parameters of the witness model (``witness-*.npz``), which a fast test re-scores.
- results.png: the unseen-region results, one panel per task.

The committed study lives in the package (``posenc_lib/data/study``): `load_study` reads it
from there by default.
"""

from contextlib import contextmanager

import numpy as np

from . import sweep
from ._checks import check_array, check_choice, check_int, check_real
from .model import SCHEMES, ModelConfig, evaluate_positions, region_value, train
from .rope import ntk_base
from .sweep import MISSING, cell_width, names, one_config, select, text_table
from .tasks import TASKS

EVAL_LENS = (32, 64, 128, 256)
# Named model configurations: width 32 throughout.
CONFIGS = {
    # one layer of 4 heads of width 8, with an MLP: the default
    "4x8+mlp": {"d_model": 32, "n_heads": 4, "n_layers": 1, "mlp": True},
    # one layer, one head of width 32, no MLP (16 RoPE pairs per head instead of 4)
    "1x32": {"d_model": 32, "n_heads": 1, "n_layers": 1, "mlp": False},
    # two layers and a start token: what a causal model without positions needs to count
    # (Kazemnejad et al. 2023, theorem 1)
    "2L-4x8+mlp+bos": {"d_model": 32, "n_heads": 4, "n_layers": 2, "mlp": True, "bos": True},
}
DEFAULT_CONFIG = "4x8+mlp"
MODEL = CONFIGS[DEFAULT_CONFIG]
TRAIN = {"batch_size": 16, "lr": 1e-2}
STEPS = 400  # one training budget for every model of the study
SEEDS = (0, 1, 2)
EVAL_TOKENS = 4096  # predictions scored at every evaluation length
EXTENSION = {"tasks": ("lookback-3", "markov"), "factor": 4, "finetune_steps": 40}
# The one table of context-extension methods: name -> the RoPE model's configuration for
# ``factor`` x its training length. Every method here is trained, recorded and tabulated.
EXTENSION_VARIANTS = {
    # plain extrapolation: the model as trained
    "plain": lambda config, factor: config,
    # position interpolation (Chen et al. 2023): positions divided by the factor
    "interpolation": lambda config, factor: config.with_(rope_positions_scale=factor),
    # NTK-aware scaling (bloc97 2023): a larger base, from the head's width
    "ntk": lambda config, factor: config.with_(base=ntk_base(config.base, factor, config.head_dim)),
    # YaRN (Peng et al. 2023): per-frequency interpolation and a temperature, with the ramp as
    # deployed (linear in the pair index: the authors' code and Hugging Face transformers) ...
    "yarn": lambda config, factor: config.with_(yarn_scale=factor, yarn_ramp="index"),
    # ... and as the paper's equation writes it (linear in the number of turns), `rope.yarn_ramp`
    "yarn-paper": lambda config, factor: config.with_(yarn_scale=factor, yarn_ramp="turns"),
}
EXTENSION_METHODS = tuple(EXTENSION_VARIANTS)
# The full study, as committed: every task, scheme and configuration, three seeds, extension.
FULL = {
    "tasks": tuple(TASKS),
    "schemes": SCHEMES,
    "seeds": SEEDS,
    "configs": tuple(CONFIGS),
    "steps": STEPS,
    "train_len": 32,
    "eval_lens": EVAL_LENS,
    "n_tokens": EVAL_TOKENS,
    "extension": True,
}
RECORD_FIELDS = ("task", "scheme", "config", "seed", "train_len")


def make_config(task, scheme, config=DEFAULT_CONFIG, *, train_len=32):
    """Return the ModelConfig of one study model: a named configuration for ``task``, ``scheme``.

    ``config`` is a name in `CONFIGS` or a dict of ModelConfig fields.

    Parameters
    ----------
    task : Task
        The task the model learns (from `posenc_lib.tasks`); it sets the vocabulary size.
    scheme : str
        The position scheme, one of `~posenc_lib.model.SCHEMES`.
    config : str or dict
        A name in `CONFIGS` or a dict of ModelConfig fields.
    train_len : int
        The training length, the model's ``max_len`` (the rows of a learned table).

    Returns
    -------
    ModelConfig
        The model, with ``vocab_size`` from ``task`` and ``max_len`` from ``train_len``.

    Examples
    --------
    >>> c = make_config(TASKS["lookback-3"](), "rope", "1x32")
    >>> (c.n_heads, c.head_dim, c.mlp, c.max_len)
    (1, 32, False, 32)
    """
    fields = (
        config
        if isinstance(config, dict)
        else CONFIGS[check_choice("make_config", "config", config, tuple(CONFIGS))]
    )
    return ModelConfig(vocab_size=task.vocab_size, scheme=scheme, max_len=train_len, **fields)


def train_and_measure(job, *, progress=False):
    """Train the model one job describes and measure it.

    ``job`` holds task, scheme, config (a name in CONFIGS), seed, steps, train_len, eval_lens,
    n_tokens and extension (bool: also run `context_extension_records` on a RoPE model).
    Returns {"job", "records", "curve", "extension", "result"}.

    Parameters
    ----------
    job : dict
        One job of `study_jobs`: the keys above, all JSON values.
    progress : bool
        Show a progress bar while the model trains.

    Returns
    -------
    dict
        "job" (``job`` itself); "records", one per evaluation length and region as in
        results.json; "curve", the per-position totals and counts at the longest evaluation
        length as in curves.json (None where the model cannot run that long); "extension", the
        context-extension records (empty unless ``job["extension"]``); and "result", the
        trained model (a `~posenc_lib.model.TrainResult`; the engine does not write it).

    Examples
    --------
    >>> (job,) = study_jobs(["lookback-3"], ["rope"], steps=2, train_len=8, eval_lens=(8, 16),
    ...                     n_tokens=64)
    >>> out = train_and_measure(job)
    >>> sorted(out)
    ['curve', 'extension', 'job', 'records', 'result']
    >>> [(r["eval_len"], r["region"]) for r in out["records"]]
    [(8, 'all'), (16, 'all'), (16, 'unseen')]
    >>> out["curve"]["eval_len"], len(out["curve"]["counts"])  # one count per query position
    (16, 16)
    """
    task = TASKS[job["task"]]()
    config = make_config(task, job["scheme"], job["config"], train_len=job["train_len"])
    result = train(
        config,
        task,
        steps=job["steps"],
        length=job["train_len"],
        seed=job["seed"],
        progress=progress,
        **TRAIN,
    )
    scored = {
        (n,): evaluate_positions(result.params, config, task, n, n_tokens=job["n_tokens"])
        for n in job["eval_lens"]
    }
    base = {k: job[k] for k in RECORD_FIELDS}
    longest = (max(job["eval_lens"]),)
    curve = None
    if scored[longest] is not None:
        curve = sweep.curve_record(
            base,
            {"eval_len": longest[0]},
            task.metric,
            *scored[longest],
            digits=0 if task.metric == "accuracy" else 6,
        )
    extension = []
    if job.get("extension") and job["scheme"] == "rope":
        options = {k: v for k, v in EXTENSION.items() if k != "tasks"}
        extension = context_extension_records(
            result, task, seed=job["seed"], config_name=job["config"], **options
        )
    return {
        "job": job,
        "records": sweep.region_records(base, scored, job["train_len"], task.metric),
        "curve": curve,
        "extension": extension,
        "result": result,
    }


def _run(job):
    """Run `train_and_measure` on ``job``, looked up when called (tests replace it)."""
    return train_and_measure(job)


def run_one(
    task_name,
    scheme,
    seed,
    *,
    steps=STEPS,
    train_len=32,
    eval_lens=EVAL_LENS,
    config=DEFAULT_CONFIG,
    n_tokens=EVAL_TOKENS,
    progress=False,
    keep_model=False,
):
    """Train one model and return its records (and, with ``keep_model``, the TrainResult).

    Parameters
    ----------
    task_name : str
        A task in `~posenc_lib.tasks.TASKS`.
    scheme : str
        A position scheme in `~posenc_lib.model.SCHEMES`.
    seed : int
        Seeds the initial parameters and every training batch.
    steps : int
        Adam steps.
    train_len : int
        Tokens per training sequence (and the rows of a learned table).
    eval_lens : sequence of int
        The lengths the model is measured at.
    config : str
        A name in `CONFIGS`.
    n_tokens : int
        Predictions scored at every evaluation length.
    progress : bool
        Show a progress bar while the model trains.
    keep_model : bool
        Also return the trained model.

    Returns
    -------
    records : list of dict
        One per evaluation length and region, as in results.json; ``value`` is None where the
        scheme cannot run at that length.
    result : TrainResult, optional
        The trained model, only with ``keep_model`` (then the pair ``(records, result)`` is
        returned).

    Examples
    --------
    A learned table of 8 rows cannot run at length 16:

    >>> records = run_one("lookback-3", "learned", 0, steps=2, train_len=8, eval_lens=(8, 16),
    ...                   n_tokens=64)
    >>> [(r["eval_len"], r["region"], r["value"] is None) for r in records]
    [(8, 'all', False), (16, 'all', True), (16, 'unseen', True)]
    >>> records, result = run_one("lookback-3", "rope", 0, steps=2, train_len=8, eval_lens=(8,),
    ...                           n_tokens=64, keep_model=True)
    >>> len(records), len(result.losses), result.config.scheme
    (1, 2, 'rope')
    """
    (job,) = study_jobs(
        [task_name],
        [scheme],
        [seed],
        configs=[config],
        steps=steps,
        train_len=train_len,
        eval_lens=eval_lens,
        n_tokens=n_tokens,
    )
    out = train_and_measure(job, progress=progress)
    return (out["records"], out["result"]) if keep_model else out["records"]


def study_jobs(
    tasks=tuple(TASKS),
    schemes=SCHEMES,
    seeds=(0,),
    *,
    configs=(DEFAULT_CONFIG,),
    steps=STEPS,
    train_len=32,
    eval_lens=EVAL_LENS,
    n_tokens=EVAL_TOKENS,
    extension=False,
):
    """List the jobs of a study: task x config x scheme x seed in that order.

    Each job is what `train_and_measure` takes.

    Parameters
    ----------
    tasks : sequence of str
        Names in `~posenc_lib.tasks.TASKS`.
    schemes : sequence of str
        Names in `~posenc_lib.model.SCHEMES`.
    seeds : sequence of int
        One model per seed.
    configs : sequence of str
        Names in `CONFIGS`.
    steps : int
        Adam steps per model.
    train_len : int
        Tokens per training sequence.
    eval_lens : sequence of int
        The lengths every model is measured at.
    n_tokens : int
        Predictions scored at every evaluation length.
    extension : bool
        Also extend the context of the RoPE models of the tasks in ``EXTENSION["tasks"]`` (every
        other job gets False).

    Returns
    -------
    list of dict
        One job per model, all JSON values (a progress file knows a finished model by its job).

    Examples
    --------
    >>> jobs = study_jobs(["lookback-3", "markov"], ["none", "rope"], seeds=(0, 1), extension=True)
    >>> len(jobs)
    8
    >>> jobs[0]
    {'task': 'lookback-3', 'scheme': 'none', 'config': '4x8+mlp', 'seed': 0, 'steps': 400,
     'train_len': 32, 'eval_lens': [32, 64, 128, 256], 'n_tokens': 4096, 'extension': False}
    >>> [(j["task"], j["scheme"], j["seed"]) for j in jobs if j["extension"]]
    [('lookback-3', 'rope', 0), ('lookback-3', 'rope', 1),
     ('markov', 'rope', 0), ('markov', 'rope', 1)]
    """
    for name in tasks:
        check_choice("study_jobs", "task", name, tuple(TASKS))
    for scheme in schemes:
        check_choice("study_jobs", "scheme", scheme, SCHEMES)
    for config in configs:
        check_choice("study_jobs", "config", config, tuple(CONFIGS))
    return [
        {
            "task": t,
            "scheme": s,
            "config": c,
            "seed": int(seed),
            "steps": int(steps),
            "train_len": int(train_len),
            "eval_lens": [int(n) for n in eval_lens],
            "n_tokens": int(n_tokens),
            "extension": bool(extension and s == "rope" and t in EXTENSION["tasks"]),
        }
        for t in tasks
        for c in configs
        for s in schemes
        for seed in seeds
    ]


def run_jobs(
    jobs, *, workers=1, backend="loky", progress=True, progress_file=None, keep_models=False
):
    """Run study jobs (in parallel with ``workers`` > 1) and return their outputs in job order.

    `posenc_lib.sweep.run_jobs` with `train_and_measure` as the runner: ``progress_file`` makes
    the run resumable, and the outputs do not depend on ``workers`` or ``backend`` (every model
    is seeded by its own seed).

    Parameters
    ----------
    jobs : list of dict
        From `study_jobs`.
    workers : int
        Local processes, one BLAS thread each; 1 runs the jobs in this process.
    backend : {"loky", "dask"}
        Local processes, or the Dask cluster of the current ``dask.distributed.Client``.
    progress : bool
        Show a progress bar over the models.
    progress_file : str or Path, optional
        The JSON-lines file of finished outputs. Not with ``keep_models``.
    keep_models : bool
        Keep each trained model in its output, under "result".

    Returns
    -------
    list of dict
        One output per job (`train_and_measure`), in the order of ``jobs``.

    Examples
    --------
    A rerun reads the finished models from the progress file and trains none again:

    >>> import tempfile
    >>> from pathlib import Path
    >>> jobs = study_jobs(["lookback-3"], ["none", "rope"], steps=2, train_len=8, eval_lens=(8, 16),
    ...                   n_tokens=64)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log = Path(tmp) / "progress.jsonl"
    ...     outputs = run_jobs(jobs, progress=False, progress_file=log)
    ...     resumed = sweep.run_jobs(jobs, None, progress=False, progress_file=log)
    ...     lines = len(log.read_text().splitlines())
    >>> [out["job"]["scheme"] for out in outputs], lines, resumed == outputs
    (['none', 'rope'], 2, True)
    """
    return sweep.run_jobs(
        jobs,
        _run,
        workers=workers,
        backend=backend,
        progress=progress,
        progress_file=progress_file,
        keep_models=keep_models,
    )


def run_study(
    tasks=tuple(TASKS),
    schemes=SCHEMES,
    seeds=(0,),
    *,
    configs=(DEFAULT_CONFIG,),
    steps=STEPS,
    train_len=32,
    eval_lens=EVAL_LENS,
    n_tokens=EVAL_TOKENS,
    workers=1,
    progress=True,
    keep_models=False,
    progress_file=None,
):
    """Every task x config x scheme x seed; returns the list of records (in that order).

    With ``keep_models`` returns (records, {(task, scheme, seed): TrainResult}) for the first
    configuration. See `run_jobs` for ``workers`` and ``progress_file``.

    Parameters
    ----------
    tasks : sequence of str
        Names in `~posenc_lib.tasks.TASKS`.
    schemes : sequence of str
        Names in `~posenc_lib.model.SCHEMES`.
    seeds : sequence of int
        One model per seed.
    configs : sequence of str
        Names in `CONFIGS`.
    steps : int
        Adam steps per model.
    train_len : int
        Tokens per training sequence.
    eval_lens : sequence of int
        The lengths every model is measured at.
    n_tokens : int
        Predictions scored at every evaluation length.
    workers : int
        Processes to train in, one BLAS thread each.
    progress : bool
        Show a progress bar over the models.
    keep_models : bool
        Also return the trained models (not with ``progress_file``: see `run_jobs`).
    progress_file : str or Path, optional
        Makes the study resumable.

    Returns
    -------
    records : list of dict
        One per model, evaluation length and region, as in results.json.
    models : dict, optional
        Only with ``keep_models``: {(task, scheme, seed): TrainResult} of the first configuration.

    Examples
    --------
    >>> records, models = run_study(["lookback-3"], ["none", "learned"], steps=2, train_len=8,
    ...                             eval_lens=(8, 16), n_tokens=64, progress=False,
    ...                             keep_models=True)
    >>> [(r["scheme"], r["eval_len"], r["region"]) for r in records]
    [('none', 8, 'all'), ('none', 16, 'all'), ('none', 16, 'unseen'),
     ('learned', 8, 'all'), ('learned', 16, 'all'), ('learned', 16, 'unseen')]
    >>> sorted(models)
    [('lookback-3', 'learned', 0), ('lookback-3', 'none', 0)]
    """
    jobs = study_jobs(
        tasks,
        schemes,
        seeds,
        configs=configs,
        steps=steps,
        train_len=train_len,
        eval_lens=eval_lens,
        n_tokens=n_tokens,
    )
    outputs = run_jobs(
        jobs,
        workers=workers,
        progress=progress,
        progress_file=progress_file,
        keep_models=keep_models,
    )
    records = [r for out in outputs for r in out["records"]]
    if not keep_models:
        return records
    models = {
        (o["job"]["task"], o["job"]["scheme"], o["job"]["seed"]): o["result"]
        for o in outputs
        if o["job"]["config"] == configs[0]
    }
    return records, models


def run_sweep(out, *, workers=2, backend="loky", progress=True, fresh=False, **study):
    """Run the full study, resumably, into the directory ``out`` (see the module docstring).

    `posenc_lib.sweep.run_sweep` of `STUDY`: ``study`` overrides `FULL`, the options of
    `study_jobs` the committed study was made with.

    Parameters
    ----------
    out : str or Path
        The directory to write (created if needed); its progress.jsonl resumes an interrupted
        sweep.
    workers : int
        Local processes, one BLAS thread each.
    backend : {"loky", "dask"}
        Local processes, or the Dask cluster of the current ``dask.distributed.Client``.
    progress : bool
        Show a progress bar over the models.
    fresh : bool
        Delete out/progress.jsonl first, so that every model is trained again.
    **study
        Arguments of `study_jobs`, replacing those of `FULL`.

    Returns
    -------
    dict of Path
        The file written for each of "results", "curves" and "extension" (`load_study` reads
        them back).

    Examples
    --------
    A tiny sweep: one task, two schemes, one seed and configuration, two steps, no extension.

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = run_sweep(tmp, workers=1, progress=False, tasks=["lookback-3"],
    ...                       schemes=["none", "rope"], seeds=[0], configs=["1x32"], steps=2,
    ...                       train_len=8, eval_lens=(8, 16), n_tokens=64, extension=False)
    ...     files = sorted(p.name for p in Path(tmp).iterdir())
    ...     records, curves, extension = load_study(tmp)
    >>> sorted(paths), files
    (['curves', 'extension', 'results'],
     ['curves.json', 'extension.json', 'progress.jsonl', 'results.json'])
    >>> len(records), len(curves), len(extension)
    (6, 2, 0)
    """
    return sweep.run_sweep(
        STUDY, out, workers=workers, backend=backend, progress=progress, fresh=fresh, **study
    )


def load_study(directory=None):
    """Read (records, curves, extension records) of the study.

    Parameters
    ----------
    directory : str or Path, optional
        A directory `run_sweep` wrote; default: the committed study, inside the installed
        package (``posenc_lib/data/study``), so a chapter runs from any directory.

    Returns
    -------
    records : list of dict
        The records of results.json, one per model, evaluation length and region.
    curves : list of dict
        The records of curves.json: the per-position totals and counts of every model at the
        longest evaluation length (none for a model that cannot run that long).
    extension : list of dict
        The records of extension.json, of context extension.

    Examples
    --------
    Chapter 06's committed study: 162 models (3 tasks, 6 schemes, 3 configurations, 3 seeds), of
    which the 27 learned tables cannot run at the longest length.

    >>> records, curves, extension = load_study()
    >>> len(records), len(curves), len(extension)
    (1134, 135, 360)
    >>> sorted(records[0])
    ['config', 'eval_len', 'metric', 'region', 'scheme', 'seed', 'task', 'train_len', 'value']
    """
    return sweep.load_sweep_files(STUDY, directory)


# -- reading the records ---------------------------------------------------------------------


def summarize(records, *, region="all", config=None):
    """{(task, scheme, eval_len): (mean, min, max) over seeds}, None where it cannot run.

    Records of several configurations need ``config``; ``region`` is "all" or "unseen".

    Parameters
    ----------
    records : list of dict
        Study records (`run_study`, `load_study`).
    region : {"all", "unseen"}
        Every query position, or only those >= the training length.
    config : str, optional
        The configuration to summarise (needed when the records hold several).

    Returns
    -------
    dict
        {(task, scheme, eval_len): (mean, min, max)} of floats over the seeds, None where the
        scheme cannot run at that length.

    Raises
    ------
    ValueError
        If the records hold several configurations and ``config`` is None.

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "eval_len": 64, "value": v} for v in (0.5, 0.7)]
    >>> summarize(recs)[("t", "s", 64)]
    (0.6, 0.5, 0.7)
    """
    check_choice("summarize", "region", region, sweep.REGIONS)
    config = one_config(records, config, "summarize")
    return sweep.summarize(records, ("task", "scheme", "eval_len"), region=region, config=config)


def extrapolation_gap(records, task, scheme, *, config=None, region="all"):
    """Return the mean at the longest evaluation length minus the mean at the training length.

    Both in ``region``; None if the scheme cannot run that long. Negative accuracy gaps and
    positive loss gaps mean the model got worse on longer inputs.

    Parameters
    ----------
    records : list of dict
        Study records (`run_study`, `load_study`).
    task : str
        The task.
    scheme : str
        The position scheme.
    config : str, optional
        The configuration (needed when the records of ``task`` hold several).
    region : {"all", "unseen"}
        The query positions counted at the longest length (at the training length: all).

    Returns
    -------
    float or None
        The gap in the task's metric, or None where the scheme cannot run that long.

    Raises
    ------
    ValueError
        If the records of ``task`` hold several configurations and ``config`` is None, or if
        there are no records in ``region`` at the longest length (an unseen region when no
        length goes beyond the training length).

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "seed": 0, "train_len": 32, "eval_len": n,
    ...          "metric": "accuracy", "value": v} for n, v in [(32, 1.0), (64, 0.8), (256, 0.5)]]
    >>> extrapolation_gap(recs, "t", "s")
    -0.5
    """
    config = one_config(select(records, task=task), config, "extrapolation_gap")
    rows = select(records, task=task, scheme=scheme, config=config, region=None)
    train_len = rows[0]["train_len"]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in select(rows, eval_len=train_len, region="all")]
    at_longest = [r["value"] for r in select(rows, eval_len=longest, region=region)]
    if not at_longest:  # region "unseen" where the longest length is the training length
        raise ValueError(
            f"extrapolation_gap: no {region!r} records of {task!r}, {scheme!r} at eval_len="
            f"{longest} (an unseen region needs an evaluation length beyond train_len={train_len})"
        )
    if any(v is None for v in at_train + at_longest):
        return None
    return float(np.mean(at_longest) - np.mean(at_train))


def results_table(records, *, config=None, region="unseen", digits=2):
    """Text: for each task one row per scheme, mean (min-max over seeds) at every length.

    With ``region="unseen"`` the training-length column shows all positions (they are the
    trained ones) and the longer lengths only query positions >= the training length.

    Parameters
    ----------
    records : list of dict
        Study records (`run_study`, `load_study`).
    config : str, optional
        The configuration to show (needed when the records hold several).
    region : {"unseen", "all"}
        The query positions counted at the lengths longer than the training length.
    digits : int
        Decimals shown.

    Returns
    -------
    str
        The table: a heading line, then a block per task (a blank line, a header, a row per
        scheme); "cannot run" where a scheme cannot run at that length, "not run" where there
        is no such record.

    Raises
    ------
    ValueError
        If the records hold several configurations and ``config`` is None.

    Examples
    --------
    The first task of chapter 06's committed study:

    >>> records, curves, extension = load_study()
    >>> lines = results_table(records, config="4x8+mlp").splitlines()
    >>> print(lines[0])
    configuration 4x8+mlp; mean (min-max) over 3 seeds; trained at L=32
    >>> for line in lines[2:10]:
    ...     print(line)
    lookback-3 (accuracy)
      scheme         L=32 (trained)      L=64 unseen     L=128 unseen     L=256 unseen
      none         0.20 (0.20-0.20) 0.12 (0.11-0.13) 0.11 (0.10-0.11) 0.09 (0.09-0.09)
      sinusoidal   1.00 (1.00-1.00) 0.28 (0.16-0.40) 0.19 (0.12-0.22) 0.14 (0.11-0.16)
      learned      1.00 (1.00-1.00)       cannot run       cannot run       cannot run
      rope         1.00 (1.00-1.00) 0.32 (0.32-0.33) 0.15 (0.15-0.15) 0.10 (0.10-0.10)
      alibi        0.32 (0.31-0.33) 0.30 (0.29-0.31) 0.30 (0.29-0.30) 0.29 (0.29-0.30)
      t5           1.00 (1.00-1.00) 1.00 (0.99-1.00) 0.95 (0.93-0.96) 0.78 (0.74-0.83)
    """
    config = one_config(records, config, "results_table")
    rows = select(records, config=config, region=None)
    everywhere, region_summary = summarize(rows, config=config), summarize(rows, region=region)
    train_len = rows[0]["train_len"]
    lengths = sorted({r["eval_len"] for r in rows})
    seeds = len({r["seed"] for r in rows})
    metric = {r["task"]: r["metric"] for r in rows}
    label = {n: f"L={n}" + (" (trained)" if n == train_len else f" {region}") for n in lengths}
    lines = [
        f"configuration {config or '(one)'}; mean (min-max) over {seeds} seed"
        f"{'s' if seeds > 1 else ''}; trained at L={train_len}"
    ]
    for task in names(rows, "task"):
        lines += ["", f"{task} ({metric[task]})"]
        cells = [
            (
                scheme,
                [
                    (everywhere if n == train_len else region_summary).get(
                        (task, scheme, n), MISSING
                    )
                    for n in lengths
                ],
            )
            for scheme in names(rows, "scheme")
        ]
        lines += text_table(
            "scheme", [label[n] for n in lengths], cells, digits=digits, indent="  "
        )
    return "\n".join(lines)


def compare_configs(records, task, *, eval_len=256, region="unseen", digits=2):
    """Return a text table with the configurations side by side.

    One row per scheme, one column per configuration: mean (min-max over seeds) of ``task`` at
    ``eval_len`` in ``region``.

    Parameters
    ----------
    records : list of dict
        Study records of one or more configurations (`run_study`, `load_study`).
    task : str
        The task.
    eval_len : int
        The evaluation length.
    region : {"unseen", "all"}
        The query positions counted.
    digits : int
        Decimals shown.

    Returns
    -------
    str
        The table: a heading line, a header, a row per scheme; "cannot run" where a scheme
        cannot run at ``eval_len``, "not run" where a configuration has no such record.

    Examples
    --------
    >>> records, curves, extension = load_study()
    >>> print(compare_configs(records, "lookback-3"))
    lookback-3, unseen positions at L=256: mean (min-max) over seeds
    scheme                4x8+mlp             1x32   2L-4x8+mlp+bos
    none         0.09 (0.09-0.09) 0.09 (0.09-0.09) 0.08 (0.07-0.09)
    sinusoidal   0.14 (0.11-0.16) 0.14 (0.12-0.17) 0.13 (0.11-0.16)
    learned            cannot run       cannot run       cannot run
    rope         0.10 (0.10-0.10) 0.59 (0.48-0.76) 0.11 (0.10-0.12)
    alibi        0.29 (0.29-0.30) 0.11 (0.10-0.11) 0.25 (0.25-0.27)
    t5           0.78 (0.74-0.83) 0.91 (0.89-0.92) 0.59 (0.59-0.59)
    """
    configs = names(records, "config")
    schemes = names(select(records, task=task, region=None), "scheme")
    summaries = {c: summarize(records, config=c, region=region) for c in configs}
    rows = [
        (scheme, [summaries[c].get((task, scheme, eval_len), MISSING) for c in configs])
        for scheme in schemes
    ]
    width = max(cell_width(digits), max(len(c) for c in configs) + 2)
    return "\n".join(
        [
            f"{task}, {region} positions at L={eval_len}: mean (min-max) over seeds",
            *text_table("scheme", configs, rows, digits=digits, column_width=width),
        ]
    )


def position_curves(curves, task, *, config=DEFAULT_CONFIG, bin_width=8):
    """Per-position results of one task and configuration, binned and summarised over seeds.

    Returns {scheme: (centres, mean, min, max)}: ``centres`` the middle query position of each
    bin of ``bin_width`` positions; mean, min and max over seeds of each bin's value (correct
    predictions / targets, or summed loss / targets).

    Parameters
    ----------
    curves : list of dict
        Per-position records (curves.json, `load_study`).
    task : str
        The task.
    config : str
        The configuration.
    bin_width : int
        Query positions per bin; positions past the last whole bin are left out.

    Returns
    -------
    dict
        {scheme: (centres, mean, min, max)}, four 1-D arrays of one value per bin, for every
        scheme with a curve (NaN in a bin without targets).

    Examples
    --------
    >>> c = {"task": "t", "scheme": "s", "config": "k", "totals": [0, 2, 4, 1], "counts": [0, 4, 4, 4]}
    >>> position_curves([c], "t", config="k", bin_width=2)["s"][1]
    array([0.5  , 0.625])
    """
    bin_width = check_int("position_curves", "bin_width", bin_width, minimum=1)
    rows = select(curves, task=task, config=config, region=None)
    return {
        scheme: sweep.binned_curves(select(rows, scheme=scheme, region=None), bin_width=bin_width)
        for scheme in names(rows, "scheme")
    }


# -- extending RoPE's context ----------------------------------------------------------------


def yarn_config_with_ramp(config, factor, ramp):
    """Return a RoPE model's YaRN configuration for ``factor`` x its training length, any ramp.

    Runs YaRN (its temperature included) with the share gamma_i of each pair's speed given by
    ``ramp`` instead of a published ramp, to test what a ramp's value at one pair does (chapter
    6 swaps pair 0's, e.g. `~posenc_lib.rope.yarn_index_ramp` without its clamp). The model
    only runs ramps linear in the number of turns and clipped to [0, 1], so the ramp is written
    as one (`~posenc_lib.rope.yarn_ramp` with ``ramp="turns"`` and new ``alpha``, ``beta``).

    Parameters
    ----------
    config : ModelConfig
        A RoPE model.
    factor : float
        The new context length over the training length (> 1).
    ramp : array_like, shape (head_dim / 2,)
        gamma_i in [0, 1], from the fastest pair to the slowest.

    Returns
    -------
    ModelConfig

    Raises
    ------
    ValueError
        If ``ramp`` is not a clipped line in the number of turns (e.g. a ramp that keeps a slow
        pair more than a fast one).

    Examples
    --------
    >>> from posenc_lib.rope import yarn_frequencies, yarn_index_ramp, yarn_ramp
    >>> config = make_config(TASKS["lookback-3"](), "rope")
    >>> unclamped = yarn_config_with_ramp(config, 4, yarn_index_ramp(8, 32, clamp=False))
    >>> yarn_ramp(8, 32, alpha=unclamped.yarn_alpha, beta=unclamped.yarn_beta, ramp="turns").round(3)
    array([0.5, 0. , 0. , 0. ])
    """
    from .rope import rope_wavelengths, yarn_ramp

    func = "yarn_config_with_ramp"
    if not isinstance(config, ModelConfig) or config.scheme != "rope":
        raise ValueError(f"{func}: config must be a RoPE model's ModelConfig, got {config!r}")
    factor = check_real(func, "factor", factor, greater_than=1)
    gamma = check_array(func, "ramp", ramp, ndim=1)
    if gamma.shape != (config.head_dim // 2,) or np.any((gamma < 0) | (gamma > 1)):
        raise ValueError(f"{func}: ramp must hold head_dim / 2 values in [0, 1], got {gamma}")
    turns = config.max_len / rope_wavelengths(config.head_dim, base=config.base)
    zero, inside = turns[gamma == 0], (gamma > 0) & (gamma < 1)
    alpha = float(zero.max()) if zero.size else 0.0
    if inside.any():
        i = int(np.argmax(inside))
        beta = alpha + (turns[i] - alpha) / gamma[i]
    else:
        beta = float(turns[gamma == 1].min()) if np.any(gamma == 1) else alpha + 1.0
    new = config.with_(
        yarn_scale=float(factor), yarn_ramp="turns", yarn_alpha=alpha, yarn_beta=beta
    )
    realised = yarn_ramp(
        config.head_dim, config.max_len, base=config.base, alpha=alpha, beta=beta, ramp="turns"
    )
    if not np.allclose(realised, gamma, atol=1e-9):
        raise ValueError(
            f"{func}: the model cannot run this ramp (not a clipped line in turns): {gamma}"
        )
    return new


@contextmanager
def alibi_slopes_set(slopes):
    """Within the block, ALiBi models use ``slopes`` (one per head) instead of the standard recipe.

    An intervention: train and score an ALiBi model whose only change is its slopes (chapter 6
    gives the one head of the 1x32 configuration the slope of a steeper head).

    Parameters
    ----------
    slopes : array_like, shape (n_heads,)
        Positive slopes; the model's head count must match.

    Yields
    ------
    None

    Examples
    --------
    >>> from posenc_lib.model import SCHEME_PARTS
    >>> with alibi_slopes_set([0.5]):
    ...     SCHEME_PARTS["alibi"].bias(None, make_config(TASKS["lookback-3"](), "alibi", "1x32"), 3)[0]
    array([[ 0. , -0.5, -1. ],
           [-0.5,  0. , -0.5],
           [-1. , -0.5,  0. ]])
    """
    from .model import DTYPE, SCHEME_PARTS, Scheme

    slopes = check_array("alibi_slopes_set", "slopes", slopes, ndim=1)
    if np.any(slopes <= 0):
        raise ValueError(f"alibi_slopes_set: slopes must be positive, one per head, got {slopes}")

    def bias(params, config, t):
        if config.n_heads != len(slopes):
            raise ValueError(
                f"alibi_slopes_set: {len(slopes)} slopes for a model of {config.n_heads} heads"
            )
        i = np.arange(t)
        return (0.0 - slopes[:, None, None] * np.abs(i[:, None] - i[None, :])).astype(DTYPE)

    standard = SCHEME_PARTS["alibi"]
    SCHEME_PARTS["alibi"] = Scheme(bias=bias)
    try:
        yield
    finally:
        SCHEME_PARTS["alibi"] = standard


def extension_variants(config, factor):
    """Return the RoPE model's configuration for ``factor`` x its training length, every way.

    One per method of `EXTENSION_VARIANTS`: plain extrapolation, position interpolation,
    NTK-aware scaling and YaRN.

    Parameters
    ----------
    config : ModelConfig
        A RoPE model (``scheme="rope"``).
    factor : float
        The new context length over the training length.

    Returns
    -------
    dict of ModelConfig
        Method -> configuration: "plain" (``config`` itself), "interpolation", "ntk", "yarn"
        (the deployed ramp) and "yarn-paper" (the paper's equation).

    Raises
    ------
    ValueError
        If ``config`` is not a RoPE model.

    Examples
    --------
    >>> config = make_config(TASKS["lookback-3"](), "rope")
    >>> variants = extension_variants(config, 4)
    >>> list(variants)
    ['plain', 'interpolation', 'ntk', 'yarn', 'yarn-paper']
    >>> variants["yarn"].yarn_ramp, variants["yarn-paper"].yarn_ramp
    ('index', 'turns')
    >>> variants["interpolation"].rope_positions_scale, variants["yarn"].yarn_scale
    (4.0, 4.0)
    >>> variants["ntk"].base > config.base
    True
    """
    if config.scheme != "rope":
        raise ValueError(f"extension_variants: needs a RoPE model, got scheme {config.scheme!r}")
    return {name: variant(config, float(factor)) for name, variant in EXTENSION_VARIANTS.items()}


def context_extension_records(
    result,
    task,
    *,
    factor=4,
    finetune_steps=40,
    finetune_batch=8,
    seed=0,
    config_name=None,
    methods=EXTENSION_METHODS,
    n_tokens=EVAL_TOKENS,
):
    """Evaluate a trained RoPE model at ``factor`` x its training length by every method.

    Before and after a short fine-tune at that length; regions "all" and "unseen".

    Returns records {task, scheme, config, seed, train_len, eval_len, method, stage ("before"
    or "after"), finetune_steps, region, metric, value}.

    Parameters
    ----------
    result : TrainResult
        A trained RoPE model (`~posenc_lib.model.train`).
    task : Task
        The task it was trained on.
    factor : float
        The evaluation length over the training length.
    finetune_steps : int
        Adam steps of the fine-tune at the evaluation length.
    finetune_batch : int
        Sequences per fine-tuning step.
    seed : int
        Seeds the fine-tuning batches; recorded as "seed".
    config_name : str, optional
        Recorded as "config".
    methods : sequence of str
        Names in `EXTENSION_METHODS`.
    n_tokens : int
        Predictions scored at the evaluation length.

    Returns
    -------
    list of dict
        Method by method, stage "before" then "after", region "all" then "unseen".

    Examples
    --------
    >>> from posenc_lib.model import train
    >>> task = TASKS["lookback-3"]()
    >>> config = make_config(task, "rope", train_len=8)
    >>> result = train(config, task, steps=2, batch_size=2, length=8, progress=False)
    >>> records = context_extension_records(result, task, factor=2, finetune_steps=1,
    ...                                     finetune_batch=2, methods=["plain", "yarn"],
    ...                                     n_tokens=64)
    >>> [(r["method"], r["stage"], r["region"]) for r in records][:4]
    [('plain', 'before', 'all'), ('plain', 'before', 'unseen'),
     ('plain', 'after', 'all'), ('plain', 'after', 'unseen')]
    >>> len(records), {r["eval_len"] for r in records}
    (8, {16})
    """
    config = result.config
    variants = extension_variants(config, factor)
    long = int(factor * config.max_len)
    base = {
        "task": task.name,
        "scheme": "rope",
        "config": config_name,
        "seed": seed,
        "train_len": config.max_len,
        "eval_len": long,
        "finetune_steps": finetune_steps,
        "metric": task.metric,
    }
    out = []
    for method in methods:
        variant = variants[
            check_choice("context_extension_records", "method", method, EXTENSION_METHODS)
        ]
        tuned = train(
            variant,
            task,
            steps=finetune_steps,
            batch_size=finetune_batch,
            length=long,
            lr=3e-3,
            seed=seed,
            progress=False,
            init=result.params,
        )
        for stage, params in (("before", result.params), ("after", tuned.params)):
            scored = evaluate_positions(params, variant, task, long, n_tokens=n_tokens)
            for region, start in (("all", 0), ("unseen", config.max_len)):
                out.append(
                    {
                        **base,
                        "method": method,
                        "stage": stage,
                        "region": region,
                        "value": region_value(*scored, start),
                    }
                )
    return out


def context_extension(result, task, *, factor=4, finetune_steps=40, finetune_batch=8, seed=0):
    """Evaluate a trained RoPE model at ``factor`` x its training length four ways.

    Plain, interpolation, NTK-aware scaling and YaRN (the deployed ramp and the paper's), before
    and after a short fine-tune at that length.

    Returns {method: {"before": value, "after": value}} over all positions.

    Parameters
    ----------
    result : TrainResult
        A trained RoPE model (`~posenc_lib.model.train`).
    task : Task
        The task it was trained on.
    factor : float
        The evaluation length over the training length.
    finetune_steps : int
        Adam steps of each fine-tune at the evaluation length.
    finetune_batch : int
        Sequences per fine-tuning step.
    seed : int
        Seeds the fine-tuning batches.

    Returns
    -------
    dict
        {method: {"before": value, "after": value}} for "plain", "interpolation", "ntk", "yarn"
        and "yarn-paper".

    Examples
    --------
    >>> from posenc_lib.model import train
    >>> task = TASKS["lookback-3"]()
    >>> config = make_config(task, "rope", train_len=8)
    >>> result = train(config, task, steps=2, batch_size=2, length=8, progress=False)
    >>> values = context_extension(result, task, finetune_steps=1, finetune_batch=2)
    >>> list(values), list(values["yarn"])
    (['plain', 'interpolation', 'ntk', 'yarn', 'yarn-paper'], ['before', 'after'])
    """
    rows = context_extension_records(
        result,
        task,
        factor=factor,
        finetune_steps=finetune_steps,
        finetune_batch=finetune_batch,
        seed=seed,
    )
    out = {}
    for r in select(rows, region="all"):
        out.setdefault(r["method"], {})[r["stage"]] = r["value"]
    return out


def extension_summary(records, task, *, config=DEFAULT_CONFIG, region="unseen"):
    """Summarize context-extension records: {(method, stage): (mean, min, max) over seeds}.

    Parameters
    ----------
    records : list of dict
        Context-extension records (extension.json, `load_study`).
    task : str
        The task.
    config : str
        The configuration.
    region : {"unseen", "all"}
        The query positions counted.

    Returns
    -------
    dict
        {(method, stage): (mean, min, max)} of floats over the seeds.

    Examples
    --------
    >>> records, curves, extension = load_study()
    >>> summary = extension_summary(extension, "lookback-3")
    >>> len(summary), [round(v, 2) for v in summary["ntk", "after"]]
    (10, [0.67, 0.65, 0.69])
    """
    groups = {}
    for r in select(records, task=task, config=config, region=region):
        groups.setdefault((r["method"], r["stage"]), []).append(r["value"])
    return {
        key: (float(np.mean(v)), float(np.min(v)), float(np.max(v))) for key, v in groups.items()
    }


def extension_table(records, task, *, config=DEFAULT_CONFIG, region="unseen", digits=2):
    """Text: one row per method, mean (min-max over seeds) before and after fine-tuning.

    Parameters
    ----------
    records : list of dict
        Context-extension records (extension.json, `load_study`).
    task : str
        The task.
    config : str
        The configuration.
    region : {"unseen", "all"}
        The query positions counted.
    digits : int
        Decimals shown.

    Returns
    -------
    str
        The table: a heading line, a header, a row per method.

    Examples
    --------
    >>> records, curves, extension = load_study()
    >>> print(extension_table(extension, "lookback-3"))
    lookback-3, configuration 4x8+mlp, length 128 (trained at 32), unseen positions, 3 seeds
    method                   before   after 40 steps
    plain          0.15 (0.15-0.15) 0.44 (0.43-0.45)
    interpolation  0.06 (0.06-0.06) 0.07 (0.06-0.07)
    ntk            0.38 (0.37-0.38) 0.67 (0.65-0.69)
    yarn           0.96 (0.92-0.99) 1.00 (1.00-1.00)
    yarn-paper     0.06 (0.06-0.07) 0.06 (0.06-0.07)
    """
    summary = extension_summary(records, task, config=config, region=region)
    rows = select(records, task=task, config=config, region=region)
    steps = rows[0]["finetune_steps"]
    rows_out = [
        (method, [summary[(method, stage)] for stage in ("before", "after")])
        for method in names(rows, "method")
    ]
    heading = (
        f"{task}, configuration {config}, length {rows[0]['eval_len']} "
        f"(trained at {rows[0]['train_len']}), {region} positions, "
        f"{len({r['seed'] for r in rows})} seeds"
    )
    headers = ["before", f"after {steps} steps"]
    table = text_table("method", headers, rows_out, digits=digits, label_width=14)
    return "\n".join([heading, *table])


# -- paired comparisons ----------------------------------------------------------------------


def paired_differences(records, by, a, b, **criteria):
    """Per-seed differences value(a) - value(b): two schemes (or methods) compared seed by seed.

    Records are paired when every field but ``by`` and the value agrees (task, configuration,
    seed, length, region, stage, ...), so each difference compares two models that saw the same
    seeded data. Overlapping ranges over seeds can hide a difference that holds seed by seed, or
    suggest one that does not.

    Parameters
    ----------
    records : list of dict
        Study or context-extension records.
    by : str
        The field the two sides differ in, e.g. "scheme" or "method".
    a, b : str
        The two values of ``by`` compared.
    **criteria
        Passed to `select` (e.g. ``task="markov", config="4x8+mlp", region="unseen"``).

    Returns
    -------
    list of dict
        One per pair: the shared fields and "difference" (a minus b); pairs where either side is
        None (a model that cannot run) are left out.

    Examples
    --------
    >>> rows = [{"scheme": s, "seed": k, "value": v}
    ...         for s, k, v in [("t5", 0, 0.9), ("t5", 1, 0.8), ("rope", 0, 0.5), ("rope", 1, 0.85)]]
    >>> [round(p["difference"], 2) for p in paired_differences(rows, "scheme", "t5", "rope")]
    [0.4, -0.05]
    """
    rows = select(records, region=criteria.pop("region", None), **criteria)
    if by not in {k for r in rows for k in r}:
        raise ValueError(f"paired_differences: no record has the field by={by!r}")

    def key(r):
        return tuple(sorted((k, repr(v)) for k, v in r.items() if k not in (by, "value")))

    others = {key(r): r for r in rows if r[by] == b}
    out = []
    for r in rows:
        partner = others.get(key(r)) if r[by] == a else None
        if partner is None or r["value"] is None or partner["value"] is None:
            continue
        shared = {k: v for k, v in r.items() if k not in (by, "value")}
        out.append({**shared, "difference": r["value"] - partner["value"]})
    return out


def paired_table(records, by, a, b, *, rows=("config",), digits=2, **criteria):
    """Text: the per-seed differences a - b, one line per group, with how many seeds favour a.

    "Favour" reads the metric: a higher accuracy or a lower loss; a difference that rounds to zero
    at ``digits`` decimals counts as equal, not as a win.

    Parameters
    ----------
    records : list of dict
        Study or context-extension records.
    by : str
        The field the two sides differ in ("scheme" or "method").
    a, b : str
        The two values compared.
    rows : tuple of str
        The fields that make one line each (e.g. ("config",) or ("config", "stage")).
    digits : int
        Decimals shown.
    **criteria
        Passed to `paired_differences`.

    Returns
    -------
    str
        A heading, then per group: each seed's difference, their mean and "a better in k of n".

    Examples
    --------
    >>> rows = [{"scheme": s, "seed": k, "config": "c", "metric": "loss", "value": v}
    ...         for s, k, v in [("t5", 0, 1.5), ("t5", 1, 1.6), ("rope", 0, 2.0), ("rope", 1, 1.5)]]
    >>> print(paired_table(rows, "scheme", "t5", "rope"))
    t5 - rope, seed by seed (loss: lower is better)
    c            -0.50 +0.10   mean -0.20   t5 better in 1 of 2
    >>> rows[3]["value"] = 1.6001
    >>> print(paired_table(rows, "scheme", "t5", "rope").splitlines()[1])
    c            -0.50 -0.00   mean -0.25   t5 better in 1 of 2 (1 equal)
    """
    pairs = paired_differences(records, by, a, b, **criteria)
    if not pairs:
        raise ValueError(f"paired_table: no pairs of {by}={a!r} and {b!r} match {criteria}")
    metrics = {p.get("metric", "accuracy") for p in pairs}
    better = "lower" if metrics == {"loss"} else "higher"
    lines = [f"{a} - {b}, seed by seed ({'/'.join(sorted(metrics))}: {better} is better)"]
    groups = {}
    for p in pairs:
        groups.setdefault(tuple(p.get(k) for k in rows), []).append(p)
    width = max(len(" ".join(str(x) for x in g)) for g in groups) + 2
    for group, members in groups.items():
        members = sorted(members, key=lambda p: p.get("seed", 0))
        d = np.array([p["difference"] for p in members])
        shown = np.round(d, digits)  # a difference that rounds to 0 is a tie at this precision
        wins = int(np.sum(shown < 0) if better == "lower" else np.sum(shown > 0))
        ties = int(np.sum(shown == 0))
        cells = " ".join(f"{x:+.{digits}f}" for x in d)
        name = " ".join(str(x) for x in group)
        tied = f" ({ties} equal)" if ties else ""
        lines.append(
            f"{name:<{width}}{cells}   mean {d.mean():+.{digits}f}   {a} better in {wins} of {len(d)}{tied}"
        )
    return "\n".join(lines)


# -- command line ----------------------------------------------------------------------------


def report(records, out):
    """Draw out/results.png (the first configuration) and return the tables of every one.

    Parameters
    ----------
    records : list of dict
        The records of results.json.
    out : Path
        The sweep's directory.

    Returns
    -------
    str
        A `results_table` per configuration.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as out:
    ...     text = report(load_study()[0], Path(out))
    ...     drawn = (Path(out) / "results.png").exists()
    >>> text.splitlines()[0], drawn
    ('configuration 4x8+mlp; mean (min-max) over 3 seeds; trained at L=32', True)
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import plot_results

    configs = names(records, "config")
    axes = plot_results(records, config=configs[0])
    axes[0].figure.savefig(out / "results.png", dpi=80)
    plt.close(axes[0].figure)
    return "\n\n".join(results_table(records, config=config) for config in configs) + "\n"


STUDY = sweep.Sweep(
    name="study",
    module="posenc_lib.experiments",
    jobs=study_jobs,
    run=_run,
    files={"results": "records", "curves": "curve", "extension": "extension"},
    options=FULL,
    quick={"seeds": (0,), "configs": (DEFAULT_CONFIG,), "extension": False},
    tiny={
        "tasks": ("lookback-3",),
        "schemes": ("none", "learned", "t5"),
        "seeds": (0,),
        "configs": (DEFAULT_CONFIG,),
        "steps": 5,
        "train_len": 8,
        "eval_lens": (8, 16),
        "n_tokens": 64,
        "extension": False,
    },
    settings={"configs": CONFIGS, "train": TRAIN, "extension": EXTENSION},
    code_roots=(
        "posenc_lib.experiments:train_and_measure",
        "posenc_lib.experiments:study_jobs",
        "posenc_lib.experiments:FULL",
        "posenc_lib.sweep:write_sweep",
    ),
    witnesses=({"task": "lookback-3", "scheme": "rope", "config": DEFAULT_CONFIG, "seed": 0},),
    report=report,
)


def main(argv=None):
    """Run the sweep from the command line: ``python -m posenc_lib.experiments --out DIR``.

    Writes the files of `run_sweep` and results.png under DIR, and prints a `results_table` per
    configuration. Ctrl-C stops the sweep, keeps the finished models and says how to continue.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the command line's); ``--help`` lists them.

    Returns
    -------
    None
        The results are the files written.

    Raises
    ------
    SystemExit
        With status 130 when interrupted, and 2 for arguments it cannot parse.

    Examples
    --------
    A seconds-long smoke run (``--tiny``: one task, three schemes, five steps):

    >>> import contextlib
    >>> import io
    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with contextlib.redirect_stdout(io.StringIO()) as printed:
    ...         main(["--out", tmp, "--tiny", "--workers", "1", "--no-progress"])
    ...     files = sorted(p.name for p in Path(tmp).iterdir())
    >>> files
    ['curves.json', 'extension.json', 'progress.jsonl', 'results.json', 'results.png']
    >>> printed.getvalue().splitlines()[0]
    'configuration 4x8+mlp; mean (min-max) over 1 seed; trained at L=8'
    >>> plt.close("all")
    """
    parser = sweep.parser(
        STUDY,
        __doc__.split("\n\n")[0],
        f"configuration {DEFAULT_CONFIG} only, seed 0, no context extension (18 models)",
    )
    parser.add_argument("--configs", nargs="+", choices=tuple(CONFIGS), default=None)
    args = parser.parse_args(argv)
    sweep.main(STUDY, args, {"configs": tuple(args.configs)} if args.configs else {})


if __name__ == "__main__":
    main()
