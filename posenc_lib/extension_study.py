"""Chapter 06's context extension at every length, with two methods of today's configurations.

The study (`posenc_lib.experiments`) extends each RoPE model to 4 x its training length five ways
and scores it there, at 128 tokens. This sweep takes the same models (the study's RoPE jobs of
the extension tasks: every configuration, ten seeds, trained by the same code and seeds, so
the same parameters) and scores them at every evaluation length, before and after the same
40-step fine-tune at 128 tokens, eight ways (`posenc_lib.extension.LENGTH_METHODS`): the study's
five, Llama 3.1's frequency-dependent scaling (shipped by Llama 3.1-3.3), and dynamic NTK (Hugging
Face's ``rope_type: "dynamic"``) read in one pass and generated with a cache, all given the factor 4.
Its records are `posenc_lib.extension.extension_length_records`'; a fast test checks that, for
the five methods both run, they equal the study's extension.json.

It is a sweep of its own, not more methods in the study, because the study's committed data
carry the hash of the code that made them (`posenc_lib.provenance`): adding methods there
changes that code and so asks for all 540 of the study's models again.

Run ``python -m posenc_lib.extension_study --out posenc_lib/data/study-extension`` (60 models,
about 7 minutes on two cores); ``--quick`` for seed 0 of the default configuration.
"""

import sys

from . import cli
from .experiments import (
    CONFIGS,
    DEFAULT_CONFIG,
    EVAL_LENS,
    EVAL_TOKENS,
    SEEDS,
    STEPS,
    TRAIN,
    make_config,
    study_jobs,
)
from .extension import EXTENSION, LENGTH_METHODS, LLAMA3, extension_length_records
from .model import train
from .sweep import Sweep
from .tasks import TASKS

#: The full sweep, as committed: the study's RoPE models of the extension tasks.
FULL = {
    "tasks": EXTENSION["tasks"],
    "seeds": SEEDS,
    "configs": tuple(CONFIGS),
    "steps": STEPS,
    "train_len": 32,
    "eval_lens": EVAL_LENS,
    "n_tokens": EVAL_TOKENS,
}


def extension_jobs(
    tasks=EXTENSION["tasks"],
    seeds=(0,),
    *,
    configs=(DEFAULT_CONFIG,),
    steps=STEPS,
    train_len=32,
    eval_lens=EVAL_LENS,
    n_tokens=EVAL_TOKENS,
):
    """List the sweep's jobs: the study's RoPE jobs of ``tasks``, task x config x seed.

    Each job is what `train_and_extend` takes, and what `posenc_lib.experiments.study_jobs`
    lists for the same model (so the same model is trained).

    Parameters
    ----------
    tasks : sequence of str
        Names in `~posenc_lib.tasks.TASKS`.
    seeds : sequence of int
        One model per seed.
    configs : sequence of str
        Names in `~posenc_lib.experiments.CONFIGS`.
    steps : int
        Adam steps per model.
    train_len : int
        Tokens per training sequence.
    eval_lens : sequence of int
        The lengths every method is scored at (with ``train_len``).
    n_tokens : int
        Predictions scored at every length.

    Returns
    -------
    list of dict

    Raises
    ------
    TypeError, ValueError
        As `~posenc_lib.experiments.study_jobs`, named as this function.

    Examples
    --------
    >>> jobs = extension_jobs(seeds=(0, 1))
    >>> [(j["task"], j["scheme"], j["config"], j["seed"]) for j in jobs][:3]
    [('lookback-3', 'rope', '4x8+mlp', 0), ('lookback-3', 'rope', '4x8+mlp', 1),
     ('markov', 'rope', '4x8+mlp', 0)]
    >>> extension_jobs(steps=0)
    Traceback (most recent call last):
    ...
    ValueError: extension_jobs: steps must be an integer >= 1, got 0
    """
    try:
        return study_jobs(
            tasks,
            ("rope",),
            seeds,
            configs=configs,
            steps=steps,
            train_len=train_len,
            eval_lens=eval_lens,
            n_tokens=n_tokens,
            extension=True,
        )
    except (TypeError, ValueError) as error:
        text = str(error).removeprefix("study_jobs: ")
        raise type(error)(f"extension_jobs: {text}") from None


def train_and_extend(job, *, progress=False):
    """Train the RoPE model one job describes, as the study does, and extend it every way.

    Parameters
    ----------
    job : dict
        One job of `extension_jobs`.
    progress : bool
        Show a progress bar while the model trains.

    Returns
    -------
    dict
        "job"; "records", `~posenc_lib.extension.extension_length_records` of every method of
        `~posenc_lib.extension.LENGTH_METHODS` (factor and fine-tune as the study's
        ``EXTENSION``); "result", the trained model.

    Examples
    --------
    >>> (job,) = extension_jobs(["lookback-3"], steps=2, train_len=8, eval_lens=(8, 16),
    ...                         n_tokens=64)
    >>> out = train_and_extend(job)
    >>> len(out["records"]), sorted({r["method"] for r in out["records"]}) == sorted(LENGTH_METHODS)
    (48, True)
    """
    task = TASKS[job["task"]]()
    config = make_config(task, "rope", job["config"], train_len=job["train_len"])
    result = train(
        config,
        task,
        steps=job["steps"],
        length=job["train_len"],
        seed=job["seed"],
        progress=progress,
        **TRAIN,
    )
    records = extension_length_records(
        result,
        task,
        factor=EXTENSION["factor"],
        eval_lens=job["eval_lens"],
        finetune_steps=EXTENSION["finetune_steps"],
        seed=job["seed"],
        config_name=job["config"],
        n_tokens=job["n_tokens"],
    )
    return {"job": job, "records": records, "result": result}


