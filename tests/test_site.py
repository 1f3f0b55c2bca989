"""The course website (`make site`): it builds from the committed notebooks, and in headless
Chromium every page loads with nothing from another host, every image, math typeset, every
internal link resolving, and search finding chapter 4 with clean snippets and light downloads. On a
390 px phone every figure is shown at 0.75 or more of its 1x size, in a box that scrolls sideways
where it must; the first live explorer is a few Tab presses from page load ("Skip to the explorer").

The build goes to build/site/ (incremental: seconds when `make site` just ran). Skips when the site
stack (`.[site]`) is not installed, unless POSENC_REQUIRE_SITE=1 (CI), where that is a failure; the
browser tests need Debian's chromium likewise (POSENC_REQUIRE_BROWSER=1). Screenshots of the
landing page and two chapters at 1280 px, and of every page at 390 px, go to tests/artifacts/site/.

axe-core (pinned by tests/axe/package-lock.json; `npm ci --prefix tests/axe` installs it) checks
every page at 1280 x 800 and 390 x 844, in light and dark mode: any violation fails.
"""

import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import jupytext
import nbformat
import pytest
import sitetools
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts" / "site"
CHAPTERS = sitetools.chapter_paths()
PAGES = ["index.html"] + [f"{p.stem}.html" for p in CHAPTERS]
REFERENCE_PAGES = [
    "cheatsheet.html",
    "glossary.html",
    "references.html",
    "api.html",
    "claims.html",
    "mutants.html",
]
SCREENSHOT_PAGES = ["index.html", "02_sinusoidal_clock_hands.html", "04_rope.html"]
AXE = ROOT / "tests" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
URL = "https://github.com/someone/course"


def widget_output(text="VBox(children=(IntSlider(value=0),))"):
    return new_output(
        "display_data",
        data={
            "text/plain": text,
            "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2},
        },
    )


def figure_output():
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    return new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})


def tiny_chapter(figure_metadata=None):
    badge = sitetools.nbtools.badge_line("01_tiny.ipynb", URL)
    figure = new_code_cell("plot()", execution_count=2, outputs=[figure_output()])
    if figure_metadata is not None:
        figure.metadata["mystnb"] = figure_metadata
    return new_notebook(
        cells=[
            new_markdown_cell(
                f"# 01 · A tiny chapter\n\n{badge}\n\nHook.\n\n**Learning goals**\n- see $x$;\n"
                "- check it.\n\n**Time:** about 15 minutes."
            ),
            new_code_cell("Slider()", execution_count=1, outputs=[widget_output()]),
            new_markdown_cell("## 1. A figure"),
            figure,
            new_markdown_cell("## 2. The cheat sheet"),
            new_code_cell("cheat()", execution_count=3, outputs=[figure_output()]),
            new_markdown_cell("## Glossary\n\n- **Pair**: two dimensions, $2i$ and $2i+1$."),
            new_markdown_cell("## Further reading\n\nPapers."),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )


# -- the pieces, without Sphinx -------------------------------------------------------------------


def test_chapters_are_the_numbered_notebooks_in_order(tmp_path):
    for name in ("10_later.ipynb", "02_early.ipynb", "notes.ipynb", "03_text.md", "4_odd.ipynb"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in sitetools.chapter_paths(tmp_path)] == [
        "02_early.ipynb",
        "10_later.ipynb",
    ]
    assert CHAPTERS[0].name == "00_start_here.ipynb" and len(CHAPTERS) >= 8


def test_a_renamed_chapter_leaves_no_stale_page_behind(tmp_path):
    stage, out = tmp_path / "src", tmp_path / "out"
    stage.mkdir(), out.mkdir()
    for name in ("index.md", "07_real_text.ipynb", "08_putting_it_together.ipynb"):
        (stage / name).write_text("")
    pages = ["index", "07_real_text", "08_putting_it_together", "07_putting_it_together"]
    for stem in [*pages, "search", "genindex", "py-modindex"]:
        (out / f"{stem}.html").write_text("")
    assert sitetools.prune_pages(out, stage) == ["07_putting_it_together.html"]
    assert not (out / "07_putting_it_together.html").exists()
    assert (out / "search.html").exists() and (out / "08_putting_it_together.html").exists()


def test_every_chapter_states_a_title_a_time_and_goals():
    infos = [sitetools.chapter_info(p) for p in CHAPTERS]
    assert all(info["title"] and info["minutes"] > 0 and info["goals"] for info in infos)
    stated = [  # each chapter's header, read from its text source
        int(re.search(r"\babout (\d+) minutes\b", path.with_suffix(".md").read_text())[1])
        for path in CHAPTERS
    ]
    assert [info["minutes"] for info in infos] == stated
    assert not any(info["title"][:2].isdigit() for info in infos)  # "01 · " is stripped


def test_a_chapter_without_a_time_estimate_is_refused(tmp_path):
    nb = tiny_chapter()
    nb.cells[0].source = nb.cells[0].source.replace("about 15 minutes", "a while")
    nbformat.write(nb, tmp_path / "01_tiny.ipynb")
    with pytest.raises(ValueError, match=r"chapter_info: 01_tiny.ipynb states no time"):
        sitetools.chapter_info(tmp_path / "01_tiny.ipynb")


def test_the_chapter_map_links_every_chapter_and_adds_up_the_time():
    infos = [sitetools.chapter_info(p) for p in CHAPTERS]
    text = sitetools.chapter_map_markdown(infos)
    for info in infos:
        assert f"]({info['docname']}.ipynb)" in text
    total = sum(info["minutes"] for info in infos)
    assert f"about {total // 60} h {total % 60:02d} min" in text


def test_launch_links_come_from_the_repository_url():
    urls = sitetools.launch_urls("04_rope.ipynb", URL)
    assert urls["binder"] == (
        "https://mybinder.org/v2/gh/someone/course/main?urlpath=lab/tree/notebooks/04_rope.ipynb"
    )
    assert urls["colab"] == (
        "https://colab.research.google.com/github/someone/course/blob/main/notebooks/04_rope.ipynb"
    )


def test_the_badge_line_becomes_a_launch_bar_without_remote_images():
    nb, _ = sitetools.site_notebook(tiny_chapter(), "01_tiny.ipynb", URL)
    header = nb.cells[0].source
    assert "![" not in header and "badge" not in header
    assert 'class="posenc-launch"' in header
    assert 'href="_sources/01_tiny.ipynb" download' in header
    assert sitetools.launch_urls("01_tiny.ipynb", URL)["binder"] in header


def test_a_widget_output_becomes_a_note_with_the_launch_links():
    nb, _ = sitetools.site_notebook(tiny_chapter(), "01_tiny.ipynb", URL)
    widget_cell, note = nb.cells[1], nb.cells[2]
    assert widget_cell.outputs == []
    assert note.cell_type == "markdown"
    assert "runs in JupyterLab, Binder or Colab" in note.source
    assert sitetools.launch_urls("01_tiny.ipynb", URL)["colab"] in note.source


def test_the_site_shows_code_without_the_test_suites_markers():
    source = "# NBVAL_IGNORE_OUTPUT\n# (a widget's text holds its id)\n# a real comment\nSlider()"
    assert sitetools.reader_code(source) == "# a real comment\nSlider()"
    assert sitetools.reader_code("x = 1  # (kept)\nprint(x)") == "x = 1  # (kept)\nprint(x)"


def test_a_progress_bar_gets_a_progress_note_not_a_widget_note():
    nb = tiny_chapter()
    nb.cells[1].outputs = [widget_output("training:   0%|          | 0/300 [00:00<?, ?it/s]")]
    site, _ = sitetools.site_notebook(nb, "01_tiny.ipynb", URL)
    assert "progress bar" in site.cells[2].source
    assert "Interactive widget" not in site.cells[2].source


def test_figure_alt_text_comes_from_the_cell_metadata_else_a_fallback():
    given = {"image": {"alt": "A line rising left to right"}, "figure": {"caption": "Rising."}}
    nb, missing = sitetools.site_notebook(tiny_chapter(given), "01_tiny.ipynb", URL)
    figures = [c for c in nb.cells if c.cell_type == "code" and c.outputs]
    assert figures[0].metadata["mystnb"] == given
    assert missing == 1  # the cheat sheet's figure has no alt text of its own
    assert figures[1].metadata["mystnb"]["image"]["alt"] == (
        "Figure drawn by the code above, in the section “2. The cheat sheet”"
    )


def test_site_notebook_leaves_the_committed_notebook_alone():
    nb = tiny_chapter()
    before = nbformat.writes(nb)
    sitetools.site_notebook(nb, "01_tiny.ipynb", URL)
    assert nbformat.writes(nb) == before


def test_the_figure_convention_survives_the_text_source(tmp_path):
    """Alt text and caption written in the MyST text source reach the notebook's cell metadata."""
    source = tmp_path / "01_tiny.md"
    source.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\nkernelspec:\n"
        "  name: python3\n  display_name: Python 3\n---\n\n# Title\n\n"
        "```{code-cell} ipython3\n---\nmystnb:\n  image:\n    alt: Two waves\n"
        "  figure:\n    caption: Fast and slow.\n---\nplot()\n```\n"
    )
    cell = jupytext.read(source, fmt="md:myst").cells[-1]
    assert cell.metadata["mystnb"] == {
        "image": {"alt": "Two waves"},
        "figure": {"caption": "Fast and slow."},
    }


