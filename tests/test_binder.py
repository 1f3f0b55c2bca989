"""Binder builds the course in two steps, as repo2docker does: the environment from
environment.yml alone (no local requirement, so repo2docker caches it across commits), then
./postBuild, which installs the course library and the course's JupyterLab settings. These tests
check the recipe (no local requirement, an executable postBuild), then build a fresh environment
from environment.yml's pins (as pip would resolve them), run postBuild in a copy of the
repository, import everything the notebooks import, and start that environment's JupyterLab as
Binder does to check that the course's settings are the ones it applies.

Building the environment needs the package index that pip is configured with (PyPI unless
PIP_INDEX_URL says otherwise): when the index cannot be reached those tests are skipped, and the
skip says so. `make check` leaves them out (marker ``binder``); `make test` and CI run them.
"""

import ast
import glob
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import course
import nbformat
import nbtools
import pytest
import yaml
from test_course_entry import (
    copy_of_repository,
    index_problem,
    package_index,
    running_lab,
    tracked_files,
    what_a_learner_gets,
    what_the_course_wants,
)

pytestmark = pytest.mark.binder

ROOT = Path(__file__).resolve().parents[1]
POSTBUILD = ROOT / "postBuild"


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


LOCAL = re.compile(
    r"^(-e|--editable|-r|--requirement|-c|--constraint)\b|^(\.|/|~|file:)|^[^:]*[/\\]"
)


def local_requirements(text):
    """The entries of an environment.yml that point into the repository or the disk.

    repo2docker can build and cache an environment ahead of the repository's other files only
    when environment.yml names packages alone: an ``-e .``, ``-r requirements.txt``, a path or a
    ``file:`` URL, in its pip section or as a conda entry, makes every commit rebuild it.
    """
    found = []
    for entry in yaml.safe_load(text)["dependencies"]:
        if isinstance(entry, dict):
            found += [str(e) for e in entry.get("pip", []) if LOCAL.search(str(e).strip())]
            found += [f"{key}:" for key in entry if key != "pip"]
        elif LOCAL.search(entry.strip()):
            found.append(entry)
    return found


def test_environment_yml_has_no_local_requirement():
    assert local_requirements((ROOT / "environment.yml").read_text()) == []


@pytest.mark.parametrize(
    "extra",
    [
        "  - pip:\n      - -e .\n",
        "  - pip:\n      - --editable=.\n",
        "  - pip:\n      - -r requirements/constraints.txt\n",
        "  - pip:\n      - ./dist/posenc_lib-0.1.0-py3-none-any.whl\n",
        "  - pip:\n      - file:///home/me/posenc\n",
        "  - ./local-conda-package\n",
    ],
)
def test_a_local_requirement_in_environment_yml_is_caught(extra):
    text = (ROOT / "environment.yml").read_text()
    assert local_requirements(text + extra)


def test_a_pip_section_naming_packages_only_is_not_local():
    text = (ROOT / "environment.yml").read_text()
    assert local_requirements(text + "  - pip:\n      - nbgitpuller==1.2.2\n") == []


