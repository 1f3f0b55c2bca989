"""Chapter 06's six lookback-3 models, committed: the study's seed-0 models in the default configuration.

Training them (400 steps each) takes about half a minute on one core, more than a chapter may
spend before its first result, and the committed study (`posenc_lib.experiments.STUDY`) trains
exactly these six as its seed 0. So the course carries their trained parameters and the loss of
every training step (``posenc_lib/data/study-models/models.npz``), and the chapter loads them
(`load`) and measures them itself (`score`). Two things prove they are what the code makes:

- ``provenance.json`` beside them records the command, the versions and the hash of the study's
  code (`posenc_lib.provenance.code_hash` of ``STUDY.code_roots``); `stale` lists what no longer
  matches, and a fast test fails on it;
- tests/test_committed_data.py re-scores every model against the study's records, and (slow tier)
  trains one of them again and compares its parameters and losses.

Made by ``python -m posenc_lib.study_models`` (about 15 s on two cores).
"""

import sys
from pathlib import Path

import numpy as np

from . import experiments, records, runner
from .model import SCHEMES, TrainResult, evaluate_positions
from .provenance import model_stamp, stale_models, write_models
from .tasks import TASKS

DIRECTORY = Path(__file__).parent / "data" / "study-models"
TASK = "lookback-3"
COMMAND = "python -m posenc_lib.study_models"


def jobs():
    """Return the study's jobs of the six models: lookback-3, every scheme, seed 0, default config.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> [(j["scheme"], j["seed"], j["steps"]) for j in jobs()][:2]
    [('none', 0, 400), ('sinusoidal', 0, 400)]
    """
    return experiments.full_study_jobs([TASK], list(SCHEMES))


def stamp():
    """Return what makes the models now: command, job settings, versions, the study's code hash.

    Returns
    -------
    dict

    Examples
    --------
    >>> sorted(stamp())
    ['code', 'command', 'jobs', 'versions']
    """
    return model_stamp(COMMAND, {"jobs": jobs()}, experiments.STUDY.code_roots)


def make(directory=DIRECTORY, *, workers=2):
    """Train the six models and write ``models.npz`` and ``provenance.json`` into ``directory``.

    Parameters
    ----------
    directory : str or Path
    workers : int
        Processes to train in.

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    Training six models takes about 15 s on two cores, too long for a doctest:

    >>> paths = make("/tmp/study-models")  # doctest: +SKIP
    >>> [path.name for path in paths]  # doctest: +SKIP
    ['models.npz', 'provenance.json']
    """
    outputs = runner.run_jobs(
        jobs(), experiments.train_and_measure, workers=workers, progress=False, keep_models=True
    )
    arrays = {}
    for output in outputs:
        scheme, result = output["job"]["scheme"], output["result"]
        arrays.update({f"{scheme}/{name}": value for name, value in result.params.items()})
        arrays[f"{scheme}/losses"] = np.asarray(result.losses, dtype=np.float64)
    return write_models(directory, arrays, stamp())


def load(directory=DIRECTORY):
    """Return the six trained models: {("lookback-3", scheme, 0): TrainResult}, as `run_study` keeps.

    Each has its parameters and the loss of every one of its 400 steps (no snapshots).

    Parameters
    ----------
    directory : str or Path
        Where `make` wrote them (default: the committed ones, inside the package).

    Returns
    -------
    dict

    Examples
    --------
    >>> models = load()
    >>> sorted(scheme for _, scheme, _ in models), len(models[("lookback-3", "t5", 0)].losses)
    (['alibi', 'learned', 'none', 'rope', 'sinusoidal', 't5'], 400)
    """
    task = TASKS[TASK]()
    with np.load(Path(directory) / "models.npz") as data:
        arrays = {name: data[name] for name in data.files}
    models = {}
    for job in jobs():
        scheme = job["scheme"]
        config = experiments.make_config(task, scheme, job["config"], train_len=job["train_len"])
        params = {
            name.split("/", 1)[1]: value
            for name, value in arrays.items()
            if name.startswith(f"{scheme}/") and name != f"{scheme}/losses"
        }
        losses = [float(x) for x in arrays[f"{scheme}/losses"]]
        models[(TASK, scheme, job["seed"])] = TrainResult(config, params, losses, {})
    return models


def score(models):
    """Score trained lookback-3 models as the study does: (records, curves).

    The records hold each model's value at every length of the study, on all positions and on
    the unseen ones; the curves its position-by-position totals at the longest length (none for
    a model that cannot run there).

    Parameters
    ----------
    models : dict
        {(task, scheme, seed): TrainResult}, as `load` returns (any subset).

    Returns
    -------
    records, curves : list of dict

    Examples
    --------
    >>> models = load()
    >>> made, curves = score({k: m for k, m in models.items() if k[1] == "none"})
    >>> [(r["eval_len"], r["region"]) for r in made][:3], curves[0]["eval_len"]
    ([(32, 'all'), (64, 'all'), (64, 'unseen')], 256)
    """
    by_scheme = {job["scheme"]: job for job in jobs()}
    made, curves = [], []
    for (task_name, scheme, _), result in models.items():
        job, task = by_scheme[scheme], TASKS[task_name]()
        scored = {
            (n,): evaluate_positions(
                result.params, result.config, task, n, n_tokens=job["n_tokens"]
            )
            for n in job["eval_lens"]
        }
        base = {k: job[k] for k in experiments.RECORD_FIELDS}
        made += records.region_records(base, scored, job["train_len"], task.metric)
        longest = max(job["eval_lens"])
        if scored[(longest,)] is not None:  # a learned table has no rows past its length
            curves.append(
                records.curve_record(
                    base, {"eval_len": longest}, task.metric, *scored[(longest,)], digits=0
                )
            )
    return made, curves


def stale(directory=DIRECTORY):
    """List what no longer matches between the committed models' provenance and the code (empty: current).

    Parameters
    ----------
    directory : str or Path
        Where `make` wrote the models (default: the committed ones, inside the package).

    Returns
    -------
    list of str

    Examples
    --------
    >>> stale()
    []
    """
    return stale_models(directory, stamp(), ("jobs", "code"), COMMAND)


if __name__ == "__main__":
    for path in make(sys.argv[1] if len(sys.argv) > 1 else DIRECTORY):
        print(f"wrote {path}")
