"""The experiment engine's own parts (posenc_lib.sweep): the command line a learner or teacher
types, and the process settings every worker takes. The sweeps themselves are tested through the
two chapters that use them (tests/test_experiments.py, tests/test_realtext.py,
tests/test_committed_data.py)."""

import os

import numpy as np
import pytest

from posenc_lib import experiments, realtext, sweep

HELP = {
    "out": "directory for the results",
    "quick": "seed 0 only",
    "tiny": "a seconds-long smoke run (tests)",
    "seeds": "seeds 0 .. N-1",
    "steps": "Adam steps per model",
    "workers": "local worker processes, one BLAS thread each",
    "backend": "loky: local processes; dask: a Dask cluster (pip install 'posenc-lib[cluster]')",
    "scheduler": "with --backend dask: the scheduler's address (default: a LocalCluster here)",
    "fresh": "discard DIR/progress.jsonl, start over",
    "no_progress": "no progress bar",
}


@pytest.mark.parametrize("spec", [experiments.STUDY, realtext.REALTEXT], ids=lambda s: s.name)
def test_the_command_line_says_what_each_option_does_and_defaults_to_the_committed_sweep(spec):
    parser = sweep.parser(spec, "The sweep.", "seed 0 only")
    assert parser.prog == f"python -m {spec.module}"
    assert parser.description == "The sweep."
    helps = {a.dest: a.help for a in parser._actions if a.dest != "help"}
    assert helps == HELP
    args = parser.parse_args(["--out", "x"])
    assert (args.seeds, args.steps) == (len(spec.options["seeds"]), spec.options["steps"])
    assert (args.quick, args.tiny, args.fresh, args.no_progress) == (False,) * 4
    assert (args.backend, args.scheduler) == ("loky", None)
    assert args.workers == min(2, os.cpu_count() or 1)
    flags = parser.parse_args(["--out", "x", "--quick", "--tiny", "--fresh", "--no-progress"])
    assert (flags.quick, flags.tiny, flags.fresh, flags.no_progress) == (True,) * 4
    numbers = parser.parse_args(["--out", "x", "--seeds", "5", "--steps", "7", "--workers", "3"])
    assert (numbers.seeds, numbers.steps, numbers.workers) == (5, 7, 3)
    with pytest.raises(SystemExit):  # --out is required
        parser.parse_args([])
    with pytest.raises(SystemExit):  # only the two backends
        parser.parse_args(["--out", "x", "--backend", "ray"])


class FakeLibc:
    """Records the mallopt calls a worker makes, and answers like glibc (1: accepted)."""

    def __init__(self, answer=1):
        self.calls, self.answer = [], answer

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return self.answer


def test_each_worker_asks_glibc_to_keep_freed_memory_without_trimming_or_separate_mappings(
    monkeypatch,
):
    import ctypes

    libc = FakeLibc()
    monkeypatch.setattr(sweep.platform, "system", lambda: "Linux")
    monkeypatch.setattr(sweep.platform, "libc_ver", lambda: ("glibc", "2.36"))
    monkeypatch.setattr(ctypes, "CDLL", lambda name: libc)
    assert sweep.keep_freed_memory() is True
    # <malloc.h>: M_TRIM_THRESHOLD = -1 (never trim), M_MMAP_MAX = -4 (0: no separate mappings)
    assert libc.calls == [(-1, 2**31 - 1), (-4, 0)]
    refused = FakeLibc(answer=0)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: refused)
    assert sweep.keep_freed_memory() is False
    for system, libc_name in [("Darwin", ""), ("Windows", ""), ("Linux", "musl")]:
        untouched = FakeLibc()
        monkeypatch.setattr(ctypes, "CDLL", lambda name, lib=untouched: lib)
        monkeypatch.setattr(sweep.platform, "system", lambda s=system: s)
        monkeypatch.setattr(sweep.platform, "libc_ver", lambda n=libc_name: (n, ""))
        assert sweep.keep_freed_memory() is False and untouched.calls == []


