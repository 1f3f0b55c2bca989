"""The course website: `make site` (or `python tools/sitetools.py build`).

Builds build/site/ from the committed, executed notebooks with Sphinx + myst-nb +
sphinx-book-theme, never executing a cell and never touching the network:

1. **stage**: build/site-src/ receives the pages of docs/ and every notebooks/NN_*.ipynb (never the
   paired NN_*.md text sources), plus two pages drawn from the notebooks themselves: the cheat
   sheet and the glossary (the sections of that name). Files are copied only when they changed, so
   a rebuild with nothing new takes seconds.
2. **sphinx-build** with docs/conf.py, warnings as errors.

This module is also the Sphinx extension docs/conf.py loads. While Sphinx reads a chapter it:

- replaces the notebook's Colab/Binder badge line (images from other hosts) with a launch bar of
  plain links: Binder, Colab (both from pyproject's one repository URL) and the .ipynb download;
- mounts every live explorer (a widget output carrying the ``application/vnd.posenc.live+json``
  state of posenc_lib's `LiveView`: chapters 00, 02, 04, 05) as a live figure: the same ES module
  that draws it in JupyterLab (posenc_lib/widgets/explorers.js, copied into _static/posenc/) runs
  in the page from that state, with no kernel (docs/_static/posenc-live.js); the static twins
  after it stay, for print and readers without JavaScript;
- replaces every other widget output (dead on a static page) with a note that it runs in
  JupyterLab, Binder or Colab, with the launch links;
- gives every figure alt text: the cell's ``mystnb.image.alt`` when the notebook has it (the
  figure convention, below), else a fallback naming the section, and counts the fallbacks;
- after the build, copies MathJax (from the sphinx-mathjax-offline package) into the site, so math
  renders with no CDN; a page without math loads none of it (myst-nb asks for it on every page);
- links every figure to its image file, so a tap opens it full size, and puts it in a box that
  scrolls sideways where a phone-sized screen would otherwise shrink it below 0.75 of its 1x size
  (`scroll_figures`; docs/_static/posenc.js names the box and makes it focusable when it scrolls);
- adds "Skip to the explorer", the second tab stop of a page with a live explorer
  (`explorer_skip_link`);
- writes a light copy of every page for the search's snippets, _search/NAME.html (prose only, math
  as text: `search_page`), and leaves the launch bar, the outputs and the widget notes out of the
  search index;
- writes a default that is a path inside the package as the package's own name for it
  (``path=CORPUS_FILE``, not ``PosixPath('/the/build/machine/...')``), and any other path in a
  page (a module constant's value) relative to the repository: no build path is published.

**Figure convention.** A code cell that draws a figure carries its alt text and caption in its cell
metadata, the keys myst-nb reads; in the MyST text source (notebooks/NN_name.md)::

    ```{code-cell} ipython3
    ---
    mystnb:
      image:
        alt: Heatmap of the sinusoidal table, positions 0-49 down, dimensions across ...
      figure:
        caption: Fast pairs on the left change every position; slow pairs on the right barely move.
        name: fig-sinusoidal-heatmap
    ---
    fig, ax = plt.subplots()
    ...
    ```

Jupyter ignores the keys; jupytext carries them into the .ipynb; the site renders the figure with
``<img alt=...>`` inside a ``<figure>`` with a ``<figcaption>``.
"""

import argparse
import copy
import filecmp
import html
import re
import shutil
import subprocess
import sys
import time
import zlib
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import nbtools  # noqa: E402

DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
STAGE = ROOT / "build" / "site-src"
OUT = ROOT / "build" / "site"
DOCTREES = ROOT / "build" / "site-doctrees"
CHAPTER_RE = re.compile(r"^(\d\d)_\w+\.ipynb$")
GENERATED = ("cheatsheet", "glossary")  # pages drawn from a chapter's sections
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
LIVE_MIME = "application/vnd.posenc.live+json"  # posenc_lib.widgets._front.MIME
LIVE_MODULE = ROOT / "posenc_lib" / "widgets" / "explorers.js"
PROGRESS_RE = re.compile(r"\d+%\|")
EXPLORER_ID = "posenc-explorer"  # the first live explorer of a page, the skip link's target
TIME_RE = re.compile(r"about (\d+) minutes")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*$", re.M)
BADGE_LINE_RE = re.compile(r"^\[!\[Open In Colab\]\(.*$\n?", re.M)
# The MathJax 3 components docs/conf.py loads (loader, core, TeX input, HTML output, assistive
# MathML) and what they fetch on demand (TeX extensions, fonts); not the SVG output, the menu or
# the speech rules of 14 languages.
MATHJAX_FILES = (
    "startup.js",
    "core.js",
    "input/tex.js",
    "output/chtml.js",
    "output/chtml/fonts/tex.js",
    "a11y/assistive-mml.js",
)
MATHJAX_DIRS = ("input/tex/extensions", "output/chtml/fonts/woff-v2")


# -- chapters --------------------------------------------------------------------------------------


def chapter_paths(notebooks=NOTEBOOKS):
    """Return the chapter notebooks, NN_name.ipynb, in course order (the files decide)."""
    return sorted(p for p in Path(notebooks).glob("*.ipynb") if CHAPTER_RE.match(p.name))


def _header_text(nb):
    """Return the markdown of a notebook before its first code cell: title, hook, goals, time."""
    text = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            break
        if cell.cell_type == "markdown":
            text.append(cell.source)
    return "\n\n".join(text)


