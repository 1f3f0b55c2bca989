"""The provenance of the committed data: a refactor keeps it current, a change to a number does not.

The code hash reads the canonical form of every definition the sweeps' code reaches: renaming a
local, reformatting, comments, docstrings and moving a definition to another module leave it as
it is; a constant, an operator, a call, a keyword, an attribute or a branch changes it. Tested on
a synthetic package (so the tests hold for any copy of the library), on single definitions, and
on a copy of the library's own sources against the committed data (`stale_provenance`).
"""

import dataclasses
import json
import re
import shutil
import textwrap

import numpy as np
import pytest

from posenc_lib import committed, experiments, provenance, realtext, sweep
from posenc_lib.provenance import canonical_definition, code_hash, stale_provenance

SWEEPS = committed.SWEEPS

# -- a synthetic package -----------------------------------------------------------------------

PACKAGE = {
    "a.py": '''
"""Module a."""
from .b import helper
from . import c
from .sub.d import deep

SCALE = 2


def root(x):
    """Doc."""
    # a comment
    total = helper(helper(x)) * SCALE
    return total + c.value() + deep()


def unused():
    return 1
''',
    "b.py": "def helper(x):\n    return x + 1\n",
    "c.py": "def value():\n    return 3\n\n\ndef other():\n    return 4\n",
    "sub/d.py": "from .e import LIMIT\n\n\ndef deep():\n    return LIMIT\n",  # a subpackage
    "sub/e.py": "LIMIT: int = 5\n",  # an annotated constant
}


def package(tmp_path, files=PACKAGE, **edits):
    """Write the package under tmp_path/pkg, with {file: (old, new)} edits applied."""
    (tmp_path / "pkg").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        old, new = edits.get(name.removesuffix(".py"), ("", ""))
        assert old in text
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text.replace(old, new, 1) if old else text)
    return tmp_path


def hash_of(tmp_path, files=PACKAGE, **edits):
    return code_hash(["pkg.a:root"], root=package(tmp_path, files, **edits))


def test_the_code_hash_covers_each_definition_the_root_reaches_once(tmp_path):
    package(tmp_path)
    reached = provenance.reached_definitions(["pkg.a:root"], root=tmp_path)
    assert sorted(reached) == ["LIMIT", "SCALE", "deep", "helper", "root", "value"]
    # references to the library's definitions are written by the definition's name
    assert "Name(helper)" in reached["root"] and "Name(value)" in reached["root"]
    assert code_hash(["pkg.a:root"], root=tmp_path)["definitions"] == 6
    # two roots reaching the same definitions hash them once, whatever their order
    both = code_hash(["pkg.b:helper", "pkg.a:root"], root=tmp_path)
    assert both == code_hash(["pkg.a:root", "pkg.b:helper"], root=tmp_path)
    assert both == code_hash(["pkg.a:root"], root=tmp_path)


@pytest.mark.parametrize(
    "edit",
    [
        {"a": ("helper(helper(x)) * SCALE", "helper(helper(x)) / SCALE")},  # an operator
        {"a": ("SCALE = 2", "SCALE = 3")},  # a constant
        {"a": ("helper(helper(x))", "helper(x)")},  # a call
        {"a": ("return total + c.value()", "return total + c.other()")},  # another function
        {"b": ("x + 1", "x + 2")},  # reached through `from .b import helper`
        {"c": ("return 3", "return 5")},  # reached through `from . import c` and c.value
        {"sub/e": ("LIMIT: int = 5", "LIMIT: int = 6")},  # through a subpackage's own import
    ],
    ids=["operator", "constant", "call", "callee", "imported", "module-attribute", "subpackage"],
)
def test_a_change_to_any_definition_the_root_reaches_changes_the_hash(tmp_path, edit):
    before = hash_of(tmp_path)
    assert hash_of(tmp_path / "edited", **edit) != before


@pytest.mark.parametrize(
    "edit",
    [
        {"a": ("# a comment", "# another comment")},
        {"a": ('"""Doc."""', '"""Another docstring."""')},
        {"a": ('"""Module a."""', '"""Module a, described anew."""')},
        {"a": ("helper(helper(x)) * SCALE", "helper( helper( x ) )*SCALE")},  # layout
        {"a": ("def root(x):", "def root(\n    x,\n):")},  # layout over lines
        {"a": ("return 1", "return 2")},  # a definition root does not reach
        {"c": ("return 4", "return 6")},  # another function of a module root uses
        {
            "a": (
                "total = helper(helper(x)) * SCALE\n    return total",
                "t = helper(helper(x)) * SCALE\n    return t",
            )
        },
        {
            "a": (
                'def root(x):\n    """Doc."""\n    # a comment\n    total = helper(helper(x))',
                "def root(y):\n    total = helper(helper(y))",
            )
        },
    ],
    ids=[
        "comment",
        "docstring",
        "module-docstring",
        "layout",
        "lines",
        "unreached",
        "unreached-in-module",
        "local",
        "parameter",
    ],
)
def test_comments_docstrings_layout_locals_and_unreached_code_do_not_change_the_hash(
    tmp_path, edit
):
    assert hash_of(tmp_path / "edited", **edit) == hash_of(tmp_path)


