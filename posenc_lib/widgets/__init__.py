"""Interactive explorers built from core ipywidgets (runs in JupyterLab, Binder and Colab).

Each explorer builds its matplotlib figure once, keeps handles to the artists, and on a slider
change updates their data and re-renders that one figure to PNG bytes shown in a
``widgets.Image``. The observers are plain functions, so tests can set ``slider.value`` without a
browser and benchmarks can time a step.
"""

from ._live import Explorer, LiveFigure, StatusExplorer
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
