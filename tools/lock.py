"""Regenerate the lock files with uv's resolver (`uv pip compile --universal`).

    python tools/lock.py [--upgrade] UV          requirements/constraints.txt (`make lock`)
    python tools/lock.py --site [--upgrade] UV   requirements/site-constraints.txt (`make lock-site`)

UV is the uv executable (the Makefile installs a pinned uv into .venv). Each lock is one universal
resolution, valid on every Python and platform the project supports, with environment markers
where a package's version differs (numpy 2.2 on Python 3.10, 2.4 on 3.11, ...). uv reads the
existing lock as its preferences, so a re-lock moves only what must move; ``--upgrade`` takes the
newest versions allowed. This script only composes the uv command and the file's header: the
resolution is uv's.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_LOCK = "requirements/constraints.txt"
SITE_LOCK = "requirements/site-constraints.txt"
# The oldest Python of each stack: pyproject's requires-python for the test stack; Sphinx 9 and
# myst-parser 5 need 3.11 for the site, and the test stack pins soupsieve 4.1.3 (>= 3.11.5) there.
TEST_PYTHON = "3.10"
SITE_PYTHON = "3.11.5"

HEADERS = {
    TEST_LOCK: f"""\
# Pinned test stack: `make test` installs `.[test]` with these constraints so committed notebook
# outputs compare stably. Written by `make lock` (python tools/lock.py): one universal resolution
# by uv (`uv pip compile --universal --python-version {TEST_PYTHON} --extra test pyproject.toml`),
# valid on every Python >= {TEST_PYTHON} and every platform. Edit pyproject.toml, not this file.
""",
    SITE_LOCK: f"""\
# Pinned website stack: `make site` installs `.[site]` (runtime + Sphinx) with these constraints.
# Written by `make lock-site` (python tools/lock.py --site): one universal resolution by uv
# (`uv pip compile --universal --python-version {SITE_PYTHON} --extra site -c {TEST_LOCK}
# pyproject.toml`), valid on every Python >= {SITE_PYTHON}, constrained by the test stack's pins so
# that `.[test]` and `.[site]` install side by side in one .venv. Edit pyproject.toml, not this file.
""",
}


def compile_command(uv, lock, *, upgrade=False):
    """Return the uv command that resolves ``lock`` (a path relative to the repository)."""
    site = lock == SITE_LOCK
    command = [uv, "pip", "compile", "--universal", "--quiet", "--no-header", "--no-annotate"]
    command += ["--python-version", SITE_PYTHON if site else TEST_PYTHON]
    command += ["--extra", "site" if site else "test"]
    if site:
        command += ["-c", TEST_LOCK]
    if upgrade:
        command.append("--upgrade")
    return [*command, "-o", lock, "pyproject.toml"]


def lock(uv, lock, *, upgrade=False):
    """Resolve ``lock`` with uv (its current pins are uv's preferences) and write its header."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}  # resolve only; never fetch a Python
    path = ROOT / lock
    if path.exists():  # uv reads the pins below the header as preferences
        path.write_text("".join(line for line in path.read_text().splitlines(True) if "==" in line))
    subprocess.run(compile_command(uv, lock, upgrade=upgrade), cwd=ROOT, env=env, check=True)
    pins = path.read_text()
    path.write_text(HEADERS[lock] + pins)
    print(f"wrote {lock} ({sum(1 for line in pins.splitlines() if '==' in line)} pins)")


def main(argv):
    site = "--site" in argv
    upgrade = "--upgrade" in argv
    rest = [a for a in argv if a not in ("--site", "--upgrade")]
    uv = rest[0] if rest else "uv"
    lock(uv, SITE_LOCK if site else TEST_LOCK, upgrade=upgrade)


if __name__ == "__main__":
    main(sys.argv[1:])
