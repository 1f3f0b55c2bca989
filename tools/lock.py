"""Regenerate requirements/constraints.txt: the pinned test stack `make test` installs with.

For each Python given, install ``.[test]`` into a throw-away venv and freeze it; versions that
agree everywhere are written plain, the others with a ``python_version`` marker. Usage:

    python tools/lock.py python3.10 python3.11 python3.12 python3.13
"""

import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "requirements" / "constraints.txt"


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
    main(sys.argv[1:] or [sys.executable])