def test_reference_pages_come_from_the_sections_of_that_name(tmp_path):
    nbformat.write(tiny_chapter(), tmp_path / "01_tiny.ipynb")
    pages = sitetools.reference_pages([tmp_path / "01_tiny.ipynb"])
    cheat = nbformat.reads(pages["cheatsheet.ipynb"], as_version=4)
    assert [c.source for c in cheat.cells[1:]] == ["cheat()"]
    assert "remove-input" in cheat.cells[1].metadata["tags"]
    assert "**Pair**" in pages["glossary.md"] and "Further reading" not in pages["glossary.md"]


def test_reference_pages_are_refused_when_a_section_is_missing(tmp_path):
    nb = tiny_chapter()
    nb.cells = [c for c in nb.cells if "Glossary" not in c.source]
    nbformat.write(nb, tmp_path / "01_tiny.ipynb")
    with pytest.raises(ValueError, match="reference_pages: no chapter has a 'Glossary'"):
        sitetools.reference_pages([tmp_path / "01_tiny.ipynb"])


def test_absolute_value_bars_in_docstrings_are_not_substitutions():
    lines = ["bias -m |i - j| per head", ">>> abs(-1)  # |x|", "a ``|kept|`` literal", "| a | b |"]
    assert sitetools.plain_bars(lines) == [
        "bias -m ``|i - j|`` per head",
        ">>> abs(-1)  # |x|",
        "a ``|kept|`` literal",
        "| a | b |",
    ]


def test_staging_takes_the_notebooks_never_their_text_sources(tmp_path):
    stage = sitetools.stage(tmp_path / "src")
    names = {p.name for p in stage.iterdir()}
    assert {p.name for p in CHAPTERS} <= names
    assert not names & {p.with_suffix(".md").name for p in CHAPTERS}
    assert {"index.md", "api.md", "cheatsheet.ipynb", "glossary.md"} <= names


# -- the built site ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def site():
    """build/site/, built now (incrementally) with the site stack."""
    if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
        if os.environ.get("POSENC_REQUIRE_SITE") == "1":
            pytest.fail("POSENC_REQUIRE_SITE=1 but the site stack is not installed (make site)")
        pytest.skip("the site stack is not installed: `make site` installs it")
    sitetools.build()
    return sitetools.OUT


def html_of(site, page):
    return (site / page).read_text()


@pytest.mark.site
def test_the_site_has_a_page_per_chapter_and_the_reference_pages(site):
    for page in PAGES + REFERENCE_PAGES + ["search.html", "searchindex.js"]:
        assert (site / page).exists(), page
    sources = {p.name for p in (site / "_sources").iterdir()}
    assert {p.name for p in CHAPTERS} <= sources  # the .ipynb downloads
    assert not sources & {p.with_suffix(".md").name for p in CHAPTERS}


@pytest.mark.site
def test_the_landing_pages_chapter_map_shows_each_chapters_title_and_minutes(site):
    """The built chapter map says what each chapter's header says (tests/test_chapter_map.py holds
    chapter_info, chapter 00's map and the README to the chapters' text sources)."""
    text = re.sub(
        r"<[^>]+>", "", html_of(site, "index.html").split('class="posenc-chapter-map', 1)[1]
    )
    text = re.sub(r"\s+", " ", html.unescape(text)).replace("’", "'")
    for path in CHAPTERS:
        info = sitetools.chapter_info(path)
        assert f"{info['number']} · {info['title']} · {info['minutes']} min" in text, info["title"]


@pytest.mark.site
def test_chapter_pages_link_previous_and_next_in_course_order(site):
    for before, after in zip(PAGES, PAGES[1:], strict=False):
        assert re.search(rf'class="right-next"\s+href="{re.escape(after)}"', html_of(site, before))
        assert re.search(rf'class="left-prev"\s+href="{re.escape(before)}"', html_of(site, after))


