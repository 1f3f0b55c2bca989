"""Maintenance of the course notebooks.

    python tools/nbtools.py sync [NOTEBOOK ...]   write each text source (NN_name.md) into its .ipynb,
                                                  ruff-format the code and write it back to the text
    python tools/nbtools.py run [NOTEBOOK ...]    sync, then execute in a fresh kernel, write outputs
    python tools/nbtools.py sync-links [NB ...]   rewrite badges and Colab setup cells from pyproject
                                                  (the repository URL and the release tag)
    python tools/nbtools.py check [NB ...]        report stale, erroring or oversized notebooks

Without NOTEBOOK arguments every notebook under notebooks/ is processed. `make notebooks` runs
`sync-links` then `run`. The MyST markdown file beside each notebook is its source (jupytext
pairing, configured in pyproject.toml): edit the .md, never the .ipynb's cells.
"""

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import nbformat
import yaml  # PyYAML: a dependency of jupytext, so in every stack that runs these tools

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as pytest's dependency tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
# Every figure and widget twin is drawn at 2x so that it is sharp on high-density screens and when
# zoomed (issue 28); chapter 02's nine figures and six explorer twins then take 1.37 MB, most of it
# the sinusoidal explorer's 4,968-row table squeezed into a few hundred pixel rows (noise that
# compresses badly even at 32 colours). 1.5 MB keeps a chapter quick to open on Binder and Colab.
MAX_NOTEBOOK_BYTES = 1_500_000
MAX_TOTAL_BYTES = 5_000_000
BRANCH = "main"


def read_pyproject(path=ROOT / "pyproject.toml"):
    """Return pyproject.toml parsed by a TOML parser (tomllib)."""
    with open(path, "rb") as file:
        return tomllib.load(file)


def repository_url(pyproject=ROOT / "pyproject.toml"):
    """Return the repository URL from pyproject's [project.urls] (the one place it lives)."""
    url = read_pyproject(pyproject).get("project", {}).get("urls", {}).get("Repository")
    if not url:
        raise SystemExit(f'{pyproject}: no `Repository = "..."` under [project.urls]')
    return url.rstrip("/")


def release_tag(pyproject=ROOT / "pyproject.toml"):
    """Return the git tag of the release the notebooks are run with: ``v`` + pyproject's version.

    The Colab setup cell installs the library from this tag, so a chapter meets the library its
    committed outputs were made with, not whatever the default branch holds that day.
    """
    version = read_pyproject(pyproject).get("project", {}).get("version")
    if not version:
        raise SystemExit(f"{pyproject}: no `version = ...` under [project]")
    return f"v{version}"


def badge_line(notebook_name, url):
    """Return the Colab and Binder badges for one notebook, as a markdown line."""
    slug = url.removeprefix("https://github.com/")
    colab = (
        f"https://colab.research.google.com/github/{slug}/blob/{BRANCH}/notebooks/{notebook_name}"
    )
    binder = (
        f"https://mybinder.org/v2/gh/{slug}/{BRANCH}?urlpath=lab/tree/notebooks/{notebook_name}"
    )
    return (
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab}) "
        f"[![Launch Binder](https://mybinder.org/badge_logo.svg)]({binder})"
    )


COLAB_URL_RE = re.compile(
    r"https://colab\.research\.google\.com/github/[^/\s]+/[^/\s]+/blob/[^/\s]+/notebooks/([\w.]+)"
)
BINDER_URL_RE = re.compile(
    r"https://mybinder\.org/v2/gh/[^/\s]+/[^/\s?]+/[^?\s]+\?urlpath=lab/tree/notebooks/([\w.]+)"
)
BINDER_REPO_RE = re.compile(r"https://mybinder\.org/v2/gh/[^/\s]+/[^/\s?]+/[^?\s)]+(?=\))")


def rewrite_urls(text, url):
    """Point every Colab and Binder link in ``text`` (the README) at ``url``'s repository."""
    slug = url.removeprefix("https://github.com/")
    text = COLAB_URL_RE.sub(
        lambda m: f"https://colab.research.google.com/github/{slug}/blob/{BRANCH}/notebooks/{m[1]}",
        text,
    )
    text = BINDER_URL_RE.sub(
        lambda m: f"https://mybinder.org/v2/gh/{slug}/{BRANCH}?urlpath=lab/tree/notebooks/{m[1]}",
        text,
    )
    return BINDER_REPO_RE.sub(f"https://mybinder.org/v2/gh/{slug}/{BRANCH}", text)


BADGE_RE = re.compile(r"^\[!\[Open In Colab\].*$", re.M)
REPO_RE = re.compile(r'^(\s*REPO = )"[^"]*"', re.M)
RELEASE_RE = re.compile(r'^(\s*RELEASE = )"[^"]*"', re.M)


def environment_dependencies(text):
    """Return the conda entries under `dependencies:` of an environment.yml (names and pins).

    The pip section (a mapping inside the list) is not a conda entry and is left out.
    """
    return [entry for entry in yaml.safe_load(text)["dependencies"] if isinstance(entry, str)]


