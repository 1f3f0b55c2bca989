import os
import sys
from pathlib import Path

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
