"""Interactive explorers built from core ipywidgets (runs in JupyterLab, Binder and Colab).

Each explorer builds its matplotlib figure once, keeps handles to the artists, and on a slider
change updates their data and re-renders that one figure to PNG bytes (its static twins and
``snapshot_at`` show them). The observers are plain functions, so tests can set ``slider.value``
without a browser and benchmarks can time a step. What a learner sees and operates is drawn in the
page by ``explorers.js`` (`LiveView`, in ``_front.py``): chapters 00, 02, 04 and 05 compute their
figures there, chapters 01, 03 and 06 draw the numbers the kernel sends for every state their
controls reach.
"""

from ._live import Explorer, FrameImage, LiveFigure, StatusExplorer
from .ch00 import HelloSlider
from .ch01 import OrderExplorer, describe_comparison, draw_order_comparison
from .ch02 import SimilarityExplorer, SinusoidalExplorer
from .ch03 import FrameSlider
from .ch04 import RopeExplorer
from .ch05 import AlibiExplorer
from .ch06 import AttentionInspector

__all__ = [
    "AlibiExplorer",
    "AttentionInspector",
    "Explorer",
    "FrameImage",
    "FrameSlider",
    "HelloSlider",
    "LiveFigure",
    "OrderExplorer",
    "RopeExplorer",
    "SimilarityExplorer",
    "SinusoidalExplorer",
    "StatusExplorer",
    "describe_comparison",
    "draw_order_comparison",
]
