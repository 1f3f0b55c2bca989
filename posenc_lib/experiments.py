"""Train short, test long: every position scheme trained at one length, measured at longer ones.

Chapter 6's study, in several model configurations and seeds: `STUDY`, a `~posenc_lib.sweep.Sweep`
of the course's experiment engine. This module says what a job of the study is (`study_jobs`,
`train_and_measure`) and gives the one way to run and read it, the same as chapter 07's
(`posenc_lib.realtext`): `run_study`, `load_study`, `summarize`, `results_table`; then the
study's own readings (`extrapolation_gap`, `compare_configs`, `position_curves`). The context
extension of its RoPE models is `posenc_lib.extension`'s.

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
  `~posenc_lib.extension.EXTENSION_VARIANTS`), before and after a short fine-tune at 4 x the
  training length.
- the trained parameters of the witness model (``witness-*.npz``), which a fast test re-scores.
- results.png: the unseen-region results, one panel per task.

The committed study lives in the package (``posenc_lib/data/study``): `load_study` reads it
from there by default.
"""

from dataclasses import replace

import numpy as np

from . import cli, records
from ._checks import check_bool, check_choice, check_int
from ._limits import check_sequence
from .extension import EXTENSION, context_extension_records
from .model import SCHEMES, ModelConfig, evaluate_positions, train
from .records import check_criteria, check_records, names, one_config, select
from .sweep import Sweep
from .tables import MISSING, cell_width, text_table
from .tasks import TASKS, Task

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
SEEDS = tuple(range(10))  # enough seeds for a paired interval to sign a comparison
EVAL_TOKENS = 4096  # predictions scored at every evaluation length
CHECKPOINT_EVERY = 50  # steps between two points of a model's validation curve (training.json)

# The full study, as committed: every task, scheme and configuration, ten seeds, extension.
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
    func = "make_config"
    if not isinstance(task, Task):
        raise TypeError(f"make_config: task must be a Task (e.g. TASKS['markov']()), got {task!r}")
    check_choice(func, "scheme", scheme, SCHEMES)
    train_len = check_int(func, "train_len", train_len, minimum=1)
    if isinstance(config, dict):
        unknown = sorted(set(config) - set(ModelConfig.__dataclass_fields__))
        if unknown:
            raise ValueError(f"{func}: config has no field {unknown[0]!r} of a ModelConfig")
        fields = config
    else:
        fields = CONFIGS[check_choice(func, "config", config, tuple(CONFIGS))]
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
    ['curve', 'extension', 'job', 'records', 'result', 'training']
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
        snapshot_every=CHECKPOINT_EVERY,
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
        curve = records.curve_record(
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
            result,
            task,
            seed=job["seed"],
            config_name=job["config"],
            n_tokens=job["n_tokens"],
            **options,
        )
    return {
        "job": job,
        "records": records.region_records(base, scored, job["train_len"], task.metric),
        "curve": curve,
        "extension": extension,
        "training": validation_curve(result, task, base, n_tokens=job["n_tokens"]),
        "result": result,
    }


