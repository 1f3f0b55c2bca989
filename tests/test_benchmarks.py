"""The benchmark script runs (in a seconds-long mode) and writes every key RESULTS.md needs.
Timings themselves are never asserted: machines are noisy."""

import importlib.util
import json
import os
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
    "notebook_run_s_one_core",
    "notebook_two_over_one_core",
    "notebook_slowest_cells_one_core",
    "notebook_profile_one_core",
    "train_tokens_per_s",
    "train_chars_per_s",
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
    # the same notebooks on one core with one BLAS thread, where their time goes, and a profile
    assert set(results["notebook_run_s_one_core"]) == set(results["notebook_run_s"])
    name = "00_start_here.ipynb"
    slowest = results["notebook_slowest_cells_one_core"][name]
    assert len(slowest) == 3 and all(seconds >= 0 for _, seconds, _ in slowest)
    assert [s for _, s, _ in slowest] == sorted((s for _, s, _ in slowest), reverse=True)
    profile = results["notebook_profile_one_core"]
    assert profile["notebook"] == name and profile["rows"]
    assert not any("ipykernel" in row[0] for row in profile["rows"])
    report = (tmp_path / "RESULTS.md").read_text()
    assert "| notebook | 2 cores | 1 core | ratio | p | cores busy | load | limit |" in report
    if sys.platform == "linux":  # /proc/stat: how many cores the run kept busy
        busy = results["notebook_cores_busy"][name]
        assert 0 < busy["min"] <= busy["max"] <= os.cpu_count() + 0.05  # + tick rounding
    assert set(results["notebook_two_over_one_core"]) == set(results["notebook_run_s"])
    assert f"Profile of the slowest chapter on one core: {name}" in report
    assert set(results["sweep_s"]) == {"tiny"} and results["sweep_s"]["tiny"] > 0
    assert "| widget | median | min-max |" in (tmp_path / "RESULTS.md").read_text()
    assert set(results["goal_status"]) == set(bench.GOALS)
    assert set(results["goal_status"].values()) <= {"met", "missed", "not measured"}
    assert (
        "| goal | target | measured (worst case) | status |"
        in (tmp_path / "RESULTS.md").read_text()
    )
    assert set(results["train_chars_per_s"]) == {
        "none",
        "sinusoidal",
        "learned",
        "rope",
        "alibi",
        "t5",
    }
    assert "Training throughput on real text" in (tmp_path / "RESULTS.md").read_text()


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(ROOT / "benchmarks"))  # run.py imports its sibling website.py
bench = load(ROOT / "benchmarks" / "run.py", "bench_run")
browser_tests = load(ROOT / "tests" / "test_browser.py", "browser_tests")


def records(*presses):
    """In-page records as the browser probe writes them: (ms to new src, ms more to painted)
    per press, one press a second; None for a press whose image never changed or painted."""
    out = []
    for n, (to_src, to_paint) in enumerate(presses):
        t_key = 1000.0 * n
        t_mutation = None if to_src is None else t_key + to_src
        t_painted = None if to_paint is None else t_mutation + to_paint
        out.append(
            {
                "key": "ArrowRight",
                "t_key": t_key,
                "t_mutation": t_mutation,
                "t_frame": None if t_painted is None else t_painted - 10,
                "t_painted": t_painted,
                "changes": int(t_mutation is not None),
                "in_view": True,
                "error": None,
            }
        )
    return out


def write_latency(path, widgets):
    entries = {
        name: browser_tests.latency_entry(notebook, "control", recs, "156.0")
        for name, (notebook, recs) in widgets.items()
    }
    path.write_text(json.dumps({"format": browser_tests.LATENCY_FORMAT, "widgets": entries}))


def test_browser_latency_reports_both_in_page_figures_per_widget(tmp_path):
    path = tmp_path / "latency.json"
    write_latency(
        path,
        {
            "RopeExplorer m (ch 04)": ("04_rope.ipynb", records((40, 20), (60, 30), (50, 25))),
            "AlibiExplorer head (ch 05)": ("05_alibi.ipynb", records((30, 10), (None, None))),
            "Broken (ch 06)": ("06_x.ipynb", records((None, None))),
        },
    )
    latency = bench.browser_latency(path)
    assert list(latency) == ["RopeExplorer m (ch 04)", "AlibiExplorer head (ch 05)"]
    rope = latency["RopeExplorer m (ch 04)"]
    assert rope["key_to_mutation_ms"] == {"median": 50.0, "min": 40.0, "max": 60.0, "n": 3}
    assert rope["key_to_painted_ms"] == {"median": 75.0, "min": 60.0, "max": 90.0, "n": 3}
    assert rope["decode_and_paint_ms"] == {"median": 25.0, "min": 20.0, "max": 30.0, "n": 3}
    alibi = latency["AlibiExplorer head (ch 05)"]
    assert alibi["key_to_mutation_ms"]["n"] == alibi["key_to_painted_ms"]["n"] == 1


