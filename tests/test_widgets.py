"""Widgets respond to their controls without a browser: setting a value changes the artists."""

import io
import re

import numpy as np
import pytest

from posenc_lib.widgets import (
    AlibiExplorer,
    HelloSlider,
    OrderExplorer,
    RopeExplorer,
    SimilarityExplorer,
    SinusoidalExplorer,
)


def test_hello_slider_reports_the_hand_angle():
    w = HelloSlider()
    w.position.value = 3
    assert "position 3" in w.label.value and "3.00 rad" in w.label.value
    hand_before = w.hands[0].get_xydata().copy()
    w.position.value = 7  # 7 rad = 401 degrees: one whole turn and 41 degrees more
    assert "7.00 rad = 401 degrees = 1 full turn + 41 degrees" in w.label.value
    assert not np.allclose(w.hands[0].get_xydata(), hand_before), "the drawn hand turns"
    tip = w.hands[0].get_xydata()[1]
    assert np.allclose(tip, [np.sin(7.0), np.cos(7.0)])


@pytest.fixture
def order_explorer():
    rng = np.random.default_rng(0)
    return OrderExplorer(*(rng.normal(0, 0.7, size=(8, 8)) for _ in range(3)))


def test_order_explorer_starts_with_the_dog_and_the_man(order_explorer):
    assert order_explorer.status.value.count("rounding only") == 2
    assert bytes(order_explorer.live.image.value)[:4] == b"\x89PNG"


def test_ticking_the_causal_mask_changes_the_heatmaps_and_the_numbers(order_explorer):
    image_a = order_explorer.artists[0]
    before, status, png = (
        image_a.get_array().copy(),
        order_explorer.status.value,
        order_explorer.live.image.value,
    )
    order_explorer.causal.value = True
    assert not np.allclose(image_a.get_array(), before)
    assert np.all(np.triu(image_a.get_array(), 1) == 0)
    assert order_explorer.status.value != status
    assert bytes(order_explorer.live.image.value) != png


def test_shuffle_makes_b_a_shuffle_of_a(order_explorer):
    order_explorer.shuffle_a()
    assert sorted(order_explorer.text_b.value.split()) == sorted(
        order_explorer.text_a.value.split()
    )
    assert "max |out_B - out_A shuffled|" in order_explorer.status.value


def test_typing_a_sentence_that_is_no_shuffle_says_so(order_explorer):
    order_explorer.text_b.value = "a cat sat"
    assert "not a shuffle" in order_explorer.status.value
    assert order_explorer.artists[1].get_array().shape == (3, 3)


@pytest.fixture
def sinusoidal_explorer():
    return SinusoidalExplorer(seq_len=60, d_model=16)


def test_moving_the_position_turns_the_hands_and_moves_the_cursors(sinusoidal_explorer):
    e = sinusoidal_explorer
    hand = e.hands[1].get_xydata().copy()
    renders = e.live.renders
    e.position.value = 7
    assert not np.allclose(e.hands[1].get_xydata(), hand)
    np.testing.assert_allclose(e.hands[1].get_xydata()[1], [2.6 + np.sin(7.0), np.cos(7.0)])
    assert list(e.waves[2].get_xdata()) == [0, 0], "the marker stays at offset 0"
    np.testing.assert_allclose(e.waves[0].get_ydata()[e.window * e.fine], e.table[7, 0])
    # the table shows rows 7 - 40 .. 7 + 40, row 7 on the line at offset 0
    assert list(e.row_cursor.get_ydata()) == [0, 0]
    np.testing.assert_allclose(e.heat.get_array()[e.window], e.table[7])
    assert np.ma.getmaskarray(e.heat.get_array())[: e.window - 7].all(), "rows before 0: blank"
    assert e.live.renders == renders + 1, "one step, one frame asked for"


