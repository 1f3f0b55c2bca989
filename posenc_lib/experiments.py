"""Train short, test long: every position scheme trained at one length and measured at longer
ones (chapter 6).

    python -m posenc_lib.experiments --quick --out results/        # 1 seed, about a minute
    python -m posenc_lib.experiments --seeds 3 --workers 2 --out results/

Writes DIR/results.json, a list of records {"task", "scheme", "seed", "train_len",
"eval_len", "metric", "value"} (value null where a scheme cannot run at that length), and
DIR/results.png (metric against evaluation length, one line per scheme, one panel per task).
"""

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from .model import SCHEMES, ModelConfig, evaluate, train
from .rope import ntk_base
from .tasks import lookback, markov, recent_marker

TASKS = {"lookback-3": lambda: lookback(3), "recent-marker": recent_marker, "markov": markov}
EVAL_LENS = (32, 64, 128, 256)
MODEL = {"d_model": 32, "n_heads": 4, "n_layers": 1, "mlp": True}
TRAIN = {"batch_size": 16, "lr": 1e-2}


def run_one(
    task_name,
    scheme,
    seed,
    *,
    steps,
    train_len=32,
    eval_lens=EVAL_LENS,
    model=None,
    progress=False,
    keep_model=False,
):
    """Train one model and return its records, one per evaluation length (and, with
    ``keep_model``, the TrainResult too)."""
    task = TASKS[task_name]()
    config = ModelConfig(
        vocab_size=task.vocab_size, scheme=scheme, max_len=train_len, **{**MODEL, **(model or {})}
    )
    result = train(
        config, task, steps=steps, length=train_len, seed=seed, progress=progress, **TRAIN
    )
    records = [
        {
            "task": task_name,
            "scheme": scheme,
            "seed": seed,
            "train_len": train_len,
            "eval_len": length,
            "metric": task.metric,
            "value": evaluate(result.params, config, task, length),
        }
        for length in eval_lens
    ]
    return (records, result) if keep_model else records


def _run_job(job):
    return run_one(*job[:3], **job[3], keep_model=True)


def run_study(
    tasks=tuple(TASKS),
    schemes=SCHEMES,
    seeds=(0,),
    *,
    steps=250,
    train_len=32,
    eval_lens=EVAL_LENS,
    model=None,
    workers=1,
    progress=True,
    keep_models=False,
):
    """Every task x scheme x seed; returns the list of records (in that order).

    The result does not depend on ``workers``: every model is seeded by its own seed. With
    ``keep_models`` also returns {(task, scheme, seed): TrainResult}.
    """
    options = {
        "steps": steps,
        "train_len": train_len,
        "eval_lens": tuple(eval_lens),
        "model": model,
    }
    jobs = [(t, s, seed, options) for t in tasks for s in schemes for seed in seeds]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs), desc="models trained", leave=False)
    records, models = [], {}
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        outputs = pool.map(_run_job, jobs) if pool else map(_run_job, jobs)
        for job, (out, result) in zip(jobs, outputs, strict=True):
            records += out
            models[job[:3]] = result
            if bar:
                bar.update(1)
    finally:
        if pool:
            pool.shutdown()
        if bar:
            bar.close()
    return (records, models) if keep_models else records


def extrapolation_gap(records, task, scheme):
    """Mean value at the longest evaluation length minus mean value at the training length
    (None if the scheme cannot run that long). Negative accuracy gaps and positive loss gaps
    mean the model got worse on longer inputs.

    Examples
    --------
    >>> recs = [{"task": "t", "scheme": "s", "seed": 0, "train_len": 32, "eval_len": n,
    ...          "metric": "accuracy", "value": v} for n, v in [(32, 1.0), (64, 0.8), (256, 0.5)]]
    >>> extrapolation_gap(recs, "t", "s")
    -0.5
    """
    rows = [r for r in records if r["task"] == task and r["scheme"] == scheme]
    longest = max(r["eval_len"] for r in rows)
    at = {
        n: [r["value"] for r in rows if r["eval_len"] == n] for n in (rows[0]["train_len"], longest)
    }
    if any(v is None for values in at.values() for v in values):
        return None
    return float(np.mean(at[longest]) - np.mean(at[rows[0]["train_len"]]))


def summarize(records):
    """{(task, scheme, eval_len): (mean, min, max) over seeds}, None where it cannot run."""
    groups = {}
    for r in records:
        groups.setdefault((r["task"], r["scheme"], r["eval_len"]), []).append(r["value"])
    return {
        key: None
        if any(v is None for v in values)
        else (float(np.mean(values)), float(np.min(values)), float(np.max(values)))
        for key, values in groups.items()
    }