def test_moving_a_definition_to_another_module_of_the_library_keeps_the_hash(tmp_path):
    moved = {
        **PACKAGE,
        "a.py": PACKAGE["a.py"].replace("from .b import helper", "from .c import helper"),
        "b.py": "",
        "c.py": PACKAGE["c.py"] + "\n\ndef helper(x):\n    return x + 1\n",
    }
    assert hash_of(tmp_path / "moved", moved) == hash_of(tmp_path)
    # imported under another name, or called as module.name: the same definition, the same hash
    renamed = {
        **PACKAGE,
        "a.py": PACKAGE["a.py"]
        .replace("from .b import helper", "from .b import helper as plus_one")
        .replace("helper(helper(x))", "plus_one(plus_one(x))"),
    }
    assert hash_of(tmp_path / "renamed", renamed) == hash_of(tmp_path)
    qualified = {
        **PACKAGE,
        "a.py": PACKAGE["a.py"]
        .replace("from .b import helper", "from . import b")
        .replace("helper(helper(x))", "b.helper(b.helper(x))"),
    }
    assert hash_of(tmp_path / "qualified", qualified) == hash_of(tmp_path)


# -- the canonical form of one definition --------------------------------------------------------

BASE = '''
def f(values, *, scale=2.0):
    """Sum the scaled values above a limit."""
    total = 0.0
    for i, v in enumerate(values):  # a comment
        if v > LIMIT:
            total += scale * v
    squares = [w * w for w in values]
    def inner(a):
        return a + total
    try:
        best = max(squares, key=lambda s: -s)
    except ValueError as error:
        raise ValueError(f"f: no value, got {error!r:>{i}}") from None
    return inner(total) + best + np.sum(values, axis=0)
'''


def canon(text):
    return canonical_definition(textwrap.dedent(text))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("values", "xs"),  # a parameter
        ("total", "acc"),  # an assigned local, used by a closure
        ("i, v", "k, x"),  # loop variables (and their uses below)
        ("w * w for w", "u * u for u"),  # a comprehension's variable
        ("inner", "helper"),  # a nested function
        (
            "inner(a):\n        return a + total",
            "inner(b):\n        return b + total",
        ),  # its parameter
        ("lambda s: -s", "lambda t: -t"),  # a lambda's parameter
        ("error", "problem"),  # an exception's name
        ("best", "top"),
    ],
)
def test_renaming_a_local_keeps_the_canonical_form(old, new):
    renamed = BASE
    for a, b in zip(old.split(", "), new.split(", "), strict=True):
        # a phrase is replaced as written, a name wherever it stands alone
        renamed = renamed.replace(a, b) if " " in a else re.sub(rf"\b{a}\b", b, renamed)
    assert renamed != BASE and canon(renamed) == canon(BASE)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("total = 0.0", "total = 1.0"),  # a constant
        ("scale=2.0", "scale=3.0"),  # a default
        ("scale * v", "scale + v"),  # an operator
        ("v > LIMIT", "v >= LIMIT"),  # a comparison
        ("if v > LIMIT:", "while v > LIMIT:"),  # control flow
        ("total += scale * v", "total -= scale * v"),  # an augmented assignment
        ("max(squares", "min(squares"),  # a call
        ("axis=0", "axis=1"),  # a keyword's value
        ("axis=0", "keepdims=0"),  # a keyword
        ("np.sum", "np.mean"),  # an attribute
        ("LIMIT", "BOUND"),  # a global
        ("except ValueError", "except TypeError"),  # what is caught
        ("-s", "s"),  # a unary operator
        ("got {error!r", "got {error!s"),  # a conversion
        ("from None", ""),  # the exception's cause
        ("return inner(total) + best", "return inner(best) + total"),  # which local goes where
    ],
)
def test_changing_a_constant_operator_call_or_branch_changes_the_canonical_form(old, new):
    assert old in BASE
    assert canon(BASE.replace(old, new)) != canon(BASE)


