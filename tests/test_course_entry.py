"""tools/course.py, the learner's entry point on Windows, macOS and Linux: `make lab`/`make test`
call it, and it opens chapter 00 in a JupyterLab with the course's own settings (tools/lab-config,
which Binder's postBuild installs too: tests/test_binder.py)."""

import contextlib
import fnmatch
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import course
import pytest

ROOT = Path(__file__).resolve().parents[1]
SETTINGS_OVERRIDES = course.LAB_CONFIG / "labconfig" / "default_setting_overrides.d" / "posenc.json"
SERVER_CONFIG = course.LAB_CONFIG / "jupyter_server_config.json"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def tracked_files():
    """The repository's files as a clone has them: tracked, or new and not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if listed.returncode:
        pytest.fail(f"needs the repository's git checkout to list its files: {listed.stderr}")
    return sorted(p for p in set(listed.stdout.split("\0")) if p and (ROOT / p).exists())


def twins():
    """The chapters' text sources: notebooks/NN_name.md beside notebooks/NN_name.ipynb."""
    return sorted(p.with_suffix(".md") for p in (ROOT / "notebooks").glob("*.ipynb"))


def test_the_venv_interpreter_is_where_each_system_puts_it(tmp_path):
    assert course.venv_python(tmp_path, "posix") == tmp_path / "bin" / "python"
    assert course.venv_python(tmp_path, "nt") == tmp_path / "Scripts" / "python.exe"


def test_a_python_older_than_3_10_is_refused_naming_the_version():
    with pytest.raises(SystemExit, match=r"needs Python >= 3.10, found 3.9.18"):
        course.check_python((3, 9, 18))
    course.check_python((3, 10, 0))


def test_a_stamp_older_than_its_sources_is_stale(tmp_path):
    source, stamp = tmp_path / "pyproject.toml", tmp_path / ".lab-installed"
    source.write_text("")
    assert course.stale(stamp, source)
    stamp.touch()
    os.utime(source, (0, 0))
    assert not course.stale(stamp, source)
    os.utime(source, (time.time() + 10, time.time() + 10))
    assert course.stale(stamp, source)


def test_the_lab_command_opens_chapter_00_with_the_courses_workspace():
    command = [str(c) for c in course.lab_command(Path("py"), root_user=False)]
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in command
    assert f"--ServerApp.root_dir={ROOT}" in command
    assert any(c.startswith("--LabApp.workspaces_dir=") and ".venv" in c for c in command)
    assert "--allow-root" not in command
    assert "--allow-root" in course.lab_command(Path("py"), root_user=True)
    assert (ROOT / course.START).exists()


def test_the_courses_config_directory_is_put_first_on_the_config_path():
    env = course.lab_environment({"JUPYTER_CONFIG_PATH": "elsewhere"})
    assert env["JUPYTER_CONFIG_PATH"] == os.pathsep.join([str(course.LAB_CONFIG), "elsewhere"])
    assert course.lab_environment({})["JUPYTER_CONFIG_PATH"] == str(course.LAB_CONFIG)


