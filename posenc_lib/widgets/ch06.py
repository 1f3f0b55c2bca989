"""Chapter 6: where each trained model looks, at every length."""

import ipywidgets as widgets
import numpy as np

from .. import plots
from .._checks import check_int, short
from ..tasks import has_target
from ._live import LiveFigure, StatusExplorer, slider


class AttentionInspector(StatusExplorer):
    """Chapter 6: where each trained model attends, at every length.

    Pick a task, a scheme, an evaluation length and a head, and see where each query of one test
    sequence attends. Models come from ``run_study(..., keep_models=True)``.

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
        self.head = slider("head", 0, 0, some.n_heads - 1)
        self.status = widgets.Label()
        self.live = LiveFigure(figsize=(5.2, 4.6))
        self.ax = self.live.fig.add_subplot()
        self.image = plots.heatmap(self.ax, np.zeros((2, 2)), vmin=0, vmax=1, colorbar=True)
        self.live.animate(self.image)
        for control in (self.task, self.scheme, self.length):
            control.observe(self.redraw, names="value")
        self.head.observe(self.step, names="value")
        self.redraw()
        self.box = widgets.VBox(
            [
                widgets.HBox([self.task, self.scheme]),
                widgets.HBox([self.length, self.head]),
                self.live.image,
                self.status,
            ]
        )

    def _sample(self):
        task = self.tasks[self.task.value]()
        return task, task.sample(2024, 1, self.length.value)

    def step(self, change=None):
        """Show the chosen head of the current maps (fast path)."""
        if self.maps is not None:
            self.image.set_data(self.maps[0][0, self.head.value])
        self.live.render()

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
        self.live.render(full=True)
