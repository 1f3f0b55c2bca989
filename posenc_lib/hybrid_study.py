"""Chapter 08's hybrid layers, trained short and tested long.

Two-layer models of chapter 6's study (its tasks, width, heads, MLP, start token, training
budget, seeds and evaluation lengths) whose layers handle positions by the plans of
`posenc_lib.hybrid.PLANS`: RoPE in both layers, in neither, in one of the two; Llama 4's pattern
(RoPE within chunks, then a layer without positions) and the same with RoPE on top; Gemma 3's
pattern in miniature, a sliding-window layer at base 10,000 under a global layer at base
1,000,000, with its two parts apart (the two bases without the window, the window without the
second base), and at windows of 4 and 16 as well as 8. Each is trained at 32 tokens and scored at
32-256. The condition varied: the same models without the start token.

The models of "rope+rope" and "nope+nope" with the start token are the study's two-layer RoPE and
no-position models (the same code path, bit for bit, and the same seeds); a fast test checks that
their records equal the study's results.json. The parameters of Gemma 3's pattern on lookback-3
(ten seeds) are kept (witnesses), for chapter 8's interventions on trained models.

Run ``python -m posenc_lib.hybrid_study --out posenc_lib/data/study-hybrid`` (780 models, about
30 minutes on two cores); ``--quick`` for seed 0 of the configuration with a start token.
"""

import sys

import numpy as np

from . import cli, records
from ._checks import check_choice, check_int
from ._limits import check_sequence
from .experiments import (
    CONFIGS,
    EVAL_LENS,
    EVAL_TOKENS,
    SEEDS,
    STEPS,
    STUDY,
    TRAIN,
    make_config,
)
from .hybrid import PLANS
from .model import evaluate_hybrid_positions, train_hybrid
from .sweep import Sweep, witness_path
from .tasks import TASKS

STUDY_CONFIG = "2L-4x8+mlp+bos"  # the study's two-layer configuration
#: The configurations: the study's two-layer one, and the same without its start token.
HYBRID_CONFIGS = {
    STUDY_CONFIG: CONFIGS[STUDY_CONFIG],
    "2L-4x8+mlp": {**CONFIGS[STUDY_CONFIG], "bos": False},
}
RECORD_FIELDS = ("task", "layers", "config", "seed", "train_len")

#: The full sweep, as committed.
FULL = {
    "tasks": tuple(TASKS),
    "plans": tuple(PLANS),
    "seeds": SEEDS,
    "configs": tuple(HYBRID_CONFIGS),
    "steps": STEPS,
    "train_len": 32,
    "eval_lens": EVAL_LENS,
    "n_tokens": EVAL_TOKENS,
}


def hybrid_jobs(
    tasks=tuple(TASKS),
    plans=tuple(PLANS),
    seeds=(0,),
    *,
    configs=(STUDY_CONFIG,),
    steps=STEPS,
    train_len=32,
    eval_lens=EVAL_LENS,
    n_tokens=EVAL_TOKENS,
):
    """List the sweep's jobs, one model each: task x configuration x plan x seed.

    Parameters
    ----------
    tasks : sequence of str
        Names in `~posenc_lib.tasks.TASKS`.
    plans : sequence of str
        Names in `~posenc_lib.hybrid.PLANS`.
    seeds : sequence of int
        One model per seed.
    configs : sequence of str
        Names in `HYBRID_CONFIGS`.
    steps : int
        Adam steps per model.
    train_len : int
        Tokens per training sequence.
    eval_lens : sequence of int
        Lengths scored; they include ``train_len``.
    n_tokens : int
        Predictions scored at every length.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> jobs = hybrid_jobs(["markov"], ["rope+nope", "nope+rope"], seeds=(0, 1))
    >>> [(j["layers"], j["seed"]) for j in jobs]
    [('rope+nope', 0), ('rope+nope', 1), ('nope+rope', 0), ('nope+rope', 1)]
    >>> hybrid_jobs(plans=["rope+alibi"])
    Traceback (most recent call last):
    ...
    ValueError: hybrid_jobs: plans[0] must be one of 'rope+rope', 'rope+nope', 'nope+rope', 'nope+nope', 'chunk+nope', 'chunk+rope', 'local+global', 'rope+global', 'local+rope', 'local4+global', 'local4+rope', 'local16+global', 'local16+rope', got 'rope+alibi'
    """
    func = "hybrid_jobs"
    tasks = check_sequence(func, "tasks", tasks, allowed=tuple(TASKS))
    plans = check_sequence(func, "plans", plans, allowed=tuple(PLANS))
    seeds = check_sequence(func, "seeds", seeds, minimum=0)
    configs = check_sequence(func, "configs", configs, allowed=tuple(HYBRID_CONFIGS))
    steps = check_int(func, "steps", steps, minimum=1)
    train_len = check_int(func, "train_len", train_len, minimum=1)
    eval_lens = check_sequence(func, "eval_lens", eval_lens, minimum=1)
    if train_len not in eval_lens:
        raise ValueError(
            f"{func}: eval_lens must include train_len={train_len} (the trained length every "
            f"table starts from), got {eval_lens}"
        )
    n_tokens = check_int(func, "n_tokens", n_tokens, minimum=1)
    return [
        {
            "task": task,
            "layers": plan,
            "config": config,
            "seed": seed,
            "steps": steps,
            "train_len": train_len,
            "eval_lens": eval_lens,
            "n_tokens": n_tokens,
        }
        for task in tasks
        for config in configs
        for plan in plans
        for seed in seeds
    ]