def _bullets_after(text, label):
    """Return the bullet list that follows the line starting with ``label`` (empty if none)."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if line.strip().startswith(label):
            bullets = []
            for item in lines[n + 1 :]:
                if not item.startswith("- "):
                    break
                bullets.append(item[2:].strip())
            return bullets
    return []


def chapter_info(path):
    """List what the landing page says of chapter ``path``: number, title, minutes, goals.

    Raises ValueError naming the notebook when its header lacks a title or a time estimate (every
    chapter's header has both: notebook-style.md).
    """
    import nbformat

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    header = _header_text(nb)
    titles = [m[2] for m in HEADING_RE.finditer(header) if m[1] == "#"]
    if not titles:
        raise ValueError(f"chapter_info: {path.name} has no '# title' before its first code cell")
    minutes = TIME_RE.search(header)
    if minutes is None:
        raise ValueError(
            f"chapter_info: {path.name} states no time ('about N minutes') before its first "
            "code cell"
        )
    title = re.sub(r"^\d\d\s*·\s*", "", titles[0])
    goals = _bullets_after(header, "**Learning goals**") or _bullets_after(header, "**You will")
    return {
        "number": path.name[:2],
        "docname": path.stem,
        "title": title,
        "minutes": int(minutes[1]),
        "goals": goals,
    }


TEX_SYMBOLS = {r"\cdot": "·", r"\,": "\u2009", r"\times": "×", r"\theta": "θ", r"\pi": "π"}
TEX_SCRIPT_RE = re.compile(r"([_^])(?:\{([^{}]*)\}|(\w))")


def plain_math(tex):
    r"""Write simple inline TeX as HTML text (subscripts, a few symbols), or None if it can't.

    The landing page's chapter map quotes the chapters' goals, whose math is this simple: written
    as text, the page needs no MathJax (0.7 MB).

    Examples
    --------
    >>> plain_math(r"q_m \cdot k_n")
    '<span class="posenc-math">q<sub>m</sub> · k<sub>n</sub></span>'
    >>> plain_math(r"\sqrt{d_{model}}")
    '<span class="posenc-math">√<span style="text-decoration:overline">d<sub>model</sub></span></span>'
    >>> plain_math(r"\frac{1}{2}") is None
    True
    """
    text = html.escape(tex, quote=False)
    for command, symbol in TEX_SYMBOLS.items():
        text = text.replace(command, symbol)
    text = re.sub(
        r"\\sqrt\{((?:[^{}]|\{[^{}]*\})*)\}",
        r'√<span style="text-decoration:overline">\1</span>',
        text,
    )
    for _ in range(3):  # nested scripts, innermost first
        text = TEX_SCRIPT_RE.sub(
            lambda m: (
                f"<{'sub' if m[1] == '_' else 'sup'}>{m[2] or m[3]}</{'sub' if m[1] == '_' else 'sup'}>"
            ),
            text,
        )
    if "\\" in text or "{" in text or "}" in text:
        return None
    return f'<span class="posenc-math">{text.replace(" - ", " − ")}</span>'


def _plain_goal(goal):
    """Return ``goal`` with each inline ``$...$`` written as text where `plain_math` can."""
    return re.sub(r"\$([^$]+)\$", lambda m: plain_math(m[1]) or m[0], goal)


def chapter_map_markdown(infos):
    """Return the landing page's chapter map (MyST): each chapter's link, time and goals."""
    blocks = []
    for info in infos:
        link = f"[{info['number']} · {info['title']}]({info['docname']}.ipynb)"
        goals = "".join(f"\n- {_plain_goal(goal)}" for goal in info["goals"])
        blocks.append(f"**{link}** · {info['minutes']} min\n{goals}")
    total = sum(info["minutes"] for info in infos)
    hours, minutes = divmod(total, 60)
    blocks.append(
        f"{len(infos)} chapters, about {hours} h {minutes:02d} min of reading and running in all."
    )
    return "\n\n".join(blocks)


# -- launch links ------------------------------------------------------------------------------------


def launch_urls(notebook_name, url=None):
    """Binder and Colab URLs for one notebook, from the one repository URL (as the badges)."""
    url = url or nbtools.repository_url()
    links = dict(
        re.findall(r"\[!\[([^\]]+)\]\([^)]*\)\]\(([^)]+)\)", nbtools.badge_line(notebook_name, url))
    )
    return {"binder": links["Launch Binder"], "colab": links["Open In Colab"]}


def launch_bar(notebook_name, url=None):
    """HTML: the chapter's launch links and its download, all plain links (no remote images)."""
    urls = launch_urls(notebook_name, url)
    return (
        '<p class="posenc-launch">'
        f'<a class="posenc-launch-binder" href="{html.escape(urls["binder"])}">Launch Binder</a>'
        f'<a class="posenc-launch-colab" href="{html.escape(urls["colab"])}">Open In Colab</a>'
        f'<a class="posenc-download" href="_sources/{notebook_name}" download="{notebook_name}">'
        "Download the notebook (.ipynb)</a></p>"
    )


def widget_note(notebook_name, progress=False, url=None):
    """Markdown that stands where a widget was: what it was, and where it runs."""
    urls = launch_urls(notebook_name, url)
    where = f"[Launch Binder]({urls['binder']}) · [Open In Colab]({urls['colab']})"
    if progress:
        return (
            "```{note}\nA progress bar follows the training here when the notebook runs in "
            f"JupyterLab, Binder or Colab ({where}).\n```"
        )
    return (
        "```{admonition} Interactive widget\n:class: tip posenc-widget-note\n"
        "The cell above builds an interactive widget: it runs in JupyterLab, Binder or Colab "
        f"({where}). A web page has no Python kernel to drive it, so here it shows nothing.\n```"
    )


def explorer_anchor(n):
    """Return the id of a page's ``n``-th live explorer (1-based).

    The first one is what the skip link ("Skip to the explorer", `explorer_skip_link`) jumps to.
    """
    return EXPLORER_ID if n == 1 else f"{EXPLORER_ID}-{n}"


def live_figure_html(state, anchor=None):
    """HTML that mounts a live explorer from its notebook state (kind, spec, values).

    The state travels as JSON in the page; docs/_static/posenc-live.js (a module, loaded once per
    page however many figures it has) draws it with posenc_lib/widgets/explorers.js. ``anchor``
    gives the mount an id a link can focus (tabindex -1: a skip link's target, not a tab stop).
    """
    import json

    payload = json.dumps(state, separators=(",", ":")).replace("</", "<\\/")
    target = f' id="{html.escape(anchor)}" tabindex="-1"' if anchor else ""
    return (
        f'<div class="posenc-live"{target} data-kind="{html.escape(str(state.get("kind", "")))}">'
        f'<script type="application/json">{payload}</script>'
        '<p class="posenc-live-fallback">This figure moves in your browser when JavaScript runs; '
        "the snapshots below show it at fixed settings.</p></div>"
        '<script type="module" src="_static/posenc-live.js"></script>'
    )


def live_note(notebook_name, url=None):
    """Markdown under a live figure: it runs here, and with Python in Binder or Colab."""
    urls = launch_urls(notebook_name, url)
    where = f"[Launch Binder]({urls['binder']}) · [Open In Colab]({urls['colab']})"
    return (
        "```{admonition} Live figure\n:class: tip posenc-widget-note\n"
        "The explorer above runs in your browser: drag a slider or focus it and use the arrow "
        "keys (PageUp and PageDown for larger steps). The same explorer runs with the course's "
        f"Python in JupyterLab, Binder or Colab ({where}).\n```"
    )


def reader_code(source):
    """Return a code cell's source as the website shows it.

    That is without the test suite's `# NBVAL_...` markers and the `# (why)` comment lines right
    after them.
    """
    lines, skipping = [], False
    for line in source.splitlines():
        if line.startswith("# NBVAL_"):
            skipping = True
            continue
        if skipping and line.startswith("# ("):
            continue
        skipping = False
        lines.append(line)
    return "\n".join(lines)


# -- notebook transforms (applied while Sphinx reads a chapter) ------------------------------------


def _is_widget(output):
    return WIDGET_MIME in output.get("data", {})


def _is_live(output):
    return LIVE_MIME in output.get("data", {})


def _is_progress_bar(output):
    return bool(PROGRESS_RE.search(output.get("data", {}).get("text/plain", "")))


def _is_blank(output):
    """Say whether an output shows nothing (the line `posenc_lib.display.progress_in_place` leaves)."""
    return output.get("output_type") == "display_data" and output.get("data") == {"text/plain": ""}


def _has_image(cell):
    return any(
        key.startswith("image/") for out in cell.get("outputs", []) for key in out.get("data", {})
    )


def site_notebook(nb, notebook_name, url=None):
    """Return a copy of ``nb`` as the website shows it, and the figures without alt text.

    Badge line -> launch bar; widget outputs -> a note with the launch links; every figure gets
    alt text (its cell's ``mystnb.image.alt``, else a fallback naming its section); the code of a
    going-deeper block starts folded (``hide-input``), and its output too unless it is an explorer
    (``hide-output``, `nbtools.foldable_output`); blank outputs (a finished progress line) are
    left out.
    """
    import nbformat

    nb = copy.deepcopy(nb)
    cells, missing_alt, section, explorers = [], 0, nb_title(nb), 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if BADGE_LINE_RE.search(cell.source):
                cell.source = BADGE_LINE_RE.sub(launch_bar(notebook_name, url) + "\n", cell.source)
            headings = HEADING_RE.findall(cell.source)
            section = headings[-1][1] if headings else section
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        cell.source = reader_code(cell.source)
        if "outputs" in cell:  # a finished progress line is blank: no empty box on the page
            cell.outputs = [out for out in cell.outputs if not _is_blank(out)]
        tags = cell.metadata.setdefault("tags", [])
        if "going-deeper" in tags and "hide-input" not in tags:
            tags.append("hide-input")  # a going-deeper block's code starts folded, as in JupyterLab
        if "going-deeper" in tags and nbtools.foldable_output(cell) and "hide-output" not in tags:
            tags.append("hide-output")  # and its printout too (`nbtools.fold`)
        live = [out for out in cell.get("outputs", []) if _is_widget(out) and _is_live(out)]
        if live:
            outputs = []
            for out in cell.outputs:
                if _is_live(out):
                    explorers += 1
                    mount = live_figure_html(out["data"][LIVE_MIME], explorer_anchor(explorers))
                    out = nbformat.v4.new_output("display_data", data={"text/html": mount})
                outputs.append(out)
            cell.outputs = outputs
            cells.append(nbformat.v4.new_markdown_cell(live_note(notebook_name, url)))
        widgets = [out for out in cell.get("outputs", []) if _is_widget(out)]
        if widgets:
            cell.outputs = [out for out in cell.outputs if not _is_widget(out)]
            progress = all(_is_progress_bar(out) for out in widgets)
            cells.append(nbformat.v4.new_markdown_cell(widget_note(notebook_name, progress, url)))
        if _has_image(cell):
            meta = cell.metadata.setdefault("mystnb", {})
            image = meta.setdefault("image", {})
            if not str(image.get("alt", "")).strip():
                missing_alt += 1
                image["alt"] = f"Figure drawn by the code above, in the section “{section}”"
    nb.cells = cells
    return nb, missing_alt


def nb_title(nb):
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for level, text in HEADING_RE.findall(cell.source):
                if level == "#":
                    return text
    return ""


def split_at_headings(cells):
    """Return the cells with every markdown cell cut around each of its headings.

    Each heading becomes a cell of its own.
    """
    import nbformat

    out = []
    for cell in cells:
        if cell.cell_type != "markdown":
            out.append(cell)
            continue
        cuts = [i for m in HEADING_RE.finditer(cell.source) for i in (m.start(), m.end())]
        bounds = sorted({0, *cuts, len(cell.source)})
        for begin, end in zip(bounds, bounds[1:], strict=False):
            if cell.source[begin:end].strip():
                out.append(nbformat.v4.new_markdown_cell(cell.source[begin:end].strip()))
    return out


def section_cells(nb, pattern):
    """Return the cells of the section whose heading matches ``pattern``.

    Heading first, up to the next heading of the same or a higher level; empty if no heading
    matches.
    """
    out, level = [], None
    for cell in split_at_headings(nb.cells):
        heading = HEADING_RE.match(cell.source) if cell.cell_type == "markdown" else None
        if level is not None and heading and len(heading[1]) <= level:
            break
        if level is None and heading and re.search(pattern, heading[2], re.I):
            level = len(heading[1])
        if level is not None:
            out.append(cell)
    return out


def reference_pages(paths, url=None):
    """Return the cheat sheet and the glossary, drawn from the chapters that have them.

    The cheat sheet is a notebook page (figure only), the glossary a markdown page: {filename:
    text}. Raises ValueError if either is missing.
    """
    import nbformat

    pages = {}
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        source = f"From the chapter [{nb_title(nb)}]({path.name})."
        cheat = section_cells(nb, r"cheat sheet")
        if cheat and "cheatsheet.ipynb" not in pages:
            cells = [nbformat.v4.new_markdown_cell(f"# Cheat sheet\n\n{source}")]
            for cell in copy.deepcopy(cheat[1:]):
                if cell.cell_type == "code":
                    cell.metadata.setdefault("tags", []).append("remove-input")
                cells.append(cell)
            page = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
            page.metadata.pop("jupytext", None)
            pages["cheatsheet.ipynb"] = nbformat.writes(page) + "\n"
        glossary = section_cells(nb, r"^glossary$")
        if glossary and "glossary.md" not in pages:
            body = "\n\n".join(c.source for c in glossary[1:] if c.cell_type == "markdown")
            pages["glossary.md"] = f"# Glossary\n\n{source}\n\n{body}\n"
    for name in ("cheatsheet.ipynb", "glossary.md"):
        if name not in pages:
            what = "a 'cheat sheet'" if name.startswith("cheat") else "a 'Glossary'"
            raise ValueError(f"reference_pages: no chapter has {what} section for {name}")
    return pages


# -- staging and building --------------------------------------------------------------------------


def _write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def stage(stage_dir=STAGE, docs=DOCS, notebooks=NOTEBOOKS):
    """Lay out Sphinx's source directory; only changed files are rewritten. Returns its path."""
    stage_dir = Path(stage_dir)
    stage_dir.mkdir(parents=True, exist_ok=True)
    wanted = {}
    for page in Path(docs).glob("*.md"):
        wanted[page.name] = page
    chapters = chapter_paths(notebooks)
    for path in chapters:  # the .ipynb only: the paired NN_name.md text sources stay out
        wanted[path.name] = path
    for name, source in wanted.items():
        target = stage_dir / name
        if not target.exists() or not filecmp.cmp(source, target, shallow=False):
            shutil.copy2(source, target)
    generated = reference_pages(chapters)
    for name, text in generated.items():
        _write_if_changed(stage_dir / name, text)
    for stale in stage_dir.iterdir():
        if stale.is_file() and stale.name not in wanted and stale.name not in generated:
            stale.unlink()
    return stage_dir


def build(out=OUT, stage_dir=STAGE, doctrees=DOCTREES, fresh=False):
    """Stage, then sphinx-build (warnings are errors). Returns the seconds it took."""
    start = time.perf_counter()
    if fresh:
        for path in (out, stage_dir, doctrees):
            shutil.rmtree(path, ignore_errors=True)
    stage(stage_dir)
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(DOCS), "-d", str(doctrees)]
    command += ["-W", "--keep-going", "-q", str(stage_dir), str(out)]
    subprocess.run(command, check=True)
    prune_pages(out, stage_dir)
    name_toggles(out)
    return time.perf_counter() - start


