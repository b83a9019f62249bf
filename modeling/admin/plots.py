"""Learning curves of runs as SVG text (annotation.analysis.plots' drawing). Only run
numbers and figures are drawn, never text from the dataset."""

from __future__ import annotations

from collections.abc import Callable

from annotation.analysis.plots import svg_drawing

Panel = tuple[str, Callable[[dict], float]]  # title, the value of an epoch record


def learning_curves(runs: list[dict], *, measure: str = "accuracy") -> str:
    """Dev and test `measure` (accuracy; f1 for alignment) per epoch, one colour per run
    ({"label", "epochs"}), the selected epoch dotted; "No epochs yet" when there are none."""
    name = {"f1": "span F1"}.get(measure, measure)
    panels = [
        (f"Dev {name} (selects the epoch)", lambda record: record["dev"][measure]),
        (f"Test {name}", lambda record: record["test"][measure]),
    ]
    return _curves(runs, panels, name)


def loss_curves(runs: list[dict]) -> str:
    """Training and dev loss per epoch (the generation baseline, chosen on dev loss)."""
    panels = [
        ("Training loss", lambda record: record["loss"]),
        ("Dev loss (selects the epoch)", lambda record: record["dev"]["loss"]),
    ]
    return _curves(runs, panels, "loss")


def _curves(runs: list[dict], panels: list[Panel], ylabel: str) -> str:
    """One panel per (title, value), one colour per run, the selected epoch dotted."""
    drawn = [run for run in runs if run["epochs"]]

    def draw(figure) -> bool:
        if not drawn:
            return False
        axes_row = figure.subplots(1, len(panels), sharey=True)
        for index, run in enumerate(drawn):
            colour = f"C{index % 10}"
            epochs = [record["epoch"] for record in run["epochs"]]
            for axes, (_, value) in zip(axes_row, panels, strict=True):
                values = [value(record) for record in run["epochs"]]
                axes.plot(epochs, values, marker=".", color=colour, label=run["label"])
                if run.get("selected_epoch") in epochs:
                    at = epochs.index(run["selected_epoch"])
                    axes.plot(epochs[at], values[at], "o", color=colour, markersize=8)
        for axes, (title, _) in zip(axes_row, panels, strict=True):
            axes.set_title(title)
            axes.set_xlabel("epoch")
            axes.grid(alpha=0.3)
        axes_row[0].set_ylabel(ylabel)
        axes_row[-1].legend(fontsize=7, loc="best")
        return True

    return svg_drawing("", draw, empty="No epochs yet", figsize=(7.0, 3.6))