def test_a_local_that_shadows_a_global_is_a_local_and_the_global_stays_a_name():
    uses_global = "def f(x):\n    return LIMIT + x\n"
    shadowing = "def f(x):\n    LIMIT = 1\n    return LIMIT + x\n"
    assert "Name(LIMIT)" in canon(uses_global)
    assert "Name(LIMIT)" not in canon(shadowing)
    # a class's attributes (dataclass fields) are names others read: kept
    cls = "class K:\n    width: int = 2\n    def twice(self):\n        return 2 * self.width\n"
    assert canon(cls) != canon(cls.replace("width", "depth"))
    assert canon(cls) == canon(cls.replace("self", "me"))


def test_an_f_string_is_the_same_whichever_way_python_splits_its_text():
    assert canon('def f(x):\n    return f"a" f"b{x}"\n') == canon(
        'def f(x):\n    return f"ab{x}"\n'
    )
    assert canon('def f(x):\n    return f"{x}" ""\n') == canon('def f(x):\n    return f"{x}"\n')
    assert canon('def f(x):\n    return f"a{x}"\n') != canon('def f(x):\n    return f"b{x}"\n')


# -- the library's own sources against the committed data ---------------------------------------


@pytest.fixture
def library_copy(tmp_path):
    shutil.copytree(
        sweep.DATA.parent, tmp_path / "posenc_lib", ignore=shutil.ignore_patterns("data", "*.pyc")
    )
    return tmp_path


def edit(root, module, old, new):
    path = root / "posenc_lib" / f"{module}.py"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("name", SWEEPS)
def test_the_committed_data_were_made_by_the_code_and_settings_as_they_are(name):
    spec = SWEEPS[name]
    problems = stale_provenance(spec)
    assert not problems, (
        f"the committed data of {spec.module} are stale; regenerate them with "
        f"`python -m {spec.module} --out DIR`, then "
        f"`python -m posenc_lib.committed adopt {name} DIR`:\n" + "\n".join(problems)
    )


def rename_locals(root, module, function, renames):
    """Rename names (not strings, not attributes) inside one function of the library's copy.

    Names inside f-strings are not renamed (Python < 3.12 tokenizes an f-string as one string):
    the renames must not appear in one.
    """
    import ast
    import io
    import tokenize

    path = root / "posenc_lib" / f"{module}.py"
    text = path.read_text()
    node = next(n for n in ast.parse(text).body if getattr(n, "name", None) == function)
    lines = text.splitlines(keepends=True)
    edits, previous = [], None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        inside = node.lineno <= tok.start[0] <= node.end_lineno
        if inside and tok.type == tokenize.NAME and tok.string in renames and previous != ".":
            edits.append((tok.start, tok.string))
        previous = tok.string
    for (row, col), name in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + renames[name] + line[col + len(name) :]
    path.write_text("".join(lines))
    assert path.read_text() != text


REFACTORS = {
    # the issue's own example: renaming locals of model.region_value, parameters included
    "locals": lambda root: rename_locals(
        root, "model", "region_value", {"n": "targets", "start": "first"}
    ),
    "comments and docstrings": lambda root: [
        edit(root, "model", "DTYPE = np.float64", "DTYPE = np.float64  # a new comment"),
        edit(root, "model", '"""A tiny causal transformer', '"""A small causal transformer'),
    ],
    "layout": lambda root: edit(
        root,
        "model",
        "    n = int(np.sum(counts[start:]))",
        "    n = int(\n        np.sum(counts[start :])\n    )",
    ),
    "tables": lambda root: edit(
        root,
        "experiments",
        'f"{task}, {region} positions at L={eval_len}',
        'f"{task} -- {region} positions at L={eval_len}',
    ),
}


@pytest.mark.parametrize("refactor", REFACTORS)
def test_a_refactor_of_the_library_keeps_the_committed_data_current(library_copy, refactor):
    REFACTORS[refactor](library_copy)
    for spec in SWEEPS.values():
        assert stale_provenance(spec, root=library_copy) == []


CHANGES = [
    # the mutations of issue 25 that change how the data are made
    (
        "records",
        '"totals": [round(float(v), digits) if digits',
        '"totals": [round(float(v)) if digits',
    ),
    (
        "experiments",
        "ntk_base(config.base, factor, config.head_dim)",
        "ntk_base(config.base, factor, config.d_model)",
    ),
    ("corpus", "bits = array / math.log(2)", "bits = array"),
    (
        "records",
        'start = 0 if region == "all" else train_len',
        'start = 0 if region == "all" else train_len + 1',
    ),
    (
        "model",
        "sinusoidal_positions(t, config.d_model, base=config.base",
        "sinusoidal_positions(t, config.d_model, base=100.0",
    ),
    # a constant, an operator, a call and a branch
    ("model", "DTYPE = np.float64", "DTYPE = np.float32"),
    (
        "model",
        "return anp.transpose(anp.reshape(x, (b, t, h, -1)), (0, 2, 1, 3))",
        "return anp.transpose(anp.reshape(x, (b, t, h, -1)), (0, 2, 3, 1))",
    ),
    ("model", "centred / anp.sqrt(", "centred * anp.sqrt("),
    ("model", "if config.yarn_scale > 1:", "if config.yarn_scale >= 1:"),
]