@pytest.mark.site
def test_the_navigation_reaches_the_cheat_sheet_glossary_and_api(site):
    nav = html_of(site, "index.html").split('id="pst-primary-sidebar"', 1)[1]
    for page in PAGES[1:] + REFERENCE_PAGES:
        assert f'href="{page}"' in nav, page


@pytest.mark.site
def test_no_page_loads_anything_from_another_host(site):
    """Static check of every page and stylesheet (the browser test checks what is requested)."""
    loads = re.compile(r'<(?:script|img|iframe|source|link)\b[^>]*?\b(?:src|href)="([^"]+)"')
    for page in site.glob("*.html"):
        for target in loads.findall(page.read_text()):
            assert not target.startswith(("http:", "https:", "//")), f"{page.name}: {target}"
    for css in site.glob("_static/**/*.css"):
        for target in re.findall(r"url\(['\"]?([^'\")]+)", css.read_text()):
            assert not target.startswith(("http:", "https:", "//")), f"{css.name}: {target}"


@pytest.mark.site
def test_every_widget_output_is_a_note_on_the_site(site):
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        widgets = sum(
            1
            for cell in nb.cells
            for out in cell.get("outputs", [])
            if sitetools.WIDGET_MIME in out.get("data", {})
        )
        live = live_explorers(path)
        page = html_of(site, f"{path.stem}.html")
        assert sitetools.WIDGET_MIME not in page
        notes = page.count("runs in JupyterLab, Binder or Colab")
        assert notes == widgets - live, f"{path.name}: {widgets - live} widgets, {notes} notes"
        assert page.count('<div class="posenc-live"') == live, path.name


def live_explorers(path):
    """How many of a chapter's widget outputs are live explorers (drawn by explorers.js)."""
    nb = nbformat.read(path, as_version=4)
    return sum(
        1
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if sitetools.LIVE_MIME in out.get("data", {})
    )


LIVE_PAGES = {f"{p.stem}.html": live_explorers(p) for p in CHAPTERS if live_explorers(p)}


@pytest.mark.site
def test_the_live_chapters_are_those_of_the_closed_form_explorers():
    assert LIVE_PAGES == {
        "00_start_here.html": 1,
        "02_sinusoidal_clock_hands.html": 2,
        "04_rope.html": 1,
        "05_alibi.html": 1,
    }


@pytest.mark.site
def test_every_figure_has_alt_text(site):
    for page in PAGES + REFERENCE_PAGES:
        for tag in re.findall(r"<img\b[^>]*>", html_of(site, page)):
            alt = re.search(r'alt="([^"]*)"', tag)
            assert alt and alt[1].strip(), f"{page}: {tag}"


@pytest.mark.site
def test_the_api_page_documents_every_public_function_with_its_examples(site):
    import posenc_lib

    page = html_of(site, "api.html")
    for name in posenc_lib.__all__:
        module = getattr(posenc_lib, name).__module__
        assert f'id="{module}.{name}"' in page, name
    assert 'id="posenc_lib.learned.LearnedPositions"' in page
    for module in ("model", "experiments", "corpus", "realtext", "sweep"):  # the sweeps too
        assert f'id="posenc_lib.{module}.' in page, module
    assert page.count('class="rubric">Examples') >= 10
    assert page.count('<span class="gp">&gt;&gt;&gt; </span>') >= 20  # highlighted doctests


@pytest.mark.site
def test_the_site_builds_from_scratch_with_no_network(site, tmp_path):
    """A fresh build in a network namespace of its own (no interface but loopback)."""
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n is not permitted here")
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT / 'tools')!r}); import sitetools; "
        f"print(round(sitetools.build(out={str(tmp_path / 'out')!r}, "
        f"stage_dir={str(tmp_path / 'src')!r}, doctrees={str(tmp_path / 'doctrees')!r})))"
    )
    done = subprocess.run(["unshare", "-n", sys.executable, "-c", code], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    print(f"fresh offline build: {done.stdout.decode().strip()} s")
    built = sorted(p.name for p in (tmp_path / "out").glob("*.html"))
    assert built == sorted(p.name for p in site.glob("*.html"))


@pytest.mark.site
def test_a_figure_with_metadata_renders_with_its_alt_text_and_caption(tmp_path):
    """The figure convention end to end: a notebook through the site's own Sphinx setup."""
    if importlib.util.find_spec("myst_nb") is None:
        pytest.skip("the site stack is not installed")
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    metadata = {
        "image": {"alt": "A single pixel, the whole figure"},
        "figure": {"caption": "The smallest figure of the course.", "name": "fig-pixel"},
    }
    nbformat.write(tiny_chapter(metadata), notebooks / "01_tiny.ipynb")
    stage = sitetools.stage(tmp_path / "src", notebooks=notebooks)
    (stage / "api.md").write_text("# API\n")
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(sitetools.DOCS), "-q"]
    subprocess.run([*command, str(stage), str(tmp_path / "out")], check=True)
    page = (tmp_path / "out" / "01_tiny.html").read_text()
    figure = re.search(r"<figure\b.*?</figure>", page, re.S)
    assert figure, "no <figure> on the page"
    assert 'alt="A single pixel, the whole figure"' in figure[0]
    assert re.search(r"<figcaption>.*The smallest figure of the course\.", figure[0], re.S)
    assert 'alt="Figure drawn by the code above, in the section “2. The cheat sheet”"' in page


# -- in the browser ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(site):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import website

    with website.serve(site) as base:
        yield base


@pytest.fixture(scope="module")
def chromium(browser, served):
    """The session's Chromium (tests/conftest.py), once the site is served."""
    return browser


class PageLog:
    """What a page did while loading: console errors, failed requests, every host asked."""

    def __init__(self, page):
        self.errors, self.failed, self.hosts = [], [], set()
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        page.on("request", lambda r: self.hosts.add(urllib.parse.urlparse(r.url).hostname))
        page.on(
            "response", lambda r: r.status >= 400 and self.failed.append(f"{r.url}: {r.status}")
        )


def open_page(chromium, served, page_name, width=1280, height=900, color_scheme="light", scale=1):
    page = chromium.new_page(
        viewport={"width": width, "height": height},
        color_scheme=color_scheme,
        device_scale_factor=scale,
    )
    log = PageLog(page)
    page.goto(f"{served}/{page_name}", wait_until="load")
    page.evaluate("() => window.MathJax?.startup?.promise")  # typesetting done (if any math)
    page.wait_for_load_state("networkidle")
    # a reader who opens every going-deeper fold and folded cell: what is in them is checked too
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    # myst-nb fades an opened fold in over 0.3 s: read the page once every fade has finished
    page.evaluate("() => Promise.all(document.getAnimations().map(a => a.finished))")
    return page, log


