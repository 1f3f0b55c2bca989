"""The browser's explorers compute what posenc_lib computes.

posenc_lib/widgets/explorers.js draws chapters 00, 02, 04 and 05's explorers in JupyterLab, Colab
and on the website with its own JavaScript math, and chapters 01, 03 and 06's in JupyterLab and
Colab from the numbers the kernel sends: for those, every state the page can reach without the
kernel draws the Python figure's numbers, status line and text alternative, coloured with
matplotlib's own colours (value to colour exactly as ``imshow`` maps it). Here headless Chromium imports that module from a
server on 127.0.0.1, evaluates its `frame` at many control settings (every width and base, the ends
of every range, every pair, head and band), and every number it would draw and every status line
it would print is compared with the Python explorer's at the same setting: the matplotlib artists'
data and the status line, which come from posenc_lib's functions. Numbers agree to 1e-9
(relative), status lines exactly. For chapters 01, 03 and 06 the heatmaps' painted colours (the
module's `painted`, which its drawing uses: every cell, row 0 at the top, and the colorbar from the
top down) equal the figure's own image and colorbar colours byte for byte, the spec's colormap and
limits are the image's, and the kernel's bytes reach the module as a DataView, as in the widget.

Skips when Chromium is missing, unless POSENC_REQUIRE_BROWSER=1. Never downloads a browser.
"""

import base64
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
    AttentionInspector,
    FrameSlider,
    HelloSlider,
    OrderExplorer,
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
            """Each frame, with ``painted``: its heatmaps as the canvas paints them (chapters 01,
            03, 06), and ``binary``: the spec's keys that reached the module as a DataView."""
            return page.evaluate(
                """async ([url, cases]) => {
                    const module = await import(url);
                    // What the kernel sent as bytes arrives as the widget gets it: a DataView
                    // (here 3 bytes into its buffer, unaligned for float64s), not a list.
                    const dataView = (text) => {
                        const raw = atob(text), buffer = new ArrayBuffer(raw.length + 3);
                        const bytes = new Uint8Array(buffer, 3);
                        for (let n = 0; n < raw.length; n++) bytes[n] = raw.charCodeAt(n);
                        return new DataView(buffer, 3, raw.length);
                    };
                    return cases.map(([kind, sent, values]) => {
                        const spec = Object.fromEntries(Object.entries(sent).map(([k, v]) =>
                            [k, v?.float64_base64 === undefined ? v : dataView(v.float64_base64)]));
                        const binary = Object.keys(spec).filter((k) => spec[k] instanceof DataView);
                        const painted = module.painted(kind, spec, values, COLORBAR_STRIPS);
                        return { ...module.frame(kind, spec, values), painted, binary };
                    });
                }""".replace("COLORBAR_STRIPS", str(COLORBAR_STRIPS)),
                [f"{base}/explorers.js", cases],
            )

        def colors(cases):
            """[(colors, vmin, vmax, values), ...] -> the RGBA bytes the module paints."""
            return page.evaluate(
                """async ([url, cases]) => {
                    const module = await import(url);
                    return cases.map(([colors, vmin, vmax, values]) =>
                        Array.from(module.heatmapColors(colors, vmin, vmax, values)));
                }""",
                [f"{base}/explorers.js", cases],
            )

        frames.colors = colors
        yield frames
        page.close()
        assert errors == []


def close(js, py, what):
    js = np.array([np.nan if v is None else v for v in np.ravel(js)], dtype=float)
    py = np.ravel(np.asarray(py, dtype=float))
    assert js.shape == py.shape, f"{what}: {js.shape} numbers in the browser, {py.shape} in Python"
    np.testing.assert_allclose(js, py, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=what)


def case(explorer):
    """The module's arguments, as the view holds them: the spec, with what the kernel sent in
    ``data`` (float64 bytes travel as base64 and reach the module as a DataView, as in the widget)."""
    view = explorer.view
    data = {
        k: {"float64_base64": base64.b64encode(v).decode()} if isinstance(v, bytes) else v
        for k, v in view.data.items()
    }
    return [view.kind, {**view.spec, **data}, dict(view.values)]


# matplotlib's colorbar of a 256-colour map has 256 cells; the module paints as many strips.
COLORBAR_STRIPS = 256


def matplotlib_paint(image):
    """What matplotlib paints for ``image`` now: its cells' RGBA bytes, row 0 at the top, and its
    colorbar's colours from the top (vmax) down, as its own artists colour them."""
    left, right, bottom, top = image.get_extent()
    assert image.origin == "upper" and left < right and top < bottom, "row 0 at the top, left"
    if image.colorbar is None:  # sentence A's heatmap: the figure's one colorbar is B's
        return image.to_rgba(image.get_array(), bytes=True), None
    solids = image.colorbar.solids
    colorbar = solids.to_rgba(solids.get_array(), bytes=True).reshape(-1, 4)[::-1, :3]
    return image.to_rgba(image.get_array(), bytes=True), colorbar