def train_and_score(job, *, progress=False):
    """Train the model one job describes and score it at every length, position by position.

    Parameters
    ----------
    job : dict
        One job of `hybrid_jobs`.
    progress : bool
        Show a progress bar while the model trains.

    Returns
    -------
    dict
        "job"; "records", a value per length and region (`posenc_lib.records.region_records`);
        "curve", the per-position sums at the longest length; "result", the trained model.

    Examples
    --------
    >>> (job,) = hybrid_jobs(["lookback-3"], ["rope+nope"], steps=2, train_len=8,
    ...                      eval_lens=(8, 16), n_tokens=64)
    >>> out = train_and_score(job)
    >>> [(r["layers"], r["eval_len"], r["region"]) for r in out["records"]]
    [('rope+nope', 8, 'all'), ('rope+nope', 16, 'all'), ('rope+nope', 16, 'unseen')]
    """
    task = TASKS[job["task"]]()
    config = make_config(task, "rope", HYBRID_CONFIGS[job["config"]], train_len=job["train_len"])
    plan = PLANS[job["layers"]]
    result = train_hybrid(
        config,
        plan,
        task,
        steps=job["steps"],
        length=job["train_len"],
        seed=job["seed"],
        progress=progress,
        **TRAIN,
    )
    scored = {
        (n,): evaluate_hybrid_positions(
            result.params, config, plan, task, n, n_tokens=job["n_tokens"]
        )
        for n in job["eval_lens"]
    }
    base = {k: job[k] for k in RECORD_FIELDS}
    longest = max(job["eval_lens"])
    curve = records.curve_record(
        base,
        {"eval_len": longest},
        task.metric,
        *scored[(longest,)],
        digits=0 if task.metric == "accuracy" else 6,
    )
    return {
        "job": job,
        "records": records.region_records(base, scored, job["train_len"], task.metric),
        "curve": curve,
        "result": result,
    }


def report(records_, out):
    """Return the tables of every task and configuration: unseen positions, by length.

    Parameters
    ----------
    records_ : list of dict
        The records of results.json.
    out : Path
        The sweep's directory (nothing is drawn there).

    Returns
    -------
    str

    Examples
    --------
    >>> print(report(load_hybrid_study()[0], None).splitlines()[0])  # doctest: +ELLIPSIS
    configuration 2L-4x8+mlp+bos; mean (min-max) over 10 seeds; trained at L=32
    """
    from .records import names

    return "\n\n".join(
        STUDY_HYBRID.results_table(records_, config=config) for config in names(records_, "config")
    )


STUDY_HYBRID = Sweep(
    name="study-hybrid",
    module="posenc_lib.hybrid_study",
    jobs=hybrid_jobs,
    runner=train_and_score,
    files={"results": "records", "curves": "curve"},
    options=FULL,
    quick={"seeds": (0,), "configs": (STUDY_CONFIG,)},
    tiny={
        "tasks": ("lookback-3",),
        "plans": ("rope+nope", "local+global"),
        "seeds": (0,),
        "steps": 5,
        "train_len": 8,
        "eval_lens": (8, 16),
        "n_tokens": 64,
    },
    settings={
        "configs": HYBRID_CONFIGS,
        "train": TRAIN,
        "plans": {k: repr(v) for k, v in PLANS.items()},
    },
    code_roots=(
        "posenc_lib.hybrid_study:train_and_score",
        "posenc_lib.hybrid_study:hybrid_jobs",
        "posenc_lib.hybrid_study:FULL",
        "posenc_lib.sweep:write_sweep",
    ),
    report=report,
    cell=("task", "layers", "eval_len"),
    witnesses=tuple(  # Gemma 3's pattern on lookback-3: chapter 8 changes its layers when read
        {"task": "lookback-3", "layers": "local+global", "config": STUDY_CONFIG, "seed": seed}
        for seed in SEEDS
    ),
    models_by=("task", "layers", "config", "seed"),
    config=STUDY_CONFIG,
    heading=STUDY.heading,  # the study's table heading and columns
    column=STUDY.column,
    verbs={"run": "run_hybrid_study", "load": "load_hybrid_study"},
)