def test_the_course_turns_off_the_news_and_the_update_check():
    settings = json.loads(SETTINGS_OVERRIDES.read_text())
    assert settings == {NOTIFICATION: {"fetchNews": "false", "checkForUpdates": False}}
    lab = json.loads(SERVER_CONFIG.read_text())["LabApp"]
    assert lab == {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"}


def test_the_course_config_holds_only_files_jupyter_reads():
    """Every file of tools/lab-config is one of the two Jupyter reads (a stray one would be
    copied into Binder's environment and read by nothing)."""
    files = sorted(p for p in course.LAB_CONFIG.rglob("*") if p.is_file())
    assert files == sorted([SETTINGS_OVERRIDES, SERVER_CONFIG])


def hidden(name, globs):
    return any(fnmatch.fnmatch(name, glob) for glob in globs)


def test_the_file_browser_lists_each_chapter_once():
    """The chapters' .md text sources are hidden from the file browser (the server's
    ``ContentsManager.hide_globs``); nothing else of the repository is, and what the server
    hides by default stays hidden."""
    from jupyter_server.services.contents.manager import ContentsManager

    globs = json.loads(SERVER_CONFIG.read_text())["ContentsManager"]["hide_globs"]
    defaults = ContentsManager().hide_globs
    assert set(defaults) <= set(globs), "hide_globs replaces the server's list: keep its entries"
    assert len(twins()) == 9 and all(p.exists() for p in twins())
    assert [p.name for p in twins() if not hidden(p.name, globs)] == []
    listed = [p for p in tracked_files() if not hidden(Path(p).name, globs)]
    assert sorted(set(tracked_files()) - set(listed)) == sorted(
        str(p.relative_to(ROOT)) for p in twins()
    )
    assert not hidden("README.md", globs) and not hidden("00_start_here.ipynb", globs)


def test_the_repository_top_folder_holds_no_module_but_the_library():
    """pyproject's ``package-dir = {"" = "."}`` puts the top folder on an editable install's
    path (it keeps `make lab` free of setuptools' editable-install warning): nothing there but
    posenc_lib may be importable."""
    top = {Path(p).parts[0] for p in tracked_files()}
    modules = sorted(
        name
        for name in top
        if name.endswith(".py") or (ROOT / name / "__init__.py").exists() or name.endswith(".pth")
    )
    assert modules == ["posenc_lib"]


def test_make_and_the_entry_point_run_the_same_commands():
    makefile = (ROOT / "Makefile").read_text()
    for target in ("lab", "check", "test"):
        assert f"$(PY) tools/course.py {target}" in makefile
    fast = [" ".join(map(str, c[1:])) for c in course.test_commands("py", "check")]
    assert fast[-1] == (
        "-m pytest -q -n auto --dist worksteal"
        " -m not browser and not binder and not site and not slow tests posenc_lib"
    )
    full = " ".join(map(str, course.test_commands("py")[-1]))
    assert "--nbval" in full and "notebooks" in full
    (only,) = course.test_commands("py", "notebooks")
    assert only[-1] == "notebooks" and "--nbval" in only
    with pytest.raises(ValueError, match="tier must be test, check or notebooks, got 'all'"):
        course.test_commands("py", "all")


def test_the_fast_tier_gives_each_pytest_process_one_blas_thread_and_the_full_tiers_check_figures():
    fast = course.tier_environment("check", {"PATH": "/bin"})
    assert fast == {
        "PATH": "/bin",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    assert (
        course.tier_environment("check", {"OPENBLAS_NUM_THREADS": "4"})["OPENBLAS_NUM_THREADS"]
        == "4"
    )
    for tier in ("test", "notebooks"):
        full = course.tier_environment(tier, {"PATH": "/bin"})
        assert full == {"PATH": "/bin", "POSENC_CHECK_FIGURES": "1"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_lab(command, *, env, cwd, log):
    """Start ``command`` (a ``jupyter lab``) on a free port without a token; yield its base URL."""
    port = free_port()
    command = [
        *(str(c) for c in command),
        "--no-browser",
        f"--port={port}",
        "--ServerApp.token=",
        "--ServerApp.password=",
    ]
    with open(log, "w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited ({server.returncode}):\n{log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{base}/api/status", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(f"JupyterLab did not answer in 120 s:\n{log.read_text()[-3000:]}")
        yield base
    finally:
        server.terminate()
        server.wait(20)


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


def what_a_learner_gets(base):
    """What the course's settings change, as a running JupyterLab serves it.

    The notification settings' defaults (the overrides become the defaults), whether the page
    turns the news off, and what the file browser lists in notebooks/.
    """
    settings = get_json(f"{base}/lab/api/settings/{NOTIFICATION}")
    defaults = settings["schema"]["properties"]
    with urllib.request.urlopen(f"{base}/lab", timeout=30) as response:
        page = response.read().decode()
    config = re.search(
        r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S
    )
    listing = get_json(f"{base}/api/contents/notebooks?content=1")
    return {
        "fetchNews": defaults["fetchNews"]["default"],
        "checkForUpdates": defaults["checkForUpdates"]["default"],
        "news disabled": json.loads(config[1])["news"]["disabled"],
        "listed .md": sorted(e["name"] for e in listing["content"] if e["name"].endswith(".md")),
        "listed chapters": sorted(
            e["name"] for e in listing["content"] if e["name"].endswith(".ipynb")
        ),
    }


def what_the_course_wants():
    return {
        "fetchNews": "false",
        "checkForUpdates": False,
        "news disabled": True,
        "listed .md": [],
        "listed chapters": sorted(p.with_suffix(".ipynb").name for p in twins()),
    }


@pytest.mark.slow
def test_jupyterlab_started_as_the_course_starts_it_prints_chapter_00_and_applies_the_settings(
    tmp_path,
):
    env = course.lab_environment()
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp_path / "settings")  # no learner's settings
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "config")  # nor the learner's Jupyter config
    log = tmp_path / "lab.log"
    command = course.lab_command(Path(sys.executable))
    with running_lab(command, env=env, cwd=ROOT, log=log) as base:
        assert what_a_learner_gets(base) == what_the_course_wants()
        page = urllib.request.urlopen(f"{base}/lab/tree/notebooks/00_start_here.ipynb", timeout=10)
        assert page.status == 200
        printed = log.read_text()
        port = base.rsplit(":", 1)[1]
        assert f":{port}/lab/tree/notebooks/00_start_here.ipynb" in printed, printed[-2000:]


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


def copy_of_repository(destination):
    """The repository as a clone has it: its files, nothing ignored, no .venv or build."""
    for name in tracked_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    return destination


@pytest.mark.slow
def test_installing_the_course_as_make_lab_does_prints_nothing(tmp_path):
    """`make lab` installs the course editable with pip -q: no setuptools warning reaches the
    learner ("Editable installation ... be careful", printed when setuptools has to install an
    import hook for a package at the top of the repository), and the install imports the
    repository's own library. pip runs without this machine's pip configuration."""
    url = package_index()
    problem = index_problem(url)
    if problem:
        pytest.skip(f"needs the package index {url} for setuptools (the build backend): {problem}")
    repo = copy_of_repository(tmp_path / "repo")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = course.venv_python(venv)
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    upgrade = [python, "-m", "pip", "install", "-q", "--upgrade", "pip"]
    subprocess.run([str(c) for c in upgrade], check=True, env=env, timeout=300)
    install = [python, "-m", "pip", "install", "-q", "--no-deps", "-e", repo]
    result = subprocess.run(
        [str(c) for c in install], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout + result.stderr == ""
    where = subprocess.run(
        # --no-deps: no numpy to import the library with; find where it would be imported from
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('posenc_lib').origin)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where) == repo / "posenc_lib" / "__init__.py"


def test_every_package_of_the_lab_extra_is_pinned_by_the_lock():
    """`make lab` installs ``.[lab]`` under requirements/constraints.txt, which `make lock`
    resolves for the ``test`` extra: a lab package missing from it would install unpinned."""
    from nbtools import read_pyproject
    from packaging.requirements import Requirement

    lab = [Requirement(r) for r in read_pyproject()["project"]["optional-dependencies"]["lab"]]
    pins = {}
    for line in course.CONSTRAINTS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pin = Requirement(line)
            pins[pin.name.lower()] = str(pin.specifier).removeprefix("==")
    assert "jupyterlab" in {r.name for r in lab}
    # Not jupytext (see pyproject.toml): JupyterLab would read each chapter from its .md text
    # source, and refuse to open it when the .ipynb is newer and the two differ at all.
    assert "jupytext" not in {r.name for r in lab}
    for requirement in lab:
        assert requirement.name.lower() in pins, f"{requirement} is not in the lock"
        assert requirement.specifier.contains(pins[requirement.name.lower()]), requirement