RAW_MATH = re.compile(r"\$\$|\\\(|\\\)|\\\[|\\\]|(?<![\w$])\$[^$\s][^$]*\$")
TEXT_OUTSIDE_CODE = """() => {
    const main = document.querySelector('main') || document.body;
    const copy = main.cloneNode(true);
    copy.querySelectorAll('pre, code, script, style, mjx-container, .cell_input').forEach(e => e.remove());
    return copy.innerText;
}"""


@pytest.mark.site
@pytest.mark.parametrize("page_name", PAGES + REFERENCE_PAGES)
def test_page_loads_clean_with_images_math_and_working_links(chromium, served, page_name):
    page, log = open_page(chromium, served, page_name)
    try:
        assert log.errors == [], f"console errors: {log.errors}"
        assert log.failed == [], f"failed requests: {log.failed}"
        assert log.hosts == {"127.0.0.1"}, f"asked other hosts: {log.hosts - {'127.0.0.1'}}"
        images = page.eval_on_selector_all(
            "img", "els => els.map(e => [e.getAttribute('src'), e.complete && e.naturalWidth])"
        )
        assert all(width for _, width in images), f"images not loaded: {images}"
        text = page.evaluate(TEXT_OUTSIDE_CODE)
        raw = RAW_MATH.findall(text)
        assert raw == [], f"math left as text: {raw[:5]}"
        if page.locator(".math").count():
            assert page.locator("mjx-container").count() >= page.locator(".math").count()
        check_internal_links(page, served, page_name)
    finally:
        page.close()


def check_internal_links(page, served, page_name):
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    cache = {}
    for href in {h for h in hrefs if h.startswith(served)}:
        url, _, fragment = href.partition("#")
        if url not in cache:
            response = page.request.get(url)
            cache[url] = (response.status, response.text() if url.endswith(".html") else "")
        status, body = cache[url]
        assert status == 200, f"{page_name}: link to {href} answers {status}"
        if fragment and url.endswith(".html"):
            fragment = urllib.parse.unquote(fragment)
            assert f'id="{fragment}"' in body, f"{page_name}: {href} has no #{fragment}"


@pytest.mark.site
def test_search_for_rotary_finds_chapter_4(chromium, served):
    page, log = open_page(chromium, served, "search.html?q=rotary")
    try:
        page.wait_for_selector("#search-results li a", timeout=30_000)
        found = page.eval_on_selector_all(
            "#search-results li a", "els => els.map(e => e.getAttribute('href'))"
        )
        assert any(href.startswith("04_rope.html") for href in found), found
        assert log.errors == [] and log.failed == []
    finally:
        page.close()


@pytest.mark.site
@pytest.mark.parametrize("width", [1280, 390])
def test_screenshots_at_desktop_and_phone_width(chromium, served, width):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = {}
    for page_name in SCREENSHOT_PAGES:
        page, log = open_page(chromium, served, page_name, width=width)
        try:
            overflow = page.evaluate("() => document.documentElement.scrollWidth")
            assert overflow <= width + 1, f"{page_name} scrolls sideways at {width} px"
            path = ARTIFACTS / f"{page_name.removesuffix('.html')}-{width}.png"
            page.screenshot(path=str(path))
            shots[page_name] = str(path.relative_to(ROOT))
        finally:
            page.close()
    (ARTIFACTS / f"screenshots-{width}.json").write_text(json.dumps(shots, indent=1))


# -- the live explorers (chapters 00, 02, 04, 05) ----------------------------------------------------

# In the page: a keydown listener (capture) stamps each press; the explorer's "posenc:frame" event,
# dispatched once its canvas has been redrawn, stamps the update; the next animation frame is the
# one that paints the drawing (t_frame: the paint follows it), and the one after it starts once
# that frame has been painted (t_painted). All performance.now(), ms.
LIVE_PROBE = """root => {
    const records = [];
    const onKey = () => records.push(
        {t_key: performance.now(), t_drawn: null, t_frame: null, t_painted: null});
    const onFrame = () => {
        const record = records[records.length - 1];
        if (!record || record.t_drawn !== null) return;
        record.t_drawn = performance.now();
        requestAnimationFrame(() => {
            record.t_frame = performance.now();
            requestAnimationFrame(() => { record.t_painted = performance.now(); });
        });
    };
    window.addEventListener("keydown", onKey, true);
    root.addEventListener("posenc:frame", onFrame);
    window.__posencLive = {
        records: () => records,
        stop() {
            window.removeEventListener("keydown", onKey, true);
            root.removeEventListener("posenc:frame", onFrame);
        },
    };
}"""
LIVE_PRESSES = 20


def explorer_state(explorer):
    """What a reader sees of one explorer: frame number, canvas pixels, text alternative, status."""
    return explorer.evaluate(
        """root => ({
            frame: Number(root.dataset.frame),
            pixels: root.querySelector("canvas").toDataURL(),
            alt: root.querySelector("canvas").getAttribute("aria-label"),
            status: root.querySelector(".posenc-status").textContent,
        })"""
    )


def accessible_names(explorer):
    return explorer.evaluate(
        """root => [...root.querySelectorAll("input, select, button")].map(el => [
            el.id || el.tagName,
            (el.getAttribute("aria-label") || el.labels?.[0]?.textContent || el.textContent || "").trim(),
        ])"""
    )


def moved(before, after):
    return (
        after["frame"] > before["frame"]
        and after["pixels"] != before["pixels"]
        and after["alt"] != before["alt"]
        and after["status"] != before["status"]
    )


def time_live_presses(page, explorer, slider, presses=LIVE_PRESSES):
    """Alternate ArrowRight and ArrowLeft on `slider`; return the in-page times from each press (ms).

    ``drawn``: the canvas redrawn; ``frame``: the next animation frame, which paints it;
    ``painted``: the animation frame after that one.
    """
    explorer.evaluate(LIVE_PROBE)
    try:
        slider.focus()
        at_max = slider.evaluate("el => Number(el.value) === Number(el.max)")
        keys = ["ArrowLeft", "ArrowRight"] if at_max else ["ArrowRight", "ArrowLeft"]
        for n in range(presses):
            page.keyboard.press(keys[n % 2])
            page.wait_for_function(
                "n => window.__posencLive.records()[n]?.t_painted != null", arg=n, timeout=10_000
            )
            page.wait_for_timeout(50)
        records = page.evaluate("() => window.__posencLive.records()")
    finally:
        page.evaluate("() => window.__posencLive.stop()")
    return {
        field: [round(r[f"t_{field}"] - r["t_key"], 2) for r in records]
        for field in ("drawn", "frame", "painted")
    }