def test_a_worker_keeps_freed_memory_and_runs_its_job_on_one_blas_thread(monkeypatch):
    from threadpoolctl import threadpool_info

    kept = []
    monkeypatch.setattr(sweep, "keep_freed_memory", lambda: kept.append(True))

    def blas_threads(job):
        return job, {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    job, threads = sweep.one_blas_thread(blas_threads, {"n": 1})
    assert job == {"n": 1} and threads <= {1} and kept == [True]


# -- the code hash: what the committed data's provenance records --------------------------------
# A synthetic package in a temporary directory, so the tests hold for any copy of the library
# (mutation testing rewrites the library's own sources).

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
    return helper(helper(x)) * SCALE + c.value() + deep()


def unused():
    return 1
''',
    "b.py": "def helper(x):\n    return x + 1\n",
    "c.py": "def value():\n    return 3\n\n\ndef other():\n    return 4\n",
    "sub/d.py": "from .e import LIMIT\n\n\ndef deep():\n    return LIMIT\n",  # a subpackage
    "sub/e.py": "LIMIT: int = 5\n",  # an annotated constant
}


def package(tmp_path, **edits):
    """Write the synthetic package under tmp_path/pkg, with {file: (old, new)} edits applied."""
    (tmp_path / "pkg").mkdir(parents=True, exist_ok=True)
    for name, text in PACKAGE.items():
        old, new = edits.get(name.removesuffix(".py"), ("", ""))
        assert old in text
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text.replace(old, new, 1) if old else text)
    return tmp_path


def hash_of(tmp_path, **edits):
    return sweep.code_hash(["pkg.a:root"], root=package(tmp_path, **edits))


def test_the_code_hash_is_sha256_of_each_reached_definition_in_name_order(tmp_path):
    import ast
    import hashlib

    digest = hashlib.sha256()
    for module, name in [
        ("pkg.a", "SCALE"),
        ("pkg.a", "root"),
        ("pkg.b", "helper"),
        ("pkg.c", "value"),
        ("pkg.sub.d", "deep"),
        ("pkg.sub.e", "LIMIT"),
    ]:
        source = PACKAGE[module[4:].replace(".", "/") + ".py"]
        node = next(
            n
            for n in ast.parse(source).body
            if name
            in [getattr(n, "name", None), getattr(getattr(n, "target", None), "id", None)]
            + [t.id for t in getattr(n, "targets", [])]
        )
        digest.update(f"{module}:{name}\n{sweep.normalized_source(source, node)}\n".encode())
    assert hash_of(tmp_path) == {"sha256": digest.hexdigest(), "definitions": 6}


@pytest.mark.parametrize(
    "edit",
    [
        {"a": ("return helper(helper(x)) * SCALE", "return helper(helper(x)) / SCALE")},
        {"a": ("SCALE = 2", "SCALE = 3")},
        {"b": ("x + 1", "x + 2")},  # reached through `from .b import helper`
        {"c": ("return 3", "return 5")},  # reached through `from . import c` and c.value
        {"sub/e": ("LIMIT: int = 5", "LIMIT: int = 6")},  # through a subpackage's own import
    ],
    ids=["root", "constant", "imported-function", "module-attribute", "subpackage"],
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
        {"a": ("return helper(helper(x)) * SCALE", "return helper( helper( x ) )*SCALE")},  # layout
        {"a": ("return 1", "return 2")},  # a definition root does not reach
        {"c": ("return 4", "return 6")},  # another function of a module root uses
    ],
    ids=["comment", "docstring", "module-docstring", "layout", "unreached", "unreached-in-module"],
)
def test_comments_docstrings_layout_and_unreached_code_do_not_change_the_hash(tmp_path, edit):
    assert hash_of(tmp_path / "edited", **edit) == hash_of(tmp_path)


def test_normalized_source_keeps_tokens_and_indentation_and_drops_the_rest():
    import ast

    source = (
        "class K:\n"
        '    """Class doc."""\n'
        "    def f(self, x):  # trailing\n"
        "        '''Method doc.'''\n"
        "        y = (x +\n"
        "             1)\n"
        "        'a string statement, not a docstring'\n"
        '        return f"{y!r:>{x}}"\n'
    )
    node = ast.parse(source).body[0]
    assert sweep.normalized_source(source, node) == "\n".join(
        [
            "@0 class K :",
            "@4 def f ( self , x ) :",
            "@8 y = ( x + 1 )",
            "@8 'a string statement, not a docstring'",
            '@8 return f"{y!r:>{x}}"',
        ]
    )


def test_normalized_source_keeps_code_after_a_docstring_on_its_line_and_bodies_without_one():
    import ast

    source = 'def f():\n    "Doc."; return 1\n\n\ndef g():\n    pass\n'
    f, g = ast.parse(source).body
    assert sweep.normalized_source(source, f) == "@0 def f ( ) :\n@10 ; return 1"
    assert sweep.normalized_source(source, g) == "@0 def g ( ) :\n@4 pass"


# -- reading the records: per-position curves in bins --------------------------------------------


def test_binned_curves_pool_each_bin_then_spread_over_the_records():
    first = {"totals": [0, 2, 4, 1, 3, 3, 9], "counts": [0, 4, 4, 1, 0, 0, 9]}
    second = {"totals": [1, 1, 2, 2, 6, 0, 9], "counts": [2, 2, 1, 1, 6, 2, 9]}
    centres, mean, low, high = sweep.binned_curves([first, second], bin_width=2, missing=-1.0)
    # bins of positions (0, 1), (2, 3), (4, 5); position 6 is not a whole bin
    # first:  2/4 = 0.5, 5/5 = 1.0, no targets -> -1.0
    # second: 2/4 = 0.5, 4/2 = 2.0, 6/8 = 0.75
    assert centres.tolist() == [0.5, 2.5, 4.5]
    assert mean.tolist() == [0.5, 1.5, -0.125]
    assert low.tolist() == [0.5, 1.0, -1.0]
    assert high.tolist() == [0.5, 2.0, 0.75]
    one_target = {"totals": [3, 5], "counts": [1, 0]}  # a bin of one target is its value
    centres, mean, _, _ = sweep.binned_curves([one_target])  # default: one position per bin
    assert centres.tolist() == [0.0, 1.0]
    assert mean[0] == 3.0 and np.isnan(mean[1])  # missing defaults to NaN


def test_binned_curves_refuse_a_bin_width_below_one_naming_it():
    assert sweep.binned_curves([{"totals": [1], "counts": [1]}], bin_width=1)[1].tolist() == [1.0]
    with pytest.raises(
        ValueError, match=r"^binned_curves: bin_width must be an integer >= 1, got 0$"
    ):
        sweep.binned_curves([], bin_width=0)
    with pytest.raises(TypeError, match=r"^binned_curves: bin_width must be an integer, got 1.5$"):
        sweep.binned_curves([], bin_width=1.5)


# -- the chapters' entry points hand everything to the engine ------------------------------------


@pytest.mark.parametrize("module", [experiments, realtext], ids=["study", "realtext"])
def test_a_chapters_run_sweep_passes_its_sweep_directory_and_options_to_the_engine(
    module, monkeypatch
):
    calls = []
    monkeypatch.setattr(sweep, "run_sweep", lambda *args, **kwargs: calls.append((args, kwargs)))
    spec = experiments.STUDY if module is experiments else realtext.REALTEXT
    module.run_sweep("out")
    module.run_sweep("elsewhere", workers=3, backend="dask", progress=False, fresh=True, steps=5)
    defaults = {"workers": 2, "backend": "loky", "progress": True, "fresh": False}
    given = {"workers": 3, "backend": "dask", "progress": False, "fresh": True, "steps": 5}
    assert calls == [((spec, "out"), defaults), ((spec, "elsewhere"), given)]


def test_run_models_hands_its_jobs_workers_backend_and_progress_to_the_engine(monkeypatch):
    calls = []

    def run_jobs(jobs, runner, **kwargs):
        calls.append((jobs, runner, kwargs))
        return []

    monkeypatch.setattr(sweep, "run_jobs", run_jobs)
    assert realtext.run_models(("none",), steps=5) == ([], {})
    realtext.run_models(("rope",), (1, 2), workers=2, backend="dask", progress=False)
    (jobs, runner, defaults), (more_jobs, _, given) = calls
    assert jobs == realtext.sweep_jobs(("none",), (0,), steps=5) and runner is realtext._run
    assert defaults == {"workers": 1, "backend": "loky", "progress": True, "keep_models": True}
    assert more_jobs == realtext.sweep_jobs(("rope",), (1, 2))
    assert given == {"workers": 2, "backend": "dask", "progress": False, "keep_models": True}


def test_run_one_trains_the_study_job_with_the_studys_defaults(monkeypatch):
    calls = []

    def train_and_measure(job, **kwargs):
        calls.append((job, kwargs))
        return {"records": ["records"], "result": "model"}

    monkeypatch.setattr(experiments, "train_and_measure", train_and_measure)
    assert experiments.run_one("markov", "alibi", 3) == ["records"]
    assert experiments.run_one("markov", "alibi", 3, progress=True, keep_model=True) == (
        ["records"],
        "model",
    )
    (job, default), (_, asked) = calls
    assert job == experiments.study_jobs(["markov"], ["alibi"], [3])[0]
    assert (job["steps"], job["train_len"], job["config"]) == (400, 32, "4x8+mlp")
    assert (job["eval_lens"], job["n_tokens"]) == ([32, 64, 128, 256], 4096)
    assert default == {"progress": False} and asked == {"progress": True}