TOGGLE_LABEL = ' aria-label="Toggle hidden content"'


def name_toggles(out):
    """Let a folded cell's toggle be named by its visible text ("Show code cell source").

    myst-nb gives the ``<summary>`` of a folded cell an ``aria-label`` that differs from the text
    it shows, so a speech-input user saying what they see cannot reach it (axe's
    label-content-name-mismatch). Returns the number of pages changed.
    """
    changed = 0
    for page in Path(out).glob("*.html"):
        text = page.read_text()
        if TOGGLE_LABEL in text:
            page.write_text(text.replace(TOGGLE_LABEL, ""))
            changed += 1
    return changed


SPHINX_PAGES = {"genindex", "search", "py-modindex"}  # pages Sphinx writes with no source


def prune_pages(out, stage_dir):
    """Delete the pages of sources that are gone (a renamed chapter); Sphinx leaves them behind.

    Returns the names deleted.
    """
    sources = {path.stem for path in Path(stage_dir).iterdir() if path.is_file()}
    stale = [
        page
        for page in Path(out).glob("*.html")
        if page.stem not in sources and page.stem not in SPHINX_PAGES
    ]
    for page in stale:
        page.unlink()
        (Path(out) / SEARCH_DIR / page.name).unlink(missing_ok=True)
    return sorted(page.name for page in stale)


