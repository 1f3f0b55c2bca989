"""The browser's explorers compute what posenc_lib computes.

posenc_lib/widgets/explorers.js draws chapters 00, 02, 04 and 05's explorers in JupyterLab, Colab
and on the website with its own JavaScript math. Here headless Chromium imports that module from a
server on 127.0.0.1, evaluates its `frame` at many control settings (every width and base, the ends
of every range, every pair, head and band), and every number it would draw and every status line
it would print is compared with the Python explorer's at the same setting: the matplotlib artists'
data and the status line, which come from posenc_lib's functions. Numbers agree to 1e-9
(relative), status lines exactly.

Skips when Chromium is missing, unless POSENC_REQUIRE_BROWSER=1. Never downloads a browser.
"""

import contextlib
import functools
import http.server
import itertools
import threading
from pathlib import Path

import numpy as np
import pytest

from posenc_lib.widgets import (
    AlibiExplorer,
    HelloSlider,
    RopeExplorer,
    SimilarityExplorer,
    SinusoidalExplorer,
)

pytestmark = pytest.mark.browser

WIDGETS = Path(__file__).resolve().parents[1] / "posenc_lib" / "widgets"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def guess_type(self, path):  # an ES module must be served as JavaScript
        return "text/javascript" if str(path).endswith(".js") else super().guess_type(path)


@contextlib.contextmanager
def serve(directory):
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def js_frames(browser):
    """A function: [(kind, spec, values), ...] -> the module's frames, computed in Chromium."""
    with serve(WIDGETS) as base:
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/explorers.js")  # the module's own origin: import() is same-origin

        def frames(cases):
            return page.evaluate(
                """async ([url, cases]) => {
                    const module = await import(url);
                    return cases.map(([kind, spec, values]) => module.frame(kind, spec, values));
                }""",
                [f"{base}/explorers.js", cases],
            )

        yield frames
        page.close()
        assert errors == []


def close(js, py, what):
    js = np.array([np.nan if v is None else v for v in np.ravel(js)], dtype=float)
    py = np.ravel(np.asarray(py, dtype=float))
    assert js.shape == py.shape, f"{what}: {js.shape} numbers in the browser, {py.shape} in Python"
    np.testing.assert_allclose(js, py, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=what)


def case(explorer):
    view = explorer.view
    return [view.kind, view.spec, dict(view.values)]


def test_the_clock_hand_turns_as_in_python(js_frames):
    hello, cases, expected = HelloSlider(), [], []
    for position in range(21):
        hello.position.value = position
        cases.append(case(hello))
        expected.append((hello.label.value, hello.hands[0].get_xydata()[1]))
    for frame, (label, tip) in zip(js_frames(cases), expected, strict=True):
        assert frame["status"] == label
        close([np.sin(frame["angles"][0]), np.cos(frame["angles"][0])], tip, label)