def report(records, out):
    """Return the tables of every task and configuration, before fine-tuning (no figure).

    Parameters
    ----------
    records : list of dict
        The records of results.json.
    out : Path
        The sweep's directory (nothing is drawn there).

    Returns
    -------
    str

    Examples
    --------
    >>> print(report(load_extension_study()[0], None).splitlines()[0])  # doctest: +ELLIPSIS
    lookback-3, configuration 4x8+mlp, set for 4 x the training length 32, before fine-tuning, ...
    """
    from .extension import extension_lengths_table
    from .records import names

    return "\n\n".join(
        extension_lengths_table(records, task, config=config)
        for task in names(records, "task")
        for config in names(records, "config")
    )


STUDY_EXTENSION = Sweep(
    name="study-extension",
    module="posenc_lib.extension_study",
    jobs=extension_jobs,
    runner=train_and_extend,
    files={"results": "records"},
    options=FULL,
    quick={"seeds": (0,), "configs": (DEFAULT_CONFIG,)},
    tiny={
        "tasks": ("lookback-3",),
        "seeds": (0,),
        "configs": (DEFAULT_CONFIG,),
        "steps": 5,
        "train_len": 8,
        "eval_lens": (8, 16),
        "n_tokens": 64,
    },
    settings={
        "configs": CONFIGS,
        "train": TRAIN,
        "extension": EXTENSION,
        "methods": LENGTH_METHODS,
        "llama3": LLAMA3,
    },
    code_roots=(
        "posenc_lib.extension_study:train_and_extend",
        "posenc_lib.extension_study:extension_jobs",
        "posenc_lib.extension_study:FULL",
        "posenc_lib.sweep:write_sweep",
    ),
    report=report,
    cell=("task", "method", "eval_len"),
    models_by=("task", "config", "seed"),
    verbs={"run": "run_extension_study", "load": "load_extension_study"},
)


def run_extension_study(
    *, out=None, workers=1, backend="loky", progress=True, fresh=False, **options
):
    """Train and extend the sweep's models now; with ``out``, write results.json there.

    `STUDY_EXTENSION`'s `~posenc_lib.sweep.Sweep.run`: the options are those of
    `extension_jobs` (seed 0 of the default configuration by default; ``**FULL``: the committed
    sweep).

    Parameters
    ----------
    out : str or Path, optional
        Write results.json here (resumable, with its provenance).
    workers : int
        Local worker processes, one BLAS thread each.
    backend : {"loky", "dask"}
        Local processes, or the current Dask cluster.
    progress : bool
        Show a progress bar over the models.
    fresh : bool
        With ``out``: train every model again.
    **options
        Arguments of `extension_jobs`.

    Returns
    -------
    tuple of list of dict
        (records,).

    Examples
    --------
    >>> (records,) = run_extension_study(tasks=["lookback-3"], steps=2, train_len=8,
    ...                                  eval_lens=(8, 16), n_tokens=64, progress=False)
    >>> len(records)
    48
    """
    return STUDY_EXTENSION.run(
        out=out, workers=workers, backend=backend, progress=progress, fresh=fresh, **options
    )


def load_extension_study(directory=None):
    """Read the sweep's records: (records,), by default the committed data.

    Parameters
    ----------
    directory : str or Path, optional
        A directory `run_extension_study` wrote.

    Returns
    -------
    tuple of list of dict

    Examples
    --------
    >>> (records,) = load_extension_study()
    >>> sorted({r["method"] for r in records}) == sorted(LENGTH_METHODS)
    True
    """
    return STUDY_EXTENSION.load(directory)


def main(argv=None):
    """Run the sweep from the command line (``python -m posenc_lib.extension_study --out DIR``).

    Writes results.json under DIR and prints `report`'s tables. Ctrl-C stops the sweep, keeps
    the finished models and says how to continue.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the command line's); ``--help`` lists them.

    Returns
    -------
    None
        The results are the file written.

    Examples
    --------
    >>> import contextlib, io, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with contextlib.redirect_stdout(io.StringIO()) as printed:
    ...         main(["--out", tmp, "--tiny", "--workers", "1", "--no-progress"])
    ...     files = sorted(p.name for p in Path(tmp).iterdir())
    >>> files
    ['progress.jsonl', 'results.json']
    >>> printed.getvalue().splitlines()[0]  # doctest: +ELLIPSIS
    'lookback-3, configuration 4x8+mlp, set for 4 x the training length 8, before fine-tuning, ...'
    """
    parser = cli.parser(
        STUDY_EXTENSION,
        __doc__.split("\n\n")[0],
        f"configuration {DEFAULT_CONFIG} only, seed 0 (2 models)",
    )
    parser.add_argument("--configs", nargs="+", choices=tuple(CONFIGS), default=None)
    args = parser.parse_args(argv)
    cli.run_command(STUDY_EXTENSION, args, {"configs": tuple(args.configs)} if args.configs else {})


if __name__ == "__main__":
    sys.exit(main())