def validation_curve(result, task, fields, *, n_tokens=EVAL_TOKENS):
    """Return a model's validation curve: its score at the training length at every snapshot.

    The training budget is a condition of every verdict: a scheme whose curve still climbs at
    the last step was still learning when the study stopped it.

    Parameters
    ----------
    result : TrainResult
        A model trained with ``snapshot_every`` (its snapshots are scored).
    task : Task
        The task it was trained on (fresh sequences, the evaluation's seed).
    fields : dict
        The record's first fields (task, scheme, config, seed, train_len).
    n_tokens : int
        Predictions scored per snapshot.

    Returns
    -------
    dict
        ``{**fields, "eval_len", "metric", "steps", "values"}``: the value (accuracy or loss in
        nats, over every scored position) after each number of steps.

    Examples
    --------
    >>> (job,) = study_jobs(["lookback-3"], ["rope"], steps=4, train_len=8, eval_lens=(8,),
    ...                     n_tokens=64)
    >>> task = TASKS["lookback-3"]()
    >>> result = train(make_config(task, "rope", train_len=8), task, steps=4, length=8,
    ...                snapshot_every=2, progress=False)
    >>> curve = validation_curve(result, task, {"scheme": "rope"}, n_tokens=64)
    >>> curve["steps"], curve["eval_len"], curve["metric"]
    ([0, 2, 4], 8, 'accuracy')
    """
    length = result.config.max_len
    steps = sorted(result.snapshots)
    values = []
    for step in steps:
        totals, counts = evaluate_positions(
            result.snapshots[step], result.config, task, length, n_tokens=n_tokens
        )
        values.append(round(float(np.sum(totals) / np.sum(counts)), 6))
    return {**fields, "eval_len": length, "metric": task.metric, "steps": steps, "values": values}


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

    Raises
    ------
    TypeError, ValueError
        For a name that is not a sequence (a string), an unknown task, scheme or
        configuration, a negative seed, a length or budget below 1 or not an integer, or
        evaluation lengths without the training length.

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
    func = "study_jobs"
    tasks = check_sequence(func, "tasks", tasks, allowed=tuple(TASKS))
    schemes = check_sequence(func, "schemes", schemes, allowed=SCHEMES)
    seeds = check_sequence(func, "seeds", seeds, minimum=0)
    configs = check_sequence(func, "configs", configs, allowed=tuple(CONFIGS))
    steps = check_int(func, "steps", steps, minimum=1)
    train_len = check_int(func, "train_len", train_len, minimum=1)
    eval_lens = check_sequence(func, "eval_lens", eval_lens, minimum=1)
    if train_len not in eval_lens:
        raise ValueError(
            f"{func}: eval_lens must include train_len={train_len} (the trained length every "
            f"table starts from), got {eval_lens}"
        )
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    extension = check_bool(func, "extension", extension)
    return [
        {
            "task": t,
            "scheme": s,
            "config": c,
            "seed": seed,
            "steps": steps,
            "train_len": train_len,
            "eval_lens": eval_lens,
            "n_tokens": n_tokens,
            "extension": bool(extension and s == "rope" and t in EXTENSION["tasks"]),
        }
        for t in tasks
        for c in configs
        for s in schemes
        for seed in seeds
    ]


# -- the one way to run and read the study (chapter 07's is the same) -------------------------


def full_study_jobs(tasks, schemes, seeds=(0,), *, extension=False):
    """List the committed study's jobs (`FULL`'s settings) of some tasks and schemes, default config.

    What the committed models of chapter 6 (`~posenc_lib.study_models`) and the witness tests
    retrain: the same steps, lengths and scoring as the study, for a few of its models.

    Parameters
    ----------
    tasks, schemes : sequence of str
        Names in `~posenc_lib.tasks.TASKS` and `~posenc_lib.model.SCHEMES`.
    seeds : sequence of int
        One model per seed.
    extension : bool
        Also extend the context of the RoPE models, as the study does.

    Returns
    -------
    list of dict
        The jobs, as `study_jobs` lists them.

    Examples
    --------
    >>> [(j["task"], j["scheme"], j["steps"], j["config"]) for j in full_study_jobs(["markov"], ["rope"])]
    [('markov', 'rope', 400, '4x8+mlp')]
    """
    return study_jobs(
        tasks,
        schemes,
        seeds,
        configs=[DEFAULT_CONFIG],
        steps=FULL["steps"],
        train_len=FULL["train_len"],
        eval_lens=FULL["eval_lens"],
        n_tokens=FULL["n_tokens"],
        extension=extension,
    )


def _heading(*, config, region, seeds, train_len, criteria):
    return (
        f"configuration {config or '(one)'}; mean (min-max) over {seeds} seed"
        f"{'s' if seeds > 1 else ''}; trained at L={train_len}"
    )


def _column(eval_len, train_len, region):
    return f"L={eval_len}" + (" (trained)" if eval_len == train_len else f" {region}")


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
    ('configuration 4x8+mlp; mean (min-max) over 10 seeds; trained at L=32', True)
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


STUDY = Sweep(
    name="study",
    module="posenc_lib.experiments",
    jobs=study_jobs,
    runner=train_and_measure,
    files={
        "results": "records",
        "curves": "curve",
        "extension": "extension",
        "training": "training",
    },
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
    cell=("task", "scheme", "eval_len"),
    models_by=("task", "scheme", "seed"),
    heading=_heading,
    column=_column,
    verbs={"run": "run_study", "load": "load_study"},
)

