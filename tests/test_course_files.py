"""The repository's own rules: notebooks committed fresh, small, linked to the one repository URL;
environment.yml in step with pyproject; the setup cell's Colab branch does its job."""

import re
import sys
import types
from pathlib import Path

import nbformat
import nbtools
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
URL = nbtools.repository_url()
RELEASE = nbtools.release_tag()


def read(path):
    return nbformat.read(path, as_version=4)


def tiny_notebook(counts=(1, 2), error=False):
    cells = [new_markdown_cell(nbtools.badge_line("x.ipynb", URL))]
    for n in counts:
        cell = new_code_cell(f"print({n})", execution_count=n)
        cell.outputs = [new_output("stream", name="stdout", text=f"{n}\n")]
        cells.append(cell)
    if error:
        cells[-1].outputs = [new_output("error", ename="ValueError", evalue="bad", traceback=[])]
    return new_notebook(cells=cells)


# -- the checks themselves can fail --------------------------------------------------------------


def test_a_fresh_notebook_passes_the_run_check():
    assert nbtools.run_problems(tiny_notebook(), "x.ipynb") == []


@pytest.mark.parametrize("counts", [(None, None), (2, 3), (1, 1), (1, 3)])
def test_a_stale_notebook_fails_the_run_check(counts):
    problems = nbtools.run_problems(tiny_notebook(counts), "x.ipynb")
    assert problems and "execution counts" in problems[0]


def test_an_error_output_fails_the_run_check():
    problems = nbtools.run_problems(tiny_notebook(error=True), "x.ipynb")
    assert any("error output ValueError: bad" in p for p in problems)


def test_oversized_notebooks_fail_the_size_check(tmp_path):
    big = tmp_path / "big.ipynb"
    big.write_bytes(b" " * (nbtools.MAX_NOTEBOOK_BYTES + 1))
    assert f"over the {nbtools.MAX_NOTEBOOK_BYTES:,} limit" in nbtools.size_problems([big])[0]
    many = []
    for i in range(6):
        path = tmp_path / f"n{i}.ipynb"
        path.write_bytes(b" " * 900_000)
        many.append(path)
    assert any("all notebooks" in p for p in nbtools.size_problems(many))


def test_a_stale_badge_fails_the_link_check():
    nb = tiny_notebook()
    nb.cells.append(
        new_code_cell(
            f'if "google.colab" in sys.modules:\n    REPO = "{URL}"\n    RELEASE = "{RELEASE}"'
        )
    )
    assert nbtools.link_problems(nb, "x.ipynb", URL) == []
    assert nbtools.link_problems(nb, "x.ipynb", "https://github.com/someone/else")
    assert "RELEASE line" in nbtools.link_problems(nb, "x.ipynb", URL, release="v9.9.9")[0]
    nb.cells[0].source = nbtools.badge_line("other.ipynb", URL)
    assert nbtools.link_problems(nb, "x.ipynb", URL)


def test_sync_links_rewrites_badges_and_the_setup_cell():
    nb = tiny_notebook()
    nb.cells.append(
        new_code_cell(
            'if "google.colab" in sys.modules:\n    REPO = "https://old"\n    RELEASE = "v0"'
        )
    )
    nb.cells[0].source = "# Title\n\n[![Open In Colab](old)](old)\n\nText."
    assert nbtools.sync_links(nb, "x.ipynb", URL)
    assert nbtools.link_problems(nb, "x.ipynb", URL) == []
    assert f'RELEASE = "{RELEASE}"' in nb.cells[-1].source
    assert nb.cells[0].source.startswith("# Title\n\n[![Open In Colab]")
    assert not nbtools.sync_links(nb, "x.ipynb", URL)


