"""Binder builds the course from environment.yml alone: its dependencies must be enough for every
import in every notebook. This installs them (as pip would resolve them) into a fresh virtual
environment and imports everything the notebooks import.

It needs the package index that pip is configured with (PyPI unless PIP_INDEX_URL says otherwise)
to download those packages: when the index cannot be reached the test is skipped, and the skip
says so. `make check` leaves it out (marker ``binder``); `make test` and CI run it.
"""

import ast
import glob
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import nbtools
import pytest

pytestmark = pytest.mark.binder

ROOT = Path(__file__).resolve().parents[1]


def notebook_imports():
    """Every module imported by a code cell of a notebook (magics skipped)."""
    modules = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(
                line
                for line in cell.source.splitlines()
                if not line.lstrip().startswith(("%", "!"))
            )
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    modules.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    modules.add(node.module)
                    modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return sorted(modules - {"google.colab", "google.colab.output"})


def environment_requirements():
    """environment.yml's conda entries as pip requirements (python and pip themselves skipped)."""
    entries = nbtools.environment_dependencies((ROOT / "environment.yml").read_text())
    return [e for e in entries if not re.match(r"(python|pip)\b", e)]


def environment_python_version():
    """The Python version environment.yml pins (``python=3.13`` -> ``"3.13"``)."""
    entries = nbtools.environment_dependencies((ROOT / "environment.yml").read_text())
    pins = [e for e in entries if re.match(r"python\b", e)]
    assert len(pins) == 1, f"environment.yml must pin python once, got {pins}"
    return re.fullmatch(r"python=+(\d+\.\d+)(\.\*)?", pins[0])[1]


def find_python(version):
    """An interpreter of ``version`` ("3.13"): pyenv's, else on PATH (as .ci/spread finds it)."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(
        glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")),
        key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("versions")[-1])[:3]],
    )
    candidates = [*found[::-1], shutil.which(f"python{version}")]
    if sys.version.startswith(version + "."):
        candidates.insert(0, sys.executable)
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "pass"], capture_output=True)
        if probe.returncode == 0:
            return candidate
    return None


@pytest.fixture(scope="module")
def binder_python():
    version = environment_python_version()
    python = find_python(version)
    if python is None:
        pytest.skip(
            f"environment.yml pins Python {version}, and no python{version} was found "
            "(pyenv install it, or put it on PATH)"
        )
    return python


def test_the_notebooks_import_the_course_library_and_standard_tools():
    modules = notebook_imports()
    assert "posenc_lib" in modules and "numpy" in modules and "matplotlib.pyplot" in modules


def package_index():
    """The index pip installs from: PIP_INDEX_URL, else pip's configured index, else PyPI."""
    url = os.environ.get("PIP_INDEX_URL")
    if not url:
        config = subprocess.run(
            [sys.executable, "-m", "pip", "config", "get", "global.index-url"],
            capture_output=True,
            text=True,
        )
        url = config.stdout.strip() if config.returncode == 0 else ""
    return (url or "https://pypi.org/simple").rstrip("/") + "/"


def index_problem(url, timeout=10):
    """Why the package index at ``url`` cannot be used, or None when it answers."""
    try:
        with urllib.request.urlopen(url + "pip/", timeout=timeout) as response:
            response.read(1)
    except (urllib.error.URLError, OSError) as error:
        return f"{type(error).__name__}: {getattr(error, 'reason', error)}"
    return None


@pytest.fixture(scope="module")
def reachable_index():
    url = package_index()
    problem = index_problem(url)
    if problem:
        pytest.skip(
            f"needs the package index {url} to install environment.yml's dependencies into a "
            f"fresh environment, and it cannot be reached ({problem})"
        )
    return url


def test_an_unreachable_index_is_reported_with_the_reason():
    assert index_problem("http://127.0.0.1:9/simple/", timeout=2).startswith("URLError")


def test_environment_yml_is_enough_for_every_notebook_import(
    tmp_path, reachable_index, binder_python
):
    env = tmp_path / "binder"
    subprocess.run([binder_python, "-m", "venv", str(env)], check=True, timeout=300)
    python = env / ("Scripts" if os.name == "nt" else "bin") / "python"
    install = [
        str(python),
        "-m",
        "pip",
        "install",
        "-q",
        *environment_requirements(),
        "-e",
        str(ROOT),
    ]
    subprocess.run(install, check=True, timeout=900)
    script = "import importlib, sys\nfor name in sys.argv[1:]:\n    try:\n        importlib.import_module(name)\n    except ModuleNotFoundError:\n        module, _, attribute = name.rpartition('.')\n        getattr(importlib.import_module(module), attribute)\nprint('ok')"
    result = subprocess.run(
        [str(python), "-c", script, *notebook_imports()],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "ok"