def results_table(records):
    """Rows of text: one per task and scheme, the mean value at each evaluation length."""
    summary = summarize(records)
    lengths = sorted({r["eval_len"] for r in records})
    tasks = list(dict.fromkeys(r["task"] for r in records))
    schemes = list(dict.fromkeys(r["scheme"] for r in records))
    metric = {r["task"]: r["metric"] for r in records}
    lines = [f"{'task':<14} {'scheme':<11}" + "".join(f"{'L=' + str(n):>8}" for n in lengths)]
    for task in tasks:
        for scheme in schemes:
            cells = []
            for n in lengths:
                value = summary[(task, scheme, n)]
                cells.append(f"{'-':>8}" if value is None else f"{value[0]:>8.2f}")
            lines.append(f"{task:<14} {scheme:<11}" + "".join(cells))
        lines.append(f"{'':<14} ({metric[task]}; trained at L={records[0]['train_len']})")
    return "\n".join(lines)


def plot_results(records, axes=None):
    """Metric against evaluation length, one line per scheme (range over seeds shaded)."""
    import matplotlib.pyplot as plt

    summary = summarize(records)
    tasks = list(dict.fromkeys(r["task"] for r in records))
    schemes = list(dict.fromkeys(r["scheme"] for r in records))
    lengths = sorted({r["eval_len"] for r in records})
    metric = {r["task"]: r["metric"] for r in records}
    if axes is None:
        _, axes = plt.subplots(1, len(tasks), figsize=(4 * len(tasks), 3.4), layout="constrained")
    axes = np.atleast_1d(axes)
    for ax, task in zip(axes, tasks, strict=True):
        for n, scheme in enumerate(schemes):
            points = [(x, summary[(task, scheme, x)]) for x in lengths]
            points = [(x, v) for x, v in points if v is not None]
            xs = [x for x, _ in points]
            ax.plot(xs, [v[0] for _, v in points], "o-", color=f"C{n}", label=scheme)
            ax.fill_between(
                xs,
                [v[1] for _, v in points],
                [v[2] for _, v in points],
                color=f"C{n}",
                alpha=0.15,
                lw=0,
            )
        ax.axvline(records[0]["train_len"], color="0.5", ls=":", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths, [str(x) for x in lengths])
        ax.set_xlabel("evaluation length (tokens)")
        ax.set_ylabel("accuracy" if metric[task] == "accuracy" else "loss (nats/token)")
        ax.set_title(task)
    axes[0].legend(fontsize="small")
    return axes


def context_extension(result, task, *, factor=4, finetune_steps=40, finetune_batch=8, seed=0):
    """A trained RoPE model evaluated at ``factor`` x its training length three ways, before
    and after a short fine-tune at that length: plain extrapolation, position interpolation
    (positions / factor) and NTK-aware scaling (a larger base).

    Returns {method: {"before": value, "after": value}}.
    """
    config = result.config
    if config.scheme != "rope":
        raise ValueError(f"context_extension: needs a RoPE model, got scheme {config.scheme!r}")
    long = factor * config.max_len
    variants = {
        "plain": config,
        "interpolation": config.with_(rope_positions_scale=float(factor)),
        "ntk": config.with_(base=ntk_base(config.base, float(factor), config.head_dim)),
    }
    out = {}
    for name, variant in variants.items():
        before = evaluate(result.params, variant, task, long)
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
        out[name] = {"before": before, "after": evaluate(tuned.params, variant, task, long)}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 seed, fewer steps (~1 minute)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="a seconds-long smoke run (tests)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    seeds = range(1 if args.quick or args.tiny else args.seeds)
    steps = args.steps or (5 if args.tiny else 250 if args.quick else 400)
    options = {"tasks": tuple(TASKS), "schemes": SCHEMES}
    if args.tiny:
        options = {
            "tasks": ("lookback-3",),
            "schemes": ("none", "learned"),
            "eval_lens": (8, 16),
            "train_len": 8,
        }
    start = time.perf_counter()
    records = run_study(
        seeds=tuple(seeds), steps=steps, workers=args.workers, progress=False, **options
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(records, indent=1))
    import matplotlib

    matplotlib.use("Agg")
    axes = plot_results(records)
    axes[0].figure.savefig(args.out / "results.png", dpi=80)
    print(results_table(records))
    print(f"{len(records)} records in {time.perf_counter() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
