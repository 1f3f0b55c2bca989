"""The committed data of chapters 06 and 07 are what the code makes, checked two ways, in seconds.

- Provenance: every committed file records its settings, the versions that made it and a hash of
  the code that produces it (`posenc_lib.sweep.code_hash`); when that code or the settings change
  and the data were not regenerated, the test names the file and the command that regenerates it.
- Retrain and compare: a sample of committed cells is made again here, exactly (the model trains
  in float64, so the numbers do not depend on the machine beyond rounding): one study model
  trained from scratch, its records and curve; the study's witness RoPE model (its trained
  parameters are committed beside the data) re-scored, and its NTK context extension fine-tuned
  again; chapter 07's witness re-scored in both modes, records and curves.
"""

import numpy as np
import pytest

from posenc_lib import experiments, realtext, sweep
from posenc_lib.corpus import load_corpus
from posenc_lib.model import TrainResult, evaluate_positions
from posenc_lib.tasks import TASKS

SWEEPS = {"study": experiments.STUDY, "realtext": realtext.REALTEXT}


def same_values(made, committed, *, curve_digits=None):
    """Records equal field by field; values to float64 rounding, curve totals to their digits."""
    assert len(made) == len(committed)
    for a, b in zip(made, committed, strict=True):
        assert {k: v for k, v in a.items() if k not in ("value", "totals")} == {
            k: v for k, v in b.items() if k not in ("value", "totals")
        }
        if "value" in a:
            assert (a["value"] is None) == (b["value"] is None), (a, b)
            if a["value"] is not None:
                assert a["value"] == pytest.approx(b["value"], rel=1e-9, abs=1e-12), (a, b)
        if "totals" in a:
            tolerance = 0 if curve_digits == 0 else 1.5 * 10.0**-curve_digits
            np.testing.assert_allclose(a["totals"], b["totals"], rtol=0, atol=tolerance)


# -- provenance ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SWEEPS)
def test_every_committed_file_records_its_settings_versions_and_code(name):
    spec = SWEEPS[name]
    for file in spec.files:
        stamp = sweep.load_provenance(spec.directory / f"{file}.json")
        assert stamp is not None, f"{file}.json has no provenance"
        assert stamp["sweep"] == name
        assert set(stamp["versions"]) == {"posenc_lib", "python", "numpy", "autograd"}
        assert len(stamp["code"]["sha256"]) == 64 and stamp["code"]["definitions"] > 50
        assert stamp["settings"]["options"]["steps"] == spec.options["steps"]


@pytest.mark.parametrize("name", SWEEPS)
def test_the_committed_data_were_made_by_the_code_and_settings_as_they_are(name):
    spec = SWEEPS[name]
    problems = sweep.stale_provenance(spec)
    assert not problems, (
        f"the committed data of {spec.module} are stale; regenerate them with "
        f"`python -m {spec.module} --out posenc_lib/data/{name} --fresh`:\n" + "\n".join(problems)
    )


@pytest.mark.parametrize("name", SWEEPS)
def test_stale_provenance_names_each_file_and_field_that_no_longer_matches(
    name, tmp_path, monkeypatch
):
    spec = SWEEPS[name]
    directory = tmp_path / spec.name
    directory.mkdir()
    now = sweep.provenance(spec, spec.options)  # what the code and settings make today
    for file in spec.files:
        sweep.write_records(directory / f"{file}.json", [], now)
    assert sweep.stale_provenance(spec, directory) == []
    first, *_, last = spec.files  # every sweep writes two files or more
    (directory / f"{first}.json").write_text("[]")  # a plain list: no provenance at all
    old = {
        **now,
        "code": {**now["code"], "sha256": "0" * 64},
        "settings": {**now["settings"], "options": {**spec.options, "steps": 1}},
    }
    sweep.write_records(directory / f"{last}.json", [], old)
    problems = sweep.stale_provenance(spec, directory)
    assert [p.split(" ")[:2] for p in problems] == [
        [f"{first}.json:", "no"],
        [f"{last}.json:", "code"],
        [f"{last}.json:", "settings"],
    ]
    assert problems[0] == f"{first}.json: no provenance"
    assert problems[1].endswith(f"!= now {now['code']}")
    monkeypatch.setattr(sweep, "DATA", tmp_path)  # the default directory: DATA / the sweep's name
    assert sweep.stale_provenance(spec) == problems
    inputs = {**now, "inputs": {"corpus.json.gz": "0" * 64}}
    sweep.write_records(directory / f"{last}.json", [], inputs)
    assert sweep.stale_provenance(spec, directory)[1].startswith(f"{last}.json: inputs ")