# -- the Sphinx extension ----------------------------------------------------------------------------


# What reST reads as a substitution reference: |text| with no space just inside the bars.
ABSOLUTE_RE = re.compile(r"(?<![`|\w])\|(\S|\S[^|`\n]*?\S)\|(?![`|\w])")


def plain_bars(lines):
    """Quote ``|x|`` in docstring lines as literal text.

    An absolute value, in the library's plain-text docstrings, is not a reST substitution; doctest
    lines are left untouched.
    """
    return [
        line
        if line.lstrip().startswith((">>>", "..."))
        else ABSOLUTE_RE.sub(lambda m: f"``|{m[1]}|``", line)
        for line in lines
    ]


PATH_REPR_RE = re.compile(r"(?:Posix|Windows|)Path\((['\"])(.*?)\1\)")


def readable_signature(signature, module=None):
    """Replace each ``PosixPath('...')`` default in ``signature`` by what a reader can use.

    A path that a module-level name of ``module`` holds becomes that name (``CORPUS_FILE``);
    another path inside the repository becomes its path relative to it; any other path keeps
    only its file name. So no page shows the absolute path of the machine that built it.

    Examples
    --------
    >>> readable_signature("(path=PosixPath('/home/ci/posenc/posenc_lib/data/x.gz'), every=4)")
    "(path='x.gz', every=4)"
    """
    if not signature:
        return signature
    names = {}
    for attribute, value in vars(module).items() if module is not None else ():
        if isinstance(value, Path) and not attribute.startswith("_"):
            names.setdefault(str(value), attribute)

    def replace(match):
        text = match[2]
        if text in names:
            return names[text]
        path = Path(text)
        if path.is_absolute() and ROOT in path.parents:
            return repr(path.relative_to(ROOT).as_posix())
        return repr(path.name) if path.is_absolute() else repr(text)

    return PATH_REPR_RE.sub(replace, signature)


