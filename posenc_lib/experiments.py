"""Train short, test long: every position scheme trained at one length and measured at longer
ones, in several model configurations and seeds (chapter 6).

    python -m posenc_lib.experiments --quick --out results/     # 18 models, about a minute
    python -m posenc_lib.experiments --out notebooks/data/study  # the committed sweep

The sweep is resumable: every finished model appends one JSON line to DIR/progress.jsonl, and a
rerun with the same settings skips the models already there (``--fresh`` starts over). When all
are done it writes, under DIR:

- results.json: one record per {task, scheme, config, seed, train_len, eval_len, region, metric,
  value}. ``region`` is "all" (every query position) or "unseen" (query positions >= train_len;
  there is no "unseen" record at eval_len == train_len). ``value`` is null where a scheme cannot
  run at that length (a learned table shorter than eval_len).
- curves.json: per-position results at the longest evaluation length, one record per model
  with ``totals`` and ``counts`` per query position (``totals / counts`` is the curve).
- extension.json: context extension of the RoPE models (plain, interpolation, NTK, YaRN),
  before and after a short fine-tune at 4 x the training length.
- results.png: the unseen-region results, one panel per task.

Parallel workers each use one BLAS thread: several processes that each start a BLAS thread per
core oversubscribe the CPU and run many times slower.
"""

import argparse
import json
import multiprocessing
import os
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ._checks import check_choice, check_int
from .model import SCHEMES, ModelConfig, evaluate_positions, region_value, train
from .rope import ntk_base
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
EXTENSION_METHODS = ("plain", "interpolation", "ntk", "yarn")
_BLAS_THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def make_config(task, scheme, config=DEFAULT_CONFIG, *, train_len=32):
    """The ModelConfig of one study model: a named configuration for ``task`` and ``scheme``.

    ``config`` is a name in `CONFIGS` or a dict of ModelConfig fields.

    Examples
    --------
    >>> c = make_config(TASKS["lookback-3"](), "rope", "1x32")
    >>> (c.n_heads, c.head_dim, c.mlp, c.max_len)
    (1, 32, False, 32)
    """
    fields = config if isinstance(config, dict) else CONFIGS[_config_name(config)]
    return ModelConfig(vocab_size=task.vocab_size, scheme=scheme, max_len=train_len, **fields)


def _config_name(config):
    return check_choice("experiments", "config", config, tuple(CONFIGS))


def _records(job, scored, metric):
    """The region records of one model from its per-length (totals, counts)."""
    out = []
    base = {k: job[k] for k in ("task", "scheme", "config", "seed", "train_len")}
    for length in job["eval_lens"]:
        regions = ("all",) if length <= job["train_len"] else ("all", "unseen")
        for region in regions:
            start = 0 if region == "all" else job["train_len"]
            value = None if scored[length] is None else region_value(*scored[length], start)
            out.append(
                {**base, "eval_len": length, "region": region, "metric": metric, "value": value}
            )
    return out


def _curve(job, scored, metric):
    """Per-position totals and counts at the longest evaluation length (None if it cannot run)."""
    length = max(job["eval_lens"])
    if scored[length] is None:
        return None
    totals, counts = scored[length]
    digits = 0 if metric == "accuracy" else 6
    return {
        **{k: job[k] for k in ("task", "scheme", "config", "seed", "train_len")},
        "eval_len": length,
        "metric": metric,
        "totals": [round(float(v), digits) if digits else int(round(v)) for v in totals],
        "counts": [int(n) for n in counts],
    }


