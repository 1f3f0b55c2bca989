"""Chapter 03's two comparison models, committed: the floor without position vectors and the wide start.

Chapter 03 trains its learned-table model live and watches it; two more models serve as a floor
(the same model with no position vectors, 300 steps) and as an intervention on the start (the
position table started at the token table's scale, 150 steps). Training them takes a few seconds
on one core, more than the chapter can spend, so the course carries their trained parameters,
their snapshots and the loss of every step (``posenc_lib/data/ch03-models/models.npz``), and
``provenance.json`` beside them records the hash of the code that trains them
(`posenc_lib.provenance.code_hash`). `stale` lists what no longer matches; a fast test fails on
it, and a slow test trains both again and compares.

Made by ``python -m posenc_lib.ch03_models`` (a few seconds).
"""

import sys
from pathlib import Path

import numpy as np

from .model import ModelConfig, TrainResult, train
from .provenance import model_stamp, stale_models, write_models
from .tasks import markov

DIRECTORY = Path(__file__).parent / "data" / "ch03-models"
COMMAND = "python -m posenc_lib.ch03_models"
CODE_ROOTS = ("posenc_lib.model:train", "posenc_lib.tasks:markov", "posenc_lib.ch03_models:RUNS")

#: Chapter 03's model (its section 3), as the chapter builds it.
CONFIG = ModelConfig(
    vocab_size=16,
    scheme="learned",
    d_model=32,
    n_heads=4,
    mlp=True,
    max_len=64,
    learned_init_std=0.02,
)

#: The two runs: what changes from `CONFIG`, steps, and which steps keep a snapshot.
RUNS = {
    "none": {"change": {"scheme": "none"}, "steps": 300, "snapshot_every": None},
    "wide": {"change": {"learned_init_std": 1.0}, "steps": 150, "snapshot_every": 150},
}
TRAIN = {"batch_size": 16, "length": 32, "seed": 0}


def config_of(name):
    """Return the ModelConfig of run ``name`` ("none" or "wide").

    Parameters
    ----------
    name : str

    Returns
    -------
    ModelConfig

    Examples
    --------
    >>> config_of("none").scheme, config_of("wide").learned_init_std
    ('none', 1.0)
    """
    if name not in RUNS:
        raise ValueError(f"config_of: name must be one of {sorted(RUNS)}, got {name!r}")
    return CONFIG.with_(**RUNS[name]["change"])


def train_run(name):
    """Train run ``name`` as the chapter would: markov, 16 sequences of 32 tokens a step, seed 0.

    Parameters
    ----------
    name : str
        "none" or "wide".

    Returns
    -------
    TrainResult

    Examples
    --------
    >>> sorted(train_run("wide").snapshots)  # doctest: +SKIP
    [0, 150]
    """
    run = RUNS[name]
    options = {"snapshot_every": run["snapshot_every"]} if run["snapshot_every"] else {}
    return train(config_of(name), markov(), steps=run["steps"], progress=False, **TRAIN, **options)


def stamp():
    """Return what makes the models now: the command, the runs, versions and the code's hash.

    Returns
    -------
    dict

    Examples
    --------
    >>> sorted(stamp())
    ['code', 'command', 'runs', 'versions']
    """
    return model_stamp(COMMAND, {"runs": {"runs": RUNS, "train": TRAIN}}, CODE_ROOTS)


def make(directory=DIRECTORY):
    """Train both runs and write ``models.npz`` and ``provenance.json`` into ``directory``.

    Parameters
    ----------
    directory : str or Path

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> [path.name for path in make("/tmp/ch03-models")]  # doctest: +SKIP
    ['models.npz', 'provenance.json']
    """
    arrays = {}
    for name in RUNS:
        result = train_run(name)
        arrays.update({f"{name}/{key}": value for key, value in result.params.items()})
        arrays[f"{name}/losses"] = np.asarray(result.losses, dtype=np.float64)
        for step, params in result.snapshots.items():
            if step != RUNS[name]["steps"]:  # the last snapshot is the trained parameters
                arrays.update({f"{name}/step{step}/{key}": v for key, v in params.items()})
    return write_models(directory, arrays, stamp())


def load(directory=DIRECTORY):
    """Return the two trained runs: {"none": TrainResult, "wide": TrainResult}, as `train` returns.

    Parameters
    ----------
    directory : str or Path
        Where `make` wrote them (default: the committed ones, inside the package).

    Returns
    -------
    dict

    Examples
    --------
    >>> runs = load()
    >>> len(runs["none"].losses), sorted(runs["wide"].snapshots), runs["none"].config.scheme
    (300, [0, 150], 'none')
    """
    with np.load(Path(directory) / "models.npz") as data:
        arrays = {name: data[name] for name in data.files}
    out = {}
    for name in RUNS:
        params, snapshots = {}, {}
        for key, value in arrays.items():
            parts = key.split("/")
            if parts[0] != name or parts[1] == "losses":
                continue
            if len(parts) == 3:
                snapshots.setdefault(int(parts[1].removeprefix("step")), {})[parts[2]] = value
            else:
                params[parts[1]] = value
        losses = [float(x) for x in arrays[f"{name}/losses"]]
        if snapshots:  # the last snapshot, at the last step, is the trained parameters
            snapshots[RUNS[name]["steps"]] = params
        out[name] = TrainResult(config_of(name), params, losses, dict(sorted(snapshots.items())))
    return out


def stale(directory=DIRECTORY):
    """List what no longer matches between the committed models' provenance and the code.

    Parameters
    ----------
    directory : str or Path
        Where `make` wrote the models (default: the committed ones).

    Returns
    -------
    list of str
        Empty when they are current.

    Examples
    --------
    >>> stale()
    []
    """
    return stale_models(directory, stamp(), ("runs", "code"), COMMAND)


if __name__ == "__main__":
    for path in make(sys.argv[1] if len(sys.argv) > 1 else DIRECTORY):
        print(f"wrote {path}")