def test_choosing_a_pair_shows_its_columns(sinusoidal_explorer):
    e = sinusoidal_explorer
    e.pair.value = 3
    rows = e.position.value + e.offsets
    inside = (rows >= 0) & (rows < e.seq_len)
    whole = slice(None, None, e.fine)  # the waves' points at whole positions: the table's entries
    np.testing.assert_allclose(e.waves[0].get_ydata()[whole][inside], e.table[rows[inside], 6])
    np.testing.assert_allclose(e.waves[1].get_ydata()[whole][inside], e.table[rows[inside], 7])
    assert np.all(np.isnan(e.waves[0].get_ydata()[whole][~inside]))
    between = e.position.value + e.wave_offsets  # and between them, the sinusoid itself
    drawn = ~np.isnan(e.waves[0].get_ydata())
    np.testing.assert_allclose(
        e.waves[0].get_ydata()[drawn], np.sin(between[drawn] * e.omega[3]), atol=1e-12
    )
    assert e.col_cursor.get_x() == 5.5
    assert "columns 6, 7" in e.status.value


def test_changing_d_model_rebuilds_the_table_and_limits_the_pair_slider(sinusoidal_explorer):
    e = sinusoidal_explorer
    e.d_model.value = 64
    assert e.table.shape == (60, 64) and e.pair.max == 31
    e.pair.value = 31
    e.d_model.value = 16
    assert e.pair.value == 7 and e.pair.max == 7


def test_changing_the_base_changes_the_slow_hands(sinusoidal_explorer):
    e = sinusoidal_explorer
    e.position.value = 50
    slow = e.hands[-1].get_xydata().copy()
    e.base.value = 100.0
    assert not np.allclose(e.hands[-1].get_xydata(), slow)


def test_quiz_grades_the_selected_option_and_keeps_score():
    from posenc_lib.exercises import Quiz, ch08

    quiz = Quiz(ch08.QUESTIONS[:2])
    assert quiz.check(0).passed is False  # nothing selected yet: feedback, not a crash
    quiz.choices[0].value = "a"
    assert quiz.check(0).passed
    assert "Right" in quiz.feedback[0].value
    quiz.choices[1].value = "true"
    assert not quiz.check(1).passed
    assert quiz.score.value == "1 of 2 right so far"


def test_quiz_hint_button_gives_the_nudge_first_then_the_recipe_then_no_more():
    from posenc_lib.exercises import Quiz, ch08

    quiz = Quiz(ch08.QUESTIONS[:1])
    nudge, recipe = ch08.QUESTIONS[0].hints
    assert quiz.hint(0) == f"Hint 1 of 2: {nudge}"
    assert recipe not in quiz.hint_text[0].value
    assert quiz.hint(0) == f"Hint 2 of 2: {recipe}"
    assert nudge in quiz.hint_text[0].value and recipe in quiz.hint_text[0].value
    assert quiz.hint(0).startswith("No more hints")
    assert quiz.choices[0].value is None  # a hint never answers for the learner


def test_rope_explorer_marker_stays_put_when_both_positions_move_together():
    from posenc_lib.widgets import RopeExplorer

    e = RopeExplorer()
    e.m.value, e.n.value = 3, 7
    before = e.marker.get_xydata().copy()
    e.m.value, e.n.value = 103, 107
    np.testing.assert_allclose(e.marker.get_xydata(), before, atol=1e-9)
    e.n.value = 20
    assert not np.allclose(e.marker.get_xydata(), before)


def test_alibi_explorer_shows_keys_up_to_the_query_and_the_heads_slope():
    from posenc_lib.widgets import AlibiExplorer

    e = AlibiExplorer(seq_len=16)
    e.query.value = 5
    shown = e.biased_line.get_ydata()
    assert np.all(np.isnan(shown[6:])) and np.all(np.isfinite(shown[:6]))
    e.head.value = 3
    assert "m = 0.0625" in e.status.value


def test_frame_slider_swaps_frames():
    from posenc_lib.widgets import FrameSlider

    frames = {0: np.zeros((3, 3)), 10: np.ones((3, 3))}
    f = FrameSlider(frames, vmin=0, vmax=1)
    f.frame.value = 1  # the second frame, step 10
    np.testing.assert_array_equal(f.image.get_array(), np.ones((3, 3)))
    assert f.caption.get_text() == "step 10"