def test_a_text_source_that_differs_from_its_notebook_fails_the_pair_check(tmp_path):
    import jupytext

    path = tmp_path / "x.ipynb"
    nbformat.write(tiny_notebook(), path)
    before = [cell.id for cell in read(path).cells]
    jupytext.write(tiny_notebook(), nbtools.text_source(path), fmt="md:myst")
    assert nbtools.pair_problems(path) == []
    edited = tiny_notebook()
    edited.cells[1].source = "print(42)"
    jupytext.write(edited, nbtools.text_source(path), fmt="md:myst")
    assert "cells differ" in nbtools.pair_problems(path)[0]
    assert nbtools.sync_from_text(path)
    assert nbtools.pair_problems(path) == []
    assert read(path).cells[2].outputs, "an unchanged cell keeps its outputs"
    after = [cell.id for cell in read(path).cells]  # only the edited cell gets a new id
    assert [a == b for a, b in zip(before, after, strict=True)] == [True, False, True]
    nbtools.text_source(path).unlink()
    assert "no text source" in nbtools.pair_problems(path)[0]


def test_a_figure_description_added_to_the_text_source_reaches_the_notebook(tmp_path):
    """Alt text and caption live only in cell metadata: an edit to them alone is still a change
    that the pair check reports and `sync` carries into the notebook."""
    import jupytext

    path = tmp_path / "x.ipynb"
    nbformat.write(tiny_notebook(), path)
    described = tiny_notebook()
    described.cells[1].metadata["mystnb"] = {
        "image": {"alt": "A line rising from left to right"},
        "figure": {"caption": "It rises."},
    }
    jupytext.write(described, nbtools.text_source(path), fmt="md:myst")
    assert "cells differ" in nbtools.pair_problems(path)[0]
    assert nbtools.sync_from_text(path)
    assert read(path).cells[1].metadata["mystnb"] == described.cells[1].metadata["mystnb"]
    assert nbtools.pair_problems(path) == []


# -- the committed notebooks obey them ------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_is_a_fresh_run_without_errors(path):
    assert nbtools.run_problems(read(path), path.name) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_links_agree_with_the_repository_url(path):
    assert nbtools.link_problems(read(path), path.name, URL) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_matches_its_text_source(path):
    assert nbtools.pair_problems(path) == []


def test_committed_notebooks_are_within_size_limits():
    assert nbtools.size_problems(NOTEBOOKS) == []


def test_there_is_a_start_here_notebook_and_chapters_are_numbered():
    names = [p.name for p in NOTEBOOKS]
    assert names[0] == "00_start_here.ipynb"
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", n) for n in names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_relative_notebook_links_resolve(path):
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    for target in re.findall(r"\]\(([^)#:]+\.ipynb)\)", text):
        assert (path.parent / target).exists(), f"{path.name} links to missing {target}"


def test_start_here_links_every_chapter():
    text = "\n".join(c.source for c in read(NOTEBOOKS[0]).cells)
    for path in NOTEBOOKS[1:]:
        assert f"]({path.name})" in text, f"00_start_here does not link {path.name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_exercise_starter_in_a_notebook_is_the_librarys(path):
    from posenc_lib.exercises import all_exercises

    chapter = "ch" + path.name[:2]
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "code")
    for module, exercise in all_exercises():
        if module == chapter and exercise.starter:
            assert exercise.starter.strip() in text, (
                f"{exercise.name}'s starter is not in {path.name}"
            )


# -- the Colab branch of every setup cell -----------------------------------------------------------


def setup_cell(path):
    """The setup cell as its text source has it (the .ipynb follows at `make notebooks`)."""
    import jupytext

    cells = jupytext.read(nbtools.text_source(path)).cells
    return next(c.source for c in cells if "google.colab" in c.source)


def test_the_release_tag_is_the_pyproject_version():
    assert "v" + nbtools.read_pyproject()["project"]["version"] == RELEASE


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_installs_and_enables_widgets_on_colab(path, monkeypatch):
    calls = []
    colab = types.ModuleType("google.colab")
    colab.output = types.SimpleNamespace(
        enable_custom_widget_manager=lambda: calls.append("widgets")
    )
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    import subprocess

    monkeypatch.setattr(subprocess, "run", lambda cmd, check: calls.append(cmd))
    monkeypatch.delenv("POSENC_PACKAGE", raising=False)
    exec(setup_cell(path), {})
    install, widgets = calls[0], calls[1]
    assert install[:4] == [sys.executable, "-m", "pip", "install"]
    assert install[-1] == f"git+{URL}@{RELEASE}", "pinned to the release the outputs were made with"
    assert widgets == "widgets"
    monkeypatch.setenv("POSENC_PACKAGE", "/tmp/posenc_lib-0-py3-none-any.whl")
    exec(setup_cell(path), {})
    assert calls[2][-1] == "/tmp/posenc_lib-0-py3-none-any.whl", "a test installs its own wheel"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_is_silent_and_installs_nothing_elsewhere(path, monkeypatch, capsys):
    import subprocess

    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("installed off Colab"))
    exec(setup_cell(path), {})
    assert capsys.readouterr().out == ""