@pytest.fixture
def library_copy(tmp_path):
    import shutil

    shutil.copytree(
        sweep.DATA.parent, tmp_path / "posenc_lib", ignore=shutil.ignore_patterns("data", "*.pyc")
    )
    return tmp_path


def edit(root, module, old, new):
    path = root / "posenc_lib" / f"{module}.py"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        # the mutations of issue 25 that change how the data are made
        (
            "sweep",
            '"totals": [round(float(v), digits) if digits',
            '"totals": [round(float(v)) if digits',
        ),
        ("rope", "head_dim", "d_model"),
        ("corpus", "bits = array / math.log(2)", "bits = array"),
        (
            "sweep",
            'start = 0 if region == "all" else train_len',
            'start = 0 if region == "all" else train_len + 1',
        ),
        (
            "model",
            "sinusoidal_positions(t, config.d_model, base=config.base",
            "sinusoidal_positions(t, config.d_model, base=100.0",
        ),
    ],
)
def test_a_change_to_the_code_that_makes_the_numbers_changes_the_code_hash(
    library_copy, module, old, new
):
    roots = experiments.STUDY.code_roots + realtext.REALTEXT.code_roots
    before = sweep.code_hash(roots, root=library_copy)
    if module == "rope":  # ntk_base from d_model: the call in the study's extension table
        module, old, new = (
            "experiments",
            "ntk_base(config.base, factor, config.head_dim)",
            ("ntk_base(config.base, factor, config.d_model)"),
        )
    edit(library_copy, module, old, new)
    assert sweep.code_hash(roots, root=library_copy) != before


def test_tables_plots_comments_and_docstrings_do_not_change_the_code_hash(library_copy):
    roots = experiments.STUDY.code_roots + realtext.REALTEXT.code_roots
    before = sweep.code_hash(roots, root=library_copy)
    edit(
        library_copy,
        "experiments",
        'f"{task}, {region} positions at L={eval_len}',
        'f"{task} -- {region} positions at L={eval_len}',
    )
    edit(
        library_copy,
        "plots",
        "alpha=0.15,\n                lw=0,",
        "alpha=0.25,\n                lw=0,",
    )
    edit(library_copy, "model", "DTYPE = np.float64", "DTYPE = np.float64  # a new comment")
    edit(library_copy, "model", '"""A tiny causal transformer', '"""A small causal transformer')
    assert sweep.code_hash(roots, root=library_copy) == before


def test_normalized_source_ignores_comments_docstrings_and_layout_but_not_code():
    import ast

    def norm(text):
        return sweep.normalized_source(text, ast.parse(text).body[0])

    base = "def f(x):\n    return x + 1\n"
    assert norm(base) == norm(
        'def f(x):\n    """Doc."""\n    # a comment\n\n    return x + 1  # more\n'
    )
    wrapped = "def f(x):\n    return x + (\n        1\n    )\n"
    assert norm(wrapped) == norm("def f(x):\n    return x + (1)\n")  # line breaks inside ()
    assert norm(base) != norm("def f(x):\n    return x + 2\n")
    assert norm('def f():\n    return f"{a} b"\n') != norm('def f():\n    return f"{a} c"\n')


# -- retrain and compare ------------------------------------------------------------------------


def committed_study():
    return experiments.load_study()


def study_job(task, scheme, *, extension=False):
    full = experiments.FULL
    (job,) = experiments.study_jobs(
        [task],
        [scheme],
        [0],
        configs=[experiments.DEFAULT_CONFIG],
        steps=full["steps"],
        train_len=full["train_len"],
        eval_lens=full["eval_lens"],
        n_tokens=full["n_tokens"],
        extension=extension,
    )
    return job


def committed_of(records, job, **more):
    return experiments.select(
        records,
        task=job["task"],
        scheme=job["scheme"],
        config=job["config"],
        seed=job["seed"],
        region=None,
        **more,
    )


def test_a_study_model_trained_again_reproduces_its_committed_records_and_curve():
    records, curves, _ = committed_study()
    job = study_job("markov", "sinusoidal")  # a loss task: curve totals with 6 decimals
    out = sweep.one_blas_thread(experiments.train_and_measure, job)
    same_values(out["records"], committed_of(records, job))
    same_values([out["curve"]], committed_of(curves, job), curve_digits=6)