def test_attention_inspector_switches_models_lengths_and_heads():
    from posenc_lib import experiments
    from posenc_lib.widgets import AttentionInspector

    _, models = experiments.run_study(
        tasks=("lookback-3",),
        schemes=("learned", "rope"),
        steps=2,
        progress=False,
        keep_models=True,
    )
    inspector = AttentionInspector(models, experiments.TASKS, lengths=(32, 64))
    assert inspector.scheme.value == "rope" and inspector.image.get_array().shape == (64, 64)
    first = inspector.image.get_array().copy()
    inspector.head.value = 1
    assert not np.allclose(inspector.image.get_array(), first)
    inspector.length.value = 32
    assert inspector.image.get_array().shape == (32, 32)
    inspector.scheme.value = "learned"
    inspector.length.value = 64
    assert "cannot run: asked for 64 positions but the table has only max_len=32 rows" in (
        inspector.status.value
    )


# -- the house style holds in every explorer's figure ---------------------------------------------


def _frame_slider():
    from posenc_lib.widgets import FrameSlider

    frames = {step: np.eye(6) * step / 10 for step in (0, 10)}  # as chapter 03 calls it
    return FrameSlider(frames, cmap="RdBu", vmin=-1, vmax=1, xlabel="position", ylabel="position")


def _attention_inspector():
    from posenc_lib.model import ModelConfig, train
    from posenc_lib.tasks import TASKS
    from posenc_lib.widgets import AttentionInspector

    config = ModelConfig(vocab_size=16, scheme="alibi", d_model=8, n_heads=2, max_len=8)
    model = train(config, TASKS["lookback-3"](), steps=1, length=8, progress=False)
    return AttentionInspector({("lookback-3", "alibi", 0): model}, TASKS, lengths=(8, 16))


EXPLORERS = {
    "hello": HelloSlider,
    "order": lambda: OrderExplorer(*[np.eye(8)] * 3),
    "sinusoidal": SinusoidalExplorer,
    "similarity": SimilarityExplorer,
    "frames": _frame_slider,
    "rope": RopeExplorer,
    "alibi": AlibiExplorer,
    "attention": _attention_inspector,
}


# one control of each explorer and a value it moves to
A_STEP = {
    "hello": ("position", 5),
    "order": ("causal", True),
    "sinusoidal": ("position", 7),
    "similarity": ("shift", 20),
    "frames": ("frame", 1),
    "rope": ("m", 5),
    "alibi": ("query", 5),
    "attention": ("head", 1),
}


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_a_step_draws_nothing_in_the_kernel_until_a_static_twin_asks_for_its_frame(name):
    """Every explorer is drawn in the page; its matplotlib figure serves the static twins only."""
    explorer = EXPLORERS[name]()
    live = explorer.live
    assert live.lazy
    attribute, value = A_STEP[name]
    asked, drawn = live.renders, live.draws
    getattr(explorer, attribute).value = value
    assert live.renders > asked, "the step asked for a frame"
    assert live.draws == drawn, "and drew none"
    twin = live.snapshot()
    assert bytes(twin.data)[1:4] == b"PNG"
    assert live.draws == drawn + 1, "the twin drew the figure once"


def test_the_style_check_covers_every_widget_the_package_exports():
    import posenc_lib.widgets as widgets
    from posenc_lib.widgets import Explorer, StatusExplorer

    exported = {
        name
        for name in widgets.__all__
        if isinstance(getattr(widgets, name), type)
        and issubclass(getattr(widgets, name), Explorer)
        and getattr(widgets, name) not in (Explorer, StatusExplorer)  # bases, not widgets
    }
    made = {type(make()).__name__ for make in EXPLORERS.values()}
    assert exported - {"Quiz"} <= made, exported - made  # the quiz draws no figure


@pytest.mark.parametrize("make", EXPLORERS.values(), ids=EXPLORERS.keys())
def test_every_explorer_figure_follows_the_house_style(make):
    from posenc_lib.plots import style_problems

    assert style_problems(make().live.fig) == []


def test_the_style_check_catches_a_heatmap_without_colorbar_and_a_legend_on_data():
    from matplotlib.figure import Figure

    from posenc_lib.plots import heatmap, style_problems

    fig = Figure()
    ax_map, ax_line = fig.subplots(1, 2)
    heatmap(ax_map, np.eye(3))
    ax_line.plot([0, 1, 2], [0, 0.5, 1], "o-", label="a")
    ax_line.plot([0, 1, 2], [1, 0.5, 0], "s--", label="b")
    ax_line.legend(loc="center", bbox_to_anchor=(0.5, 0.5))
    problems = style_problems(fig)
    assert any("no colorbar" in p for p in problems)
    assert any("legend covers" in p for p in problems)