def test_browser_latency_ignores_the_earlier_polling_file(tmp_path):
    path = tmp_path / "latency.json"
    path.write_text(json.dumps({"05_alibi.ipynb": [75.0, 46.0, None]}))
    assert bench.browser_latency(path) is None
    assert bench.browser_latency(tmp_path / "missing.json") is None


def test_render_replaces_the_polled_latency_with_the_in_page_figures(tmp_path, monkeypatch):
    # the site's page weights are measured in a browser; this test is about the latency tables
    monkeypatch.setattr(bench.website, "measure", lambda *args, **kwargs: None)
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    results["browser_slider_to_image_ms"] = {"05_alibi.ipynb": {"median": 75.0}}
    (tmp_path / "results.json").write_text(json.dumps(results))
    write_latency(
        tmp_path / "latency.json",
        {"RopeExplorer m (ch 04)": ("04_rope.ipynb", records((40, 20), (60, 30), (50, 25)))},
    )
    bench.main(
        ["--render", "--out", str(tmp_path), "--notes", str(tmp_path / "NOTES.md")]
        + ["--browser", str(tmp_path / "latency.json")]
    )
    rendered = json.loads((tmp_path / "results.json").read_text())
    assert "browser_slider_to_image_ms" not in rendered
    latency = rendered["browser_key_to_image_ms"]
    assert latency["RopeExplorer m (ch 04)"]["key_to_painted_ms"]["median"] == 75.0
    earlier = results.get("browser_key_to_image_ms") or {}
    kept = {n for n, e in earlier.items() if e["notebook"] != "04_rope.ipynb"}
    assert kept <= set(latency), "a run of some chapters keeps the other chapters' rows"
    dropped = {n for n, e in earlier.items() if e["notebook"] == "04_rope.ipynb"}
    assert not (dropped - {"RopeExplorer m (ch 04)"}) & set(latency), "a chapter run again is new"
    table = (tmp_path / "RESULTS.md").read_text()
    assert "| widget control | n | key to new src | key to painted | decode and paint |" in table
    assert "| RopeExplorer m (ch 04) | 3 | 50.0 (40.0-60.0) | 75.0 (60.0-90.0) " in table
    assert "1-minute load average" in table


def summary(median):
    return {"median": median, "min": median, "max": median, "n": 3}


MEASURED = {
    "sinusoidal_vs_floor_ratio": {"512x128": 1.1, "2048x512": 1.4},
    "slider_ms_median": {"a": summary(12.0), "b": summary(24.9)},
    "notebook_run_s": {
        "00_start_here.ipynb": summary(3.0),
        "06_train_short_test_long.ipynb": summary(25.0),
    },
    "notebook_run_s_one_core": {
        "00_start_here.ipynb": summary(4.0),
        "06_train_short_test_long.ipynb": summary(29.0),
    },
    "notebook_two_over_one_core": {
        "00_start_here.ipynb": {"median_ratio": 0.75, "slower_p": 1.0},
        "06_train_short_test_long.ipynb": {"median_ratio": 1.03, "slower_p": 0.2},
    },
    "notebook_peak_mb": {"00_start_here.ipynb": 150},
    "import_s": summary(0.2),
    "site_landing_transfer": {"total": 1_500_000, "gzip": 600_000, "requests": 30},
    "sweep_s": {"quick": 55.0, "full": 700.0},
    "lab_key_to_painted_ms": {"Hello position (ch 00)": {"key_to_painted_ms": summary(20.0)}},
    "site_live_key_to_frame_ms": {"02 #0 position p": {"key_to_frame_ms": summary(9.0)}},
    "site_live_page_transfer": {"02.html": {"total": 2_600_000, "gzip": 1e6, "requests": 49}},
}


def test_slower_p_is_the_share_of_splits_of_the_runs_with_as_high_a_rank_sum():
    fast, slow = [1.0, 1.1, 1.2, 1.3, 1.4], [2.0, 2.1, 2.2, 2.3, 2.4]
    assert bench.slower_p(slow, fast) == 1 / 252  # every slow run above every fast one
    assert bench.slower_p(fast, slow) == 1.0
    assert bench.slower_p([1.0, 3.0], [2.0, 4.0]) == 5 / 6  # rank sums 4 of 3..7, each split 1/6
    assert bench.slower_p([2.0, 2.0], [2.0, 2.0]) == 1.0  # all tied: no evidence
    # three runs a side cannot show a slowdown at 0.01: the most lopsided split is 1 in 20
    assert bench.slower_p([3.0, 3.1, 3.2], [1.0, 1.1, 1.2]) == 1 / 20