# -- environment.yml ---------------------------------------------------------------------------------


def requirement_names(lines):
    return {re.split(r"[<>=! ;\[]", line.strip(), maxsplit=1)[0].lower() for line in lines}


def pyproject_dependencies():
    return nbtools.read_pyproject()["project"]["dependencies"]


def binder_dependencies():
    """What Binder's JupyterLab needs: the runtime dependencies and the ``lab`` extra."""
    lab = nbtools.read_pyproject()["project"]["optional-dependencies"]["lab"]
    return [*pyproject_dependencies(), *lab]


def conda_dependencies(text):
    return nbtools.environment_dependencies(text)


def environment_mismatches(text):
    """Where environment.yml strays from pyproject and the newest stack.

    Every runtime requirement of pyproject and every requirement of its ``lab`` extra must be
    pinned (``name==version``) at a version its bounds allow, and at the version
    requirements/constraints.txt pins for the newest Python. (No local requirement:
    tests/test_binder.py checks that; postBuild installs the course.)
    """
    from packaging.requirements import Requirement

    conda = {re.split(r"[<>=! ]", e, maxsplit=1)[0].lower(): e for e in conda_dependencies(text)}
    problems = []
    for line in binder_dependencies():
        requirement = Requirement(line)
        entry = conda.get(requirement.name.lower())
        pin = re.fullmatch(rf"{re.escape(requirement.name)}==([\w.]+)", entry or "", re.I)
        if not pin:
            problems.append(f"lacks a pin name==version for {line!r} (got {entry!r})")
        elif not requirement.specifier.contains(pin[1], prereleases=True):
            problems.append(f"pins {entry!r} outside pyproject's {line!r}")
        elif pin[1] != newest_pins().get(requirement.name.lower(), pin[1]):
            problems.append(
                f"pins {entry!r}, the newest stack has {newest_pins()[requirement.name.lower()]}"
            )
    missing = {"jupyterlab", "pip", "python"} - set(conda)
    problems += [f"lacks {name!r}" for name in sorted(missing)]
    return problems


def newest_pins():
    """requirements/constraints.txt's pins for the newest Python (markers evaluated for 3.13)."""
    from packaging.requirements import Requirement

    pins = {}
    for line in (ROOT / "requirements" / "constraints.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        requirement = Requirement(line)
        if requirement.marker and not requirement.marker.evaluate(
            {"python_full_version": "3.13.0", "python_version": "3.13", "sys_platform": "linux"}
        ):
            continue
        pins[requirement.name.lower()] = str(requirement.specifier).removeprefix("==")
    return pins


def test_environment_yml_pins_every_runtime_dependency_as_the_newest_stack_has_it():
    assert environment_mismatches((ROOT / "environment.yml").read_text()) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("numpy==2.5.5", "numpy>=1.23"),
        ("numpy==2.5.5", "numpy==1.20.0"),
        ("numpy==2.5.5", "numpy==2.4.6"),
        ("  - tqdm==4.70.1\n", ""),
        ("  - jupyterlab==4.6.6\n", ""),
        ("jupyterlab==4.6.6", "jupyterlab==3.6.8"),
    ],
)
def test_a_mismatched_environment_yml_is_caught(old, new):
    text = (ROOT / "environment.yml").read_text()
    assert old in text
    assert environment_mismatches(text.replace(old, new))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_nbval_exemption_says_why(path):
    """Exemptions are cell tags (out of the learner's view), each with its reason in the metadata."""
    for cell in read(path).cells:
        assert "# NBVAL_" not in cell.source, f"{path.name}: use the nbval cell tags, not comments"
    assert nbtools.exemption_problems(read(path), path.name) == []