def _on_signature(app, what, name, obj, options, signature, return_annotation):
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    return readable_signature(signature, module), return_annotation


IMG_RE = re.compile(r'(<a\b[^>]*>\s*)?(<img\b[^>]*?\bsrc="(_images/[^"]+)"[^>]*>)')


def link_figures(body):
    """Wrap every figure image of a page body in a link to the image file (full size on tap).

    An image already inside a link is left alone.

    Examples
    --------
    >>> link_figures('<p><img alt="A plot" src="_images/a.png" /></p>')
    '<p><a class="posenc-full-size" href="_images/a.png"><img alt="A plot" src="_images/a.png" /></a></p>'
    """

    def wrap(match):
        if match[1]:
            return match[0]
        return f'<a class="posenc-full-size" href="{match[3]}">{match[2]}</a>'

    return IMG_RE.sub(wrap, body)


LINKED_FIGURE_RE = re.compile(r'<a\b[^>]*>\s*(<img\b[^>]*?\bsrc="_images/[^"]+"[^>]*>)\s*</a>')
WIDTH_RE = re.compile(r'(?<![\w-])width="(\d+(?:\.\d+)?)(?:px)?"')
SCROLL_HINT = "Wider than the screen: scroll it sideways, or tap it to open it full size."


def scroll_figures(body):
    """Put every linked figure of a page body in a box that scrolls sideways when it must.

    The page shows a figure at its 1x size (the ``width`` of its ``<img>``: the committed PNGs
    have two pixels per CSS pixel) when the column is that wide, else at the column's width, but
    never below 0.75 of its 1x size (docs/_static/posenc.css): a figure too wide for a phone
    scrolls sideways inside its box instead of shrinking until its labels cannot be read. Where
    it does scroll, posenc.js makes the box a named, focusable region (the arrow keys scroll it)
    and shows the hint above it; where it fits, neither.

    Examples
    --------
    >>> print(scroll_figures('<a href="_images/a.png"><img src="_images/a.png" width="872" /></a>'))
    <span class="posenc-figure" style="--posenc-1x: 872px"><span class="posenc-scroll-hint" aria-hidden="true">Wider than the screen: scroll it sideways, or tap it to open it full size.</span><span class="posenc-figure-scroll"><a href="_images/a.png"><img src="_images/a.png" width="872" /></a></span></span>
    """

    def wrap(match):
        width = WIDTH_RE.search(match[1])
        style = f' style="--posenc-1x: {width[1]}px"' if width else ""
        return (
            f'<span class="posenc-figure"{style}>'
            f'<span class="posenc-scroll-hint" aria-hidden="true">{SCROLL_HINT}</span>'
            f'<span class="posenc-figure-scroll">{match[0]}</span></span>'
        )

    return LINKED_FIGURE_RE.sub(wrap, body)