def train_and_measure(job, *, progress=False, keep_model=False):
    """Train the model one job describes and measure it.

    ``job`` holds task, scheme, config (a name in CONFIGS), seed, steps, train_len, eval_lens,
    n_tokens and extension (bool: also run `context_extension_records` on a RoPE model).
    Returns {"job", "records", "curve", "extension"} (and "result", the TrainResult, with
    ``keep_model``).
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
        n: evaluate_positions(result.params, config, task, n, n_tokens=job["n_tokens"])
        for n in job["eval_lens"]
    }
    out = {
        "job": job,
        "records": _records(job, scored, task.metric),
        "curve": _curve(job, scored, task.metric),
        "extension": [],
    }
    if job.get("extension") and job["scheme"] == "rope":
        out["extension"] = context_extension_records(
            result, task, seed=job["seed"], config_name=job["config"], **_extension_options()
        )
    if keep_model:
        out["result"] = result
    return out


def _extension_options():
    return {k: v for k, v in EXTENSION.items() if k != "tasks"}


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
    """Train one model and return its records (and, with ``keep_model``, the TrainResult)."""
    job = _job(task_name, scheme, config, seed, steps, train_len, eval_lens, n_tokens, False)
    out = train_and_measure(job, progress=progress, keep_model=keep_model)
    return (out["records"], out["result"]) if keep_model else out["records"]


def _job(task, scheme, config, seed, steps, train_len, eval_lens, n_tokens, extension):
    return {
        "task": task,
        "scheme": scheme,
        "config": config,
        "seed": int(seed),
        "steps": int(steps),
        "train_len": int(train_len),
        "eval_lens": [int(n) for n in eval_lens],
        "n_tokens": int(n_tokens),
        "extension": bool(extension and scheme == "rope" and task in EXTENSION["tasks"]),
    }


def _job_key(job):
    return json.dumps(job, sort_keys=True)


@contextmanager
def _one_blas_thread():
    """Set the BLAS thread variables to 1 while worker processes start (they read them when
    numpy loads), then restore this process's environment."""
    saved = {name: os.environ.get(name) for name in _BLAS_THREAD_VARIABLES}
    os.environ.update(dict.fromkeys(_BLAS_THREAD_VARIABLES, "1"))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def worker_pool(workers):
    """A pool of ``workers`` fresh ("spawn") processes, each limited to one BLAS thread.

    Fresh processes load numpy after the thread variables are set (a forked worker would
    inherit this process's BLAS, already started with one thread per core).
    """
    workers = check_int("worker_pool", "workers", workers, minimum=1)
    with _one_blas_thread():
        return multiprocessing.get_context("spawn").Pool(workers)


def _worker_blas_setting(_=None):
    """The BLAS thread variables a worker process sees (for tests)."""
    return {name: os.environ.get(name) for name in _BLAS_THREAD_VARIABLES}


def _run_job(job):
    return train_and_measure(job)


def _read_progress(path):
    """{job key: finished output} from a progress file; a torn last line is ignored."""
    done = {}
    if path is None or not path.exists():
        return done
    for line in path.read_text().splitlines():
        try:
            out = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interrupt
        done[_job_key(out["job"])] = out
    return done


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
    """The jobs of a study, task x config x scheme x seed in that order (see `train_and_measure`)."""
    for name in tasks:
        check_choice("study_jobs", "task", name, tuple(TASKS))
    for scheme in schemes:
        check_choice("study_jobs", "scheme", scheme, SCHEMES)
    for config in configs:
        check_choice("study_jobs", "config", config, tuple(CONFIGS))
    return [
        _job(t, s, c, seed, steps, train_len, eval_lens, n_tokens, extension)
        for t in tasks
        for c in configs
        for s in schemes
        for seed in seeds
    ]


def run_jobs(jobs, *, workers=1, progress=True, progress_file=None, keep_models=False, runner=None):
    """Run jobs (in parallel with ``workers`` > 1) and return their outputs in job order.

    ``progress_file`` (a path) makes the run resumable: each finished model is appended to it
    as one JSON line as soon as it is done, and jobs already in it are not run again. The
    outputs do not depend on ``workers``: every model is seeded by its own seed.

    ``runner`` runs one job (a dict of JSON values) and returns a dict holding it under "job"
    (default: `train_and_measure`, keeping the model with ``keep_models``); for ``workers`` > 1
    it must be a module-level function, so that worker processes can import it (chapter 07's
    sweep passes its own).
    """
    workers = check_int("run_jobs", "workers", workers, minimum=1)
    path = None if progress_file is None or keep_models else Path(progress_file)
    done = _read_progress(path)
    todo = [job for job in jobs if _job_key(job) not in done]
    bar = _bar(len(jobs), len(jobs) - len(todo), progress)
    sink = None
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        sink = path.open("a")
    run = runner or (_run_job_keeping_model if keep_models else _run_job)
    pool = worker_pool(min(workers, len(todo))) if workers > 1 and len(todo) > 1 else None
    try:
        finished = pool.imap_unordered(run, todo) if pool else map(run, todo)
        for out in finished:
            done[_job_key(out["job"])] = out
            if sink is not None:
                sink.write(json.dumps(out) + "\n")
                sink.flush()
            bar.update(1)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if sink is not None:
            sink.close()
        bar.close()
    return [done[_job_key(job)] for job in jobs]


