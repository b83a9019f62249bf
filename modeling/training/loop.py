"""What every trainer shares: progress and cancel callbacks, the step loop's reporting, the
optimizer with its learning-rate schedule, epoch selection and the run's environment.

No Django. The trainers (baselines, alignment and seq2seq in modeling.training) import
this module; it imports none of them.

Learning rates: the parameters a checkpoint already holds learn at `learning_rate`;
those it does not (a classifier's or span model's head, a warm-started decoder's
cross-attention) at `head_learning_rate`: a randomly initialised part at the small
rate of a pretrained encoder barely moves in a few hundred steps, and the model
learns around it (a decoder that ignores its encoder). Both follow one schedule:
linear warm-up over the first `warmup_ratio` of the steps, then linear decay to 0
(`schedule="linear"`), or constant after the warm-up (`schedule="constant"`), from
transformers' schedulers.
"""

from __future__ import annotations

import platform as python_platform
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import torch

from modeling.training.hyperparameters import Cancelled, Hyperparameters


@dataclass
class Reporter:
    """Callbacks of a run: progress(fields) as it goes, should_stop() polled between steps."""

    progress: Callable[[dict], None] = lambda fields: None
    should_stop: Callable[[], bool] = lambda: False


@dataclass
class Clock:
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def optimizer_schedule(
    pretrained: Iterable[torch.nn.Parameter],
    new: Iterable[torch.nn.Parameter],
    hp: Hyperparameters,
    total_steps: int,
):
    """AdamW with the checkpoint's parameters at `learning_rate` and the new ones at
    `head_learning_rate`, and its scheduler over `total_steps` (see the module)."""
    from transformers import get_constant_schedule_with_warmup, get_linear_schedule_with_warmup

    groups = [
        {"params": list(parameters), "lr": rate}
        for parameters, rate in ((pretrained, hp.learning_rate), (new, hp.head_learning_rate))
    ]
    optimizer = torch.optim.AdamW([group for group in groups if group["params"]])
    total_steps = max(1, total_steps)
    warmup = round(hp.warmup_ratio * total_steps)
    if hp.schedule == "constant":
        return optimizer, get_constant_schedule_with_warmup(optimizer, warmup)
    return optimizer, get_linear_schedule_with_warmup(optimizer, warmup, total_steps)


@dataclass
class Steps:
    """A training loop's steps: stops between them when asked, steps the optimizer and its
    schedule, reports each with the loss, the last dev figure, the elapsed and the
    estimated remaining time."""

    reporter: Reporter
    clock: Clock
    epochs: int
    total: int = 0  # steps of the whole run, known once the first epoch's batches are
    done: int = 0
    train_seconds: float = 0.0
    scheduler: object | None = None

    def trained(self, epoch: int, started: float) -> float:
        """The epoch's training seconds (counted in train_seconds); reports its evaluation."""
        seconds = time.monotonic() - started
        self.train_seconds += seconds
        self.reporter.progress({"stage": f"evaluating epoch {epoch}", "epoch": epoch})
        return seconds

    def check(self, epoch: int, step: int, steps: int) -> None:
        if self.reporter.should_stop():
            raise Cancelled(f"Cancelled at epoch {epoch}, step {step} of {steps}.")

    def optimize(self, loss: torch.Tensor, optimizer, epoch: int, step: int, steps: int, dev):
        """Back-propagate `loss`, step, and report; `dev` is {name: last dev figure}."""
        loss.backward()
        optimizer.step()
        if self.scheduler is not None:
            self.scheduler.step()
        optimizer.zero_grad()
        value = loss.item()
        self.done += 1
        elapsed = self.clock.elapsed()
        self.reporter.progress(
            {
                "stage": "training",
                "epoch": epoch,
                "epochs": self.epochs,
                "step": step,
                "steps": steps,
                "loss": value,
                **dev,
                "elapsed": elapsed,
                "remaining": elapsed / self.done * max(0, self.total - self.done),
            }
        )
        return value


def environment(device: torch.device) -> dict:
    """Library versions and the device, as a run stores them."""
    import transformers

    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
    else:
        name = python_platform.processor()
    return {
        "python": python_platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "numpy": np.__version__,
        "device": device.type,
        "device_name": name or device.type,
        "threads": torch.get_num_threads(),
    }


def selection(history: list[dict], best: dict, measures: tuple[str, str]) -> dict:
    """The epochs, the epoch chosen on dev with its test figures and test predictions, and
    the best test epoch by `measures` under its own label (never the result)."""
    best_test = max(history, key=lambda r: tuple(r["test"][name] for name in measures))
    return {
        "epochs": history,
        "selected_epoch": best["record"]["epoch"],
        "metrics": {
            "test": best["record"]["test"],
            "dev": best["record"]["dev"],
            "best_test_over_epochs": {**best_test["test"], "epoch": best_test["epoch"]},
        },
        "predictions": best["predictions"],
    }