def notebooks(paths=()):
    return [Path(p) for p in paths] or sorted(NOTEBOOKS.glob("*.ipynb"))


def text_source(path):
    """Return the paired MyST markdown source of notebook ``path`` (same name, ``.md``)."""
    return Path(path).with_suffix(".md")


def cell_signature(nb):
    """List what a text source and its notebook must agree on.

    Each cell's type, source, tags and figure metadata (``mystnb``: alt text and caption), so an
    edit to any of them is synced.
    """
    return [
        (
            c.cell_type,
            c.source.strip(),
            tuple(c.get("metadata", {}).get("tags", [])),
            json.dumps(c.get("metadata", {}).get("mystnb"), sort_keys=True),
        )
        for c in nb.cells
    ]


def pair_problems(path):
    """Why notebook ``path`` and its text source disagree (empty list when they agree)."""
    import jupytext

    source = text_source(path)
    if not source.exists():
        return [f"{Path(path).name}: no text source {source.name} (jupytext pairing)"]
    if cell_signature(jupytext.read(source)) != cell_signature(nbformat.read(path, as_version=4)):
        return [
            f"{Path(path).name}: cells differ from {source.name}; run `python tools/nbtools.py sync` "
            f"(or `make notebooks`) after editing the text source"
        ]
    return []


#: Tags of code cells whose source starts folded: drawing code (its figure is what is read) and
#: the code of a going-deeper block.
FOLDED = {"hide-input", "going-deeper"}


def sync_from_text(path):
    """Write the cells of ``path``'s text source into the notebook, keeping matching outputs.

    Returns True when the notebook's cells changed.
    """
    import jupytext

    text = jupytext.read(text_source(path))
    nb = nbformat.read(path, as_version=4)
    if cell_signature(text) == cell_signature(nb):
        if fold(nb):  # the cells are the same; only their folding was missing
            nbformat.write(nb, path)
        return False
    old = {cell.source: cell for cell in nb.cells if cell.cell_type == "code"}
    for cell in text.cells:
        if cell.cell_type == "code" and cell.source in old:
            cell.outputs = old[cell.source].get("outputs", [])
            cell.execution_count = old[cell.source].get("execution_count")
    # jupytext gives every cell a new id; an unchanged cell keeps its old one, so that the
    # notebook's diff shows only the cells that changed.
    ids = defaultdict(list)
    for cell in nb.cells:
        if "id" in cell:
            ids[cell.cell_type, cell.source].append(cell.id)
    for cell in text.cells:
        if ids[cell.cell_type, cell.source]:
            cell.id = ids[cell.cell_type, cell.source].pop(0)
    nb.cells = text.cells
    fold(nb)
    nbformat.write(nb, path)
    return True


WIDGET = "application/vnd.jupyter.widget-view+json"


def foldable_output(cell):
    """Whether ``cell`` has outputs and none is a widget: printed lines, a figure, a source listing.

    An explorer (a widget view) is never folded: it must stay reachable by keyboard.
    """
    outputs = cell.get("outputs", [])
    return bool(outputs) and not any(WIDGET in out.get("data", {}) for out in outputs)


def fold(nb):
    """Fold in JupyterLab what the site folds: drawing code, and a going-deeper block's cells.

    Both start with their source collapsed. A going-deeper cell's output starts collapsed too,
    unless it is an explorer (`foldable_output`): the block's prose is folded away, and its
    printout, figure or source listing would otherwise stand on the core path without it
    (hundreds of printed lines in chapters 06 and 07, ten figures in chapter 02). Returns True
    when a cell's metadata changed.
    """
    changed = False
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.cell_type != "code" or not FOLDED & tags:
            continue
        state = cell.metadata.setdefault("jupyter", {})
        wanted = {"source_hidden": True}
        if "going-deeper" in tags and foldable_output(cell):
            wanted["outputs_hidden"] = True
        if state != wanted:
            cell.metadata["jupyter"] = wanted
            changed = True
    return changed


def format_code(path):
    """Sort imports and format the notebook's code cells with ruff, as `make test` checks them.

    The formatted code is written back into the text source, so the pair stays in step.
    """
    import subprocess

    import jupytext

    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "-q", "--select", "I", "--fix", str(path)], check=False)
    subprocess.run([*ruff, "format", "-q", str(path)], check=True)
    nb = nbformat.read(path, as_version=4)
    if cell_signature(jupytext.read(text_source(path))) != cell_signature(nb):
        jupytext.write(nb, text_source(path), fmt="md:myst")


def sync_links(nb, name, url, release=None):
    """Rewrite badge lines and the setup cell's REPO and RELEASE lines in ``nb``.

    ``release`` is the tag the setup cell installs (`release_tag` when None). Returns True when
    anything changed.
    """
    release = release or release_tag()
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            new = BADGE_RE.sub(lambda _: badge_line(name, url), cell.source)
        elif cell.cell_type == "code":
            new = REPO_RE.sub(lambda m: f'{m.group(1)}"{url}"', cell.source)
            new = RELEASE_RE.sub(lambda m: f'{m.group(1)}"{release}"', new)
        else:
            continue
        changed |= new != cell.source
        cell.source = new
    return changed


