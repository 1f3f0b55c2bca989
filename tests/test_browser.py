"""The course as a learner sees it: JupyterLab in headless Chromium, driven by Playwright.

For every chapter with a widget: open it, wait for the kernel, Run All, check that no cell shows an
error, operate the widget from the keyboard, check that its figure changed, and save a screenshot.
Also: 00_start_here's links to the chapters resolve. Slider-to-image latencies are written to
tests/artifacts/browser/latency.json for `make bench`.

Skips when Chromium is missing, unless POSENC_REQUIRE_BROWSER=1 (CI), where that is a failure.
Never downloads a browser: it uses the system's `chromium`.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts" / "browser"
LAUNCH_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
IDLE = re.compile(r"\(ipykernel\) \| Idle")


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        if os.environ.get("POSENC_REQUIRE_BROWSER") == "1":
            pytest.fail(
                "POSENC_REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)"
            )
        pytest.skip("no chromium on PATH: install Debian's `chromium` to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=LAUNCH_FLAGS)
        yield browser
        browser.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def lab(tmp_path_factory, browser):
    """JupyterLab on 127.0.0.1, serving a throw-away copy of notebooks/ (autosave can't touch
    the committed notebooks). The empty token is for this local test server only."""
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    # User settings for this server only: render every cell (JupyterLab 4 otherwise renders
    # off-screen cells lazily, hiding their outputs from the page), no news pop-up, and no
    # autosave (it could race the test's own save over the same temporary file).
    settings = root / "settings"
    for plugin, values in {
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false"},
        "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        "--ServerApp.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root / 'notebooks'}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = open(root / "lab.log", "w")  # noqa: SIM115 (closed at teardown)
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings)}
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        server.terminate()
        pytest.fail(f"JupyterLab did not start: {(root / 'lab.log').read_text()[-2000:]}")
    yield url
    server.terminate()
    server.wait(20)
    log.close()


def open_notebook(browser, lab, name):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab}/lab/tree/{name}?reset")  # ?reset: no tabs restored from an earlier page
    page.get_by_text(IDLE).wait_for(timeout=120_000)
    return page


def run_all(page, timeout_s):
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    # Every prompt shows a number once its cell has run; "[*]" means queued or running.
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=timeout_s * 1000,
    )
    page.get_by_text(IDLE).wait_for(timeout=60_000)


def saved_errors(page, lab, name):
    """Save the notebook from the page and return the error outputs of the saved file.

    The file, not the page, is read: the page renders a traceback like any stderr text.
    """
    page.keyboard.press("Control+s")
    deadline = time.time() + 30
    cells, problem = [], "no answer yet"
    while time.time() < deadline:
        # The save is asynchronous: until it completes the file may be the old one, or half
        # written (the server then answers 400), so read again until every cell has run.
        response = page.request.get(f"{lab}/api/contents/{name}?content=1")
        if response.ok:
            content = response.json()["content"]
            cells = [
                c for c in content["cells"] if c["cell_type"] == "code" and c["source"].strip()
            ]
            if all(c.get("execution_count") for c in cells):
                break
            problem = "the saved file has cells that did not run"
        else:
            problem = f"the contents API answered {response.status} {response.text()[:300]}"
        page.wait_for_timeout(500)
    else:
        pytest.fail(f"{name}: {problem}")
    return [
        f"{out['ename']}: {out['evalue']}"
        for c in cells
        for out in c.get("outputs", [])
        if out["output_type"] == "error"
    ]


def widget_image(page):
    image = page.locator(".jupyter-widgets img, .widget-image").first
    image.wait_for(timeout=60_000)
    return image


def image_source(image):
    return image.get_attribute("src") or ""


def wait_for_change(page, image, before, timeout_s=20):
    start = time.perf_counter()
    while image_source(image) == before:
        if time.perf_counter() - start > timeout_s:
            return None
        page.wait_for_timeout(2)
    return (time.perf_counter() - start) * 1000


def save_latency(name, values):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "latency.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = values
    path.write_text(json.dumps(data, indent=1))


def press_slider(page, image, slider, presses=6):
    """Press the arrow keys on a slider, alternating direction so the value always moves; the
    ms from each press to a new image."""
    handle = slider.locator(".noUi-handle, .ui-slider-handle").first
    handle.focus()
    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    keys = ["ArrowLeft", "ArrowRight"] if at_max else ["ArrowRight", "ArrowLeft"]
    latencies = []
    for n in range(presses):
        before = image_source(image)
        page.keyboard.press(keys[n % 2])
        latencies.append(wait_for_change(page, image, before))
    return latencies


# notebook, Run All budget in seconds
WIDGET_CHAPTERS = [
    ("01_attention_cant_see_order.ipynb", 120),
    ("02_sinusoidal_clock_hands.ipynb", 120),
    ("03_learned_positions.ipynb", 180),
    ("04_rope.ipynb", 120),
    ("05_alibi.ipynb", 120),
    ("06_train_short_test_long.ipynb", 400),
]


@pytest.mark.parametrize(
    ("name", "budget"), WIDGET_CHAPTERS, ids=[c[0][:2] for c in WIDGET_CHAPTERS]
)
def test_chapter_runs_and_its_widget_answers_the_keyboard(browser, lab, name, budget):
    page = open_notebook(browser, lab, name)
    try:
        run_all(page, budget)
        assert saved_errors(page, lab, name) == []
        image = widget_image(page)
        image.scroll_into_view_if_needed()
        before = image_source(image)
        assert before, f"{name}: the widget's image is empty"
        if name.startswith("01"):
            # Chapter 1's explorer has checkboxes and buttons, not sliders.
            page.get_by_label("causal mask").first.focus()
            page.keyboard.press("Space")
            latencies = [wait_for_change(page, image, before)]
        else:
            slider = page.locator(".widget-slider, .widget-hslider").first
            latencies = press_slider(page, image, slider)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / f"{name.removesuffix('.ipynb')}.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        save_latency(name, latencies)
        assert all(ms is not None for ms in latencies), f"{name}: the image did not change"
        assert image_source(image) != before
    finally:
        page.close()


def test_quiz_answers_a_click_in_the_browser(browser, lab):
    page = open_notebook(browser, lab, "07_putting_it_together.ipynb")
    try:
        run_all(page, 120)
        assert saved_errors(page, lab, "07_putting_it_together.ipynb") == []
        quiz = page.locator(".widget-radio-box").first
        quiz.scroll_into_view_if_needed()
        quiz.locator("label").first.click()
        page.get_by_role("button", name="check").first.click()
        page.get_by_text(re.compile(r"^Correct! Right: chapter 1 measured it")).wait_for(
            timeout=20_000
        )
        page.screenshot(path=str(ARTIFACTS / "07_putting_it_together.png"))
    finally:
        page.close()


def test_start_here_links_resolve_to_every_chapter(browser, lab):
    page = open_notebook(browser, lab, "00_start_here.ipynb")
    chapters = sorted(p.name for p in (ROOT / "notebooks").glob("0[1-9]_*.ipynb"))
    prefix = f"{lab}/files/"  # JupyterLab rewrites a relative link to {lab}/files/NAME?_xsrf=...
    try:
        page.wait_for_function(  # cells render lazily: wait until every chapter link is there
            "([prefix, n]) => document.querySelectorAll(`a[href^='${prefix}']`).length >= n",
            arg=[prefix, len(chapters)],
            timeout=30_000,
        )
        hrefs = page.locator(f".jp-RenderedMarkdown a[href^='{prefix}']").evaluate_all(
            "els => els.map(e => e.getAttribute('href'))"
        )
        targets = sorted({Path(urllib.parse.urlparse(h).path).name for h in hrefs})
        assert targets == chapters
        for href in hrefs:  # fetched with the page's own cookies, as a click would be
            assert page.request.get(href).status == 200, href
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "00_start_here.png"))
    finally:
        page.close()