#: The training budget varied: the default configuration trained five times longer (2,000 steps),
#: three seeds. Committed in posenc_lib/data/study-budget, made by ``python -m posenc_lib.experiments
#: --out posenc_lib/data/study-budget --seeds 3 --steps 2000 --configs 4x8+mlp``.
BUDGET = {**FULL, "seeds": tuple(range(3)), "configs": (DEFAULT_CONFIG,), "steps": 5 * STEPS}
STUDY_BUDGET = replace(STUDY, name="study-budget", options=BUDGET, witnesses=())


def run_study(
    *, out=None, workers=1, backend="loky", progress=True, fresh=False, keep_models=False, **options
):
    """Train and measure study models now; with ``out``, write the study's files there.

    `STUDY`'s `~posenc_lib.sweep.Sweep.run`, the one way to run the study (chapter 07's
    ``realtext.run_sweep`` is the same): the options are those of `study_jobs` with its
    defaults (every task and scheme, seed 0, the default configuration, no context extension);
    ``**FULL`` runs the committed study.

    Parameters
    ----------
    out : str or Path, optional
        Write results.json, curves.json, extension.json, training.json (each with its
        provenance) and the witness model's parameters here; out/progress.jsonl makes the run
        resumable.
    workers : int
        Local processes, one BLAS thread each; 1 runs the jobs in this process.
    backend : {"loky", "dask"}
        Local processes, or the Dask cluster of the current ``dask.distributed.Client``.
    progress : bool
        Show a progress bar over the models.
    fresh : bool
        With ``out``: delete out/progress.jsonl first, so that every model is trained again.
    keep_models : bool
        Also return the trained models (not with ``out``).
    **options
        Arguments of `study_jobs`: tasks, schemes, seeds, configs, steps, train_len,
        eval_lens, n_tokens, extension.

    Returns
    -------
    records, curves, extension : list of dict
        As `load_study` returns them.
    models : dict, optional
        Only with ``keep_models`` (then ``((records, curves, extension), models)`` is
        returned): (task, scheme, seed) -> `~posenc_lib.model.TrainResult`.

    Examples
    --------
    >>> (records, curves, _), models = run_study(
    ...     tasks=["lookback-3"], schemes=["none", "learned"], steps=2, train_len=8,
    ...     eval_lens=[8, 16], n_tokens=64, progress=False, keep_models=True)
    >>> [(r["scheme"], r["eval_len"], r["region"]) for r in records]
    [('none', 8, 'all'), ('none', 16, 'all'), ('none', 16, 'unseen'),
     ('learned', 8, 'all'), ('learned', 16, 'all'), ('learned', 16, 'unseen')]
    >>> sorted(models), [c["scheme"] for c in curves]  # a table of 8 rows cannot run at 16
    ([('lookback-3', 'learned', 0), ('lookback-3', 'none', 0)], ['none'])
    >>> run_study(tasks="markov")
    Traceback (most recent call last):
    ...
    TypeError: run_study: tasks must be a sequence of names, got 'markov'
    """
    result = STUDY.run(
        out=out,
        workers=workers,
        backend=backend,
        progress=progress,
        fresh=fresh,
        keep_models=keep_models,
        **options,
    )
    if keep_models:  # what load_study returns (the validation curves: load_training)
        files, models = result
        return files[:3], models
    return result[:3]


def load_study(directory=None):
    """Read (records, curves, extension records) of the study.

    `STUDY`'s `~posenc_lib.sweep.Sweep.load` (chapter 07's ``realtext.load_sweep`` is the same).

    Parameters
    ----------
    directory : str or Path, optional
        A directory `run_study` wrote; default: the committed study, inside the installed
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
    Chapter 06's committed study: 540 models (3 tasks, 6 schemes, 3 configurations, 10 seeds),
    of which the 90 learned tables cannot run at the longest length.

    >>> records, curves, extension = load_study()
    >>> len(records), len(curves), len(extension)
    (3780, 450, 1200)
    >>> sorted(records[0])
    ['config', 'eval_len', 'metric', 'region', 'scheme', 'seed', 'task', 'train_len', 'value']
    """
    return STUDY.load(directory)[:3]