def assert_painted_as_matplotlib(heatmap, paint, what):
    """The canvas's cells and colorbar have matplotlib's colours, cell by cell, exactly."""
    rgba, colorbar = paint
    assert (heatmap["height"], heatmap["width"]) == rgba.shape[:2], f"{what}: canvas size"
    cells = np.array(heatmap["rgba"], dtype=np.uint8).reshape(rgba.shape)
    np.testing.assert_array_equal(cells, rgba, err_msg=f"{what}: the cells' colours")
    if colorbar is not None:
        np.testing.assert_array_equal(
            heatmap["colorbar"], colorbar, err_msg=f"{what}: the colorbar, top to bottom"
        )


def assert_spec_colours_are_the_images(spec, image):
    """The view paints with the figure's colormap and colour limits."""
    colors = image.cmap(np.arange(image.cmap.N), bytes=True)[:, :3]
    np.testing.assert_array_equal(spec["colors"], colors, err_msg="the spec's colormap")
    assert (spec["vmin"], spec["vmax"]) == (image.norm.vmin, image.norm.vmax)


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


def test_the_order_explorer_draws_the_kernels_numbers_at_every_setting(js_frames):
    rng = np.random.default_rng(0)
    explorer = OrderExplorer(*(rng.normal(0, 0.7, size=(8, 8)) for _ in range(3)))
    cases, expected = [], []
    for sentence_b in ("the man bit the dog .", "a dog bit a man", "the dog bit the man ."):
        explorer.text_b.value = sentence_b
        for positions, causal in itertools.product((False, True), repeat=2):
            explorer.positions.value, explorer.causal.value = positions, causal
            cases.append(case(explorer))
            image_a, image_b, bars_a, bars_b = explorer.artists
            expected.append(
                (
                    explorer.status.value,
                    explorer.live.image.tooltip,
                    image_a.get_array(),
                    image_b.get_array(),
                    [bar.get_height() for bar in bars_a],
                    [bar.get_height() for bar in bars_b],
                )
            )
    for frame, (status, alt, a, b, pooled_a, pooled_b) in zip(
        js_frames(cases), expected, strict=True
    ):
        assert frame["status"] == status and frame["alt"] == alt
        close(frame["weights_a"], a, f"weights of A at {status}")
        close(frame["weights_b"], b, f"weights of B at {status}")
        close(frame["pooled_a"], pooled_a, f"vector A at {status}")
        close(frame["pooled_b"], pooled_b, f"vector B at {status}")


def test_the_order_explorer_paints_both_sentences_with_the_figures_colours(js_frames):
    rng = np.random.default_rng(0)
    explorer = OrderExplorer(*(rng.normal(0, 0.7, size=(8, 8)) for _ in range(3)))
    for image in explorer.artists[:2]:
        assert_spec_colours_are_the_images(explorer.view.spec, image)
    cases, paints = [], []
    for sentence_b in ("the man bit the dog .", "a dog bit a man"):
        explorer.text_b.value = sentence_b
        for positions, causal in itertools.product((False, True), repeat=2):
            explorer.positions.value, explorer.causal.value = positions, causal
            cases.append(case(explorer))
            paints.append([matplotlib_paint(image) for image in explorer.artists[:2]])
    for frame, both in zip(js_frames(cases), paints, strict=True):
        assert len(frame["painted"]) == 2, frame["status"]
        for heatmap, paint, name in zip(frame["painted"], both, "AB", strict=True):
            assert_painted_as_matplotlib(heatmap, paint, f"sentence {name} at {frame['status']}")


def test_the_frame_slider_draws_every_frame_with_its_title_and_text(js_frames):
    rng = np.random.default_rng(1)
    frames = {step: np.tanh(rng.normal(size=(7, 5))) for step in range(0, 60, 10)}
    explorer = FrameSlider(frames, cmap="RdBu", vmin=-1, vmax=1, colorbar="cosine similarity")
    cases, expected = [], []
    for n in (0, 1, 2, 5, 3):
        explorer.frame.value = n
        cases.append(case(explorer))
        expected.append(
            (explorer.image.get_array(), explorer.caption.get_text(), explorer.live.image.tooltip)
        )
    for frame, (matrix, title, alt) in zip(js_frames(cases), expected, strict=True):
        assert frame["binary"] == ["frames"], "the frames reach the module as bytes"
        assert frame["title"] == title and frame["alt"] == alt
        assert (frame["rows"], frame["cols"]) == (7, 5)
        close(frame["matrix"], np.ma.filled(matrix, np.nan), f"frame {title}")


