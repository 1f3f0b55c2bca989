"""tools/course.py, the learner's entry point on Windows, macOS and Linux: `make lab`/`make test`
call it, and it opens chapter 00 in a JupyterLab with the course's own settings."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import course
import pytest

ROOT = Path(__file__).resolve().parents[1]


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


def test_the_settings_overrides_are_put_first_on_the_config_path():
    env = course.lab_environment({"JUPYTER_CONFIG_PATH": "elsewhere"})
    assert env["JUPYTER_CONFIG_PATH"] == os.pathsep.join([str(course.LAB_CONFIG), "elsewhere"])
    overrides = course.LAB_CONFIG / "labconfig" / "default_setting_overrides.json"
    settings = json.loads(overrides.read_text())["@jupyterlab/apputils-extension:notification"]
    assert settings == {"fetchNews": "false", "checkForUpdates": False}


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


@pytest.mark.slow
def test_jupyterlab_started_as_the_course_starts_it_prints_chapter_00_and_asks_no_news(tmp_path):
    port = free_port()
    command = [
        *(str(c) for c in course.lab_command(Path(sys.executable))),
        "--no-browser",
        f"--port={port}",
        "--ServerApp.token=",
        "--ServerApp.password=",
    ]
    env = course.lab_environment()
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp_path / "settings")  # no learner's settings
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        url = f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification"
        settings = json.load(urllib.request.urlopen(url, timeout=10))
        defaults = settings["schema"]["properties"]  # the overrides become the defaults
        assert defaults["fetchNews"]["default"] == "false", defaults["fetchNews"]
        assert defaults["checkForUpdates"]["default"] is False
        printed = log.read_text()
        assert f":{port}/lab/tree/notebooks/00_start_here.ipynb" in printed, printed[-2000:]
        page = urllib.request.urlopen(f"{base}/lab/tree/notebooks/00_start_here.ipynb", timeout=10)
        assert page.status == 200
    finally:
        server.terminate()
        server.wait(20)
