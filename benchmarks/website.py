"""The course website's weight: what a browser downloads to show a page of build/site/.

    python benchmarks/website.py [PAGE ...]     (after `make site`; needs Debian's chromium)

`make bench` records the landing page's total (goal <= 2 MB) through `landing_page_transfer`.
Sizes are the bodies of every response the page needed, counted in headless Chromium from a
server on 127.0.0.1 that does not compress; ``gzip`` is the same with every text response
gzip-compressed, as GitHub Pages serves them (images and fonts are compressed already).
"""

import contextlib
import functools
import gzip
import http.server
import shutil
import sys
import threading
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "site"
LAUNCH_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory):
    """Serve ``directory`` on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _kind(url, content_type):
    path = urlparse(url).path
    for kind, suffixes in {
        "font": (".woff", ".woff2", ".ttf"),
        "script": (".js",),
        "style": (".css",),
        "image": (".png", ".svg", ".jpg", ".gif", ".ico"),
        "html": (".html", "/"),
    }.items():
        if path.endswith(suffixes):
            return kind
    return content_type.split(";")[0] or "other"


def page_transfer(browser, url):
    """Measure the bytes of every response loading ``url`` needed.

    By kind, with the total, the total once text is gzipped, and the number of requests.
    """
    sizes, zipped = defaultdict(int), 0
    requests = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("response", lambda response: requests.append(response))
    try:
        page.goto(url, wait_until="networkidle")
        page.evaluate("() => window.MathJax?.startup?.promise")
        page.wait_for_load_state("networkidle")
        for response in requests:
            body = response.body() if response.status < 300 else b""
            kind = _kind(response.url, response.headers.get("content-type", ""))
            sizes[kind] += len(body)
            text = kind in ("html", "script", "style") or response.url.endswith(".svg")
            zipped += len(gzip.compress(body)) if text else len(body)
    finally:
        page.close()
    total = sum(sizes.values())
    return {"total": total, "gzip": zipped, "requests": len(requests), **dict(sizes)}


def measure(pages=("index.html",), site=SITE):
    """{page: transfer summary} for each page of a built site.

    None if there is no built site, no Chromium, or no Playwright (the spread environments
    install only what the notebooks need, and `make site` may have built the site beside them).
    """
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None or not (Path(site) / "index.html").exists():
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None

    with sync_playwright() as playwright, serve(site) as base:
        browser = playwright.chromium.launch(executable_path=chromium, args=LAUNCH_FLAGS)
        try:
            return {page: page_transfer(browser, f"{base}/{page}") for page in pages}
        finally:
            browser.close()


def landing_page_transfer(site=SITE):
    """Return the landing page's transfer summary (None: no site built, no Chromium or Playwright)."""
    result = measure(("index.html",), site)
    return result and result["index.html"]


def markdown_lines(summary):
    """RESULTS.md's section on the landing page's weight."""
    return [
        "## Website",
        "",
        f"The landing page (`make site`, build/site/index.html) loads "
        f"{summary['total'] / 1e6:.2f} MB in {summary['requests']} requests "
        f"({summary['gzip'] / 1e6:.2f} MB with text gzipped, as GitHub Pages serves it); "
        "measured by benchmarks/website.py in headless Chromium.",
        "",
    ]


def main(argv):
    result = measure(tuple(argv) or ("index.html",))
    if result is None:
        print("no build/site/index.html (run `make site`), no chromium on PATH, or no playwright")
        return 1
    for page, sizes in result.items():
        parts = ", ".join(
            f"{kind} {size / 1e3:,.0f} kB"
            for kind, size in sorted(sizes.items())
            if kind not in ("total", "gzip", "requests")
        )
        print(
            f"{page}: {sizes['total'] / 1e6:.2f} MB ({sizes['gzip'] / 1e6:.2f} MB gzipped) in "
            f"{sizes['requests']} requests ({parts})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
