import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

# Notebook-executing tests and the library never need a display.
import matplotlib  # noqa: E402

matplotlib.use("Agg")

# Hypothesis draws its examples from a fixed seed, like every other random draw of the course: a
# failure is the same on every run and every machine. POSENC_HYPOTHESIS=explore draws new examples
# each run (to look for bugs); POSENC_HYPOTHESIS=mutants is the fixed seed with fewer examples, for
# the mutation run (`make mutants`), where every test runs once per mutant.
settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500)
settings.register_profile("mutants", derandomize=True, deadline=None, max_examples=25)
settings.load_profile(os.environ.get("POSENC_HYPOTHESIS", "default"))


@pytest.fixture(scope="session", autouse=True)
def _under_mutmut():
    """Under `make mutants`: a fixed value for the hash of the library's own sources, and no
    worker processes left behind.

    mutmut rewrites every function of a mutated module into a trampoline to its thousands of
    mutant copies, so hashing the installed sources (`posenc_lib.provenance.code_hash` with no
    ``root``, the provenance of every sweep a test runs) tokenizes them all: a minute per test,
    to hash code that is not the library's. Those provenance tests are deselected under mutmut
    (pyproject.toml); the tests of the hash itself pass a ``root`` and still run it.
    """
    if "MUTANT_UNDER_TEST" not in os.environ:
        yield
        return
    from joblib.externals.loky import reusable_executor

    from posenc_lib import provenance

    code_hash = provenance.code_hash

    def installed_sources_unhashed(roots, *, root=None):
        if root is None:
            return {"sha256": "mutated sources: not hashed", "definitions": 0}
        return code_hash(roots, root=root)

    with pytest.MonkeyPatch.context() as patch:  # before every module's fixtures (session)
        patch.setattr(provenance, "code_hash", installed_sources_unhashed)
        yield
    # mutmut runs its first test sessions in its own process and then waits for any child to
    # end: loky's worker processes, kept for reuse, would end minutes later and be taken for a
    # mutant's result. Stop them with the session (loky keeps its one executor in _executor).
    if reusable_executor._executor is not None:
        reusable_executor._executor.shutdown(wait=True)


def pytest_collection_modifyitems(items):
    """Under `make mutants`, run each mutant's tests fastest first.

    mutmut runs the tests that cover the mutated function, stopping at the first failure, in no
    particular order. Sorting them by the durations mutmut measured (mutmut-stats.json) lets a
    fast test kill a mutant before a slow one starts; a surviving mutant runs them all either way,
    so no verdict changes, only the time to reach it.
    """
    stats = Path("mutmut-stats.json")
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", "") or not stats.exists():
        return
    import json

    seconds = json.loads(stats.read_text())["duration_by_test"]
    items.sort(key=lambda item: seconds.get(item.nodeid, float("inf")))


# -- one headless Chromium for the whole session ---------------------------------------------------
# Playwright's sync API runs its own event loop: a second sync_playwright() inside the first raises
# "using Playwright Sync API inside the asyncio loop". So every browser test (JupyterLab, the live
# explorers' parity, the website) shares this one session fixture.
LAUNCH_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


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