def test_the_sinusoidal_explorer_draws_the_librarys_table_at_every_width_and_base(js_frames):
    explorer, cases, expected = SinusoidalExplorer(), [], []
    for d_model, base in itertools.product(explorer.d_models, explorer.bases):
        explorer.d_model.value, explorer.base.value = d_model, base
        last = explorer.position.max
        for position, pair in [(0, 0), (3, 1), (39, d_model // 2 - 1), (last, d_model // 4)]:
            explorer.pair.value, explorer.position.value = pair, position
            cases.append(case(explorer))
            sin_line, cos_line, _ = explorer.waves
            expected.append(
                (
                    explorer.status.value,
                    explorer._angles(),
                    sin_line.get_ydata(),
                    cos_line.get_ydata(),
                    explorer.seq_len,
                )
            )
    assert len(cases) == 64
    for frame, (status, angles, sin, cos, seq_len) in zip(js_frames(cases), expected, strict=True):
        assert frame["status"] == status
        assert frame["seq_len"] == seq_len, status
        close(frame["angles"], angles, f"clock angles at {status}")
        close(frame["sin"], sin, f"sine window at {status}")
        close(frame["cos"], cos, f"cosine window at {status}")


def test_the_similarity_curve_and_distance_match_the_library_for_every_band(js_frames):
    explorer, cases, expected = SimilarityExplorer(max_shift=600), [], []
    for d_model, base, band in itertools.product(explorer.d_models, explorer.bases, explorer.bands):
        explorer.d_model.value, explorer.base.value, explorer.band.value = d_model, base, band
        for shift in (0, 1, 100, 600):
            explorer.shift.value = shift
            cases.append(case(explorer))
            expected.append((explorer.status.value, explorer.curve, explorer.marker.get_xydata()))
    assert len(cases) == 5 * 4 * 3 * 4
    for frame, (status, curve, marker) in zip(js_frames(cases), expected, strict=True):
        assert frame["status"] == status
        close(frame["curve"], curve, f"curve at {status}")
        close(frame["marker"], marker, f"marker at {status}")


@pytest.mark.parametrize(
    "arguments", [{}, {"d": 8, "base": 100.0, "seed": 3, "max_offset": 40}], ids=["ch04", "small"]
)
def test_the_rope_rotation_and_score_match_apply_rope(js_frames, arguments):
    explorer, cases, expected = RopeExplorer(**arguments), [], []
    score_curve = explorer.live.fig.axes[1].lines[0].get_ydata()
    for m, n in [(0, 0), (3, 7), (103, 107), (10, 40), (120, 0), (0, 120)]:
        for pair in range(explorer.pair.max + 1):
            explorer.m.value, explorer.n.value, explorer.pair.value = m, n, pair
            cases.append(case(explorer))
            expected.append(
                (
                    explorer.status.value,
                    [arrow.get_xydata()[1] for arrow in explorer.arrows],
                    explorer.marker.get_xydata(),
                    explorer.plane_limit(pair),
                    explorer.plane_title.get_text(),
                )
            )
    for frame, (status, arrows, marker, limit, title) in zip(
        js_frames(cases), expected, strict=True
    ):
        assert frame["status"] == status
        assert frame["title"] == title
        close(frame["arrows"], arrows, f"arrows at {status}")
        close(frame["marker"], marker, f"marker at {status}")
        close(frame["limit"], limit, f"plane at {status}")
        close(frame["curve"], score_curve, "the score curve")


@pytest.mark.parametrize(
    "arguments", [{}, {"seq_len": 12, "n_heads": 6, "d_k": 4, "seed": 2}], ids=["ch05", "6 heads"]
)
def test_the_alibi_bias_and_weights_match_self_attention(js_frames, arguments):
    explorer, cases, expected = AlibiExplorer(**arguments), [], []
    queries = sorted({0, 1, 3, explorer.query.max // 2, explorer.query.max})
    for head, query in itertools.product(range(explorer.head.max + 1), queries):
        explorer.head.value, explorer.query.value = head, query
        cases.append(case(explorer))
        expected.append(
            (
                explorer.status.value,
                explorer.bias_line.get_ydata(),
                explorer.plain_line.get_ydata(),
                explorer.biased_line.get_ydata(),
                explorer.slopes[head],
            )
        )
    for frame, (status, bias, plain, biased, slope) in zip(js_frames(cases), expected, strict=True):
        assert frame["status"] == status
        close(frame["slope"], slope, f"slope at {status}")
        close(frame["bias"], bias, f"bias at {status}")
        close(frame["plain"], plain, f"weights without ALiBi at {status}")
        close(frame["biased"], biased, f"weights with ALiBi at {status}")


def test_a_wrong_number_in_the_browser_would_fail_the_comparison():
    with pytest.raises(AssertionError):
        close([1.0, 2.0 + 1e-6], [1.0, 2.0], "a drawn value off by one millionth")
    with pytest.raises(AssertionError):
        close([None, 1.0], [0.0, 1.0], "a hidden key drawn as 0")