@pytest.mark.site
@pytest.mark.parametrize("page_name", sorted(LIVE_PAGES))
def test_live_explorers_answer_keyboard_and_pointer_with_names_and_alt_text(
    chromium, served, page_name
):
    from statistics import median

    page, log = open_page(chromium, served, page_name)
    timings, measured = {}, {}
    try:
        explorers = page.locator(".posenc-live .posenc-explorer")
        explorers.first.wait_for(timeout=10_000)
        assert explorers.count() == LIVE_PAGES[page_name]
        if page_name.startswith("02"):  # at the explorer's first settings (d_model 16, base 10,000)
            measured = long_range_control(page, explorers.first)
        for n in range(explorers.count()):
            explorer = explorers.nth(n)
            explorer.scroll_into_view_if_needed()
            unnamed = [what for what, name in accessible_names(explorer) if not name]
            assert unnamed == [], f"{page_name}: controls without an accessible name: {unnamed}"
            canvas = explorer.locator("canvas")
            assert (
                canvas.get_attribute("role") == "img"
                and len(canvas.get_attribute("aria-label")) > 80
            )
            box, pixels = canvas.bounding_box(), canvas.evaluate("c => [c.width, c.height]")
            assert pixels[0] >= round(box["width"]), "the canvas has a pixel per CSS pixel at least"
            sliders = explorer.locator("input[type=range]")
            for k in range(sliders.count()):
                slider = sliders.nth(k)
                name = slider.evaluate("el => el.labels[0].textContent")
                before = explorer_state(explorer)
                slider.focus()
                at_max = slider.evaluate("el => Number(el.value) === Number(el.max)")
                page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
                assert moved(before, explorer_state(explorer)), f"{page_name}: {name} (keyboard)"
                before = explorer_state(explorer)
                track = slider.bounding_box()
                page.mouse.click(
                    track["x"] + 0.3 * track["width"], track["y"] + track["height"] / 2
                )
                assert moved(before, explorer_state(explorer)), f"{page_name}: {name} (pointer)"
                times = time_live_presses(page, explorer, slider)
                label = f"{page_name.removesuffix('.html')} #{n} {name}"
                timings[label] = {f"key_to_{k}_ms": v for k, v in times.items()}
                timings[label]["medians_ms"] = {k: median(v) for k, v in times.items()}
            for select in explorer.locator("select").all():
                before = explorer_state(explorer)
                options = select.evaluate("el => [...el.options].map(o => o.value)")
                current = select.input_value()
                select.select_option(next(o for o in options if o != current))
                assert moved(before, explorer_state(explorer)), f"{page_name}: a dropdown"
        assert log.errors == [], f"console errors: {log.errors}"
        assert log.failed == [], f"failed requests: {log.failed}"
        assert log.hosts == {"127.0.0.1"}, f"asked other hosts: {log.hosts - {'127.0.0.1'}}"
    finally:
        page.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "live-latency.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(timings)
    path.write_text(json.dumps(data, indent=1))
    if measured:
        (ARTIFACTS / "long-range-control.json").write_text(json.dumps(measured, indent=1))


def long_range_control(page, explorer):
    """Chapter 02's position slider (0 to 4,967): what a hand can do with it, measured."""
    slider = explorer.locator("input[type=range]").first
    value = lambda: int(slider.input_value())  # noqa: E731
    track = slider.bounding_box()
    span = int(slider.get_attribute("max")) - int(slider.get_attribute("min"))
    slider.focus()
    page.keyboard.press("Home")
    start = value()
    page.keyboard.press("ArrowRight")
    fine = value() - start
    page.keyboard.press("PageUp")
    coarse = value() - start - fine
    explorer.get_by_role("button", name=re.compile(r"plus")).click()
    button = value() - start - fine - coarse
    field = explorer.locator("input[type=number]").first
    field.fill("1234")
    field.press("Enter")
    typed = value()
    measured = {
        "positions": span + 1,
        "track_px": round(track["width"]),
        "positions_per_px": round(span / track["width"], 2),
        "arrow_step": fine,
        "page_step": coarse,
        "button_step": button,
        "typed_1234_gives": typed,
        "most_presses_to_any_position": span // coarse + (coarse - 1),
    }
    assert fine == 1 and coarse == 100 and button == 100 and typed == 1234, measured
    canvas = explorer.locator("canvas").bounding_box()["width"]
    assert track["width"] >= 0.9 * canvas, f"the long slider spans the figure's width {canvas}"
    return measured


# -- on a phone, with a screen reader, in the dark --------------------------------------------------


def all_pages(site):
    return sorted(p.name for p in site.glob("*.html"))


@pytest.mark.site
def test_no_build_path_appears_anywhere_on_the_site(site):
    """The machine that built the site leaves no trace: not its checkout, not its home."""
    traces = {str(ROOT), str(Path.home())} - {"/"}
    found = []
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in {".html", ".js", ".txt", ".css", ".json", ".ipynb"}:
            text = path.read_text(errors="replace")
            found += [f"{path.relative_to(site)}: {t}" for t in traces if t in text]
    assert found == [], found[:10]
    assert "PosixPath(" not in html_of(site, "api.html")


@pytest.mark.site
def test_the_landing_page_loads_no_mathjax_and_a_chapter_with_math_does(site):
    landing = html_of(site, "index.html")
    assert "_static/mathjax/" not in landing and "window.MathJax" not in landing
    assert 'class="posenc-math"' in landing  # the goals' simple math, written as text
    assert "_static/mathjax/startup.js" in html_of(site, "02_sinusoidal_clock_hands.html")


@pytest.mark.site
def test_every_figure_links_to_its_full_size_image(site):
    for page in PAGES:
        for tag in re.findall(
            r"(<a\b[^>]*>)?\s*<img\b[^>]*src=\"(_images/[^\"]+)\"", html_of(site, page)
        ):
            assert tag[0], f"{page}: {tag[1]} is not linked to its full-size file"


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.exists():
        if os.environ.get("POSENC_REQUIRE_SITE") == "1":
            pytest.fail(f"POSENC_REQUIRE_SITE=1 but {AXE} is missing: npm ci --prefix tests/axe")
        pytest.skip("axe-core is not installed: npm ci --prefix tests/axe")
    return AXE.read_text()