def run_hybrid_study(*, out=None, workers=1, backend="loky", progress=True, fresh=False, **options):
    """Train and score the sweep's models now; with ``out``, write results.json and curves.json.

    `STUDY_HYBRID`'s `~posenc_lib.sweep.Sweep.run`: the options are those of `hybrid_jobs` (seed
    0 of the configuration with a start token by default; ``**FULL``: the committed sweep).

    Parameters
    ----------
    out : str or Path, optional
        Write the files here (resumable, with their provenance).
    workers : int
        Local worker processes, one BLAS thread each.
    backend : {"loky", "dask"}
        Local processes, or the current Dask cluster.
    progress : bool
        Show a progress bar over the models.
    fresh : bool
        With ``out``: train every model again.
    **options
        Arguments of `hybrid_jobs`.

    Returns
    -------
    tuple of list of dict
        (records, curves).

    Examples
    --------
    >>> records_, curves = run_hybrid_study(tasks=["lookback-3"], plans=["nope+rope"], steps=2,
    ...                                     train_len=8, eval_lens=(8, 16), n_tokens=64,
    ...                                     progress=False)
    >>> len(records_), len(curves)
    (3, 1)
    """
    return STUDY_HYBRID.run(
        out=out, workers=workers, backend=backend, progress=progress, fresh=fresh, **options
    )


def load_hybrid_study(directory=None):
    """Read the sweep's records: (records, curves), by default the committed data.

    Parameters
    ----------
    directory : str or Path, optional
        A directory `run_hybrid_study` wrote.

    Returns
    -------
    tuple of list of dict

    Examples
    --------
    >>> records_, curves = load_hybrid_study()
    >>> sorted({r["layers"] for r in records_}) == sorted(PLANS)
    True
    """
    return STUDY_HYBRID.load(directory)


def load_witness(seed, directory=None):
    """Return a witness model, one seed of Gemma 3's pattern on lookback-3, as trained.

    Parameters
    ----------
    seed : int
        Its seed, 0-9.
    directory : str or Path, optional
        A directory `run_hybrid_study` wrote (default: the committed data).

    Returns
    -------
    params : dict
        Its trained parameters.
    config : ModelConfig
        Its configuration (scheme "rope", two layers, a start token).
    plan : tuple of Layer
        ``PLANS["local+global"]``.

    Examples
    --------
    >>> params, config, plan = load_witness(0)
    >>> config.n_layers, config.bos, plan[0].window
    (2, True, 8)
    >>> load_witness(10)
    Traceback (most recent call last):
    ...
    ValueError: load_witness: seed must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, got 10
    """
    seed = check_choice("load_witness", "seed", seed, SEEDS)
    (job,) = [w for w in STUDY_HYBRID.witnesses if w["seed"] == seed]
    path = witness_path(STUDY_HYBRID.directory if directory is None else directory, job)
    if not path.exists():
        raise ValueError(f"load_witness: no witness model at {path}")
    with np.load(path) as saved:
        params = {name: saved[name] for name in saved.files}
    task = TASKS[job["task"]]()
    config = make_config(task, "rope", HYBRID_CONFIGS[job["config"]], train_len=FULL["train_len"])
    return params, config, PLANS[job["layers"]]


def main(argv=None):
    """Run the sweep from the command line (``python -m posenc_lib.hybrid_study --out DIR``).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the command line's); ``--help`` lists them.

    Returns
    -------
    None
        The results are the files written.

    Examples
    --------
    >>> import contextlib, io, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with contextlib.redirect_stdout(io.StringIO()) as printed:
    ...         main(["--out", tmp, "--tiny", "--workers", "1", "--no-progress"])
    ...     files = sorted(p.name for p in Path(tmp).iterdir())
    >>> files  # with the witness model of seed 0 (--tiny trains seed 0 of local+global)
    ['curves.json', 'progress.jsonl', 'results.json', 'witness-lookback-3-local+global-2L-4x8+mlp+bos-seed0.npz']
    """
    parser = cli.parser(
        STUDY_HYBRID,
        __doc__.split("\n\n")[0],
        f"configuration {STUDY_CONFIG} only, seed 0 (39 models)",
    )
    parser.add_argument("--configs", nargs="+", choices=tuple(HYBRID_CONFIGS), default=None)
    args = parser.parse_args(argv)
    cli.run_command(STUDY_HYBRID, args, {"configs": tuple(args.configs)} if args.configs else {})


if __name__ == "__main__":
    sys.exit(main())