@pytest.mark.parametrize(("module", "old", "new"), CHANGES)
def test_a_change_that_can_change_a_number_makes_the_committed_data_stale(
    library_copy, module, old, new
):
    path = library_copy / "posenc_lib" / f"{module}.py"
    if not path.exists() or old not in path.read_text():  # moved: find the module holding it
        module = next(
            p.stem for p in (library_copy / "posenc_lib").glob("*.py") if old in p.read_text()
        )
    edit(library_copy, module, old, new)
    stale = [p for spec in SWEEPS.values() for p in stale_provenance(spec, root=library_copy)]
    assert stale and all(": code " in p for p in stale)


@pytest.mark.parametrize("name", SWEEPS)
def test_stale_provenance_names_each_file_and_field_that_no_longer_matches(
    name, tmp_path, monkeypatch
):
    spec = SWEEPS[name]
    directory = tmp_path / spec.name
    directory.mkdir()
    now = provenance.provenance(spec, spec.options)  # what the code and settings make today
    for file in spec.files:
        sweep.write_records(directory / f"{file}.json", [], now)
    assert stale_provenance(spec, directory) == []
    first, last = list(spec.files)[0], list(spec.files)[-1]  # one file for study-extension
    (directory / f"{first}.json").write_text("[]")  # a plain list: no provenance at all
    assert stale_provenance(spec, directory) == [f"{first}.json: no provenance"]
    sweep.write_records(directory / f"{first}.json", [], now)
    old = {
        **now,
        "code": {**now["code"], "sha256": "0" * 64},
        "settings": {**now["settings"], "options": {**spec.options, "steps": 1}},
    }
    sweep.write_records(directory / f"{last}.json", [], old)
    problems = stale_provenance(spec, directory)
    assert [p.split(" ")[:2] for p in problems] == [
        [f"{last}.json:", "code"],
        [f"{last}.json:", "settings"],
    ]
    assert problems[0].endswith(f"!= now {now['code']}")
    monkeypatch.setattr(sweep, "DATA", tmp_path)  # the default directory: DATA / the sweep's name
    assert stale_provenance(spec) == problems
    inputs = {**now, "inputs": {"corpus.json.gz": "0" * 64}}
    sweep.write_records(directory / f"{last}.json", [], inputs)
    assert stale_provenance(spec, directory)[0].startswith(f"{last}.json: inputs ")


@pytest.mark.parametrize("name", SWEEPS)
def test_every_committed_file_records_its_settings_versions_and_code(name):
    spec = SWEEPS[name]
    for file in spec.files:
        stamp = provenance.load_provenance(spec.directory / f"{file}.json")
        assert stamp is not None, f"{file}.json has no provenance"
        # the budget study is a run of the study's own command, with more steps
        assert stamp["sweep"] == {"study-budget": "study"}.get(name, name)
        assert set(stamp["versions"]) == {"posenc_lib", "python", "numpy", "autograd"}
        assert len(stamp["code"]["sha256"]) == 64 and stamp["code"]["definitions"] > 50
        assert stamp["settings"]["options"]["steps"] == spec.options["steps"]


def test_the_hash_follows_the_training_and_scoring_code_not_the_tables_or_the_provenance():
    roots = experiments.STUDY.code_roots + realtext.REALTEXT.code_roots
    reached = provenance.reached_definitions(roots)
    assert len(reached) == code_hash(roots)["definitions"] > 100
    assert {
        "train",
        "region_value",
        "write_records",
        "train_and_measure",
        "train_and_score",
    } <= set(reached)
    assert not {"results_table", "text_table", "plot_results", "code_hash", "main"} & set(reached)


# -- what the provenance holds -------------------------------------------------------------------

TOY = sweep.Sweep("toy", "tests.toy", None, None, {"results": "records"}, {"seeds": (0, 1)})