def test_the_sinusoidal_explorer_lets_the_slow_hands_move():
    w = SinusoidalExplorer(d_model=16)
    slowest = 2 * np.pi / w.omega[-1]
    assert w.position.max + 1 >= min(slowest / 4, 10_000) - 1
    w.pair.value = 5
    assert "i=5" in w.selected_label.get_text()


def test_the_similarity_explorer_reports_the_curve_at_the_shift():
    from posenc_lib.sinusoidal import similarity_by_distance

    w = SimilarityExplorer(d_model=128)
    w.shift.value = 100
    assert f"{similarity_by_distance(100, 128):.2f}" in w.status.value
    w.band.value = "slowest quarter"
    assert w.marker.get_ydata()[0] == pytest.approx(
        similarity_by_distance(100, 128, pairs=slice(48, 64))
    )


# -- snapshot_at: one static-twin image per call ---------------------------------------------------


def test_snapshot_at_sets_the_controls_in_order_prints_the_status_and_returns_the_figure(capsys):
    from PIL import Image

    w = SinusoidalExplorer()  # d_model 16: positions 0 .. 4967
    image = w.snapshot_at(d_model=64, position=8000, pair=12)  # d_model first widens the range
    assert (w.d_model.value, w.position.value, w.pair.value) == (64, 8000, 12)
    assert w.table.shape[1] == 64 and list(w.row_cursor.get_ydata()) == [0, 0]
    np.testing.assert_allclose(w.heat.get_array()[w.window], w.table[8000])
    assert capsys.readouterr().out == w.status.value + "\n"
    assert w.status.value.startswith("p=8000, pair i=12 (columns 24, 25;")
    shown = Image.open(io.BytesIO(image.data))
    live = Image.open(io.BytesIO(bytes(w.live.image.value)))
    assert live.size == w.live.canvas.get_width_height()
    density = w.live.density  # 1: this explorer is drawn in the browser; its frames feed twins
    assert w.live.shown_size == (live.size[0] // density, live.size[1] // density)
    # the twin is drawn at 2x and shown at 1x, like every figure of the course
    assert shown.size == (2 * w.live.shown_size[0], 2 * w.live.shown_size[1])
    assert (image.width, image.height) == w.live.shown_size
    w.snapshot_at()  # no controls: the figure as it stands
    assert capsys.readouterr().out == w.status.value + "\n"


def test_snapshot_at_refuses_an_unknown_control_naming_the_method_and_the_controls(capsys):
    w = RopeExplorer()
    with pytest.raises(TypeError) as error:
        w.snapshot_at(m=50, q=1)
    assert str(error.value) == (
        "RopeExplorer.snapshot_at: q=1 names no control; the controls are m, n, pair"
    )
    assert w.m.value == 3, "a typo in any name changes nothing"
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("values", "error", "message"),
    [
        ({"position": 5000}, ValueError, "position must be in 0..4967, got 5000"),
        ({"position": 3.5}, TypeError, "position must be an integer, got 3.5"),
        ({"d_model": 48}, ValueError, "d_model must be one of 16, 32, 64, 128, got 48"),
        ({"status": "hi"}, TypeError, "status='hi' names no control"),
    ],
)
def test_snapshot_at_refuses_a_value_the_control_would_clip_or_round(values, error, message):
    w = SinusoidalExplorer()
    before = (w.position.value, w.d_model.value)
    with pytest.raises(error, match=re.escape(f"SinusoidalExplorer.snapshot_at: {message}")):
        w.snapshot_at(**values)
    assert (w.position.value, w.d_model.value) == before


def test_snapshot_at_names_the_control_when_it_refuses_a_value_of_the_wrong_type(order_explorer):
    with pytest.raises(TypeError, match=r"^OrderExplorer\.snapshot_at: text_a cannot be 5: "):
        order_explorer.snapshot_at(text_a=5)
    with pytest.raises(TypeError, match=r"^OrderExplorer\.snapshot_at: causal must be True or"):
        order_explorer.snapshot_at(causal=1)


