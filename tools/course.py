"""The course's two learner commands, on Windows, macOS and Linux alike (no make, no bash needed).

    python tools/course.py lab     install the course into .venv (once) and open chapter 00 in JupyterLab
    python tools/course.py test    install the test stack and run everything `make test` runs
    python tools/course.py check   the fast tier (`make check`)
    python tools/course.py notebooks   every notebook re-executed and compared by nbval (strict)

`make lab`, `make test` and `make check` call this file, so there is one implementation. It needs
only a Python >= 3.10 to start it (`py tools/course.py lab` on Windows, `python3 ...` elsewhere);
it makes the virtual environment ``.venv`` beside it and installs with the pinned constraints.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"
START = "notebooks/00_start_here.ipynb"
# The course's Jupyter config directory: JupyterLab's settings overrides (no news prompt, no update
# check) in labconfig/, the server's settings (no news feed or update check, the chapters' .md text
# sources hidden from the file browser) in jupyter_server_config.json. `lab` puts it first on
# JUPYTER_CONFIG_PATH; Binder's postBuild copies it into the environment's config directory.
LAB_CONFIG = ROOT / "tools" / "lab-config"
MINIMUM_PYTHON = (3, 10)


def venv_python(venv=VENV, system=os.name):
    """Return the venv's interpreter: ``Scripts/python.exe`` on Windows, ``bin/python`` elsewhere."""
    if system == "nt":
        return Path(venv) / "Scripts" / "python.exe"
    return Path(venv) / "bin" / "python"


def check_python(version=sys.version_info):
    """Refuse a Python older than the course supports, saying which one was found."""
    if tuple(version[:2]) < MINIMUM_PYTHON:
        found = ".".join(str(v) for v in version[:3])
        raise SystemExit(f"posenc needs Python >= 3.10, found {found}")


def run(command, **kw):
    """Run ``command`` (a list: no shell, so no quoting differs between systems)."""
    print("+", " ".join(str(c) for c in command), flush=True)
    return subprocess.run([str(c) for c in command], check=True, cwd=ROOT, **kw)


def stale(stamp, *sources):
    """Return True when ``stamp`` is missing or older than any of ``sources``."""
    return not stamp.exists() or any(s.stat().st_mtime > stamp.stat().st_mtime for s in sources)


def ensure_installed(extra):
    """Make .venv if needed and install ``.[extra]`` with the pinned constraints, once.

    The stamp files are the Makefile's: ``.venv/.lab-installed`` and ``.venv/.test-installed``
    (the test stack includes JupyterLab, so it stamps both).
    """
    check_python()
    python = venv_python()
    if not python.exists():
        run([sys.executable, "-m", "venv", VENV])
        run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    stamp = VENV / f".{extra}-installed"
    if stale(stamp, ROOT / "pyproject.toml", CONSTRAINTS):
        run([python, "-m", "pip", "install", "-q", "-c", CONSTRAINTS, "-e", f".[{extra}]"])
        stamp.touch()
        if extra == "test":
            (VENV / ".lab-installed").touch()
    return python


def lab_command(python, root_user=None):
    """Return the JupyterLab command: chapter 00 in the URL it prints, the course's own workspace.

    The workspace lives in .venv (a workspace saved by another project cannot open another
    notebook here). The rest of the course's settings (no news, no update check, the chapters'
    text sources hidden) are in tools/lab-config, which `lab_environment` puts on the config path.
    """
    if root_user is None:
        root_user = hasattr(os, "geteuid") and os.geteuid() == 0
    command = [
        python,
        "-m",
        "jupyter",
        "lab",
        f"--ServerApp.root_dir={ROOT}",
        f"--LabApp.default_url=/lab/tree/{START}",
        f"--LabApp.workspaces_dir={VENV / 'lab-workspaces'}",
    ]
    if root_user:  # JupyterLab refuses to start as root without it (containers)
        command.append("--allow-root")
    return command


def lab_environment(environ=None):
    """Return JupyterLab's environment: the course's config directory first on its config path."""
    environ = dict(os.environ if environ is None else environ)
    paths = [
        str(LAB_CONFIG),
        *filter(None, environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)),
    ]
    environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    return environ


NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg"]


def test_commands(python, tier="test"):
    """Return what a tier runs, as argument lists.

    ``"test"``: what `make test` runs; ``"check"``: the fast tier of `make check`;
    ``"notebooks"``: only the notebooks, strict.
    """
    lint = [[python, "-m", "ruff", "check", "."], [python, "-m", "ruff", "format", "--check", "."]]
    if tier == "check":
        # One pytest process per core (pytest-xdist): the fast tier is thousands of short tests,
        # and worksteal moves queued ones to whichever process runs out first.
        pytest = [
            python,
            "-m",
            "pytest",
            "-q",
            "-n",
            "auto",
            "--dist",
            "worksteal",
            "-m",
            "not browser and not binder and not site and not slow",
        ]
        return [*lint, [*pytest, "tests", "posenc_lib"]]
    if tier == "notebooks":
        return [[python, "-m", "pytest", "-q", *NBVAL, "notebooks"]]
    if tier != "test":
        raise ValueError(f"test_commands: tier must be test, check or notebooks, got {tier!r}")
    pytest = [python, "-m", "pytest", *NBVAL, "--doctest-modules"]
    return [*lint, [*pytest, "tests", "posenc_lib", "notebooks"]]


def tier_environment(tier, environ=None):
    """Return the environment a tier's commands run in.

    No tier compares a figure's pixels with a reference image: nbval compares the notebooks'
    text outputs and skips their PNGs. What the figures draw (the data, positions and colour
    limits of their artists, and explorers.js's numbers and colours under Node.js) is tested in
    every tier, the fast one included (tests/test_figures_drawn.py, tests/test_explorers_node.py).
    The full tiers also set ``POSENC_CHECK_FIGURES=1``, so that every ``plt.show()`` checks its
    figure against the house style (`posenc_lib.plots.style_problems`). The fast tier runs one
    pytest process per core, each with one BLAS thread unless the caller set another: two
    processes with two OpenBLAS threads each on two cores took 110 s instead of 94.
    """
    env = dict(os.environ if environ is None else environ)
    if tier == "check":
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(name, "1")
    else:
        env["POSENC_CHECK_FIGURES"] = "1"
    return env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["lab", "test", "check", "notebooks"])
    args = parser.parse_args(argv)
    if args.command == "lab":
        python = ensure_installed("lab")
        try:
            run(lab_command(python), env=lab_environment())
        except KeyboardInterrupt:
            return 0
        return 0
    python = ensure_installed("test")
    env = tier_environment(args.command)
    for command in test_commands(python, args.command):
        if subprocess.run([str(c) for c in command], cwd=ROOT, env=env).returncode:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