def test_an_exemption_without_a_reason_is_caught():
    cell = new_code_cell("print(1)", metadata={"tags": ["nbval-ignore-output"]})
    assert nbtools.exemption_problems(new_notebook(cells=[cell]), "x.ipynb")
    cell.metadata["nbval-reason"] = "a widget's display text holds its model id"
    assert not nbtools.exemption_problems(new_notebook(cells=[cell]), "x.ipynb")


# -- every figure is described: alt text and a caption ----------------------------------------------


def figure_description_problems(nb, name):
    """Code cells with an image output whose ``mystnb`` metadata lacks alt text or a caption (the
    figure convention of tools/sitetools.py: the site renders them as <img alt> and <figcaption>)."""
    problems = []
    for index, cell in enumerate(nb.cells):
        images = [
            key
            for out in cell.get("outputs", [])
            for key in out.get("data", {})
            if key.startswith("image/")
        ]
        if cell.cell_type != "code" or not images:
            continue
        meta = cell.metadata.get("mystnb", {})
        for key, field in (("image", "alt"), ("figure", "caption")):
            if not str(meta.get(key, {}).get(field, "")).strip():
                problems.append(f"{name}: cell {index} draws a figure without mystnb.{key}.{field}")
    return problems


def test_a_figure_without_alt_text_or_caption_is_caught():
    cell = new_code_cell("plot()", execution_count=1)
    cell.outputs = [
        new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": ""})
    ]
    nb = new_notebook(cells=[new_markdown_cell("# Title"), cell])
    assert len(figure_description_problems(nb, "x.ipynb")) == 2
    cell.metadata["mystnb"] = {"image": {"alt": "Two waves, one fast"}, "figure": {"caption": " "}}
    assert figure_description_problems(nb, "x.ipynb") == [
        "x.ipynb: cell 1 draws a figure without mystnb.figure.caption"
    ]
    cell.metadata["mystnb"]["figure"]["caption"] = "The fast wave repeats every 6 positions."
    assert figure_description_problems(nb, "x.ipynb") == []
    cell.outputs = [new_output("stream", name="stdout", text="no figure\n")]
    del cell.metadata["mystnb"]
    assert figure_description_problems(nb, "x.ipynb") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_alt_text_and_a_caption(path):
    assert figure_description_problems(read(path), path.name) == []


# -- every figure is drawn at 2x and shown at 1x ----------------------------------------------------


def blurry_figures(nb, name):
    """Image outputs drawn with fewer than two pixels per pixel shown, or with no size to show them
    at (``metadata["image/png"]`` width and height, which JupyterLab and myst-nb apply).

    A widget's static twin (``explorer.snapshot_at(...)``, drawn by posenc_lib/widgets) is left
    out: `LiveFigure.snapshot` still returns 1x frames.
    """
    import base64

    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or ".snapshot_at(" in cell.source:
            continue
        for out in cell.get("outputs", []):
            if "image/png" not in out.get("data", {}):
                continue
            png = base64.b64decode(out["data"]["image/png"])
            width = int.from_bytes(png[16:20], "big")
            shown = out.get("metadata", {}).get("image/png", {})
            if not (shown.get("width") and shown.get("height")):
                problems.append(f"{name}: cell {index}'s figure has no width and height to show")
            elif width < 2 * shown["width"]:
                problems.append(
                    f"{name}: cell {index}'s figure is {width} px wide, shown at {shown['width']}"
                )
    return problems


