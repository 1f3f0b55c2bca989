"""The benchmark script runs (in a seconds-long mode) and writes every key RESULTS.md needs.
Timings themselves are never asserted: machines are noisy."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KEYS = {
    "machine",
    "sinusoidal_vs_seed_loop_ratio",
    "sinusoidal_vs_floor_ratio",
    "slider_ms_median",
    "notebook_run_s",
    "notebook_peak_mb",
    "train_tokens_per_s",
    "import_s",
    "site_landing_transfer",  # None when build/site/ is not built or there is no Chromium
}


@pytest.mark.slow
def test_benchmark_script_runs_and_writes_its_results(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--tiny", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    results = json.loads((tmp_path / "results.json").read_text())
    assert set(results) >= KEYS
    assert set(results["sinusoidal_vs_seed_loop_ratio"]) == {"512x128", "2048x512"}
    assert len(results["slider_ms_median"]) >= 7
    assert all(
        {"median", "min", "max", "n"} <= set(s) for s in results["slider_ms_median"].values()
    )
    assert all({"median", "min", "max"} <= set(s) for s in results["notebook_run_s"].values())
    assert results["notebook_peak_mb"]
    assert "| widget | median | min-max |" in (tmp_path / "RESULTS.md").read_text()
