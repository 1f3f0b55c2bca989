"""Chapter 6: where each trained model looks, at every length."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from .._checks import check_int, short
from ..tasks import has_target
from ._front import LiveView, colormap_colors, connect, numbers_bytes
from ._live import LiveFigure, StatusExplorer


class AttentionInspector(StatusExplorer):
    """Chapter 6: where each trained model attends, at every length.

    Pick a task, a scheme, an evaluation length and a head, and see where each query of one test
    sequence attends. Models come from ``run_study(..., keep_models=True)``.

    The task, scheme and length run a model in the kernel; the kernel then sends every head's
    weights at once, as numbers, to the view drawn in the browser (`LiveView`, explorers.js): the
    head field, the heatmap, its colorbar and the status line. Stepping through the heads never
    waits for the kernel. ``head``, ``status`` and the matplotlib figure (``live``) follow the view.

    Parameters
    ----------
    models : dict
        (task, scheme, seed) -> TrainResult, as ``run_study(..., keep_models=True)`` returns them.
    tasks : dict
        Task name -> a function making that task (`~posenc_lib.tasks.TASKS`).
    lengths : sequence of int
        The evaluation lengths offered.
    seed : int
        Which seed's models to show.

    Examples
    --------
    >>> from posenc_lib.model import ModelConfig, train
    >>> from posenc_lib.tasks import TASKS
    >>> config = ModelConfig(vocab_size=16, scheme="alibi", d_model=8, n_heads=2, max_len=8)
    >>> model = train(config, TASKS["lookback-3"](), steps=1, length=8, progress=False)
    >>> inspector = AttentionInspector({("lookback-3", "alibi", 0): model}, TASKS, lengths=(8, 16))
    >>> inspector.status.value[:18], inspector.maps[0].shape
    ('this sequence: 8% ', (1, 2, 16, 16))
    """

    def __init__(self, models, tasks, lengths=(32, 64, 128, 256), seed=0):
        from ..model import accuracy, attention_maps, forward, length_problem

        func = "AttentionInspector"
        if not isinstance(models, dict) or not models:
            raise TypeError(f"{func}: models must be a non-empty dict, got {short(models)}")
        if not isinstance(tasks, dict):
            raise TypeError(f"{func}: tasks must be a dict name -> task maker, got {short(tasks)}")
        seed = check_int(func, "seed", seed, minimum=0)
        if not isinstance(lengths, list | tuple):
            raise TypeError(f"{func}: lengths must be a list of lengths, got {short(lengths)}")
        lengths = [check_int(func, "lengths", n, minimum=1) for n in lengths]
        if not lengths:
            raise ValueError(f"{func}: lengths must offer at least one length")
        if not any(s == seed for (_, _, s) in models):
            raise ValueError(f"{func}: no model has seed={seed}")
        missing = sorted({t for (t, _, _) in models} - set(tasks))
        if missing:
            raise ValueError(f"{func}: tasks has no maker for {short(missing)}")
        self._maps, self._forward = attention_maps, forward
        self._accuracy, self._length_problem = accuracy, length_problem
        self.models = {
            (task, scheme): result for (task, scheme, s), result in models.items() if s == seed
        }
        self.tasks = tasks
        names = list(dict.fromkeys(task for task, _ in self.models))
        schemes = list(dict.fromkeys(scheme for _, scheme in self.models))
        self.task = widgets.Dropdown(options=names, value=names[0], description="task")
        self.scheme = widgets.Dropdown(options=schemes, value=schemes[-1], description="scheme")
        self.length = widgets.Dropdown(
            options=list(lengths), value=lengths[-1], description="length"
        )
        some = next(iter(self.models.values())).config
        # a number field, not a slider: its label names it for a screen reader, and its arrow
        # keys step it inside JupyterLab (which keeps a dropdown's arrow keys for its own use)
        self.head = widgets.BoundedIntText(
            value=0, min=0, max=some.n_heads - 1, description="head", continuous_update=True
        )
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(5.2, 4.6), widget=False)
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap(
            self.ax, np.zeros((2, 2)), vmin=0, vmax=1, colorbar="attention weight"
        )
        self.live.animate(self.image)
        # Drawn in the browser (explorers.js): the head field, the heatmap and the status line,
        # from every head's weights, which redraw() sends for the current task, scheme and length.
        self.view = LiveView(
            kind="attention",
            spec={
                "n_heads": some.n_heads,
                "colors": colormap_colors(self.image.get_cmap()),
                "vmin": 0.0,
                "vmax": 1.0,
                "colorbar": "attention weight",
            },
            values={"head": self.head.value},
            description="Attention weights of one trained model's head on one test sequence",
            site=False,
        )
        for control in (self.task, self.scheme, self.length):
            control.observe(self.redraw, names="value")
        self.head.observe(self.step, names="value")
        self.redraw()
        connect(self.view, {"head": self.head})
        # The task, scheme and length run a model in the kernel anyway: they stay kernel widgets.
        self.box = widgets.VBox(
            [widgets.HBox([self.task, self.scheme]), widgets.HBox([self.length]), self.view]
        )

    def _sample(self):
        task = self.tasks[self.task.value]()
        return task, task.sample(2024, 1, self.length.value)

    def frame_text(self, head=None):
        """Say in words what the figure shows now, or for ``head`` (the image's text alternative)."""
        head = self.head.value if head is None else head
        n = self.length.value
        shown = f"head {head} of {self.scheme.value} trained on {self.task.value}"
        if self.maps is None:
            return f"Attention of {shown} at length {n}: not drawn. {self.status.value}"
        weights = self.maps[0][0, head]
        offsets = np.arange(n)[:, None] - np.arange(n)[None, :]
        look_back = int(np.bincount(np.argmax(weights, axis=1) - 0 * n, minlength=1).size) and (
            np.median(offsets[np.arange(n), np.argmax(weights, axis=1)])
        )
        return (
            f"Attention of {shown}, one sequence of length {n}: a {n} by {n} heatmap of weights "
            f"from 0 to 1, queries down, keys across. The median query's strongest weight is "
            f"{look_back:g} positions back. {self.status.value}"
        )

    def step(self, change=None):
        """Show the chosen head of the current maps (fast path)."""
        if self.maps is not None:
            self.image.set_data(self.maps[0][0, self.head.value])
        self.live.render(alt=self.frame_text())

    def redraw(self, change=None):
        """Run the chosen model on a fresh sequence and show its maps (slow path)."""
        result = self.models[(self.task.value, self.scheme.value)]
        task, (tokens, targets) = self._sample()
        n = self.length.value
        self.image.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))
        self.ax.set_title(
            f"{self.scheme.value} on {self.task.value}, length {n} "
            f"(trained at {result.config.max_len})",
            fontsize="medium",
        )
        problem = self._length_problem(result.config, n)
        if problem:
            self.maps = None
            self.image.set_data(np.full((n, n), np.nan))
            self.status.value = f"cannot run: {problem.split('. ')[0]}"
        else:
            self.maps = self._maps(result.params, result.config, tokens)
            logits = self._forward(result.params, tokens, result.config)
            if task.metric == "accuracy":
                score = self._accuracy(logits, targets)
                n_targets = int(np.sum(has_target(targets)))
                self.status.value = f"this sequence: {score:.0%} of {n_targets} targets right"
            else:
                self.status.value = "this sequence: next-token prediction (see the loss table)"
            self.image.set_data(self.maps[0][0, self.head.value])
        self.live.render(full=True, alt=self.frame_text())
        self.view.data = {
            "n": n,
            "title": self.ax.get_title(),
            "status": self.status.value,
            "maps": None if self.maps is None else numbers_bytes(self.maps[0][0]),
            "texts": [self.frame_text(h) for h in range(self.view.spec["n_heads"])],
        }
