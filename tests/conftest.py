import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

# Notebook-executing tests and the library never need a display.
import matplotlib  # noqa: E402

matplotlib.use("Agg")