def axe_violations(page, axe_source):
    """Run axe-core (WCAG 2.x A/AA and best practices) on the page as it stands."""
    page.add_script_tag(content=axe_source)
    results = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' + n.failureSummary)}));
        }"""
    )
    return results


@pytest.mark.site
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_axe_finds_no_violation_on_any_page(chromium, served, site, axe_source, viewport, scheme):
    size = VIEWPORTS[viewport]
    found = {}
    for page_name in all_pages(site):
        page, _ = open_page(chromium, served, page_name, color_scheme=scheme, **size)
        try:
            violations = axe_violations(page, axe_source)
            if violations:
                found[page_name] = violations
        finally:
            page.close()
    report = ARTIFACTS / f"axe-{viewport}-{scheme}.json"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps(found, indent=1))
    assert found == {}, json.dumps(found, indent=1)[:6000]


FIGURE_SIZES = """() => [...document.querySelectorAll('.bd-content img')]
    .filter(e => (e.getAttribute('src') || '').startsWith('_images/'))
    .map(e => ({src: e.getAttribute('src'), natural: e.naturalWidth,
                shown: e.getBoundingClientRect().width, width: e.getAttribute('width'),
                height: e.getAttribute('height')}))"""


def figure_problems(figures):
    """Why figures (`FIGURE_SIZES` of one page) are not sharp: each needs two image pixels per CSS
    pixel it is shown at (or is an SVG) and the page must size it (width and height on the
    ``<img>``)."""
    problems = []
    for figure in figures:
        src, natural, shown = figure["src"], figure["natural"], figure["shown"]
        if src.endswith(".svg"):
            continue
        if natural + 1 < 2 * shown:  # a pixel of slack for fractional layout
            problems.append(f"{src}: {natural} px wide, shown at {shown:.0f} px (needs 2x)")
        if not (figure["width"] and figure["height"]):
            problems.append(f"{src}: the <img> has no width and height, the page cannot size it")
    return problems


@pytest.mark.site
@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_no_page_is_wider_than_the_screen_and_every_figure_is_sharp(
    chromium, served, site, viewport
):
    """At 390 and 1280 px: no page scrolls sideways, and every figure has at least two image
    pixels per CSS pixel shown, so it is sharp on a high-density screen and when zoomed. At 390
    px every chapter is photographed, and chapter 06's main result (section 3's first figure) on
    a 3x screen, as a phone shows it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = VIEWPORTS[viewport]
    wide, blurred, sizes = {}, {}, {}
    for page_name in all_pages(site):
        page, _ = open_page(chromium, served, page_name, **size)
        try:
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > size["width"]:
                wide[page_name] = width
            figures = page.evaluate(FIGURE_SIZES)
            sizes[page_name] = figures
            problems = figure_problems(figures)
            if problems:
                blurred[page_name] = problems
            if viewport == "phone" and page_name in PAGES:
                shot = ARTIFACTS / f"phone-{page_name.removesuffix('.html')}.png"
                page.screenshot(path=str(shot), full_page=True)
        finally:
            page.close()
    (ARTIFACTS / f"figures-{size['width']}.json").write_text(json.dumps(sizes, indent=1))
    if viewport == "phone":
        page, _ = open_page(chromium, served, "06_train_short_test_long.html", scale=3, **size)
        try:
            section = "section#the-study-6-schemes-x-3-tasks-trained-at-32-tested-up-to-256"
            figure = page.locator(f"{section} img").first
            figure.screenshot(path=str(ARTIFACTS / "phone-06-main-result-3x.png"))
        finally:
            page.close()
    assert wide == {}, f"wider than {size['width']} px: {wide}"
    assert blurred == {}, json.dumps(blurred, indent=1)[:4000]


def test_a_figure_shown_wider_than_half_its_pixels_is_caught():
    sized = {"width": "436", "height": "104"}
    figures = [
        {"src": "_images/a.png", "natural": 872, "shown": 436.0, **sized},  # 2x: sharp
        {"src": "_images/b.png", "natural": 872, "shown": 872.0, **sized},  # 1x
        {"src": "_images/c.png", "natural": 872, "shown": 350.0, "width": None, "height": None},
        {"src": "_images/d.svg", "natural": 300, "shown": 300.0, "width": None, "height": None},
    ]
    assert figure_problems(figures) == [
        "_images/b.png: 872 px wide, shown at 872 px (needs 2x)",
        "_images/c.png: the <img> has no width and height, the page cannot size it",
    ]


@pytest.mark.site
def test_dark_mode_shows_figures_undimmed(chromium, served):
    page, _ = open_page(chromium, served, "02_sinusoidal_clock_hands.html", color_scheme="dark")
    try:
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
        styles = page.eval_on_selector_all(
            ".bd-content img",
            "els => els.map(e => [getComputedStyle(e).filter, getComputedStyle(e).paddingTop])",
        )
        assert styles and all(f == "none" and p == "0px" for f, p in styles), styles[:3]
    finally:
        page.close()


@pytest.mark.site
def test_search_for_rotary_shows_real_snippets_clear_of_the_magnifier(chromium, served):
    page, _ = open_page(chromium, served, "search.html?q=rotary", width=390, height=844)
    try:
        page.wait_for_selector("#search-results li p.context", timeout=30_000)
        snippets = page.eval_on_selector_all(
            "#search-results li p.context", "els => els.map(e => e.innerText)"
        )
        assert any("rotary" in s.lower() for s in snippets), snippets[:5]
        assert all(len(s.strip(". ")) > 40 for s in snippets), snippets[:5]
        form = ".bd-search-container form.bd-search"  # the page's own field, not the dialog's
        icon, field = (
            page.locator(f"{form} {sel}").first.bounding_box()
            for sel in (".fa-magnifying-glass", "input")
        )
        page.screenshot(path=str(ARTIFACTS / "search-rotary-390.png"))
        text_start = field["x"] + page.locator(f"{form} input").first.evaluate(
            "e => parseFloat(getComputedStyle(e).paddingLeft)"
        )
        assert icon["x"] + icon["width"] <= text_start, (icon, field, text_start)
    finally:
        page.close()


# -- a phone reads every figure ---------------------------------------------------------------------

MIN_FIGURE_SCALE = (
    0.75  # of a figure's 1x size (its <img> width: the PNGs have 2 pixels per CSS px)
)
FIGURE_LAYOUT = """() => [...document.querySelectorAll('.bd-content img')]
    .filter(e => (e.getAttribute('src') || '').startsWith('_images/'))
    .map(e => {
        const box = e.closest('.posenc-figure-scroll');
        const hint = box && box.parentElement.querySelector('.posenc-scroll-hint');
        const shown = hint && hint.getBoundingClientRect();
        return {
            src: e.getAttribute('src'),
            one_x: Number(e.getAttribute('width')) || e.naturalWidth / 2,
            shown: e.getBoundingClientRect().width,
            scroller: box && {
                scrolls: box.scrollWidth > box.clientWidth + 1,
                tabindex: box.getAttribute('tabindex'),
                role: box.getAttribute('role'),
                label: box.getAttribute('aria-label') || '',
                hint: Boolean(shown && shown.width > 0 && shown.height > 0) ? hint.textContent : '',
            },
        };
    })"""


