"""Binder builds the course from environment.yml alone: its dependencies must be enough for every
import in every notebook. This installs them (as pip would resolve them) into a fresh virtual
environment and imports everything the notebooks import."""

import ast
import re
import subprocess
import venv
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


def test_the_notebooks_import_the_course_library_and_standard_tools():
    modules = notebook_imports()
    assert "posenc_lib" in modules and "numpy" in modules and "matplotlib.pyplot" in modules


def test_environment_yml_is_enough_for_every_notebook_import(tmp_path):
    env = tmp_path / "binder"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
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
