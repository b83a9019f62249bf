"""Learning curves of runs as SVG text (matplotlib's Figure, no pyplot state).

Only run numbers and figures are drawn, never text from the dataset.
"""

from __future__ import annotations

import io
import threading

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

_LOCK = threading.Lock()
_RC = {"svg.fonttype": "none", "svg.hashsalt": "parable-modeling", "font.size": 9}


def learning_curves(runs: list[dict], *, measure: str = "accuracy") -> str:
    """Dev and test `measure` (accuracy; f1 for alignment) per epoch, one colour per run;
    `runs` are {"label", "epochs"}.

    The selected epoch (best on dev) is marked with a dot. An SVG saying "No epochs
    yet" when no run has finished an epoch.
    """
    with _LOCK, matplotlib.rc_context(_RC):
        figure = Figure(figsize=(7.0, 3.6), layout="constrained")
        FigureCanvasSVG(figure)
        drawn = [run for run in runs if run["epochs"]]
        if not drawn:
            figure.text(0.5, 0.5, "No epochs yet", ha="center", va="center", fontsize=14)
        else:
            dev_axes, test_axes = figure.subplots(1, 2, sharey=True)
            for index, run in enumerate(drawn):
                colour = f"C{index % 10}"
                epochs = [record["epoch"] for record in run["epochs"]]
                for axes, part in ((dev_axes, "dev"), (test_axes, "test")):
                    values = [record[part][measure] for record in run["epochs"]]
                    axes.plot(epochs, values, marker=".", color=colour, label=run["label"])
                    if run.get("selected_epoch") in epochs:
                        at = epochs.index(run["selected_epoch"])
                        axes.plot(epochs[at], values[at], "o", color=colour, markersize=8)
            name = {"f1": "span F1"}.get(measure, measure)
            dev_axes.set_title(f"Dev {name} (selects the epoch)")
            test_axes.set_title(f"Test {name}")
            for axes in (dev_axes, test_axes):
                axes.set_xlabel("epoch")
                axes.grid(alpha=0.3)
            dev_axes.set_ylabel(name)
            test_axes.legend(fontsize=7, loc="best")
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]