def figure_scale_problems(figures, minimum=MIN_FIGURE_SCALE):
    """Why figures (`FIGURE_LAYOUT` of one page) are not readable on a phone.

    Each is shown at ``minimum`` or more of its 1x size, or sits in a box that scrolls sideways,
    is a named region a keyboard can focus (tabindex 0) and shows its "scroll sideways" hint. A box
    that scrolls must be all of those, whatever the figure's scale.
    """
    problems = []
    for figure in figures:
        scale, box = figure["shown"] / figure["one_x"], figure["scroller"]
        reachable = bool(
            box
            and box["tabindex"] == "0"
            and box["role"] == "region"
            and box["label"].strip()
            and "scroll" in box["hint"].lower()
        )
        if scale < minimum and not (box and box["scrolls"] and reachable):
            problems.append(f"{figure['src']}: shown at {scale:.2f} of its 1x size")
        elif box and box["scrolls"] and not reachable:
            problems.append(
                f"{figure['src']}: scrolls sideways, but {box} is no named, focusable box with a hint"
            )
    return problems


def test_a_figure_a_phone_shrinks_below_three_quarters_is_caught():
    hinted = {"tabindex": "0", "role": "region", "label": "Figure 1, scrolls", "hint": "Scroll it"}
    figures = [
        {"src": "a.png", "one_x": 872, "shown": 342.0, "scroller": None},  # 0.39, no scroller
        {"src": "b.png", "one_x": 872, "shown": 654.0, "scroller": {**hinted, "scrolls": True}},
        {"src": "c.png", "one_x": 400, "shown": 342.0, "scroller": None},  # 0.86
        {
            "src": "d.png",
            "one_x": 872,
            "shown": 654.0,
            "scroller": {**hinted, "scrolls": True, "tabindex": None},
        },
        {
            "src": "e.png",
            "one_x": 872,
            "shown": 654.0,
            "scroller": {**hinted, "scrolls": True, "hint": ""},
        },
        {"src": "f.png", "one_x": 872, "shown": 342.0, "scroller": {**hinted, "scrolls": False}},
    ]
    assert [p.split(":")[0] for p in figure_scale_problems(figures)] == [
        "a.png",
        "d.png",
        "e.png",
        "f.png",
    ]


def test_every_linked_figure_gets_a_box_that_may_scroll_with_its_1x_width():
    body = (
        '<figure><a class="posenc-full-size" href="_images/a.png"><img alt="A" height="300" '
        'src="_images/a.png" width="872" /></a><figcaption>A.</figcaption></figure>'
        '<p><img alt="logo" src="_static/logo.png" /></p>'
    )
    page = sitetools.scroll_figures(body)
    assert page.count('class="posenc-figure-scroll"') == 1
    assert '<span class="posenc-figure" style="--posenc-1x: 872px">' in page
    assert '<span class="posenc-scroll-hint" aria-hidden="true">' in page
    assert page.index("posenc-scroll-hint") < page.index('<a class="posenc-full-size"')
    assert '<p><img alt="logo" src="_static/logo.png" /></p>' in page  # not a figure: untouched
    assert (
        sitetools.scroll_figures(sitetools.link_figures('<img src="_images/b.png" />')).count(
            "posenc-figure-scroll"
        )
        == 1
    )


@pytest.mark.site
def test_a_phone_shows_every_figure_at_three_quarters_of_its_size_or_in_a_scroller(
    chromium, served, site
):
    """At 390 px, every content figure of every page is shown at 0.75 or more of its 1x size, or in
    a box that scrolls sideways, is a named region the keyboard can focus and says so; and the arrow
    keys scroll such a box (chapter 07's headline figure, 944 px at 1x). Before, 38 of the 39 were
    shown at 0.26 to 0.72 (chapter 08's cheat sheet 0.26, chapter 07's headline figure 0.36)."""
    size = VIEWPORTS["phone"]
    problems, scales = {}, {}
    for page_name in all_pages(site):
        page, _ = open_page(chromium, served, page_name, **size)
        try:
            figures = page.evaluate(FIGURE_LAYOUT)
        finally:
            page.close()
        scales[page_name] = [
            {"src": f["src"], "one_x": f["one_x"], "scale": round(f["shown"] / f["one_x"], 2),
             "scrolls": bool(f["scroller"] and f["scroller"]["scrolls"])}
            for f in figures
        ]  # fmt: skip
        if found := figure_scale_problems(figures):
            problems[page_name] = found
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "figure-scale-390.json").write_text(json.dumps(scales, indent=1))
    assert sum(len(v) for v in scales.values()) >= 30, "the chapters' figures were not found"
    assert problems == {}, json.dumps(problems, indent=1)[:4000]
    page, _ = open_page(chromium, served, "07_real_text.html", **size)
    try:
        box = page.locator(".posenc-figure-scroll[tabindex='0']").nth(1)
        box.scroll_into_view_if_needed()
        assert box.locator("img").get_attribute("width") == "944"
        box.focus()
        assert page.evaluate(
            "() => document.activeElement.classList.contains('posenc-figure-scroll')"
        )
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "() => document.activeElement.scrollLeft > 0", timeout=5_000
        )  # the keys scroll the figure, not the page
        assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]
        page.screenshot(path=str(ARTIFACTS / "phone-07-wide-figure-scrolled.png"))
    finally:
        page.close()


@pytest.mark.site
def test_a_wide_screen_keeps_figures_in_their_column_with_no_scroller_tab_stops(chromium, served):
    """At 1280 px the figures fit their column as before (the 0.75 floor is for phone-sized
    screens): no box scrolls, so none is a tab stop or shows its hint."""
    for page_name in [*PAGES, "cheatsheet.html"]:
        page, _ = open_page(chromium, served, page_name)
        try:
            figures = page.evaluate(FIGURE_LAYOUT)
        finally:
            page.close()
        for figure in figures:
            box = figure["scroller"]
            assert box and not (box["scrolls"] or box["tabindex"] or box["hint"]), (
                page_name,
                figure,
            )
            assert figure["shown"] <= figure["one_x"] + 0.5, (page_name, figure)  # never above 1x


# -- the first explorer, a few key presses away -----------------------------------------------------

MAX_TABS_TO_EXPLORER = 5
FOCUS = """() => {
    const el = document.activeElement;
    const box = el.getBoundingClientRect();
    return {
        text: (el.textContent || '').trim(),
        control: Boolean(el.closest('.posenc-live .posenc-explorer'))
            && ['INPUT', 'SELECT', 'BUTTON'].includes(el.tagName),
        visible: box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight,
    };
}"""