def test_the_study_witness_reproduces_its_records_curve_and_ntk_extension():
    records, curves, extension = committed_study()
    job = study_job("lookback-3", "rope", extension=True)
    path = sweep.witness_path(experiments.STUDY.directory, job)
    assert sweep.is_witness(experiments.STUDY, job) and path.exists(), path
    params = dict(np.load(path))
    task = TASKS[job["task"]]()
    config = experiments.make_config(task, "rope", job["config"], train_len=job["train_len"])
    scored = {
        (n,): evaluate_positions(params, config, task, n, n_tokens=job["n_tokens"])
        for n in job["eval_lens"]
    }
    base = {k: job[k] for k in experiments.RECORD_FIELDS}
    made = sweep.region_records(base, scored, job["train_len"], task.metric)
    same_values(made, committed_of(records, job))
    longest = max(job["eval_lens"])
    curve = sweep.curve_record(
        base, {"eval_len": longest}, task.metric, *scored[(longest,)], digits=0
    )
    same_values([curve], committed_of(curves, job), curve_digits=0)
    options = {k: v for k, v in experiments.EXTENSION.items() if k != "tasks"}
    ntk = sweep.one_blas_thread(
        lambda _: experiments.context_extension_records(
            TrainResult(config, params, [], {}),
            task,
            seed=job["seed"],
            config_name=job["config"],
            methods=["ntk"],
            **options,
        ),
        job,
    )
    same_values(ntk, committed_of(extension, job, method="ntk"))


def test_the_real_text_witness_reproduces_its_records_and_curves_in_both_modes():
    records, curves = realtext.load_sweep()
    (job,) = realtext.sweep_jobs(
        ["sinusoidal"],
        [0],
        **{k: realtext.FULL[k] for k in ("steps", "train_len", "eval_lens", "n_scored")},
    )
    path = sweep.witness_path(realtext.REALTEXT.directory, job)
    assert sweep.is_witness(realtext.REALTEXT, job) and path.exists(), path
    params = dict(np.load(path))
    config = realtext.model_config("sinusoidal", train_len=job["train_len"])
    ids = realtext.evaluation_ids(load_corpus().validation, job["start"])
    sample = (job["train_len"], 2 * job["train_len"], max(job["eval_lens"]))
    bits = {
        (n, mode): realtext.char_bits(
            params,
            config,
            *realtext.windows(ids, n, mode, n_scored=job["n_scored"], start=job["start"]),
        )
        for n in sample
        # both modes at twice the training length, where both have an unseen region
        for mode in (realtext.MODES if n == sample[1] else ("nonoverlapping",))
    }
    scored = {key: realtext.position_sums(b) for key, b in bits.items()}
    base = {k: job[k] for k in realtext.RECORD_FIELDS}
    made = sweep.region_records(base, scored, job["train_len"], realtext.METRIC, keys=("mode",))
    committed = [r for r in committed_of(records, job) if (r["eval_len"], r["mode"]) in scored]
    same_values(made, committed)
    made_curves = [
        sweep.curve_record(
            base,
            {"eval_len": n, "mode": "nonoverlapping"},
            realtext.METRIC,
            *scored[n, "nonoverlapping"],
            digits=3,
        )
        for n in (job["train_len"], max(sample))
    ]
    committed_curves = [dict(c) for c in committed_of(curves, job)]
    # the long chunks' extra bits over the same characters in chunks of the training length
    longest, short = bits[max(sample), "nonoverlapping"], bits[job["train_len"], "nonoverlapping"]
    excess = (longest.ravel() - short.ravel()).reshape(-1, max(sample)).sum(0)
    np.testing.assert_allclose(excess, committed_curves[-1].pop("excess"), rtol=0, atol=1.5e-3)
    same_values(made_curves, committed_curves, curve_digits=3)


def test_a_built_wheel_carries_every_committed_data_file():
    """Package data (pyproject.toml) covers every file under posenc_lib/data, so an installed
    package (Colab, an empty directory) finds the committed sweeps: load_study() reads them."""
    import fnmatch

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    root = sweep.DATA.parent
    with open(root.parent / "pyproject.toml", "rb") as file:
        patterns = tomllib.load(file)["tool"]["setuptools"]["package-data"]["posenc_lib"]
    files = [
        p.relative_to(root).as_posix()
        for p in sweep.DATA.rglob("*")
        if p.is_file() and p.name not in ("progress.jsonl", "results.png")
    ]
    assert any(f.startswith("data/study/") for f in files) and any(
        f.startswith("data/realtext/") for f in files
    )
    assert [f for f in files if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)] == []