def _run_job_keeping_model(job):
    return train_and_measure(job, keep_model=True)


def _bar(total, initial, show):
    if not show:
        from .model import _NoBar

        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc="models trained", leave=False)


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


def run_sweep(out, *, workers=2, progress=True, fresh=False, **study):
    """The full study (every task, scheme and configuration, `SEEDS`, context extension of the
    RoPE models), resumable, written to the directory ``out`` (see the module docstring).

    ``study`` overrides `study_jobs` arguments. Returns {"results", "curves", "extension":
    path written}.
    """
    out = Path(out)
    options = {"seeds": SEEDS, "configs": tuple(CONFIGS), "extension": True, **study}
    progress_file = out / "progress.jsonl"
    if fresh and progress_file.exists():
        progress_file.unlink()
    outputs = run_jobs(
        study_jobs(**options), workers=workers, progress=progress, progress_file=progress_file
    )
    rows = {
        "results": [r for o in outputs for r in o["records"]],
        "curves": [o["curve"] for o in outputs if o["curve"] is not None],
        "extension": [r for o in outputs for r in o["extension"]],
    }
    paths = {name: out / f"{name}.json" for name in rows}
    for name, path in paths.items():
        path.write_text(_json_lines(rows[name]))
    return paths


def _json_lines(rows):
    """A JSON list with one record per line: readable diffs, small files."""
    return "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n" if rows else "[]\n"


def load_study(directory):
    """(records, curves, extension records) from a directory `run_sweep` wrote."""
    directory = Path(directory)
    return tuple(
        json.loads((directory / f"{name}.json").read_text())
        for name in ("results", "curves", "extension")
    )


# -- reading the records ---------------------------------------------------------------------


