"""The explorers check their constructors' arguments like the library's functions do (see
test_validation.py); plots.py's drawing helpers take matplotlib objects, which matplotlib checks.
Kept apart from test_validation.py because building a widget takes a while: the mutation run
(`make mutants`) leaves this file out."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from test_validation import ANY_STRING, EYE, cases, check_wrong_argument, public_callables

from posenc_lib import tasks, word_order
from posenc_lib.model import ModelConfig, train
from posenc_lib.widgets import _live, ch00, ch01, ch02, ch03, ch04, ch05, ch06

CALLABLES = public_callables([_live, ch00, ch01, ch02, ch03, ch04, ch05, ch06])
VALID = {
    "LiveFigure": {"figsize": (2, 2), "dpi": 40},
    "Explorer": {},
    "StatusExplorer": {},
    "HelloSlider": {},
    "draw_order_comparison": {
        "axes": Figure().subplots(1, 3),
        "comparison": word_order.compare_orders("a b", "b a", EYE, EYE, EYE),
        "title_a": "A",
        "title_b": "B",
    },
    "FrameImage": {},
    "slider": {"description": "position", "value": 1, "low": 0, "high": 4, "step": 1},
    "frame_text": {
        "comparison": word_order.compare_orders("a b", "b a", EYE, EYE, EYE),
        "positions": True,
        "causal": False,
    },
    "describe_comparison": {"comparison": word_order.compare_orders("a b", "b a", EYE, EYE, EYE)},
    "OrderExplorer": {
        "w_q": np.eye(8),
        "w_k": np.eye(8),
        "w_v": np.eye(8),
        "sentence": "a b",
        "other": "b a",
        "seed": 1,
    },
    "SinusoidalExplorer": {"seq_len": 50, "d_model": 16, "base": 100.0, "position": 3, "pair": 1},
    "SimilarityExplorer": {"d_model": 16, "base": 100.0, "max_shift": 20, "shift": 3},
    "FrameSlider": {
        "frames": {0: np.eye(2)},
        "title": "step {key}",
        "label": "step",
        "alt": "Heatmap, {title}",
        "colorbar": "value",
    },
    "RopeExplorer": {"d": 4, "base": 100.0, "seed": 1, "max_offset": 10},
    "AlibiExplorer": {"seq_len": 4, "n_heads": 2, "d_k": 2, "seed": 1},
    "AttentionInspector": {
        "models": {
            ("lookback-3", "none", 0): train(
                ModelConfig(vocab_size=16, d_model=4), tasks.lookback(3), steps=0, progress=False
            )
        },
        "tasks": tasks.TASKS,
        "lengths": (8,),
        "seed": 0,
    },
}
WIDGET_STRINGS = ANY_STRING | {
    ("draw_order_comparison", "title_a"),
    ("draw_order_comparison", "title_b"),
    ("OrderExplorer", "sentence"),
    ("OrderExplorer", "other"),
    ("FrameSlider", "title"),
    ("FrameSlider", "label"),
    ("FrameSlider", "alt"),
    ("FrameSlider", "colorbar"),
    ("slider", "description"),
}


def test_every_explorer_has_a_valid_call_listed_here():
    assert set(CALLABLES) == set(VALID)


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_valid_call_succeeds(name):
    CALLABLES[name](**VALID[name])


@pytest.mark.parametrize(("name", "parameter", "k"), cases(VALID, any_string=WIDGET_STRINGS))
def test_a_wrong_argument_raises_an_error_that_names_the_explorer_and_the_argument(
    name, parameter, k
):
    check_wrong_argument(CALLABLES, VALID, name, parameter, k, WIDGET_STRINGS)