def value_widgets(widget):
    """The widgets inside ``widget`` (a box, recursively) that a learner can set."""
    import ipywidgets as widgets

    if isinstance(widget, widgets.Box):
        return [w for child in widget.children for w in value_widgets(child)]
    shown_only = (widgets.Label, widgets.HTML, widgets.HTMLMath, widgets.Image)
    return (
        [widget]
        if isinstance(widget, widgets.ValueWidget) and not isinstance(widget, shown_only)
        else []
    )


def test_every_explorer_with_a_figure_and_a_status_line_offers_snapshot_at_over_its_controls():
    from test_validation_widgets import VALID

    import posenc_lib.widgets as module
    from posenc_lib.exercises import ch08
    from posenc_lib.widgets import Explorer, StatusExplorer
    from posenc_lib.widgets._front import LiveView

    arguments = {**VALID, "Quiz": {"questions": ch08.QUESTIONS[:1]}}
    explorers = [
        name
        for name in module.__all__
        if isinstance(getattr(module, name), type)
        and issubclass(getattr(module, name), Explorer)
        and getattr(module, name) not in (Explorer, StatusExplorer)
    ]
    offering = set()
    for name in explorers:
        w = getattr(module, name)(**arguments[name])
        if hasattr(w, "live") and hasattr(w, "status"):
            offering.add(name)
            assert isinstance(w, StatusExplorer), name
            if isinstance(w.box, LiveView):  # drawn in the browser: its controls are its values
                assert set(w._controls()) == set(w.box.values), name
                continue
            # a kernel widget box around a view (chapters 01, 06): the view draws the controls
            # that step through what the kernel sent, the box holds the others
            drawn = set(w.view.values) if hasattr(w, "view") else set()
            assert drawn <= set(w._controls()), name
            controls = {id(c) for n, c in w._controls().items() if n not in drawn}
            assert controls == {id(c) for c in value_widgets(w.box)}, name
        else:
            assert not isinstance(w, StatusExplorer), name
    assert offering == {
        "OrderExplorer",
        "SinusoidalExplorer",
        "SimilarityExplorer",
        "RopeExplorer",
        "AlibiExplorer",
        "AttentionInspector",
    }
    assert set(explorers) - offering == {"HelloSlider", "FrameSlider"}


def test_the_live_explorers_module_loads_nothing_from_anywhere():
    from pathlib import Path

    import posenc_lib.widgets as module

    root = Path(module.__file__).resolve().parents[2]
    sources = [
        Path(module.__file__).with_name("explorers.js").read_text(),
        (root / "docs" / "_static" / "posenc-live.js").read_text(),
    ]
    assert not re.search(r"https?://|//cdn|\bfetch\(|XMLHttpRequest|WebSocket", "".join(sources))
    imports = re.findall(r"^\s*import\b.*?from\s+['\"]([^'\"]+)['\"]", "\n".join(sources), re.M)
    assert imports == ["./posenc/explorers.js"], "only the site loader imports, and only the module"


def test_a_live_explorer_and_its_python_controls_follow_each_other():
    w = RopeExplorer()
    w.view.values = {"m": 50, "n": 60, "pair": 2}  # as the browser sends a reader's move
    assert (w.m.value, w.n.value, w.pair.value) == (50, 60, 2)
    assert w.status.value.startswith("m=50, n=60, offset n-m=10:")
    w.n.value = 70  # a cell sets a control: the drawing follows
    assert w.view.values == {"m": 50, "n": 70, "pair": 2}
    s = SinusoidalExplorer()
    s.view.values = {"d_model": 64, "base": 10000.0, "pair": 31, "position": 9000}
    assert (s.d_model.value, s.pair.value, s.position.value) == (64, 31, 9000)
    s.view.values = {**s.view.values, "d_model": 16}  # a narrower table clips the pair
    assert s.pair.value == 7 and s.view.values["pair"] == 7


# -- chapters 01, 03 and 06 for every learner: sharp, named, described ------------------------------

ACCESSIBLE = {
    "order": EXPLORERS["order"],
    "frames": _frame_slider,
    "attention": _attention_inspector,
}