def select(records, **criteria):
    """The records matching every ``key=value`` given (a value of None matches anything).

    Records written before regions and configurations existed count as region "all".

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


def _one_config(records, config, func):
    if config is not None:
        return config
    names = list(dict.fromkeys(r.get("config") for r in records))
    if len(names) > 1:
        raise ValueError(
            f"{func}: these records hold several configurations {names}; pass config= one of them"
        )
    return None


def summarize(records, *, region="all", config=None):
    """{(task, scheme, eval_len): (mean, min, max) over seeds}, None where it cannot run.

    Records of several configurations need ``config``; ``region`` is "all" or "unseen".

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "eval_len": 64, "value": v} for v in (0.5, 0.7)]
    >>> summarize(recs)[("t", "s", 64)]
    (0.6, 0.5, 0.7)
    """
    check_choice("summarize", "region", region, ("all", "unseen"))
    config = _one_config(records, config, "summarize")
    groups = {}
    for r in select(records, region=region, config=config):
        groups.setdefault((r["task"], r["scheme"], r["eval_len"]), []).append(r["value"])
    return {
        key: None
        if any(v is None for v in values)
        else (float(np.mean(values)), float(np.min(values)), float(np.max(values)))
        for key, values in groups.items()
    }


def extrapolation_gap(records, task, scheme, *, config=None, region="all"):
    """Mean value at the longest evaluation length (in ``region``) minus the mean value at the
    training length (None if the scheme cannot run that long). Negative accuracy gaps and
    positive loss gaps mean the model got worse on longer inputs.

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "seed": 0, "train_len": 32, "eval_len": n,
    ...          "metric": "accuracy", "value": v} for n, v in [(32, 1.0), (64, 0.8), (256, 0.5)]]
    >>> extrapolation_gap(recs, "t", "s")
    -0.5
    """
    config = _one_config(select(records, task=task), config, "extrapolation_gap")
    rows = select(records, task=task, scheme=scheme, config=config, region=None)
    train_len = rows[0]["train_len"]
    longest = max(r["eval_len"] for r in rows)
    at_train = [r["value"] for r in select(rows, eval_len=train_len, region="all")]
    at_longest = [r["value"] for r in select(rows, eval_len=longest, region=region)]
    if any(v is None for v in at_train + at_longest):
        return None
    return float(np.mean(at_longest) - np.mean(at_train))


def _names(records, key):
    return list(dict.fromkeys(r[key] for r in records))


_MISSING = object()


def _cell(value, digits=2):
    if value is _MISSING:
        return "not run"
    if value is None:
        return "cannot run"
    mean, low, high = value
    return f"{mean:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def results_table(records, *, config=None, region="unseen", digits=2):
    """Text: for each task one row per scheme, mean (min-max over seeds) at every length.

    With ``region="unseen"`` the training-length column shows all positions (they are the
    trained ones) and the longer lengths only query positions >= the training length.
    """
    config = _one_config(records, config, "results_table")
    rows = select(records, config=config, region=None)
    everywhere, region_summary = summarize(rows, config=config), summarize(rows, region=region)
    train_len = rows[0]["train_len"]
    lengths = sorted({r["eval_len"] for r in rows})
    seeds = len({r["seed"] for r in rows})
    metric = {r["task"]: r["metric"] for r in rows}
    width = 9 + 2 * digits * 2
    label = {n: f"L={n}" + (" (trained)" if n == train_len else f" {region}") for n in lengths}
    lines = [
        f"configuration {config or '(one)'}; mean (min-max) over {seeds} seed"
        f"{'s' if seeds > 1 else ''}; trained at L={train_len}"
    ]
    for task in _names(rows, "task"):
        lines.append("")
        lines.append(
            f"{task} ({metric[task]})".ljust(14) + "".join(f"{label[n]:>{width}}" for n in lengths)
        )
        for scheme in _names(rows, "scheme"):
            cells = [
                (everywhere if n == train_len else region_summary).get((task, scheme, n), _MISSING)
                for n in lengths
            ]
            lines.append(f"  {scheme:<12}" + "".join(f"{_cell(c, digits):>{width}}" for c in cells))
    return "\n".join(lines)


def compare_configs(records, task, *, eval_len=256, region="unseen", digits=2):
    """Text: one row per scheme, one column per configuration, mean (min-max over seeds) of
    ``task`` at ``eval_len`` in ``region``; the configurations side by side."""
    configs = _names(records, "config")
    schemes = _names(select(records, task=task, region=None), "scheme")
    summaries = {c: summarize(records, config=c, region=region) for c in configs}
    width = max(9 + 2 * digits * 2, max(len(c) for c in configs) + 2)
    lines = [
        f"{task}, {region} positions at L={eval_len}: mean (min-max) over seeds",
        f"{'scheme':<12}" + "".join(f"{c:>{width}}" for c in configs),
    ]
    for scheme in schemes:
        cells = [summaries[c].get((task, scheme, eval_len), _MISSING) for c in configs]
        lines.append(f"{scheme:<12}" + "".join(f"{_cell(v, digits):>{width}}" for v in cells))
    return "\n".join(lines)


def position_curves(curves, task, *, config=DEFAULT_CONFIG, bin_width=8):
    """Per-position results of one task and configuration, binned and summarised over seeds.

    Returns {scheme: (centres, mean, min, max)}: ``centres`` the middle query position of each
    bin of ``bin_width`` positions; mean, min and max over seeds of each bin's value (correct
    predictions / targets, or summed loss / targets).

    Examples
    --------
    >>> c = {"task": "t", "scheme": "s", "config": "k", "totals": [0, 2, 4, 1], "counts": [0, 4, 4, 4]}
    >>> position_curves([c], "t", config="k", bin_width=2)["s"][1]
    array([0.5  , 0.625])
    """
    bin_width = check_int("position_curves", "bin_width", bin_width, minimum=1)
    out = {}
    for scheme in _names(select(curves, task=task, config=config, region=None), "scheme"):
        rows = select(curves, task=task, config=config, scheme=scheme, region=None)
        values = []
        for r in rows:
            totals, counts = np.asarray(r["totals"], float), np.asarray(r["counts"], float)
            n_bins = len(totals) // bin_width
            t = totals[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
            c = counts[: n_bins * bin_width].reshape(n_bins, bin_width).sum(1)
            values.append(np.where(c > 0, t / np.maximum(c, 1), np.nan))
        values = np.array(values)
        centres = np.arange(values.shape[1]) * bin_width + (bin_width - 1) / 2
        out[scheme] = (centres, values.mean(0), values.min(0), values.max(0))
    return out


# -- extending RoPE's context ----------------------------------------------------------------


def extension_variants(config, factor):
    """The RoPE model's configuration four ways for ``factor`` x its training length: plain
    extrapolation, position interpolation, NTK-aware scaling and YaRN."""
    if config.scheme != "rope":
        raise ValueError(f"extension_variants: needs a RoPE model, got scheme {config.scheme!r}")
    factor = float(factor)
    return {
        "plain": config,
        "interpolation": config.with_(rope_positions_scale=factor),
        "ntk": config.with_(base=ntk_base(config.base, factor, config.head_dim)),
        "yarn": config.with_(yarn_scale=factor),
    }


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
    """A trained RoPE model evaluated at ``factor`` x its training length by every method, before
    and after a short fine-tune at that length; regions "all" and "unseen".

    Returns records {task, scheme, config, seed, train_len, eval_len, method, stage ("before"
    or "after"), finetune_steps, region, metric, value}.
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
        variant = variants[check_choice("context_extension", "method", method, EXTENSION_METHODS)]
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
    """A trained RoPE model evaluated at ``factor`` x its training length four ways (plain,
    interpolation, NTK-aware scaling, YaRN), before and after a short fine-tune at that length.

    Returns {method: {"before": value, "after": value}} over all positions.
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
    """{(method, stage): (mean, min, max) over seeds} of context-extension records."""
    groups = {}
    for r in select(records, task=task, config=config, region=region):
        groups.setdefault((r["method"], r["stage"]), []).append(r["value"])
    return {
        key: (float(np.mean(v)), float(np.min(v)), float(np.max(v))) for key, v in groups.items()
    }


def extension_table(records, task, *, config=DEFAULT_CONFIG, region="unseen", digits=2):
    """Text: one row per method, mean (min-max over seeds) before and after fine-tuning."""
    summary = extension_summary(records, task, config=config, region=region)
    rows = select(records, task=task, config=config, region=region)
    steps = rows[0]["finetune_steps"]
    width = 9 + 2 * digits * 2
    lines = [
        f"{task}, configuration {config}, length {rows[0]['eval_len']} "
        f"(trained at {rows[0]['train_len']}), {region} positions, "
        f"{len({r['seed'] for r in rows})} seeds",
        f"{'method':<14}{'before':>{width}}{f'after {steps} steps':>{width}}",
    ]
    for method in _names(rows, "method"):
        cells = [summary[(method, stage)] for stage in ("before", "after")]
        lines.append(f"{method:<14}" + "".join(f"{_cell(c, digits):>{width}}" for c in cells))
    return "\n".join(lines)


# -- command line ----------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m posenc_lib.experiments", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", type=Path, required=True, help="directory for the results")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"configuration {DEFAULT_CONFIG} only, seed 0, no context extension (18 models)",
    )
    parser.add_argument("--tiny", action="store_true", help="a seconds-long smoke run (tests)")
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help="seeds 0 .. N-1")
    parser.add_argument("--configs", nargs="+", choices=tuple(CONFIGS), default=None)
    parser.add_argument("--steps", type=int, default=STEPS, help="Adam steps per model")
    parser.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="parallel processes, one BLAS thread each",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="discard DIR/progress.jsonl and start over"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    study = {"seeds": tuple(range(args.seeds)), "steps": args.steps}
    if args.configs:
        study["configs"] = tuple(args.configs)
    if args.quick:
        study.update(seeds=(0,), configs=(DEFAULT_CONFIG,), extension=False)
    if args.tiny:
        study.update(
            tasks=("lookback-3",),
            schemes=("none", "learned", "t5"),
            seeds=(0,),
            configs=(DEFAULT_CONFIG,),
            steps=5,
            train_len=8,
            eval_lens=(8, 16),
            n_tokens=64,
            extension=False,
        )
    start = time.perf_counter()
    try:
        paths = run_sweep(
            args.out, workers=args.workers, progress=not args.no_progress, fresh=args.fresh, **study
        )
    except KeyboardInterrupt:
        done = len(_read_progress(args.out / "progress.jsonl"))
        print(
            f"interrupted: {done} finished models are kept in {args.out / 'progress.jsonl'}; "
            "run the same command again to continue"
        )
        raise SystemExit(130) from None
    records = json.loads(paths["results"].read_text())
    import matplotlib

    matplotlib.use("Agg")
    from .plots import plot_results

    configs = _names(records, "config")
    axes = plot_results(records, config=configs[0])
    axes[0].figure.savefig(args.out / "results.png", dpi=80)
    for config in configs:
        print(results_table(records, config=config))
        print()
    print(f"{len(records)} records in {time.perf_counter() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
