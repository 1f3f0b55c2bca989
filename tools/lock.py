"""Regenerate the lock files.

requirements/constraints.txt, the pinned test stack `make test` installs with: for each Python
given, install ``.[test]`` into a throw-away venv and freeze it; versions that agree everywhere are
written plain, the others with a ``python_version`` marker. Usage:

    python tools/lock.py python3.10 python3.11 python3.12 python3.13

requirements/site-constraints.txt, the pinned website stack `make site` installs with (`make
lock-site`): one universal resolution by uv for every Python the site supports, constrained by the
test stack's pins so both stacks install into one environment. Usage:

    python tools/lock.py --site
"""

import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "requirements" / "constraints.txt"
SITE_OUT = ROOT / "requirements" / "site-constraints.txt"
# The oldest Python the site stack resolves for: Sphinx 9 and myst-parser 5 need 3.11, and the
# test stack pins soupsieve 4.1.3 (Python >= 3.11.5) for 3.11.
SITE_PYTHON = "3.11.5"
SITE_HEADER = f"""\
# Pinned website stack: `make site` installs `.[site]` (runtime + Sphinx) with these constraints.
# Written by `make lock-site` (python tools/lock.py --site): one universal resolution by uv
# (`uv pip compile --universal --python-version {SITE_PYTHON} --extra site -c requirements/constraints.txt
# pyproject.toml`), valid on every Python >= {SITE_PYTHON}, constrained by the test stack's pins so
# that `.[test]` and `.[site]` install side by side in one .venv. Edit pyproject.toml, not this file.
"""


def freeze(python):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([python, "-m", "venv", tmp], check=True)
        pip = [f"{tmp}/bin/python", "-m", "pip", "-q"]
        subprocess.run([*pip, "install", "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "install", f"{ROOT}[test]"], check=True)
        version = subprocess.run(
            [f"{tmp}/bin/python", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        lines = subprocess.run(
            [*pip, "freeze", "--exclude", "posenc-lib"], check=True, capture_output=True, text=True
        ).stdout.split()
    return version, dict(line.split("==", 1) for line in lines if "==" in line)


def lock_site(uv="uv"):
    """Resolve ``.[site]`` with uv for every Python >= SITE_PYTHON; write SITE_OUT."""
    command = [
        uv,
        "pip",
        "compile",
        "--universal",
        "--python-version",
        SITE_PYTHON,
        "--extra",
        "site",
        "-c",
        "requirements/constraints.txt",
        "--no-annotate",
        "--no-header",
        "--quiet",
        "pyproject.toml",
    ]
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}  # resolve only; never fetch a Python
    pins = subprocess.run(
        command, cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout
    SITE_OUT.write_text(SITE_HEADER + pins)
    print(f"wrote {SITE_OUT} ({sum(1 for line in pins.splitlines() if '==' in line)} pins)")


def main(pythons):
    frozen = dict(freeze(p) for p in pythons)
    versions = sorted(frozen, key=lambda v: tuple(map(int, v.split("."))))
    names = sorted({n for pins in frozen.values() for n in pins}, key=str.lower)
    out = [
        "# Pinned test stack, written by `python tools/lock.py " + " ".join(pythons) + "`.",
        "# `make test` installs with these constraints so committed notebook outputs compare stably.",
    ]
    for name in names:
        by_pin = defaultdict(list)
        for v in versions:
            if name in frozen[v]:
                by_pin[frozen[v][name]].append(v)
        if len(by_pin) == 1 and sum(map(len, by_pin.values())) == len(versions):
            out.append(f"{name}=={next(iter(by_pin))}")
            continue
        for pin, vs in by_pin.items():
            marker = " or ".join(f'python_version == "{v}"' for v in vs)
            out.append(f"{name}=={pin}; {marker}")
    OUT.write_text("\n".join(out) + "\n")
    print(f"wrote {OUT} ({len(names)} packages, Pythons {', '.join(versions)})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--site"]:
        lock_site(*sys.argv[2:3])
    else:
        main(sys.argv[1:] or [sys.executable])