def test_a_figure_at_1x_is_caught():
    import base64

    from matplotlib.figure import Figure

    from posenc_lib.plots import _notebook_png, figure_png

    fig = Figure(figsize=(3, 2), dpi=72)
    fig.add_subplot().plot([0, 1, 2], [0, 1, 0])
    data, metadata = _notebook_png(fig)
    cell = new_code_cell("plot()", execution_count=1)
    cell.outputs = [
        new_output("display_data", data={"image/png": data}, metadata={"image/png": metadata})
    ]
    nb = new_notebook(cells=[cell])
    assert blurry_figures(nb, "x.ipynb") == []
    assert metadata["width"] < 3 * 72 and metadata["height"] < 2 * 72  # cropped tight, as inline
    png, _ = figure_png(fig, density=1)
    cell.outputs[0]["data"]["image/png"] = base64.b64encode(png).decode()
    width = int.from_bytes(png[16:20], "big")  # the same figure at 1x
    assert blurry_figures(nb, "x.ipynb") == [
        f"x.ipynb: cell 0's figure is {width} px wide, shown at {metadata['width']}"
    ]
    cell.outputs[0]["metadata"] = {}
    assert blurry_figures(nb, "x.ipynb") == [
        "x.ipynb: cell 0's figure has no width and height to show"
    ]
    cell.source = "twin.snapshot_at(m=3)"
    assert blurry_figures(nb, "x.ipynb") == []
    assert _notebook_png(Figure()) is None  # an empty figure shows nothing, as IPython's


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_is_drawn_at_twice_the_size_it_is_shown(path):
    assert blurry_figures(read(path), path.name) == []


def test_docs_claims_lists_every_claims_test():
    import claims

    assert (ROOT / "docs" / "claims.md").read_text() == claims.render(), (
        "docs/claims.md is out of date: run `python tools/claims.py`"
    )
    assert len(claims.claims()) >= 20


# -- README ----------------------------------------------------------------------------------------


def test_readme_states_the_courses_length_as_the_chapters_add_it_up():
    import sitetools

    minutes = [sitetools.chapter_info(p)["minutes"] for p in NOTEBOOKS]
    text = (ROOT / "README.md").read_text()
    total = sum(minutes)
    hours = f"{total // 60} hours" if total % 60 == 0 else f"{total // 60} h {total % 60} min"
    assert f"about {hours}" in text
    assert ", ".join(str(m) for m in minutes[:-1]) + f" and {minutes[-1]} minutes" in text
    import reading_time

    everything = sum(reading_time.stated(p.with_suffix(".md"))[1] for p in NOTEBOOKS)
    written = f"{everything // 60} h" + (f" {everything % 60} min" if everything % 60 else "")
    assert f"about {written} with every going-deeper block" in " ".join(text.split())


def test_readme_gives_a_learner_lab_first_and_test_only_as_a_contributors_check():
    text = (ROOT / "README.md").read_text()
    start = text.split("## Start", 1)[1].split("\n## ", 1)[0]
    assert "make lab" in start.split("```")[1] and "make test" not in start.split("```")[1]
    assert "py tools/course.py lab" in start and "conda env create" in start and "uv venv" in start
    assert "## Publish your copy" in text and "sync-links" in text.split("## Publish your copy")[1]


# -- the GitHub Actions workflows ----------------------------------------------------------------


def workflow(name):
    import yaml  # PyYAML: a dependency of jupytext, as tools/nbtools.py notes

    data = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    # YAML 1.1 reads the key `on` as True.
    return data, data.get("on", data.get(True))


CI_RUN = ROOT / ".ci" / "run"