def tabs_to_first_control(page, limit=40):
    """Press Tab from page load until a live explorer's control has focus; Enter on the "Skip to
    the explorer" link when it has focus. Returns the Tab presses and what each focused."""
    path = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS)
        path.append(focus["text"][:40] or "?")
        if focus["control"]:
            return len(path), path
        if focus["text"] == "Skip to the explorer":
            page.wait_for_function(f"() => ({FOCUS})().visible", timeout=2_000)  # slides in
            page.keyboard.press("Enter")
    return None, path


@pytest.mark.site
@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_the_first_explorer_control_is_a_few_tab_presses_from_page_load(chromium, served, viewport):
    """On every page with a live explorer, the skip link "Skip to the explorer" (the second tab
    stop, after the theme's "Skip to main content") takes a keyboard to the explorer: its first
    control is at most MAX_TABS_TO_EXPLORER Tab presses from page load (38 to 45 without it)."""
    counts = {}
    for page_name in sorted(LIVE_PAGES):
        page, log = open_page(chromium, served, page_name, **VIEWPORTS[viewport])
        try:
            page.locator(".posenc-live .posenc-explorer").first.wait_for(timeout=10_000)
            presses, path = tabs_to_first_control(page)
            counts[page_name] = presses
            assert presses is not None and presses <= MAX_TABS_TO_EXPLORER, f"{page_name}: {path}"
            assert "Skip to the explorer" in path, path
            assert log.errors == [], log.errors
        finally:
            page.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"tabs-to-explorer-{VIEWPORTS[viewport]['width']}.json").write_text(
        json.dumps(counts, indent=1)
    )


def test_the_skip_link_targets_the_first_explorer_only_on_pages_that_have_one():
    nb = tiny_chapter()
    live = {"kind": "clock", "spec": {}, "values": {}}
    for n in (1, 3):
        nb.cells[n].outputs = [
            new_output(
                "display_data",
                data={sitetools.WIDGET_MIME: {"model_id": "x"}, sitetools.LIVE_MIME: live},
            )
        ]
    site_nb, _ = sitetools.site_notebook(nb, "01_tiny.ipynb", URL)
    mounts = [
        out["data"]["text/html"] for c in site_nb.cells for out in c.get("outputs", [])
        if "posenc-live" in out.get("data", {}).get("text/html", "")
    ]  # fmt: skip
    assert len(mounts) == 2
    assert 'id="posenc-explorer" tabindex="-1"' in mounts[0]
    assert 'id="posenc-explorer-2" tabindex="-1"' in mounts[1]
    theme = '<div id="pst-skip-link" class="skip-link d-print-none"><a href="#main-content">Skip to main content</a></div>'
    page = sitetools.explorer_skip_link(f"<body>{theme}<main>{mounts[0]}</main></body>")
    assert (
        page.index("Skip to main content")
        < page.index('<a href="#posenc-explorer">Skip to the explorer</a>')
        < page.index("<main>")
    )
    assert sitetools.explorer_skip_link(page) == page  # once
    assert sitetools.explorer_skip_link(f"<body>{theme}<main></main></body>").count("Skip") == 1


# -- search: clean snippets, light downloads ----------------------------------------------------------

SNIPPET_TEX = re.compile(
    r"\\[()\[\]]|\$\$|\\(?:frac|theta|omega|sqrt|cdot|sin|cos|pi|mathrm|text|left|right)\b"
)
LAUNCH_TEXT = re.compile(r"pynb|Launch Binder|Open In Colab|Binder Colab|Download the notebook")
SEARCH_QUERIES = ("rotary", "slope", "wavelength", "interpolation")
MAX_QUERY_BYTES = 1_500_000  # everything one query downloads: 2.65 MB for "rotary" before
# the pages it fetches for its snippets: 1.7 MB before the light copies; 418 kB for "slope" (11
# pages) once the chapters gained their ledgers, folds and checks (2026-12-03); 531 kB for
# "interpolation" (11 pages) once chapter 08 gained its hybrid-layer section and the API page the
# two modules behind it (2026-12-04)
MAX_SNIPPET_BYTES = 560_000


def search_downloads(chromium, served, query):
    """Load the search page for ``query`` until every result has its snippet; return the results'
    text and the bytes of every response by path (the page, its assets, the index, the snippets'
    sources)."""
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    log, responses = PageLog(page), []
    page.on("response", lambda response: responses.append(response))
    try:
        page.goto(f"{served}/search.html?q={urllib.parse.quote(query)}", wait_until="load")
        page.wait_for_function(
            "() => /Search finished/.test(document.querySelector('#search-results')?.innerText)",
            timeout=30_000,
        )
        page.wait_for_load_state("networkidle")
        snippets = page.eval_on_selector_all(
            "#search-results li", "els => els.map(e => e.innerText)"
        )
        sizes = {}
        for response in responses:
            path = urllib.parse.urlparse(response.url).path.lstrip("/")
            body = len(response.body()) if response.status < 300 else 0
            sizes[path] = sizes.get(path, 0) + body
        assert log.errors == [] and log.failed == [], (log.errors, log.failed)
    finally:
        page.close()
    return snippets, sizes


@pytest.mark.site
def test_search_snippets_are_clean_prose_and_a_query_downloads_little(chromium, served):
    """Snippets show neither TeX source nor the launch bar's text, and a query fetches the light
    copies of its result pages (_search/NAME.html), never the pages themselves."""
    measured = {}
    for query in SEARCH_QUERIES:
        snippets, sizes = search_downloads(chromium, served, query)
        assert len(snippets) >= 3, (query, snippets)
        for snippet in snippets:
            assert not SNIPPET_TEX.search(snippet), f"{query}: TeX in {snippet!r}"
            assert not LAUNCH_TEXT.search(snippet), f"{query}: launch bar in {snippet!r}"
        pages = {p for p in sizes if p.endswith(".html") and p != "search.html"}
        assert pages and all(p.startswith(f"{sitetools.SEARCH_DIR}/") for p in pages), pages
        snippet_bytes = sum(sizes[p] for p in pages)
        measured[query] = {
            "total": sum(sizes.values()),
            "snippets": snippet_bytes,
            "pages": len(pages),
        }
        assert measured[query]["total"] <= MAX_QUERY_BYTES, (query, measured[query])
        assert snippet_bytes <= MAX_SNIPPET_BYTES, (query, measured[query])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "search-bytes.json").write_text(json.dumps(measured, indent=1))
    print(f"bytes one query downloads: {measured}")