def _controls_in(box):
    """Every widget in ``box`` (nested boxes opened) that a learner operates."""
    import ipywidgets as widgets

    for child in getattr(box, "children", ()):
        if isinstance(child, widgets.Box):
            yield from _controls_in(child)
        elif isinstance(child, widgets.ValueWidget | widgets.Button) and not isinstance(
            child, widgets.Label | widgets.HTML | widgets.Image
        ):
            yield child


@pytest.mark.parametrize("name", sorted(ACCESSIBLE))
def test_every_control_has_a_name_and_none_is_an_unnamed_slider(name):
    import ipywidgets as widgets

    explorer = ACCESSIBLE[name]()
    controls = list(_controls_in(explorer.box))
    # the view's controls (checkboxes, number fields) are drawn in the page with a <label> each;
    # tests/test_browser.py checks their names there
    assert controls or explorer.view.values
    assert explorer.view.description.strip()
    for control in controls:
        assert control.description.strip(), f"{name}: {type(control).__name__} has no name"
        # a slider's handle cannot take its label's name in JupyterLab: none in these explorers
        assert not isinstance(control, widgets.IntSlider | widgets.SelectionSlider)


@pytest.mark.parametrize("name", sorted(ACCESSIBLE))
def test_the_static_frame_is_drawn_at_twice_the_size_it_is_shown(name):
    """The matplotlib figure, for the static twins: drawn and committed at 2x, shown at 1x.
    The live canvas has the screen's own pixel density (tests/test_browser.py)."""
    from PIL import Image

    live = ACCESSIBLE[name]().live
    frame = Image.open(io.BytesIO(bytes(live.image.value)))
    assert frame.size == (2 * live.shown_size[0], 2 * live.shown_size[1])
    twin = live.snapshot()
    assert Image.open(io.BytesIO(twin.data)).size == frame.size
    assert (twin.width, twin.height) == live.shown_size


def test_the_order_explorers_text_alternative_follows_the_sentences_and_the_mask():
    explorer = OrderExplorer(*[np.eye(8)] * 3)
    before = explorer.live.image.tooltip
    assert before.startswith("Attention weights of sentence A (the dog bit the man .)")
    assert "without the causal mask" in before and explorer.status.value in before
    explorer.causal.value = True
    assert "with the causal mask" in explorer.live.image.tooltip
    explorer.text_b.value = "a b c"
    assert "sentence B (a b c)" in explorer.live.image.tooltip
    assert explorer.status.value in explorer.live.image.tooltip


def test_the_frame_sliders_text_alternative_names_the_frame_shown():
    explorer = _frame_slider()
    # the frame's own values, then the colours' range
    scale = "(colour scale -1 to 1)"
    assert explorer.live.image.tooltip == f"Heatmap, step 0: 6 by 6, values from 0 to 0 {scale}."
    explorer.frame.value = 1
    assert explorer.live.image.tooltip == f"Heatmap, step 10: 6 by 6, values from 0 to 1 {scale}."


def test_the_attention_inspectors_text_alternative_names_the_head_and_length():
    explorer = _attention_inspector()
    assert explorer.live.image.tooltip.startswith(
        "Attention of head 0 of alibi trained on lookback-3, one sequence of length 16"
    )
    explorer.head.value = 1
    assert "head 1 of alibi" in explorer.live.image.tooltip
    explorer.length.value = 8
    assert "length 8: a 8 by 8 heatmap" in explorer.live.image.tooltip
    assert explorer.status.value in explorer.live.image.tooltip


def test_every_scheme_has_one_look_of_its_own_in_every_figure():
    """Chapters 6 to 8 draw each scheme with the same colour, marker and line style; no two schemes
    share a colour or a marker, so none is told apart by colour alone."""
    from posenc_lib.model import SCHEMES
    from posenc_lib.plots import scheme_style

    styles = [scheme_style(s) for s in SCHEMES]
    assert len({s["color"] for s in styles}) == len({s["marker"] for s in styles}) == len(SCHEMES)
    assert scheme_style("t5")["color"] != scheme_style("sinusoidal")["color"]


# -- chapters 01, 03 and 06: the kernel sends numbers, the page draws them ------------------------


def _floats(raw, shape):
    return np.frombuffer(raw, dtype="<f8").reshape(shape)


