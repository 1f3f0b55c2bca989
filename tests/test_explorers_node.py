"""explorers.js computes what posenc_lib computes, checked under Node.js in the fast tier.

posenc_lib/widgets/explorers.js draws the course's explorers in the page with its own JavaScript:
the sinusoid's frequencies, RoPE's rotation, ALiBi's slopes and attention rows, and the mapping
from a number to a heatmap colour. tests/test_live_parity.py holds the drawn frames to the Python
explorers' in headless Chromium (`make test`); here the same module runs under Node.js
(tests/js/explorers_cli.mjs imports it as the page does), so `make check` sees a wrong number
too, and each is compared with posenc_lib's own function rather than with an explorer: the
frequencies with `sinusoidal.frequencies`, the drawn waves with `sinusoidal_positions`, the
rotation with `apply_rope`, the slopes for 1 to 128 heads with `alibi_slopes`, an attention row
with `self_attention`, and the colours with matplotlib's colormaps and the course's own images.

Node.js is found on PATH, else the one Playwright (a test dependency) bundles; without either
the tests fail, saying so: they never skip.
"""

import base64
import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import ListedColormap, Normalize

from posenc_lib import alibi_bias, alibi_slopes, apply_rope, causal_mask, self_attention
from posenc_lib.sinusoidal import frequencies, sinusoidal_positions
from posenc_lib.widgets._front import colormap_colors

CLI = Path(__file__).resolve().parent / "js" / "explorers_cli.mjs"


@lru_cache(maxsize=1)
def node():
    """The Node.js executable: on PATH, else Playwright's own."""
    found = shutil.which("node")
    if found:
        return found
    try:
        import playwright
    except ImportError:
        playwright = None
    if playwright is not None:
        bundled = (
            Path(playwright.__file__).parent
            / "driver"
            / ("node.exe" if os.name == "nt" else "node")
        )
        if bundled.exists():
            return str(bundled)
    pytest.fail(
        "Node.js not found: these tests run posenc_lib/widgets/explorers.js under it. Install "
        "Node.js (any version >= 18), or the test stack, whose Playwright bundles one."
    )


def float64(values):
    """Numbers as the module receives bytes: little-endian float64s (NaN travels too)."""
    array = np.ascontiguousarray(values, dtype="<f8")
    return {"float64_base64": base64.b64encode(array.tobytes()).decode()}


