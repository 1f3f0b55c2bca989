"""The committed data of chapters 06-08: is it current, and adopting a new run of it.

From the repository's top folder::

    python -m posenc_lib.committed check             # what is stale, per sweep and file
    python -m posenc_lib.committed adopt study DIR   # DIR: a new run of the full study

A sweep is regenerated into a new directory first (``python -m posenc_lib.experiments --out DIR``,
``python -m posenc_lib.realtext --out DIR``); ``adopt`` then takes its files only when their
records are the committed records byte for byte and the witness models' parameters are equal
(`posenc_lib.provenance.adopt`), so the data gain the provenance of the code as it is now without
a number changing. When a change is meant to change the numbers, copy the new files in instead and
regenerate chapters 06-08.
"""

import argparse
import sys
from pathlib import Path

from .experiments import STUDY, STUDY_BUDGET
from .extension_study import STUDY_EXTENSION
from .hybrid_study import STUDY_HYBRID
from .provenance import adopt, stale_provenance
from .realtext import REALTEXT

#: The sweeps whose data the package carries, by the name of their directory.
SWEEPS = {
    STUDY.name: STUDY,
    STUDY_BUDGET.name: STUDY_BUDGET,
    STUDY_EXTENSION.name: STUDY_EXTENSION,
    STUDY_HYBRID.name: STUDY_HYBRID,
    REALTEXT.name: REALTEXT,
}


def main(argv=None):
    """Run the command line: ``check`` every sweep, or ``adopt SWEEP DIR``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the command line's).

    Returns
    -------
    int
        0 when the data are current (``check``) or were adopted; 1 otherwise.

    Examples
    --------
    >>> main(["check"])
    study: current
    study-budget: current
    study-extension: current
    study-hybrid: current
    realtext: current
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m posenc_lib.committed", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="list what no longer matches the code, per sweep")
    take = commands.add_parser("adopt", help="take a new run whose numbers are the same")
    take.add_argument("sweep", choices=sorted(SWEEPS))
    take.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    if args.command == "check":
        status = 0
        for name, sweep in SWEEPS.items():
            problems = stale_provenance(sweep)
            print(f"{name}: " + ("current" if not problems else "stale"))
            for line in problems:
                print(f"  {line}")
            status = status or int(bool(problems))
        return status
    try:
        for path in adopt(SWEEPS[args.sweep], args.directory):
            print(f"adopted {path.name}")
    except ValueError as error:
        print(error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