THEME_SKIP_LINK_RE = re.compile(r'<div id="pst-skip-link"[^>]*>.*?</div>', re.S)


def explorer_skip_link(page):
    """Add "Skip to the explorer" after the theme's "Skip to main content" link.

    Only on a page whose first live explorer has its anchor (`explorer_anchor`): the link is the
    page's second tab stop, shown when it has focus, and moves focus to the explorer, whose
    controls are the next tab stops.

    Examples
    --------
    >>> page = '<div id="pst-skip-link" class="skip-link"><a href="#main">Skip</a></div>'
    >>> explorer_skip_link(page + '<div id="posenc-explorer"></div>').count('href="#posenc-explorer"')
    1
    >>> explorer_skip_link(page) == page
    True
    """
    if f'id="{EXPLORER_ID}"' not in page or f'href="#{EXPLORER_ID}"' in page:
        return page
    link = (
        f'<div class="skip-link posenc-skip-explorer d-print-none">'
        f'<a href="#{EXPLORER_ID}">Skip to the explorer</a></div>'
    )
    return THEME_SKIP_LINK_RE.sub(lambda m: m[0] + link, page, count=1)


# -- search: what the index reads, and the light pages its snippets are cut from --------------------

# Sphinx's search shows, under each result, 240 characters cut from the result's page, which it
# downloads whole: a query hitting the API page alone downloaded 774 kB, and the snippets showed
# the launch bar ("Binder Colab .ipynb") and TeX source ("\(k\)", MathJax never runs there).
# So the build writes a light copy of each page's article, _search/NAME.html: the prose only, math
# written as text, without the launch bar, the code cells and their outputs, the widget notes, the
# figures and the API's examples and parameter lists, with the ids that the results' anchors point
# at; posenc.js has the search page fetch those copies instead. The launch bar, the outputs and the
# widget notes are left out of the index too ("no-search"); the code stays in it.
SEARCH_DIR = "_search"
SEARCH_SKIP_TAGS = {"script", "style", "svg", "button", "noscript", "template", "canvas", "select"}
SEARCH_SKIP_CLASSES = {
    "headerlink",
    "posenc-launch",  # the launch bar
    "posenc-widget-note",  # "runs in JupyterLab, Binder or Colab (Launch Binder · Open In Colab)"
    "posenc-live",  # a live explorer's state and fallback
    "posenc-scroll-hint",
    "cell_output",  # printed tables, figures, widget reprs
    "cell_input",  # code (still indexed: a search finds it; its snippet is the page's prose)
    "doctest",  # the API's examples (highlighted doctests)
    "field-list",  # the API's parameter lists (its index entry still has them)
    "prev-next-area",
    "toctree-wrapper",
}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
             "track", "wbr"}  # fmt: skip
BLOCK_TAGS = {"p", "div", "section", "li", "dt", "dd", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
              "tr", "td", "th", "figcaption", "figure", "blockquote", "table", "ul", "ol", "dl"}  # fmt: skip
GREEK = (
    "alpha beta gamma delta epsilon theta lambda mu pi rho sigma tau phi omega Delta Theta Sigma"
)
TEX_NAMES = {
    **dict(zip(GREEK.split(), "αβγδεθλμπρστφωΔΘΣ", strict=True)),
    "cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠",
    "neq": "≠", "approx": "≈", "infty": "∞", "to": "→", "rightarrow": "→", "mapsto": "↦",
    "in": "∈", "sum": "Σ", "prod": "Π", "ldots": "…", "dots": "…", "cdots": "⋯", "pm": "±",
    "mid": "|", "lvert": "|", "rvert": "|", "vert": "|", "lfloor": "⌊", "rfloor": "⌋",
    "lceil": "⌈", "rceil": "⌉", "top": "ᵀ", "partial": "∂", "nabla": "∇", "propto": "∝",
    "langle": "⟨", "rangle": "⟩", "odot": "⊙", "otimes": "⊗", "circ": "∘", "equiv": "≡",
}  # fmt: skip
TEX_DROP = r"left|right|big|Big|bigg|Bigg|displaystyle|textstyle|limits|nolimits|notag|nonumber"
TEX_TEXT = r"text|mathrm|mathbf|mathit|mathsf|mathtt|boldsymbol|operatorname|textbf|textit|mbox"


def tex_to_text(tex):
    r"""Write a TeX formula as plain text a search snippet can show (no backslash, no braces).

    Examples
    --------
    >>> tex_to_text(r"\(\theta_i = 10000^{-2i/d}\)")
    'θ_i = 10000^(-2i/d)'
    >>> tex_to_text(r"\[\mathrm{softmax}\left(\frac{q \cdot k}{\sqrt{d_k}}\right)\]")
    'softmax((q · k)/(√(d_k)))'
    >>> tex_to_text(r"-m_h\,|i-j|")
    '-m_h |i-j|'
    >>> tex_to_text(r"(a\cos\theta - b\sin\theta)")
    '(a cos θ - b sin θ)'
    """
    text = re.sub(r"^\s*(\\\(|\\\[|\$\$?)|(\\\)|\\\]|\$\$?)\s*$", "", tex.strip())
    text = re.sub(r"\\\\|&", " ", text)  # the line breaks and columns of an aligned block
    text = re.sub(r"\\(?:,|;|:|!| |quad|qquad)", " ", text)
    text = re.sub(rf"\\(?:{TEX_DROP})\b", "", text)
    inner = r"\{((?:[^{}]|\{[^{}]*\})*)\}"
    for _ in range(4):  # nested constructs, innermost first
        text = re.sub(rf"\\(?:{TEX_TEXT})\s*{inner}", r"\1", text)
        text = re.sub(rf"\\frac\s*{inner}\s*{inner}", r"(\1)/(\2)", text)
        text = re.sub(rf"\\sqrt\s*{inner}", r"√(\1)", text)
        text = re.sub(
            r"([_^])\{([^{}]*)\}",
            lambda m: m[1] + (m[2] if re.fullmatch(r"\w+", m[2]) else f"({m[2]})"),
            text,
        )
    # a symbol for a symbol's name; a function's name (\cos, \log) as a word of its own
    text = re.sub(r"\\([A-Za-z]+)", lambda m: TEX_NAMES.get(m[1], f" {m[1]} "), text)
    text = re.sub(r"\\(.)", r"\1", text)  # \{ \} \% \_ ...
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