def test_postbuild_is_an_executable_bash_script_at_the_top_of_the_repository():
    """repo2docker runs ./postBuild itself: it must be executable, in the working tree and in
    git (a clone takes the mode from git's index)."""
    assert POSTBUILD.read_text().startswith("#!/usr/bin/env bash\n")
    assert POSTBUILD.stat().st_mode & stat.S_IXUSR
    staged = subprocess.run(
        ["git", "ls-files", "--stage", "postBuild"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    if staged:  # committed or added: git must record it as executable
        assert staged.startswith("100755 "), staged
    result = subprocess.run(["bash", "-n", str(POSTBUILD)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_postbuild_refuses_a_python_without_jupyter(tmp_path):
    """Run with the wrong environment active, it says so instead of installing half the course."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    env = {**os.environ, "PATH": f"{bare / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", str(POSTBUILD)], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1
    assert "has no Jupyter; activate the environment made from environment.yml" in result.stderr


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


def bin_dir(env):
    return env / ("Scripts" if os.name == "nt" else "bin")


@pytest.fixture(scope="module")
def binder(tmp_path_factory, reachable_index, binder_python):
    """A fresh environment from environment.yml alone, then postBuild run in a copy of the
    repository with that environment first on PATH, as repo2docker runs it."""
    tmp = tmp_path_factory.mktemp("binder")
    env = tmp / "env"
    subprocess.run([binder_python, "-m", "venv", str(env)], check=True, timeout=300)
    python = bin_dir(env) / "python"
    install = [str(python), "-m", "pip", "install", "-q", *environment_requirements()]
    subprocess.run(install, check=True, timeout=900)
    empty = tmp / "empty"
    empty.mkdir()
    before = subprocess.run(
        [str(python), "-c", "import posenc_lib"], cwd=empty, capture_output=True, text=True
    )
    repo = copy_of_repository(tmp / "repo")
    files = sorted(str(p.relative_to(repo)) for p in repo.rglob("*"))
    path = {**os.environ, "PATH": f"{bin_dir(env)}{os.pathsep}{os.environ['PATH']}"}
    postbuild = subprocess.run(
        [str(repo / "postBuild")], cwd=empty, env=path, capture_output=True, text=True, timeout=900
    )
    assert postbuild.returncode == 0, postbuild.stdout[-3000:] + postbuild.stderr[-3000:]
    return {
        "env": env,
        "python": python,
        "repo": repo,
        "empty": empty,
        "before": before,
        "postbuild": postbuild,
        "files before": files,
        "path": path,
    }


def test_the_environment_alone_holds_no_course_library(binder):
    """environment.yml installs only packages: the course comes with postBuild."""
    assert binder["before"].returncode != 0
    assert "No module named 'posenc_lib'" in binder["before"].stderr


def test_postbuild_installs_the_course_with_its_data_and_leaves_the_repository_as_it_was(binder):
    python, repo = binder["python"], binder["repo"]
    assert "postBuild: installed posenc_lib 0.1.0" in binder["postbuild"].stdout
    assert sorted(str(p.relative_to(repo)) for p in repo.rglob("*")) == binder["files before"]
    where = subprocess.run(
        [str(python), "-c", "import posenc_lib; print(posenc_lib.__file__)"],
        cwd=binder["empty"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    installed = Path(where).parent
    assert installed.is_relative_to(binder["env"]), where  # a package, not the repository's copy
    data = sorted(p for p in tracked_files() if p.startswith("posenc_lib/data/"))
    assert data, "the committed data of chapters 06 and 07 are under posenc_lib/data"
    missing = [p for p in data if not (installed.parent / p).is_file()]
    assert missing == [], "package data missing from the installed course"
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr  # environment.yml meets pyproject


def test_environment_yml_and_postbuild_are_enough_for_every_notebook_import(binder):
    script = "import importlib, sys\nfor name in sys.argv[1:]:\n    try:\n        importlib.import_module(name)\n    except ModuleNotFoundError:\n        module, _, attribute = name.rpartition('.')\n        getattr(importlib.import_module(module), attribute)\nprint('ok')"
    result = subprocess.run(
        [str(binder["python"]), "-c", script, *notebook_imports()],
        cwd=binder["repo"] / "notebooks",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "ok"


def test_postbuild_writes_the_courses_settings_where_binders_jupyterlab_applies_them(binder):
    """The files postBuild installs are tools/lab-config's, and a JupyterLab started from the
    environment as Binder starts it (no course flags, no JUPYTER_CONFIG_PATH) applies them: no
    news, each chapter listed once."""
    config = binder["env"] / "etc" / "jupyter"
    for source in (p for p in course.LAB_CONFIG.rglob("*") if p.is_file()):
        installed = config / source.relative_to(course.LAB_CONFIG)
        assert installed.read_bytes() == source.read_bytes(), installed
    tmp = binder["env"].parent
    env = {k: v for k, v in binder["path"].items() if not k.startswith(("JUPYTER", "JUPYTERLAB"))}
    env["JUPYTER_CONFIG_DIR"] = str(tmp / "user-config")  # no user's Jupyter config
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp / "user-settings")  # nor saved settings
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp / "workspaces")
    command = [binder["python"], "-m", "jupyter", "lab", f"--ServerApp.root_dir={binder['repo']}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    with running_lab(command, env=env, cwd=binder["repo"], log=tmp / "lab.log") as base:
        assert what_a_learner_gets(base) == what_the_course_wants()


def test_postbuild_refuses_to_overwrite_another_packages_settings(binder):
    """Run again it changes nothing; with a different file where it would write, it stops."""
    again = subprocess.run(
        [str(binder["repo"] / "postBuild")],
        env=binder["path"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    theirs = binder["env"] / "etc" / "jupyter" / "jupyter_server_config.json"
    ours = theirs.read_text()
    theirs.write_text('{"ServerApp": {"terminals_enabled": false}}\n')
    try:
        clash = subprocess.run(
            [str(binder["repo"] / "postBuild")],
            env=binder["path"],
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        theirs.write_text(ours)
    assert clash.returncode == 1
    assert "jupyter_server_config.json exists with other settings" in clash.stderr