@pytest.mark.parametrize("name", sorted(ACCESSIBLE))
def test_the_kernel_drawn_explorers_are_drawn_in_the_page_but_not_on_the_website(name):
    import ipywidgets

    from posenc_lib.widgets._front import MIME, LiveView

    explorer = ACCESSIBLE[name]()
    assert isinstance(explorer.view, LiveView) and explorer.view.kind == name
    assert explorer.view.site is False
    assert len(explorer.view.spec["colors"]) == 256
    if not hasattr(ipywidgets.DOMWidget, "_repr_mimebundle_"):
        return  # ipywidgets 7 (the oldest stack) displays through _ipython_display_: no bundle
    bundle = explorer.view._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert MIME not in data  # the website keeps the static twin (tools/sitetools.py)


def test_the_order_explorer_sends_every_checkbox_setting_for_the_sentences_typed():
    from posenc_lib.word_order import compare_orders

    w = np.random.default_rng(0).normal(0, 0.7, size=(3, 8, 8))
    explorer = OrderExplorer(*w)
    for positions in (False, True):
        for causal in (False, True):
            explorer.view.values = {"positions": positions, "causal": causal}  # as the page sends
            assert (explorer.positions.value, explorer.causal.value) == (positions, causal)
            state = explorer.view.data["states"][f"{int(positions)}{int(causal)}"]
            c = compare_orders(
                "the dog bit the man .",
                "the man bit the dog .",
                *w,
                positions=positions,
                causal=causal,
            )
            np.testing.assert_array_equal(state["weights_a"], c.weights_a)
            np.testing.assert_array_equal(state["weights_b"], c.weights_b)
            np.testing.assert_array_equal(state["pooled_a"], c.pooled_a)
            np.testing.assert_array_equal(state["pooled_b"], c.pooled_b)
            assert state["status"] == explorer.status.value
            assert state["alt"] == explorer.live.image.tooltip
    sent = explorer.view.data
    explorer.causal.value = False  # a tick needs nothing new from the kernel
    assert explorer.view.data is sent and explorer.view.values["causal"] is False
    explorer.text_b.value = "a b c"  # new words: the kernel sends the four settings again
    assert explorer.view.data["words_b"] == ["a", "b", "c"]
    shown = f"{int(explorer.positions.value)}{int(explorer.causal.value)}"
    assert explorer.view.data["states"][shown]["status"] == explorer.status.value


def test_the_frame_slider_sends_every_frame_once_and_follows_the_view():
    explorer = _frame_slider()
    frames = _floats(explorer.view.data["frames"], (2, 6, 6))
    np.testing.assert_array_equal(frames, [explorer.frames[0], explorer.frames[10]])
    spec = explorer.view.spec
    assert (spec["vmin"], spec["vmax"], spec["xlabel"], spec["ylabel"]) == (
        -1.0,
        1.0,
        "position",
        "position",
    )
    assert spec["titles"] == ["step 0", "step 10"] and spec["label"] == "step (0-1)"
    explorer.view.values = {"frame": 1}
    assert explorer.frame.value == 1 and explorer.caption.get_text() == "step 10"
    assert spec["texts"][1] == explorer.live.image.tooltip
    explorer.frame.value = 0
    assert explorer.view.values == {"frame": 0}


def test_the_attention_inspector_sends_every_head_for_the_model_run():
    explorer = _attention_inspector()
    data = explorer.view.data
    assert data["n"] == 16 and data["status"] == explorer.status.value
    np.testing.assert_array_equal(_floats(data["maps"], (2, 16, 16)), explorer.maps[0][0])
    for head in (1, 0):
        explorer.view.values = {"head": head}
        assert explorer.head.value == head
        assert data["texts"][head] == explorer.live.image.tooltip
        np.testing.assert_array_equal(explorer.image.get_array(), explorer.maps[0][0, head])
    explorer.length.value = 8  # the kernel runs the model again and sends the new weights
    assert explorer.view.data["n"] == 8
    assert explorer.view.data["title"] == explorer.ax.get_title()


def test_a_frame_slider_refuses_an_empty_colorbar_label():
    from posenc_lib.widgets import FrameSlider

    with pytest.raises(
        ValueError, match="FrameSlider: colorbar must be True, False or a non-empty"
    ):
        FrameSlider({0: np.eye(2)}, colorbar="")