class _SearchText(HTMLParser):
    """Stream a built page down to its article's text (see `search_page`)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.stack, self.started, self.done = [], [], False, False
        self.skip = None  # depth of the element being left out
        self.math = None  # depth of the math element being collected, and its text
        self.tex = []

    def handle_starttag(self, tag, attrs):
        if self.done or tag in VOID_TAGS:
            return
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        if not self.started:
            if tag == "article" and "bd-article" in classes:
                self.started = True
                self.stack.append((tag, False))
                self.out.append('<div role="main">')
            return
        depth = len(self.stack)
        if self.skip is not None or self.math is not None:
            self.stack.append((tag, False))
            return
        if tag in SEARCH_SKIP_TAGS or classes & SEARCH_SKIP_CLASSES:
            self.skip = depth
            self.stack.append((tag, False))
            return
        if "math" in classes:
            self.math, self.tex = depth, []
        ident = attrs.get("id")
        if ident:
            self.out.append(f'<div id="{html.escape(ident)}">')
        elif tag in BLOCK_TAGS:
            self.out.append(" ")
        self.stack.append((tag, bool(ident)))

    def handle_endtag(self, tag):
        if not self.started or self.done or tag in VOID_TAGS:
            return
        while self.stack:
            open_tag, wrote = self.stack.pop()
            depth = len(self.stack)
            if self.skip == depth:
                self.skip = None
            if self.math == depth:
                self.out.append(html.escape(tex_to_text("".join(self.tex)), quote=False))
                self.math = None
            if wrote:
                self.out.append("</div>")
            elif open_tag in BLOCK_TAGS:
                self.out.append(" ")
            if not self.stack:
                self.out.append("</div>")
                self.done = True
            if open_tag == tag:
                break

    def handle_data(self, data):
        if not self.started or self.done or self.skip is not None:
            return
        if self.math is not None:
            self.tex.append(data)
        else:
            self.out.append(html.escape(re.sub(r"\s+", " ", data), quote=False))


def search_page(page):
    r"""Return the light copy of a built page that search snippets are cut from.

    Its article only, as text: math written as text (`tex_to_text`), without the parts
    `SEARCH_SKIP_CLASSES` names, and every element with an id kept as an empty ``<div id>``
    around its text, so that a result's anchor finds its section.

    Examples
    --------
    >>> search_page('<nav>menu</nav><article class="bd-article"><section id="s1"><h1>RoPE'
    ...     '<a class="headerlink" href="#s1">#</a></h1><p class="posenc-launch">Binder</p>'
    ...     r'<p>Turn by <span class="math">\(k\,\theta\)</span>.</p></section></article>')
    '<div role="main"><div id="s1"> RoPE Turn by k θ. </div></div>'
    """
    parser = _SearchText()
    parser.feed(page)
    parser.close()
    return re.sub(r"\s+", " ", "".join(parser.out))


def write_search_pages(out):
    """Write `search_page` of every page of the site ``out`` into ``out/_search/``.

    Returns the bytes of the pages and of their light copies.
    """
    target = Path(out) / SEARCH_DIR
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    full = light = 0
    for page in sorted(Path(out).glob("*.html")):
        if page.name == "search.html":
            continue
        text = page.read_text(encoding="utf-8")
        copy_ = search_page(text)
        (target / page.name).write_text(copy_, encoding="utf-8")
        full, light = full + len(text.encode()), light + len(copy_.encode())
    return full, light


def _on_doctree_read(app, doctree):
    """Leave out of the search index what a reader never searches for.

    The launch bar, the live explorers' state, the widget notes and the code cells' outputs.
    """
    from docutils import nodes

    for node in doctree.findall(nodes.Element):
        classes = set(node.get("classes", []))
        leave_out = bool(classes & {"cell_output", "posenc-widget-note"})
        if isinstance(node, nodes.raw):
            leave_out = 'class="posenc-launch"' in node.astext() or "posenc-live" in node.astext()
        if leave_out and "no-search" not in classes:
            node["classes"].append("no-search")


def _is_mathjax(script):
    filename = str(getattr(script, "filename", "") or "")
    body = str(getattr(script, "attributes", {}).get("body", ""))
    return "mathjax" in filename.lower() or body.startswith("window.MathJax")


def _on_page_assets(app, pagename, templatename, context, doctree):
    """No MathJax on a page without math; figures linked to their full-size image."""
    body = context.get("body", "")
    has_math = context.get("has_maths_elements", False) or 'class="math' in body
    if "script_files" in context and not has_math:
        context["script_files"][:] = [s for s in context["script_files"] if not _is_mathjax(s)]
    if body:
        # a path in a documented value (a module constant's repr), as readable_signature writes it
        context["body"] = scroll_figures(link_figures(readable_signature(body)))


def _on_docstring(app, what, name, obj, options, lines):
    lines[:] = plain_bars(lines)


def _on_source_read(app, docname, source):
    path = Path(app.env.doc2path(docname))
    if path.suffix != ".ipynb" or not CHAPTER_RE.match(path.name):
        return
    import nbformat

    nb, missing = site_notebook(nbformat.reads(source[0], as_version=4), path.name)
    app.env.posenc_missing_alt = {**getattr(app.env, "posenc_missing_alt", {}), docname: missing}
    source[0] = nbformat.writes(nb)


SIDEBAR_TAG = '<div id="pst-primary-sidebar" class="'
SIDEBAR_LANDMARK = '<div id="pst-primary-sidebar" role="complementary" aria-label="Course" class="'


def sidebar_as_landmark(page):
    """Make the theme's primary sidebar (logo, search, chapters) a landmark.

    The theme draws it as a plain ``div``, so the logo and the search button sit outside every
    landmark and a screen reader's landmark list skips them (axe-core's rule ``region``).

    Examples
    --------
    >>> sidebar_as_landmark('<div id="pst-primary-sidebar" class="bd-sidebar">')
    '<div id="pst-primary-sidebar" role="complementary" aria-label="Course" class="bd-sidebar">'
    """
    return page.replace(SIDEBAR_TAG, SIDEBAR_LANDMARK)


def _on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).glob("*.html"):
        text = page.read_text(encoding="utf-8")
        changed = explorer_skip_link(sidebar_as_landmark(text))
        if changed != text:
            page.write_text(changed, encoding="utf-8")
    write_search_pages(app.outdir)
    from importlib.metadata import distribution

    from sphinx.util import logging

    source = Path(distribution("sphinx-mathjax-offline").locate_file("sphinx-mathjax-offline"))
    source = source / "static" / "mathjax"
    target = Path(app.outdir) / "_static" / "mathjax"
    for name in MATHJAX_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target / name)
    for name in MATHJAX_DIRS:
        shutil.copytree(source / name, target / name, dirs_exist_ok=True)
    shutil.copy2(DOCS / "_static" / "mathjax-LICENSE.txt", target / "LICENSE")
    live = Path(app.outdir) / "_static" / "posenc"
    live.mkdir(parents=True, exist_ok=True)
    shutil.copy2(LIVE_MODULE, live / LIVE_MODULE.name)  # the explorers' one renderer
    missing = getattr(app.env, "posenc_missing_alt", {})
    if sum(missing.values()):
        logging.getLogger(__name__).info(
            f"posenc: {sum(missing.values())} figures have no alt text in their cell metadata "
            "(mystnb.image.alt); they got a fallback naming their section"
        )


def _on_page_context(app, pagename, templatename, context, doctree):
    """Keep the launch buttons on chapters only.

    The generated cheat sheet has no notebook in the repository to launch, and its page source is no
    notebook to download.
    """
    if CHAPTER_RE.match(f"{pagename}.ipynb") or "header_buttons" not in context:
        return
    buttons = [b for b in context["header_buttons"] if b.get("label") != "launch-buttons"]
    if pagename in GENERATED:
        for group in buttons:
            if group.get("label") == "download-buttons":
                group["buttons"] = [
                    b for b in group["buttons"] if b.get("label") == "download-pdf-button"
                ]
    context["header_buttons"] = buttons


def _on_env_merge(app, env, docnames, other):
    env.posenc_missing_alt = {
        **getattr(env, "posenc_missing_alt", {}),
        **getattr(other, "posenc_missing_alt", {}),
    }


def setup(app):
    from docutils.parsers.rst import Directive

    class ChapterMap(Directive):
        """``{chapter-map}``: the table of chapters, read from the notebooks beside the page."""

        def run(self):
            env = self.state.document.settings.env
            paths = chapter_paths(Path(env.srcdir))
            for path in paths:
                env.note_dependency(str(path))
            text = chapter_map_markdown([chapter_info(p) for p in paths])
            from docutils import nodes

            container = nodes.container(classes=["posenc-chapter-map"])
            self.state.nested_parse(text.splitlines(), self.content_offset, container)
            return [container]

    app.add_directive("chapter-map", ChapterMap)
    app.connect("source-read", _on_source_read)
    app.connect("doctree-read", _on_doctree_read)
    app.connect("autodoc-process-docstring", _on_docstring, priority=400)
    app.connect("env-merge-info", _on_env_merge)
    app.connect("html-page-context", _on_page_context, priority=510)
    app.connect("html-page-context", _on_page_assets, priority=900)  # after sphinx.ext.mathjax
    app.connect("autodoc-process-signature", _on_signature)
    app.connect("build-finished", _on_build_finished)
    # A change to this file (how chapters are read) makes Sphinx read every page again.
    env_version = zlib.crc32(Path(__file__).read_bytes())
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": env_version}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["build", "stage"])
    parser.add_argument("--fresh", action="store_true", help="start from an empty build")
    args = parser.parse_args(argv)
    if args.command == "stage":
        print(stage())
        return 0
    seconds = build(fresh=args.fresh)
    print(f"site written to {OUT.relative_to(ROOT)}/ in {seconds:.0f} s: open {OUT / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