def run_js(requests):
    """Answer each request in explorers.js under Node.js (tests/js/explorers_cli.mjs says how)."""
    done = subprocess.run(
        [node(), str(CLI)],
        input=json.dumps(requests, allow_nan=False),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def call(name, *args):
    return run_js([{"call": name, "args": list(args)}])[0]


def drawn(values):
    """A list from the module (null: NaN) as a float array."""
    return np.array([np.nan if v is None else v for v in np.ravel(values)], dtype=float)


def assert_same_numbers(js, py, what):
    js, py = drawn(js), np.ravel(np.asarray(py, dtype=float))
    assert js.shape == py.shape, f"{what}: {js.shape} numbers in JavaScript, {py.shape} in Python"
    np.testing.assert_allclose(js, py, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=what)


def test_the_node_runner_reports_a_wrong_number():
    """The comparison these tests rest on fails on one part in a million."""
    with pytest.raises(AssertionError):
        assert_same_numbers(call("frequencies", 4, 100.0), [1.0, 0.1 * (1 + 1e-6)], "off")


# -- the sinusoid ---------------------------------------------------------------------------------

WIDTHS = [*range(1, 33), 63, 64, 127, 128, 511, 512, 768, 1024]
BASES = [10.0, 100.0, 10000.0, 500000.0]


def test_the_sinusoid_frequencies_are_the_librarys_at_every_width_and_base():
    """Odd widths included: ceil(d / 2) pairs, pair i turning base ** (-2i / d) per position."""
    cases = [(d, base) for d in WIDTHS for base in BASES]
    answers = run_js([{"call": "frequencies", "args": [d, base]} for d, base in cases])
    for (d, base), js in zip(cases, answers, strict=True):
        assert_same_numbers(js, frequencies(d, base=base), f"frequencies(d={d}, base={base})")


def test_the_sinusoidal_explorer_draws_columns_2i_and_2i_plus_1_of_sinusoidal_positions():
    """Its waves around position p are the table's sine and cosine columns of the chosen pair
    at every whole position, and the same sinusoids at the fractions between; outside the table
    (before 0, past seq_len - 1) nothing is drawn. Its clocks turn by p times each shown pair's
    frequency."""
    seq_len, window, fine = 60, 6, 4
    spec = {
        "seq_len": seq_len,
        "window": window,
        "fine": fine,
        "d_models": [16, 64],
        "bases": [100.0, 10000.0],
    }
    settings = [
        {"position": p, "pair": i, "d_model": d, "base": base}
        for d, base in [(16, 100.0), (64, 10000.0)]
        for p, i in [(0, 0), (3, 1), (30, d // 2 - 1), (seq_len - 1, d // 4)]
    ]
    frames = run_js([{"frame": ["sinusoidal", spec, v]} for v in settings])
    for v, frame in zip(settings, frames, strict=True):
        p, i, d, base = v["position"], v["pair"], v["d_model"], v["base"]
        table = sinusoidal_positions(seq_len, d, base=base)
        rows = p + np.arange(-window, window + 1)
        inside = (rows >= 0) & (rows < seq_len)
        sin = np.where(inside, table[np.clip(rows, 0, seq_len - 1), 2 * i], np.nan)
        cos = np.where(inside, table[np.clip(rows, 0, seq_len - 1), 2 * i + 1], np.nan)
        assert_same_numbers(frame["sin"][::fine], sin, f"sine column 2i at {v}")
        assert_same_numbers(frame["cos"][::fine], cos, f"cosine column 2i+1 at {v}")
        between = p + np.arange(-window * fine, window * fine + 1) / fine
        angles = np.where((between >= 0) & (between <= seq_len - 1), between, np.nan)
        angles = angles * frequencies(d, base=base)[i]
        assert_same_numbers(frame["sin"], np.sin(angles), f"the sine between entries at {v}")
        assert_same_numbers(frame["offsets"], between - p, f"offsets at {v}")
        assert_same_numbers(frame["angles"][0], p * frequencies(d, base=base)[i], f"clock at {v}")


# -- RoPE -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", [100.0, 10000.0, 500000.0])
def test_rope_turns_each_vector_as_apply_rope_does(base):
    """Interleaved pairs, at positions from 0 to 10^5 (large angles included)."""
    rng = np.random.default_rng(7)
    cases = [
        (rng.normal(size=d), position)
        for d in (2, 4, 8, 16, 64)
        for position in (0, 1, 7, 103, 4096, 100_003)
    ]
    answers = run_js(
        [{"call": "ropeRotate", "args": [x.tolist(), position, base]} for x, position in cases]
    )
    for (x, position), js in zip(cases, answers, strict=True):
        expected = apply_rope(x[None], positions=[position], base=base)[0]
        assert_same_numbers(js, expected, f"d={x.size}, position {position}, base {base}")


def test_the_rope_score_is_the_dot_product_of_apply_ropes_rotations():
    rng = np.random.default_rng(8)
    q, k = rng.normal(size=(2, 16))
    pairs = [(0, 0), (3, 7), (103, 107), (120, 0), (0, 120), (5000, 4996)]
    answers = run_js(
        [{"call": "ropeScore", "args": [q.tolist(), k.tolist(), m, n, 10000.0]} for m, n in pairs]
    )
    for (m, n), js in zip(pairs, answers, strict=True):
        expected = apply_rope(q[None], positions=[m])[0] @ apply_rope(k[None], positions=[n])[0]
        assert_same_numbers(js, expected, f"score of q at {m}, k at {n}")


# -- ALiBi ----------------------------------------------------------------------------------------


def test_alibi_slopes_for_1_to_128_heads_are_the_librarys():
    """Every head count, the ones between powers of two included (their extra heads)."""
    answers = run_js([{"call": "alibiSlopes", "args": [n]} for n in range(1, 129)])
    for n, js in enumerate(answers, start=1):
        assert_same_numbers(js, alibi_slopes(n), f"alibi_slopes({n})")


@pytest.mark.parametrize("n_heads", [1, 3, 6, 8])
def test_an_alibi_attention_row_is_self_attention_with_alibi_bias_under_the_causal_mask(n_heads):
    """Row i of the weights over keys 0..i; the keys after i are not drawn (NaN)."""
    rng = np.random.default_rng(n_heads)
    t, d = 9, 4
    q, k = rng.normal(size=(2, t, d))
    requests, expected = [], []
    for head in range(n_heads):
        slope = alibi_slopes(n_heads)[head]
        # x = I, so q = x @ w_q is q itself; w_v = I, so the output is the weights themselves
        _, weights = self_attention(
            np.eye(t), q, k, np.eye(t), mask=causal_mask(t), bias=alibi_bias(t, n_heads)[head]
        )
        for i in (0, 1, t // 2, t - 1):
            requests.append({"call": "attentionRow", "args": [q.tolist(), k.tolist(), i, slope]})
            expected.append((head, i, np.where(np.arange(t) <= i, weights[i], np.nan)))
    for js, (head, i, row) in zip(run_js(requests), expected, strict=True):
        assert_same_numbers(js, row, f"head {head} of {n_heads}, query {i}")
    plain = run_js([{"call": "attentionRow", "args": [q.tolist(), k.tolist(), t - 1, None]}])[0]
    _, weights = self_attention(np.eye(t), q, k, np.eye(t), mask=causal_mask(t))
    assert_same_numbers(plain, weights[t - 1], "without ALiBi")


# -- the colour of a number -----------------------------------------------------------------------


def colour_probe(vmin, vmax, n=256):
    """Values at and on both sides of each colour bin's edges, random ones, out of range, NaN."""
    edges = vmin + (vmax - vmin) * np.arange(n + 1) / n
    rng = np.random.default_rng(2)
    return np.concatenate(
        [
            edges,
            np.nextafter(edges, -np.inf),
            np.nextafter(edges, np.inf),
            rng.uniform(vmin - 0.5, vmax + 0.5, 500),
            [vmin - 10, vmax + 10, np.nan],
        ]
    )


@pytest.mark.parametrize(
    ("cmap", "vmin", "vmax"),
    [
        ("viridis", 0.0, 1.0),
        ("RdBu", -1.0, 1.0),
        ("cividis", -0.3, 2.5),
        ("viridis", 0.2, 0.9),  # positive limits, as an automatic scale of positive data
        (ListedColormap(["#000000", "#ff0000", "#00ff00"], name="three"), -0.5, 2.5),
    ],
    ids=["viridis", "RdBu", "cividis", "positive", "three-colours"],
)
def test_a_number_gets_the_colour_matplotlib_gives_it(cmap, vmin, vmax):
    """Normalize(vmin, vmax), then the colormap's N colours: bin edges exact, clipped outside
    the range, NaN transparent (matplotlib's "bad" colour: the canvas shows through)."""
    colormap = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    values = colour_probe(vmin, vmax, colormap.N)
    js = np.array(
        call("heatmapColors", colormap_colors(colormap), vmin, vmax, float64(values)),
        dtype=np.uint8,
    ).reshape(-1, 4)
    expected = colormap(Normalize(vmin, vmax)(values), bytes=True)
    expected[np.isnan(values)] = 0
    np.testing.assert_array_equal(js, expected)


def test_the_colorbar_runs_from_the_top_colour_at_vmax_to_the_bottom_colour_at_vmin():
    """Strip y of s, from the top, shows the value at its middle: vmax - (y + 1/2) (vmax - vmin) / s."""
    colors, vmin, vmax, strips = colormap_colors("viridis"), 0.25, 0.75, 64
    js = call("colorbarColors", colors, vmin, vmax, strips)
    middles = vmax - (np.arange(strips) + 0.5) / strips * (vmax - vmin)
    expected = matplotlib.colormaps["viridis"](Normalize(vmin, vmax)(middles), bytes=True)[:, :3]
    np.testing.assert_array_equal(js, expected)


# -- the heatmaps of chapters 03 and 06, painted as matplotlib paints them ------------------------


def view_request(explorer):
    """The module's arguments as the widget holds them: spec, with the kernel's data as bytes."""
    view = explorer.view
    data = {
        k: float64(np.frombuffer(v, "<f8")) if isinstance(v, bytes) else v
        for k, v in view.data.items()
    }
    return {"frame": [view.kind, {**view.spec, **data}, dict(view.values)]}


def matplotlib_paint(image):
    """What matplotlib paints: the cells' RGBA bytes (row 0 on top) and the colorbar's solids'
    colours from the top (vmax) down."""
    left, right, bottom, top = image.get_extent()
    assert image.origin == "upper" and left < right and top < bottom, "row 0 at the top, left"
    solids = image.colorbar.solids
    colorbar = solids.to_rgba(solids.get_array(), bytes=True).reshape(-1, 4)[::-1, :3]
    return image.to_rgba(image.get_array(), bytes=True), colorbar


def assert_painted_as_matplotlib(painted, paint, what):
    (heatmap,) = painted
    cells, colorbar = paint
    assert (heatmap["height"], heatmap["width"]) == cells.shape[:2], f"{what}: canvas size"
    np.testing.assert_array_equal(
        np.array(heatmap["rgba"], dtype=np.uint8).reshape(cells.shape), cells, err_msg=what
    )
    np.testing.assert_array_equal(heatmap["colorbar"], colorbar, err_msg=f"{what}: colorbar")


@pytest.mark.parametrize(
    "limits",
    [{}, {"vmin": -1.0, "vmax": 1.0, "cmap": "RdBu"}],
    ids=["positive-automatic", "signed-given"],
)
def test_the_frame_slider_paints_each_frame_as_matplotlib_paints_it(limits):
    """Positive data with automatic limits: the scale runs from the first frame's smallest value
    to its largest, not from 0; given limits are kept. Not square, so a transposed canvas shows."""
    from posenc_lib.widgets import FrameSlider

    rng = np.random.default_rng(3)
    frames = {step: rng.uniform(0.3, 0.9, size=(7, 5)) for step in (0, 10, 20)}
    frames[20][0, 0], frames[20][6, 4] = 0.05, 1.5  # beyond the first frame's range: clipped
    slider = FrameSlider(frames, colorbar="similarity", **limits)
    requests, paints = [], []
    for n in range(len(frames)):
        slider.frame.value = n
        requests.append(view_request(slider))
        paints.append(matplotlib_paint(slider.image))
    for n, (answer, paint) in enumerate(zip(run_js(requests), paints, strict=True)):
        assert answer["binary"] == ["frames"], "the frames reach the module as bytes"
        assert_painted_as_matplotlib(answer["painted"], paint, f"frame {n} with {limits}")


def test_the_attention_inspector_paints_each_head_on_the_full_0_to_1_scale():
    """Attention weights coloured from 0 to 1 as matplotlib colours them, head by head."""
    from posenc_lib.model import ModelConfig, train
    from posenc_lib.tasks import TASKS
    from posenc_lib.widgets import AttentionInspector

    config = ModelConfig(vocab_size=16, scheme="alibi", d_model=8, n_heads=2, max_len=8)
    model = train(config, TASKS["lookback-3"](), steps=1, length=8, progress=False)
    inspector = AttentionInspector({("lookback-3", "alibi", 0): model}, TASKS, lengths=(8,))
    assert inspector.image.get_clim() == (0.0, 1.0)
    requests, paints = [], []
    for head in range(2):
        inspector.head.value = head
        requests.append(view_request(inspector))
        paints.append(matplotlib_paint(inspector.image))
    for head, (answer, paint) in enumerate(zip(run_js(requests), paints, strict=True)):
        assert answer["binary"] == ["maps"], "the heads' weights reach the module as bytes"
        assert_painted_as_matplotlib(answer["painted"], paint, f"head {head}")