def load_training(directory=None):
    """Read the study's validation curves (training.json): every model's score during training.

    Parameters
    ----------
    directory : str or Path, optional
        As in `load_study`.

    Returns
    -------
    list of dict
        One record per model (`validation_curve`): its fields, ``steps`` and ``values``.

    Examples
    --------
    >>> curves = load_training()
    >>> len(curves), curves[0]["steps"][:3], curves[0]["steps"][-1]  # 540 models, every 50 steps
    (540, [0, 50, 100], 400)
    """
    return STUDY.load(directory)[3]


def summarize(records, *, region="unseen", config=None, **criteria):
    """{(task, scheme, eval_len): (mean, min, max) over seeds}, None where a scheme cannot run.

    `STUDY`'s `~posenc_lib.sweep.Sweep.summarize` (chapter 07's ``realtext.summarize`` is the
    same, keyed (scheme, eval_len)).

    Parameters
    ----------
    records : list of dict
        Study records (`run_study`, `load_study`).
    region : {"unseen", "all"}
        "unseen": the positions >= the training length, and at the training length all of them
        (none is unseen there); "all": every position.
    config : str, optional
        The configuration (needed when the records hold several).
    **criteria
        Further fields the records must match (`~posenc_lib.records.select`).

    Returns
    -------
    dict
        {(task, scheme, eval_len): (mean, min, max)} of floats over the seeds, None where the
        scheme cannot run at that length.

    Raises
    ------
    ValueError
        If the records hold several configurations and ``config`` is None, or a field, value
        or configuration matches no record.

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "seed": k, "train_len": 32, "eval_len": 64,
    ...          "region": "unseen", "value": v} for k, v in [(0, 0.5), (1, 0.7)]]
    >>> summarize(recs)[("t", "s", 64)]
    (0.6, 0.5, 0.7)
    >>> summarize(load_study()[0], config="nope")
    Traceback (most recent call last):
    ...
    ValueError: summarize: no record has config='nope'; config is one of ['4x8+mlp', '1x32', '2L-4x8+mlp+bos']
    """
    return STUDY.summarize(records, region=region, config=config, **criteria)


def results_table(records, *, region="unseen", config=None, digits=2, **criteria):
    """Text: for each task one row per scheme, mean (min-max over seeds) at every length.

    `STUDY`'s `~posenc_lib.sweep.Sweep.results_table` (chapter 07's ``realtext.results_table``
    is the same). With ``region="unseen"`` the training-length column shows all positions (they
    are the trained ones) and the longer lengths only query positions >= the training length.

    Parameters
    ----------
    records : list of dict
        Study records (`run_study`, `load_study`).
    region : {"unseen", "all"}
        The query positions counted at the lengths longer than the training length.
    config : str, optional
        The configuration to show (needed when the records hold several).
    digits : int
        Decimals shown.
    **criteria
        Further fields the records must match (`~posenc_lib.records.select`).

    Returns
    -------
    str
        The table: a heading line, then a block per task (a blank line, a header, a row per
        scheme); "cannot run" where a scheme cannot run at that length, "not run" where there
        is no such record.

    Raises
    ------
    ValueError
        If the records are empty, hold several configurations and ``config`` is None, or a
        field, value or configuration matches no record.

    Examples
    --------
    The first task of chapter 06's committed study:

    >>> records, curves, extension = load_study()
    >>> lines = results_table(records, config="4x8+mlp").splitlines()
    >>> print(lines[0])
    configuration 4x8+mlp; mean (min-max) over 10 seeds; trained at L=32
    >>> for line in lines[2:10]:
    ...     print(line)
    lookback-3 (accuracy)
      scheme         L=32 (trained)      L=64 unseen     L=128 unseen     L=256 unseen
      none         0.20 (0.20-0.21) 0.12 (0.11-0.13) 0.11 (0.09-0.11) 0.09 (0.09-0.10)
      sinusoidal   1.00 (1.00-1.00) 0.28 (0.16-0.40) 0.18 (0.12-0.22) 0.13 (0.11-0.16)
      learned      1.00 (1.00-1.00)       cannot run       cannot run       cannot run
      rope         1.00 (1.00-1.00) 0.32 (0.25-0.40) 0.15 (0.13-0.18) 0.10 (0.09-0.11)
      alibi        0.32 (0.31-0.35) 0.31 (0.28-0.34) 0.30 (0.28-0.33) 0.30 (0.28-0.32)
      t5           1.00 (1.00-1.00) 1.00 (0.99-1.00) 0.95 (0.93-0.97) 0.80 (0.74-0.85)
    """
    return STUDY.results_table(records, region=region, config=config, digits=digits, **criteria)