def test_two_over_one_core_tests_the_runs_and_says_not_measured_without_them():
    runs = {"two": [2.0, 2.1, 2.2, 2.3, 2.4], "one": [1.0, 1.1, 1.2, 1.3, 1.4]}
    results = {
        "notebook_run_s": {"a.ipynb": {**summary(2.2), "runs": runs["two"]}},
        "notebook_run_s_one_core": {"a.ipynb": {**summary(1.2), "runs": runs["one"]}},
    }
    versus = bench.two_over_one_core(results)
    assert versus == {"a.ipynb": {"median_ratio": 1.83, "slower_p": round(1 / 252, 6)}}
    assert bench.goal_status({"notebook_two_over_one_core": versus})[
        "notebook_two_over_one_core"
    ] == ("missed", "p = 0.004, median ratio 1.83 (a.ipynb)")
    del results["notebook_run_s"]["a.ipynb"]["runs"]  # an older results.json
    versus = bench.two_over_one_core(results)
    assert versus["a.ipynb"]["slower_p"] is None
    assert bench.goal_status({"notebook_two_over_one_core": versus})[
        "notebook_two_over_one_core"
    ] == ("not measured", "-")


@pytest.mark.skipif(not hasattr(os, "sysconf"), reason="no clock ticks to read (Windows)")
def test_cores_busy_is_busy_clock_ticks_over_wall_seconds():
    tick = os.sysconf("SC_CLK_TCK")
    assert bench.cores_busy(1000, 1000 + 3 * tick, 2.0) == 1.5  # 3 s of work in 2 s: 1.5 cores
    assert bench.cores_busy(None, 5, 1.0) is None  # no /proc/stat: no reading
    stat = "cpu  100 20 30 9000 400 5 6 70 80 0\ncpu0 50 10 15 4500 200 2 3 35 40 0\n"
    assert bench.busy_jiffies(stat) == 100 + 20 + 30 + 5 + 6  # not idle, iowait, steal, guest
    assert bench.busy_jiffies("no such line") is None


def test_every_goal_is_met_by_results_within_its_limits():
    assert {goal: s for goal, (s, _) in bench.goal_status(MEASURED).items()} == dict.fromkeys(
        bench.GOALS, "met"
    )


@pytest.mark.parametrize(
    ("goal", "worse", "named"),
    [
        ("sinusoidal_vs_floor_ratio", {"512x128": 1.6}, "1.60 (512x128)"),
        ("slider_ms_median", {"slow": summary(31.0)}, "31.0 ms (slow)"),
        ("notebook_run_s", {"03_learned_positions.ipynb": summary(10.5)}, "10.5 s (03"),
        ("notebook_run_s", {"06_train_short_test_long.ipynb": summary(31.0)}, "31.0 s (06"),
        ("notebook_run_s_one_core", {"05_alibi.ipynb": summary(10.4)}, "10.4 s (05"),
        ("notebook_run_s_one_core", {"07_real_text.ipynb": summary(36.4)}, "36.4 s (07"),
        ("sweep_s", {"quick": 61.0}, "61.0 s (quick)"),
        (
            "notebook_two_over_one_core",
            {"02_x.ipynb": {"median_ratio": 1.2, "slower_p": 0.004}},
            "p = 0.004, median ratio 1.2 (02_x.ipynb)",
        ),
        ("notebook_peak_mb", {"02_x.ipynb": 640}, "640 MB (02_x.ipynb)"),
        ("import_s", summary(0.7), "0.7 s"),
        ("site_landing_transfer", {"total": 2_400_000, "gzip": 1e6, "requests": 40}, "2.40 MB"),
        ("sweep_s", {"full": 1082.0}, "1,082.0 s (full)"),
        ("lab_key_to_painted_ms", {"slow": {"key_to_painted_ms": summary(83.0)}}, "83.0 ms (slow)"),
        ("site_live_key_to_frame_ms", {"04 #0 m": {"key_to_frame_ms": summary(17.0)}}, "17.0 ms"),
        (
            "site_live_page_transfer",
            {"05.html": {"total": 3_100_000, "gzip": 1e6, "requests": 40}},
            "3.10 MB (05.html)",
        ),
    ],
)
def test_a_goal_beyond_its_limit_is_marked_missed_with_the_worst_case(goal, worse, named):
    results = {**MEASURED, goal: {**MEASURED[goal], **worse} if "median" not in worse else worse}
    status, measured = bench.goal_status(results)[goal]
    assert status == "missed" and named in measured
    assert "| **missed** |" in bench.markdown({**results, "machine": MACHINE, **EXTRA})


def test_a_goal_without_a_measurement_is_marked_not_measured():
    status, _ = bench.goal_status({**MEASURED, "site_landing_transfer": None})[
        "site_landing_transfer"
    ]
    assert status == "not measured"


MACHINE = {
    "date": "today",
    "cpu": "cpu",
    "cores": 2,
    "python": "3.11",
    "numpy": "2",
    "matplotlib": "3",
}
EXTRA = {
    "sinusoidal_vs_seed_loop_ratio": {"512x128": 30.0, "2048x512": 30.0},
    "train_tokens_per_s": {"none": summary(5e4)},
}


def test_a_tiny_sweep_alone_measures_no_sweep_goal():
    assert bench.goal_status({**MEASURED, "sweep_s": {"tiny": 4.0}})["sweep_s"][0] == "not measured"