@pytest.mark.parametrize(
    ("cmap", "vmin", "vmax"), [("RdBu", -1.0, 1.0), ("viridis", -0.5, 2.0)], ids=["RdBu", "viridis"]
)
def test_the_frame_slider_paints_every_frame_with_the_figures_colours(js_frames, cmap, vmin, vmax):
    """Not square (7 by 5), so a transposed canvas shows; the range's ends and beyond it too."""
    rng = np.random.default_rng(1)
    frames = {step: np.tanh(rng.normal(size=(7, 5))) for step in range(0, 60, 10)}
    frames[20][2, 3] = vmax  # the top of the colour range: the last colour
    frames[20][4, 0] = vmin  # its bottom: the first colour
    frames[30][0, 1], frames[30][6, 4] = vmin - 5, vmax + 5  # under and over: clipped
    explorer = FrameSlider(frames, cmap=cmap, vmin=vmin, vmax=vmax, colorbar="cosine similarity")
    assert_spec_colours_are_the_images(explorer.view.spec, explorer.image)
    cases, paints = [], []
    for n in range(len(frames)):
        explorer.frame.value = n
        cases.append(case(explorer))
        paints.append(matplotlib_paint(explorer.image))
    for frame, paint in zip(js_frames(cases), paints, strict=True):
        (heatmap,) = frame["painted"]
        assert_painted_as_matplotlib(heatmap, paint, frame["title"])


@pytest.fixture(scope="module")
def inspector():
    """Chapter 06's inspector over two briefly trained models, at lengths 8 and 16 (learned
    positions cannot run at 16); every test sets the scheme, length and head it shows."""
    from posenc_lib.model import ModelConfig, train
    from posenc_lib.tasks import TASKS

    models = {
        ("lookback-3", scheme, 0): train(
            ModelConfig(vocab_size=16, scheme=scheme, d_model=8, n_heads=2, max_len=8),
            TASKS["lookback-3"](),
            steps=2,
            length=8,
            progress=False,
        )
        for scheme in ("learned", "alibi")
    }
    return AttentionInspector(models, TASKS, lengths=(8, 16))


def test_the_attention_inspector_draws_every_head_at_every_length(js_frames, inspector):
    explorer, cases, expected = inspector, [], []
    for scheme, length, head in itertools.product(("learned", "alibi"), (8, 16), (0, 1)):
        explorer.scheme.value, explorer.length.value, explorer.head.value = scheme, length, head
        cases.append(case(explorer))
        expected.append(
            (
                explorer.status.value,
                explorer.live.image.tooltip,
                explorer.ax.get_title(),
                explorer.image.get_array(),
            )
        )
    assert any(status.startswith("cannot run") for status, *_ in expected)  # learned at 16
    for frame, (status, alt, title, matrix) in zip(js_frames(cases), expected, strict=True):
        assert (frame["status"], frame["alt"], frame["title"]) == (status, alt, title)
        if not status.startswith("cannot run"):
            assert frame["binary"] == ["maps"], "the heads' maps reach the module as bytes"
        close(frame["matrix"], np.ma.filled(matrix, np.nan), f"weights at {alt}")


def test_the_attention_inspector_paints_every_head_with_the_figures_colours(js_frames, inspector):
    """Causal weights are not symmetric, so a transposed canvas shows; "cannot run" is all NaN:
    matplotlib's "bad" colour, transparent, the white canvas showing through."""
    explorer = inspector
    assert_spec_colours_are_the_images(explorer.view.spec, explorer.image)
    cases, paints = [], []
    for scheme, length, head in itertools.product(("learned", "alibi"), (8, 16), (0, 1)):
        explorer.scheme.value, explorer.length.value, explorer.head.value = scheme, length, head
        cases.append(case(explorer))
        paints.append(matplotlib_paint(explorer.image))
    for frame, paint in zip(js_frames(cases), paints, strict=True):
        (heatmap,) = frame["painted"]
        assert_painted_as_matplotlib(heatmap, paint, frame["alt"])


@pytest.mark.parametrize(
    ("cmap", "vmin", "vmax"), [("viridis", 0.0, 1.0), ("RdBu", -1.0, 1.0), ("cividis", -0.3, 2.5)]
)
def test_the_heatmap_colours_are_matplotlibs(js_frames, cmap, vmin, vmax):
    """Every value, at and between the colour bins' edges, below and above the range, NaN."""
    import matplotlib
    from matplotlib.colors import Normalize

    from posenc_lib.widgets._front import colormap_colors

    edges = vmin + (vmax - vmin) * np.arange(257) / 256
    rng = np.random.default_rng(2)
    values = np.concatenate(
        [
            edges,
            np.nextafter(edges, -np.inf),
            np.nextafter(edges, np.inf),
            rng.uniform(vmin - 0.5, vmax + 0.5, 2000),
            [vmin - 10, vmax + 10, np.nan],
        ]
    )
    (painted,) = js_frames.colors([[colormap_colors(cmap), vmin, vmax, values.tolist()]])
    painted = np.array(painted).reshape(-1, 4)
    expected = matplotlib.colormaps[cmap](Normalize(vmin, vmax)(values), bytes=True)
    expected[np.isnan(values)] = 0  # matplotlib's "bad" colour: transparent, the canvas white
    np.testing.assert_array_equal(painted, expected)


def test_a_wrong_number_in_the_browser_would_fail_the_comparison():
    with pytest.raises(AssertionError):
        close([1.0, 2.0 + 1e-6], [1.0, 2.0], "a drawn value off by one millionth")
    with pytest.raises(AssertionError):
        close([None, 1.0], [0.0, 1.0], "a hidden key drawn as 0")