def link_problems(nb, name, url, release=None):
    """List what in ``nb`` disagrees with the repository URL and release (empty when all agree)."""
    release = release or release_tag()
    text = "\n".join(c.source for c in nb.cells)
    problems = []
    badges = BADGE_RE.findall(text)
    if badges != [badge_line(name, url)]:
        problems.append(f"{name}: expected one badge line {badge_line(name, url)!r}, got {badges}")
    setup = [c for c in nb.cells if c.cell_type == "code" and "google.colab" in c.source]
    if not setup:
        problems.append(f"{name}: no setup cell with a Colab branch")
    for cell in setup:
        repos = REPO_RE.findall(cell.source)
        if f'"{url}"' not in cell.source or len(repos) != 1:
            problems.append(f"{name}: the setup cell's REPO line does not say {url}")
        releases = RELEASE_RE.findall(cell.source)
        if f'RELEASE = "{release}"' not in cell.source or len(releases) != 1:
            problems.append(f"{name}: the setup cell's RELEASE line does not say {release}")
    return problems


def run_problems(nb, name):
    """Why ``nb`` is not as a fresh top-to-bottom run leaves it (empty list when it is)."""
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    counts = [c.get("execution_count") for c in code]
    problems = []
    if counts != list(range(1, len(code) + 1)):
        problems.append(f"{name}: execution counts {counts[:10]} are not 1..{len(code)}")
    for cell in code:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{name}: error output {out.get('ename')}: {out.get('evalue')}")
    return problems


NBVAL_TAGS = {"nbval-ignore-output", "nbval-skip", "nbval-check-output", "raises-exception"}


def exemption_problems(nb, name):
    """Cells that nbval treats specially (by tag) without a reason in ``nbval-reason`` metadata."""
    problems = []
    for index, cell in enumerate(nb.cells):
        tags = set(cell.get("metadata", {}).get("tags", [])) & NBVAL_TAGS
        if tags and len(cell.metadata.get("nbval-reason", "").split()) < 3:
            problems.append(f"{name}: cell {index} is tagged {sorted(tags)} with no nbval-reason")
    return problems


def size_problems(paths):
    problems = []
    sizes = {p.name: p.stat().st_size for p in paths}
    for name, size in sizes.items():
        if size > MAX_NOTEBOOK_BYTES:
            problems.append(f"{name}: {size:,} bytes, over the {MAX_NOTEBOOK_BYTES:,} limit")
    if sum(sizes.values()) > MAX_TOTAL_BYTES:
        problems.append(f"all notebooks: {sum(sizes.values()):,} bytes, over {MAX_TOTAL_BYTES:,}")
    return problems


def execute(path, timeout=600):
    """Run ``path`` top to bottom in a fresh kernel and write it back with its outputs."""
    import os

    from nbclient import NotebookClient

    os.environ["POSENC_CHECK_FIGURES"] = "1"  # every plt.show() checks the house style
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(Path(path).parent)}},
        store_widget_state=False,
        record_timing=False,
    )
    client.execute()
    nb.metadata.pop("widgets", None)
    fold(nb)  # a text-only going-deeper output starts collapsed (`fold`)
    nbformat.write(nb, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["run", "sync", "sync-links", "check"])
    parser.add_argument("notebooks", nargs="*")
    args = parser.parse_args(argv)
    paths = notebooks(args.notebooks)
    url = repository_url()
    if args.command == "sync-links":
        readme = ROOT / "README.md"
        if rewrite_urls(readme.read_text(), url) != readme.read_text():
            readme.write_text(rewrite_urls(readme.read_text(), url))
            print("updated links in README.md")
        import jupytext

        for path in paths:  # the text source is what maintainers edit; `sync` carries it over
            source = text_source(path)
            nb = jupytext.read(source)
            if sync_links(nb, path.name, url):
                jupytext.write(nb, source, fmt="md:myst")
                print(f"updated links in {source.name}")
    if args.command in ("sync-links", "sync", "run"):
        for path in paths:
            if sync_from_text(path):
                print(f"wrote {text_source(path).name} into {path.name}")
            format_code(path)
    if args.command == "run":
        for path in paths:
            print(f"running {path.name} ...", flush=True)
            execute(path)
    problems = []
    if rewrite_urls((ROOT / "README.md").read_text(), url) != (ROOT / "README.md").read_text():
        problems.append("README.md: Colab/Binder links disagree with the repository URL")
    fresh = args.command in ("run", "check")  # freshness and size are for `run` and `check`
    if fresh:
        problems += size_problems(paths)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        problems += link_problems(nb, path.name, url) + pair_problems(path)
        problems += exemption_problems(nb, path.name)
        if fresh:
            problems += run_problems(nb, path.name)
    print("\n".join(problems) or f"{len(paths)} notebooks are fresh, linked and within size")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