def commands(script):
    """A shell script's command lines, comments and blank lines left out."""
    return [
        line.strip()
        for line in script.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


MARKERS = ("browser", "binder", "site", "slow")


def ci_stages():
    """.ci/run's stages, each as the command lines it runs, the shell functions it calls
    expanded into their bodies, and the script's variables (``NAME="value"``)."""
    text = CI_RUN.read_text()
    functions = {
        name: commands(body)
        for name, body in re.findall(r"^(\w+)\(\) \{\n(.*?)^\}", text, re.M | re.S)
    }
    variables = dict(re.findall(r'^([A-Z_]+)="([^"]*)"$', text, re.M))

    def expand(lines):
        out = []
        for line in lines:
            out += expand(functions[line]) if line in functions else [line]
        return out

    cases = text.split('case "$stage" in', 1)[1].split("esac", 1)[0]
    stages = {}
    for name, body in re.findall(r"^  ([\w|*]+)\)(.*?);;", cases, re.M | re.S):
        stages[name] = expand(commands(body))
    return stages, variables


def pytest_selections(lines, variables):
    """The (marker expression, paths) of each pytest a stage runs; ``make check`` and ``make
    test`` are tools/course.py's tiers."""
    import course

    selections = []
    for line in lines:
        if line in ("make check", "make test"):
            tier = "check" if line == "make check" else "test"
            pytest = course.test_commands("py", tier)[-1]
            options = pytest[pytest.index("pytest") + 1 :]  # after `python -m pytest`
            marker = options[options.index("-m") + 1] if "-m" in options else ""
            paths = [a for a in pytest if a in ("tests", "posenc_lib", "notebooks")]
            selections.append((marker, paths, "--nbval" in pytest))
        elif re.search(r"pytest", line, re.I):
            found = re.search(r'-m "\$(\w+)"', line)
            marker = variables[found[1]] if found else ""
            paths = [a for a in line.split() if a in ("tests", "posenc_lib", "notebooks")]
            selections.append((marker, paths, "NBVAL" in line))
    return selections


def selects(marker, markers):
    from _pytest.mark.expression import Expression

    return not marker or Expression.compile(marker).evaluate(lambda name: name in markers)


def uncovered(selections):
    """What no selection runs: each combination of the suite's markers on a test in tests/,
    an unmarked doctest in posenc_lib, and the notebooks under nbval."""
    import itertools

    combos = [set(c) for n in range(len(MARKERS) + 1) for c in itertools.combinations(MARKERS, n)]
    missing = [
        f"tests marked {sorted(c) or 'nothing'}"
        for c in combos
        if not any(selects(m, c) for m, paths, _ in selections if "tests" in paths)
    ]
    if not any(selects(m, set()) for m, paths, _ in selections if "posenc_lib" in paths):
        missing.append("posenc_lib's doctests")
    if not any(nbval and "notebooks" in paths for _, paths, nbval in selections):
        missing.append("the notebooks under nbval")
    return missing


def test_ci_runs_everything_make_test_runs_in_one_go_and_in_its_parallel_stages():
    stages, variables = ci_stages()
    assert set(stages) == {"all", "fast", "notebooks", "browser", "oldest", "newest", "*"}
    assert "make test" in stages["all"], "CI runs the README's test command"
    everything = [pytest_selections(stages["all"], variables)]
    parallel = [
        s
        for name in ("fast", "notebooks", "browser")
        for s in pytest_selections(stages[name], variables)
    ]
    assert uncovered(everything[0]) == []
    assert uncovered(parallel) == []
    assert stages["oldest"] == ["bash .ci/spread oldest 3.10"]
    assert stages["newest"] == ["bash .ci/spread newest 3.13"]
    assert stages["all"][-2:] == [stages["oldest"][0], stages["newest"][0]]
    # the training chapters with one BLAS thread, and the website, in both
    for name in ("all", "notebooks"):
        assert any(line.startswith("OPENBLAS_NUM_THREADS=1") for line in stages[name]), name
    for name in ("all", "browser"):
        assert "make site" in stages[name], name


def test_a_stage_that_leaves_tests_out_is_caught():
    missing = uncovered([("not browser and not slow", ["tests", "posenc_lib"], False)])
    assert "tests marked nothing" not in missing and "posenc_lib's doctests" not in missing
    assert {"tests marked ['slow']", "tests marked ['browser']"} <= set(missing)
    assert "the notebooks under nbval" in missing
    assert uncovered([("", ["notebooks"], True)])[-1] == "posenc_lib's doctests"


def test_ci_run_refuses_an_unknown_stage():
    import subprocess

    result = subprocess.run(["bash", str(CI_RUN), "everything"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown stage 'everything'; stages: all (the default), fast," in result.stderr


def test_ci_run_installs_chromium_and_axe_core_before_the_tests_that_need_them():
    """The browser tests (JupyterLab and website, axe-core included) are required in CI
    (POSENC_REQUIRE_BROWSER=1): Chromium and axe-core at its pinned version come first, in the
    stages that run them, and in no other."""
    stages, _ = ci_stages()
    for name, lines in stages.items():
        axe = [i for i, line in enumerate(lines) if line.startswith("npm ci --prefix tests/axe")]
        chromium = [
            i for i, line in enumerate(lines) if re.search(r"apt-get install .*\bchromium\b", line)
        ]
        required = [i for i, line in enumerate(lines) if line == "export POSENC_REQUIRE_BROWSER=1"]
        tests = [i for i, line in enumerate(lines) if line == "make test" or "PYTEST" in line]
        if name in ("all", "browser"):
            assert axe and chromium and required, name
            assert max(axe[0], chromium[0], required[0]) < min(tests), name
        else:
            assert not (axe or chromium or required), f"{name} installs a browser it does not use"


def test_the_ci_workflow_runs_each_stage_of_ci_run_in_parallel_on_every_push_and_pull_request():
    data, triggers = workflow("ci.yml")
    assert "push" in triggers and "pull_request" in triggers
    assert not (triggers["push"] or {}).get("branches"), "every branch, not only main"
    [job] = data["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    assert 0 < job["timeout-minutes"] <= 90  # the project's CI budget
    assert job["strategy"]["fail-fast"] is False  # one stage's failure does not hide another's
    matrix = job["strategy"]["matrix"]["include"]
    stages, _ = ci_stages()
    assert [m["stage"] for m in matrix] == [s for s in stages if s not in ("all", "*")]
    assert job["steps"][-1]["run"].strip() == "bash .ci/run ${{ matrix.stage }}"
    assert job["steps"][0]["uses"].startswith("actions/checkout@")


def test_the_ci_workflow_installs_with_uv_from_a_cache_and_chromium_only_where_needed():
    data, _ = workflow("ci.yml")
    [job] = data["jobs"].values()
    # Debian's chromium (Ubuntu's is a snap stub), which .ci/run installs as root where needed.
    assert "bookworm" in job["container"]["image"]
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "chromium" not in runs and "apt-get" not in runs, ".ci/run's browser stage installs it"
    assert job["env"]["CI_INSTALL"] == "uv"
    for script in (CI_RUN, ROOT / ".ci" / "spread"):
        assert (
            '"${CI_INSTALL:-}" = uv' in script.read_text()
            and "uv pip install" in script.read_text()
        )
    [setup] = [s for s in job["steps"] if s.get("uses", "").startswith("astral-sh/setup-uv@")]
    uv = re.search(r"^UV_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert setup["with"]["version"] == uv and setup["with"]["enable-cache"] is True
    assert "requirements/*.txt" in setup["with"]["cache-dependency-glob"]
    # the Pythons of the oldest and newest stages, as .ci/run calls .ci/spread
    stages, _ = ci_stages()
    pythons = {m["stage"]: m.get("python") for m in job["strategy"]["matrix"]["include"]}
    for name in ("oldest", "newest"):
        assert stages[name] == [f"bash .ci/spread {name} {pythons[name]}"]
    assert "uv python install ${{ matrix.python }}" in runs


def test_the_site_is_published_only_after_ci_passed_on_main():
    data, triggers = workflow("site.yml")
    assert "push" not in triggers, "a push would publish before CI has passed"
    assert triggers["workflow_run"] == {
        "workflows": [workflow("ci.yml")[0]["name"]],
        "types": ["completed"],
        "branches": ["main"],
    }
    build = data["jobs"]["build"]
    assert "github.event.workflow_run.conclusion == 'success'" in build["if"]
    assert "github.event.workflow_run.event == 'push'" in build["if"]
    checkout = build["steps"][0]
    assert checkout["with"]["ref"].startswith("${{ github.event.workflow_run.head_sha")
    assert "make site" in [step.get("run") for step in build["steps"]]
    assert data["jobs"]["deploy"]["needs"] == "build"


def test_pre_commit_runs_the_ruff_the_lock_pins():
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    [repo] = config["repos"]
    assert repo["repo"] == "https://github.com/astral-sh/ruff-pre-commit"
    assert repo["rev"] == "v" + newest_pins()["ruff"]
    assert [hook["id"] for hook in repo["hooks"]] == ["ruff-check", "ruff-format"]
    assert all("jupyter" in hook["types_or"] for hook in repo["hooks"])  # notebooks too
