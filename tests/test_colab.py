"""Colab from a clean start: the built wheel, a fresh environment, every notebook, an empty folder.

Colab opens one notebook in an empty working directory (``/content``) on a Python that has never
seen the course, with ``google.colab`` already imported. The notebook's setup cell sees it and
installs the library with pip. This builds the wheel from the repository's files, makes a fresh
virtual environment with only a kernel in it, and runs each notebook there, alone in an empty
directory, with a stand-in ``google.colab`` imported first. The setup cell installs the wheel just
built (``POSENC_PACKAGE``; the committed cell installs the pinned release from the repository),
so whatever a chapter reads must travel inside the wheel.

It needs the package index (PyPI) for the kernel and the library's dependencies, like the Binder
test: it is skipped, with the reason, when the index cannot be reached. `make check` leaves it out
(marker ``binder``); `make test` and CI run it.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_binder import index_problem, package_index

pytestmark = [pytest.mark.binder, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"

# Colab's runtime has imported google.colab before the first cell runs; this stand-in does what
# the setup cell calls on it and remembers that it was called.
STAND_IN = '''"""A stand-in for Colab's google.colab (tests/test_colab.py)."""
'''
STAND_IN_OUTPUT = '''"""A stand-in for google.colab.output: the custom widget manager switch."""

enabled = False


class _widgets:
    """Where Colab keeps the custom widget manager's address (anywidget reads it)."""

    _installed_url = None


def enable_custom_widget_manager():
    global enabled
    enabled = True
    _widgets._installed_url = "stand-in-widget-manager.js"
'''

# Run in the fresh environment: execute one notebook in a kernel of that environment, in its own
# (empty) directory, after a first cell that imports the stand-in, and report what the setup cell
# did. The last cell says where posenc_lib was imported from and whether widgets were turned on.
RUNNER = r"""
import json, sys
import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
nb.cells.insert(0, new_code_cell("import google.colab.output  # Colab's runtime has it imported"))
nb.cells.append(new_code_cell(
    "import json, posenc_lib, google.colab.output as o\n"
    "print(json.dumps({'library': posenc_lib.__file__, 'widgets': o.enabled}))"
))
client = NotebookClient(nb, timeout=900, kernel_name="python3",
                        resources={"metadata": {"path": sys.argv[2]}})
client.execute()
print(nb.cells[-1].outputs[0]["text"])
"""


def copy_tracked_files(destination):
    """Copy the repository's files that git knows (committed or staged, as they stand now)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def bin_path(env, name):
    return env / ("Scripts" if os.name == "nt" else "bin") / name


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    url = package_index()
    problem = index_problem(url)
    if problem:
        pytest.skip(f"needs the package index {url} for a fresh environment ({problem})")
    base = tmp_path_factory.mktemp("colab")
    source = base / "source"
    copy_tracked_files(source)
    wheels = base / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        check=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("posenc_lib-*.whl")
    env = base / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=300)
    python = bin_path(env, "python")
    kernel = ["ipykernel", "nbclient", "nbformat"]  # what Colab's runtime has; not the course
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS), *kernel],
        check=True,
        timeout=900,
    )
    stand_in = base / "stand-in"
    (stand_in / "google" / "colab").mkdir(parents=True)
    (stand_in / "google" / "__init__.py").write_text("")
    (stand_in / "google" / "colab" / "__init__.py").write_text(STAND_IN)
    (stand_in / "google" / "colab" / "output.py").write_text(STAND_IN_OUTPUT)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    environ.update(
        PYTHONPATH=str(stand_in),  # only the stand-in: never the repository's posenc_lib
        POSENC_PACKAGE=str(wheel),  # the setup cell installs this wheel, not the release
        PIP_CONSTRAINT=str(CONSTRAINTS),  # at the pinned versions the outputs were made with
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        MPLBACKEND="Agg",
    )
    return {"base": base, "python": python, "env": env, "wheel": wheel, "environ": environ}


def test_the_wheel_carries_every_data_file_of_the_package(colab):
    """The committed results and corpus the chapters read travel inside the installed package."""
    import zipfile

    listed = subprocess.run(
        ["git", "ls-files", "posenc_lib/data"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    data = {name for name in listed if "__pycache__" not in name and not name.endswith(".py")}
    assert data, "posenc_lib/data holds no committed data"
    names = set(zipfile.ZipFile(colab["wheel"]).namelist())
    assert sorted(data - names) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_notebook_runs_on_colab_from_an_empty_directory(colab, path):
    folder = colab["base"] / "content" / path.stem
    folder.mkdir(parents=True)
    notebook = folder / path.name
    shutil.copy2(path, notebook)  # the notebook alone: no notebooks/data, no repository
    runner = colab["base"] / "run_notebook.py"
    runner.write_text(RUNNER)
    result = subprocess.run(
        [str(colab["python"]), str(runner), str(notebook), str(folder)],
        cwd=folder,
        env=colab["environ"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    library = Path(report["library"]).resolve()
    assert colab["env"].resolve() in library.parents, f"posenc_lib came from {library}"
    assert report["widgets"] is True, "the setup cell did not turn Colab's widget manager on"