def test_provenance_names_the_sweep_its_command_settings_versions_code_and_inputs(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(provenance, "versions", lambda: {"numpy": "9.9"})
    monkeypatch.setattr(provenance, "code_hash", lambda roots, root=None: {"roots": list(roots)})
    data = tmp_path / "corpus.txt"
    data.write_bytes(b"abc")
    spec = dataclasses.replace(TOY, settings={"width": 4}, code_roots=("m:f",), inputs=(data,))
    assert provenance.provenance(spec, {"seeds": (0, 1)}) == {
        "sweep": "toy",
        "command": "python -m tests.toy --out posenc_lib/data/toy",
        "settings": {"options": {"seeds": [0, 1]}, "constants": {"width": 4}},
        "versions": {"numpy": "9.9"},
        "code": {"roots": ["m:f"]},
        # sha256 of b"abc" (FIPS 180-2, appendix B.1)
        "inputs": {
            "corpus.txt": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        },
    }


def test_versions_name_the_library_python_numpy_and_autograd(monkeypatch):
    from importlib import metadata

    import posenc_lib

    asked = []
    monkeypatch.setattr(metadata, "version", lambda name: asked.append(name) or "1.2.3")
    monkeypatch.setattr(provenance.platform, "python_version", lambda: "3.99.0")
    assert provenance.versions() == {
        "posenc_lib": posenc_lib.__version__,
        "python": "3.99.0",
        "numpy": np.__version__,
        "autograd": "1.2.3",
    }
    assert asked == ["autograd"]  # the distribution's name as published


# -- adopting a new run whose numbers are the committed ones ------------------------------------


def committed_copy(tmp_path, monkeypatch, name="realtext"):
    """The committed data of a sweep copied under tmp_path, which becomes the data directory."""
    spec = SWEEPS[name]
    shutil.copytree(spec.directory, tmp_path / "data" / name)
    monkeypatch.setattr(sweep, "DATA", tmp_path / "data")
    new = tmp_path / "new"
    shutil.copytree(spec.directory, new)
    return spec, new


def restamped(path, **changes):
    text = path.read_text()
    first, rest = text.split("\n", 1)
    stamp = json.loads(first[len('{"provenance": ') : -1])
    path.write_text('{"provenance": ' + json.dumps({**stamp, **changes}) + ",\n" + rest)


def test_adopt_takes_a_new_run_whose_records_and_witnesses_are_the_same(tmp_path, monkeypatch):
    spec, new = committed_copy(tmp_path, monkeypatch)
    restamped(new / "results.json", versions={"python": "3.99"})
    assert provenance.differences(spec, new) == []
    written = provenance.adopt(spec, new)
    assert [p.name for p in written] == ["results.json", "curves.json", "training.json"]
    assert provenance.load_provenance(spec.directory / "results.json")["versions"] == {
        "python": "3.99"
    }


def test_adopt_refuses_a_run_whose_numbers_or_code_differ_and_changes_nothing(
    tmp_path, monkeypatch
):
    spec, new = committed_copy(tmp_path, monkeypatch)
    before = (spec.directory / "curves.json").read_bytes()
    text = (new / "curves.json").read_text()
    (new / "curves.json").write_text(text.replace('"totals": [', '"totals": [0.001, ', 1))
    with pytest.raises(ValueError, match=r"^adopt: curves\.json: the records differ$"):
        provenance.adopt(spec, new)
    (new / "curves.json").write_bytes(before)
    witness = next(new.glob("witness-*.npz"))
    params = dict(np.load(witness))
    first = sorted(params)[0]
    params[first] = params[first] + 1e-12
    np.savez(witness, **params)
    with pytest.raises(ValueError, match=rf"^adopt: {re.escape(witness.name)}: the parameters"):
        provenance.adopt(spec, new)
    shutil.copyfile(spec.directory / witness.name, witness)
    restamped(new / "results.json", code={"sha256": "0" * 64, "definitions": 1})
    with pytest.raises(ValueError, match=r"^adopt: results\.json: code "):
        provenance.adopt(spec, new)
    assert (spec.directory / "curves.json").read_bytes() == before


def test_the_command_line_checks_every_sweep_and_adopts_a_run(tmp_path, monkeypatch, capsys):
    assert committed.main(["check"]) == 0
    assert capsys.readouterr().out == (
        "study: current\nstudy-budget: current\nstudy-extension: current\nstudy-hybrid: current\n"
        "realtext: current\n"
    )
    spec, new = committed_copy(tmp_path, monkeypatch)
    assert committed.main(["adopt", "realtext", str(new)]) == 0
    assert capsys.readouterr().out == (
        "adopted results.json\nadopted curves.json\nadopted training.json\n"
    )
    (new / "results.json").unlink()
    assert committed.main(["adopt", "realtext", str(new)]) == 1
    assert capsys.readouterr().out.startswith("adopt: results.json: missing from ")
