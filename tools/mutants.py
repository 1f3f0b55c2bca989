"""Report a mutmut run (`make mutants`): the score, and every survivor checked against the docs.

The survivors are checked against docs/mutants.md.

    python tools/mutants.py mutants          score, and the survivors docs/mutants.md does not explain
    python tools/mutants.py mutants --list   every survivor as the table rows docs/mutants.md uses
    python tools/mutants.py --required       the mutations `make check` must catch, one at a time

A survivor is identified by its function and the mutated line (after the change), not by mutmut's
number for it, which changes whenever the function's code does. docs/mutants.md lists each
survivor that no test can kill with the reason it is equivalent (or not worth a test), in a table
whose first two cells are the function (`module.function`) and the mutated line. The exit status is
1 when a survivor is not listed there, so a new gap in the tests cannot go unnoticed.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPLAINED = ROOT / "docs" / "mutants.md"
KILLED = {1, 3, 37}  # mutmut's exit codes: a test failed, pytest errored, the type check caught it
SURVIVED = 0
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped"}
STATUS.update({35: "suspicious", 36: "timeout", 24: "timeout", -24: "timeout", 37: "killed"})


def results(directory):
    """Return {mutant name: exit code} from mutmut's .meta files under ``directory``."""
    codes = {}
    for meta in sorted(Path(directory).rglob("*.py.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def function_of(name):
    """Return ``module.function`` of a mutant name (``pkg.mod.x_func__mutmut_3``)."""
    module, _, mangled = name.rpartition(".")
    function = re.sub(r"__mutmut_\d+$", "", mangled)
    function = function[2:] if function.startswith(("x_", "xǁ")) else function
    function = function.replace("ǁ", ".")
    return f"{module.removeprefix('posenc_lib.')}.{function}"


def mutated_line(diff):
    """Return the changed line after the mutation (the first '+' line of the diff), stripped."""
    lines = diff.splitlines()
    for line in lines:
        if line.startswith("+") and not line.startswith("+++"):
            return " ".join(line[1:].split())
    for line in lines:  # a deletion: name the line removed
        if line.startswith("-") and not line.startswith("---"):
            return "(removed) " + " ".join(line[1:].split())
    return ""


def diffs(names, directory):
    """Return {mutant name: unified diff}, computed by mutmut from the mutants directory."""
    import os

    cwd = os.getcwd()
    os.chdir(Path(directory).resolve().parent)  # mutmut reads its config and files from here
    try:
        from mutmut.mutation.diff_apply import find_mutant, get_diff_for_mutant

        return {name: get_diff_for_mutant(name, path=find_mutant(name).path) for name in names}
    finally:
        os.chdir(cwd)


def explained(path=EXPLAINED):
    """Return the (function, mutated line) pairs docs/mutants.md explains."""
    pairs = set()
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.strip().replace("\\|", "\0")  # an escaped pipe inside a cell
        cells = [c.strip().replace("\0", "|") for c in line.strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`") and cells[1].startswith("`"):
            pairs.add((cells[0].strip("`"), " ".join(cells[1].strip("`").split())))
    return pairs


ESCAPED_PIPE = "\\|"


def table_row(function, line, reason=""):
    """Return a docs/mutants.md table row (pipes in the code escaped)."""
    code = line.replace("|", ESCAPED_PIPE)
    return f"| `{function}` | `{code}` | {reason} |"


# The mutations the course was once blind to (issue 21): `make check` must catch each. Each is
# (what it breaks, file, the text replaced, its replacement).
RECENCY_KEY = (
    '        },\n        "d",\n        "For each scheme, ask what is new to the model when the input '
    'grows from 32 to 256 tokens.",'
)
REQUIRED = [
    (
        "the ALiBi bias removed from the forward pass",
        "posenc_lib/model.py",
        '"alibi": Scheme(bias=_alibi_bias),',
        '"alibi": Scheme(),',
    ),
    (
        "the RoPE rotation removed from the forward pass",
        "posenc_lib/model.py",
        "q, k = rope_rotate(q, *rotation), rope_rotate(k, *rotation)",
        "q, k = q, k",
    ),
    (
        "the sinusoidal addition removed",
        "posenc_lib/model.py",
        '"sinusoidal": Scheme(added=_sinusoidal_added),',
        '"sinusoidal": Scheme(),',
    ),
    (
        "rope_positions_scale ignored (no position interpolation)",
        "posenc_lib/model.py",
        "positions = interpolate_positions(np.arange(t), config.rope_positions_scale)",
        "positions = np.arange(t)",
    ),
    (
        "the loss counting ignored targets (as token 0)",
        "posenc_lib/model.py",
        "one_hot = one_hot * has_target(targets)[..., None]",
        "one_hot = one_hot",
    ),
    (
        "the loss dividing by every position",
        "posenc_lib/model.py",
        "n_targets = max(int(np.sum(has_target(targets))), 1)",
        "n_targets = targets.size",
    ),
    (
        "evaluate dividing by all positions",
        "posenc_lib/model.py",
        "counts += np.sum(has_target(targets), axis=0)",
        "counts += targets.shape[0]",
    ),
    (
        "a changed quiz answer key (the recency question: ALiBi -> RoPE)",
        "posenc_lib/exercises/ch08.py",
        RECENCY_KEY,
        RECENCY_KEY.replace('"d"', '"c"'),
    ),
    (
        "the 1/sqrt(d_k) scale removed from chapter 1's attention",
        "posenc_lib/attention.py",
        "scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(w_k.shape[1])",
        "scores = q @ np.swapaxes(k, -1, -2)",
    ),
    (
        "the 1/sqrt(d_k) scale removed from the model",
        "posenc_lib/model.py",
        "/ float(np.sqrt(config.head_dim)) + bias",
        "+ bias",
    ),
]
CHECK = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
CHECK += ["-m", "not browser and not binder and not site and not slow"]
# `make check`'s tests, the fastest to fail first (-x stops at the first failure)
CHECK += ["tests/test_model_reference.py", "tests/test_attention.py", "tests/test_answer_keys.py"]
CHECK += ["tests", "posenc_lib"]


def required():
    """Apply each REQUIRED mutation to a copy of the repository and run `make check`'s tests."""
    ignore = shutil.ignore_patterns(".venv*", ".git", "mutants", "build", ".hypothesis", "*.pyc")
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        for what, path, old, new in REQUIRED:
            copy = Path(tmp) / "repo"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(ROOT, copy, ignore=ignore)
            source = (copy / path).read_text()
            if source.count(old) != 1:
                raise SystemExit(
                    f"{path}: cannot apply {what!r}: the text is not there exactly once"
                )
            (copy / path).write_text(source.replace(old, new))
            env = {**os.environ, "PYTHONPATH": str(copy)}  # the mutated package, not the installed
            run = subprocess.run(CHECK, cwd=copy, env=env, capture_output=True, text=True)
            failed = [line[7:] for line in run.stdout.splitlines() if line.startswith("FAILED")]
            caught = run.returncode != 0
            print(
                f"{'caught' if caught else 'MISSED'}: {what}"
                + (f" by {failed[0]}" if failed else "")
            )
            if not caught:
                missed.append(what)
    return 1 if missed else 0


def main(argv):
    if "--required" in argv:
        return required()
    directory = Path(argv[0] if argv else "mutants")
    codes = results(directory)
    if not codes:
        print(f"no mutmut results under {directory}: run `make mutants`")
        return 1
    counts = Counter(
        STATUS.get(code, "not checked" if code is None else "other") for code in codes.values()
    )
    killed = sum(1 for code in codes.values() if code in KILLED)
    tested = killed + counts["survived"] + counts["timeout"]
    print(
        f"{len(codes)} mutants: {killed} killed, {counts['survived']} survived, "
        + ", ".join(
            f"{n} {status}"
            for status, n in sorted(counts.items())
            if status not in ("killed", "survived")
        )
    )
    print(f"mutation score (killed / tested): {killed}/{tested} = {killed / max(tested, 1):.1%}")
    survivors = sorted(name for name, code in codes.items() if code == SURVIVED)
    changed = {name: mutated_line(diff) for name, diff in diffs(survivors, directory).items()}
    rows = sorted({(function_of(name), changed[name]) for name in survivors})
    if "--list" in argv:
        for function, line in rows:
            print(table_row(function, line))
        return 0
    known = explained()
    unexplained = [row for row in rows if row not in known]
    equivalent = len(rows) - len(unexplained)
    print(
        f"{len(survivors)} survivors ({len(rows)} distinct): {equivalent} explained in docs/mutants.md"
    )
    for function, line in unexplained:
        print(f"  not explained: {function}: {line}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