# -- the study's own readings -------------------------------------------------------------------


def extrapolation_gap(records, task, scheme, *, config=None, region="unseen"):
    """Return the mean at the longest evaluation length minus the mean at the training length.

    At the training length every position counts (all of them were trained); at the longest
    length only ``region``, by default the **unseen** positions (>= the training length), so the
    gap measures the positions the model never met, not an average that mixes in the trained ones.
    Means are over seeds, in one configuration; None if the scheme cannot run that long (a learned
    table past its rows). Negative accuracy gaps and positive loss gaps mean the model got worse
    on longer inputs.

    Parameters
    ----------
    records : list of dict
        Study records (`run_study`, `load_study`), with a ``region`` field.
    task : str
        The task.
    scheme : str
        The position scheme.
    config : str, optional
        The configuration; required when the records of ``task`` hold several (they are never
        averaged together).
    region : {"unseen", "all"}
        The query positions counted at the longest length. "all" mixes the trained positions
        in: the average chapter 06 warns against, kept for comparison.

    Returns
    -------
    float or None
        The gap in the task's metric, or None where the scheme cannot run that long.

    Raises
    ------
    ValueError
        If the task, scheme or configuration matches no record, the records of ``task`` hold
        several configurations and ``config`` is None, the records of the scheme hold several
        training lengths, there is no record at the training length, or there are no records
        in ``region`` at the longest length (records without a region count as "all"; an unseen
        region needs a length beyond the training length).

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "seed": 0, "train_len": 32, "eval_len": n,
    ...          "region": g, "metric": "accuracy", "value": v}
    ...         for n, g, v in [(32, "all", 1.0), (256, "all", 0.6), (256, "unseen", 0.5)]]
    >>> extrapolation_gap(recs, "t", "s")  # unseen positions at 256 minus all at 32
    -0.5
    >>> extrapolation_gap(recs, "t", "s", region="all")  # the trained positions mixed in
    -0.4
    >>> records = load_study()[0]
    >>> round(extrapolation_gap(records, "lookback-3", "t5", config="4x8+mlp"), 2)
    -0.2
    >>> extrapolation_gap(records, "lookback-3", "learned", config="4x8+mlp") is None
    True
    >>> extrapolation_gap(records, "lookback-3", "t5")
    Traceback (most recent call last):
    ...
    ValueError: extrapolation_gap: these records hold several configurations ['4x8+mlp', '1x32', '2L-4x8+mlp+bos']; pass config= one of them
    """
    func = "extrapolation_gap"
    check_choice(func, "region", region, ("all", "unseen"))
    records = check_records(
        func, records, fields=("task", "scheme", "train_len", "eval_len", "value")
    )
    check_criteria(func, records, {"task": task}, values=True)
    check_criteria(func, select(records, task=task, region=None), {"scheme": scheme}, values=True)
    config = one_config(select(records, task=task, region=None), config, func)
    rows = select(records, task=task, scheme=scheme, config=config, region=None)
    if not rows:
        raise ValueError(
            f"{func}: no record of task={task!r}, scheme={scheme!r}, config={config!r}"
        )
    train_lens = names(rows, "train_len")
    if len(train_lens) > 1:
        raise ValueError(
            f"{func}: the records of {task!r}, {scheme!r} hold several training lengths "
            f"{train_lens}; select the records of one first"
        )
    train_len = train_lens[0]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in select(rows, eval_len=train_len, region="all")]
    at_longest = [r["value"] for r in select(rows, eval_len=longest, region=region)]
    if not at_train:
        raise ValueError(
            f"{func}: no record of {task!r}, {scheme!r} at the training length {train_len}"
        )
    if not at_longest:  # region "unseen" where the longest length is the training length
        raise ValueError(
            f"{func}: no {region!r} records of {task!r}, {scheme!r} at eval_len={longest} (an "
            f"unseen region needs an evaluation length beyond train_len={train_len} and records "
            f"with a 'region' field; region='all' reads every position)"
        )
    if any(v is None for v in at_train + at_longest):
        return None
    return float(np.mean(at_longest) - np.mean(at_train))


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

    Raises
    ------
    ValueError
        If the task or evaluation length matches no record.

    Examples
    --------
    >>> records, curves, extension = load_study()
    >>> print(compare_configs(records, "lookback-3"))
    lookback-3, unseen positions at L=256: mean (min-max) over seeds
    scheme                4x8+mlp             1x32   2L-4x8+mlp+bos
    none         0.09 (0.09-0.10) 0.10 (0.09-0.10) 0.10 (0.07-0.14)
    sinusoidal   0.13 (0.11-0.16) 0.14 (0.10-0.17) 0.14 (0.11-0.17)
    learned            cannot run       cannot run       cannot run
    rope         0.10 (0.09-0.11) 0.61 (0.36-0.87) 0.11 (0.10-0.12)
    alibi        0.30 (0.28-0.32) 0.11 (0.10-0.11) 0.27 (0.25-0.32)
    t5           0.80 (0.74-0.85) 0.91 (0.87-0.94) 0.60 (0.57-0.66)
    """
    func = "compare_configs"
    check_choice(func, "region", region, ("all", "unseen"))
    digits = check_int(func, "digits", digits, minimum=0)
    records = check_records(
        func, records, fields=("task", "scheme", "config", "seed", "train_len", "eval_len", "value")
    )
    check_criteria(func, records, {"task": task, "eval_len": eval_len}, values=True)
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


def position_curves(curves, task, *, config=None, bin_width=8):
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
    config : str, optional
        The configuration (needed when the curves hold several).
    bin_width : int
        Query positions per bin; positions past the last whole bin are left out.

    Returns
    -------
    dict
        {scheme: (centres, mean, min, max)}, four 1-D arrays of one value per bin, for every
        scheme with a curve (NaN in a bin without targets).

    Raises
    ------
    ValueError
        If the task or configuration matches no curve, or ``bin_width`` is below 1 or longer
        than the curves.

    Examples
    --------
    >>> c = {"task": "t", "scheme": "s", "config": "k", "totals": [0, 2, 4, 1], "counts": [0, 4, 4, 4]}
    >>> position_curves([c], "t", config="k", bin_width=2)["s"][1]
    array([0.5  , 0.625])
    """
    func = "position_curves"
    curves = check_records(
        func, curves, name="curves", fields=("task", "scheme", "totals", "counts")
    )
    check_criteria(func, curves, {"task": task}, values=True)
    config = one_config(select(curves, task=task, region=None), config, func)
    rows = select(curves, task=task, config=config, region=None)
    if not rows:
        raise ValueError(f"{func}: no curve of task={task!r} has config={config!r}")
    lengths = sorted({len(r["totals"]) for r in rows})
    if len(lengths) > 1:
        raise ValueError(f"{func}: the curves of {task!r} differ in length: {lengths}")
    bin_width = check_int(func, "bin_width", bin_width, minimum=1)
    if bin_width > lengths[0]:
        raise ValueError(
            f"{func}: bin_width must be at most the {lengths[0]} positions, got {bin_width}"
        )
    return {
        scheme: records.binned_curves(rows, scheme=scheme, bin_width=bin_width)
        for scheme in names(rows, "scheme")
    }


# -- command line ----------------------------------------------------------------------------


def main(argv=None):
    """Run the sweep from the command line: ``python -m posenc_lib.experiments --out DIR``.

    Writes the files of `run_study` and results.png under DIR, and prints a `results_table` per
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
    >>> " ".join(files)
    'curves.json extension.json progress.jsonl results.json results.png training.json'
    >>> printed.getvalue().splitlines()[0]
    'configuration 4x8+mlp; mean (min-max) over 1 seed; trained at L=8'
    >>> plt.close("all")
    """
    parser = cli.parser(
        STUDY,
        __doc__.split("\n\n")[0],
        f"configuration {DEFAULT_CONFIG} only, seed 0, no context extension (18 models)",
    )
    parser.add_argument("--configs", nargs="+", choices=tuple(CONFIGS), default=None)
    args = parser.parse_args(argv)
    cli.run_command(STUDY, args, {"configs": tuple(args.configs)} if args.configs else {})


if __name__ == "__main__":
    main()
