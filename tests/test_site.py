"""The course website (`make site`): it builds from the committed notebooks, and in headless
Chromium every page loads with nothing from another host, every image, math typeset, every
internal link resolving, and search finding chapter 4.

The build goes to build/site/ (incremental: seconds when `make site` just ran). Skips when the site
stack (`.[site]`) is not installed, unless POSENC_REQUIRE_SITE=1 (CI), where that is a failure; the
browser tests need Debian's chromium likewise (POSENC_REQUIRE_BROWSER=1). Screenshots of the
landing page and two chapters at 1280 px and 390 px go to tests/artifacts/site/.
"""

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
REFERENCE_PAGES = ["cheatsheet.html", "glossary.html", "api.html", "claims.html", "mutants.html"]
SCREENSHOT_PAGES = ["index.html", "02_sinusoidal_clock_hands.html", "04_rope.html"]
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
    assert [info["minutes"] for info in infos][:2] == [10, 25]
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
        page = html_of(site, f"{path.stem}.html")
        assert sitetools.WIDGET_MIME not in page
        notes = page.count("runs in JupyterLab, Binder or Colab")
        assert notes == widgets, f"{path.name}: {widgets} widgets, {notes} notes"


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
def chromium(served):
    from test_browser import LAUNCH_FLAGS, chromium_path

    path = chromium_path()
    if path is None:
        if os.environ.get("POSENC_REQUIRE_BROWSER") == "1":
            pytest.fail("POSENC_REQUIRE_BROWSER=1 but no chromium on PATH")
        pytest.skip("no chromium on PATH: install Debian's `chromium` to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=LAUNCH_FLAGS)
        yield browser
        browser.close()


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


def open_page(chromium, served, page_name, width=1280):
    page = chromium.new_page(viewport={"width": width, "height": 900})
    log = PageLog(page)
    page.goto(f"{served}/{page_name}", wait_until="load")
    page.evaluate("() => window.MathJax?.startup?.promise")  # typesetting done (if any math)
    page.wait_for_load_state("networkidle")
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
