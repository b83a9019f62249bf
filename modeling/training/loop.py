"""What every trainer shares: progress and cancel callbacks, the optimizer and its schedule,
the epoch loop that keeps the epoch chosen on dev, and the run's environment. No Django.

Learning rates: the checkpoint's own parameters learn at `learning_rate`, the ones it lacks
(a head, a new cross-attention) at `head_learning_rate`: at the small rate a new part barely
moves and the model learns around it. Both warm up linearly over `warmup_ratio` of the steps,
then decay linearly to 0 or stay (`schedule`).
"""

from __future__ import annotations

import platform as python_platform
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from modeling.training.hyperparameters import Cancelled, Hyperparameters, RunRequest


@dataclass
class Clock:
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def seeded(seed: int) -> Clock:
    """Seed Python's, numpy's and torch's generators; the run's clock, started."""
    clock = Clock()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return clock


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
class Trained:
    """The epoch loop's outcome: every epoch's record, the one chosen on dev with what its
    evaluation kept (test predictions), and the seconds spent training and evaluating."""

    history: list[dict]
    best: dict
    kept: object
    train_seconds: float
    evaluate_seconds: float

    def selection(self, measures: tuple[str, str]) -> dict:
        """The epochs, the chosen one with its test figures and predictions, and the best
        test epoch by `measures` under its own label (never the result)."""
        best_test = max(self.history, key=lambda r: tuple(r["test"][name] for name in measures))
        return {
            "epochs": self.history,
            "selected_epoch": self.best["epoch"],
            "metrics": {
                "test": self.best["test"],
                "dev": self.best["dev"],
                "best_test_over_epochs": {**best_test["test"], "epoch": best_test["epoch"]},
            },
            "predictions": self.kept,
        }


def train_epochs(
    *,
    model: torch.nn.Module,
    parameters: tuple[Iterable, Iterable],
    batches: Callable[[random.Random], list[list]],
    loss: Callable[[list], torch.Tensor],
    evaluate: Callable[[], tuple[dict, object]],
    dev_key: Callable[[dict], tuple | float],
    shown: str,
    request: RunRequest,
    clock: Clock,
) -> Trained:
    """Train `model` for hp.epochs and leave it at the epoch chosen on dev.

    Each epoch steps AdamW (optimizer_schedule, sized by the first epoch's batches) on
    `loss(batch)` over `batches(rng)`, reporting each step and stopping when asked
    (Cancelled); `evaluate()` gives the epoch's {"dev", "test"} figures and what to keep, and
    the epoch with the highest `dev_key(record)` is kept, its weights restored at the end.
    """
    hp, reporter = request.hyperparameters, request.reporter
    rng = random.Random(request.seed)
    optimizer = scheduler = best = None
    history: list[dict] = []
    total = done = 0
    train_seconds = evaluate_seconds = 0.0
    for epoch in range(1, hp.epochs + 1):
        epoch_batches = batches(rng)
        steps = len(epoch_batches)
        if optimizer is None:
            total = steps * hp.epochs
            optimizer, scheduler = optimizer_schedule(*parameters, hp, total)
        model.train()
        started = time.monotonic()
        losses = []
        dev = {f"dev_{shown}": history[-1]["dev"][shown] if history else None}
        for step, batch in enumerate(epoch_batches, start=1):
            if reporter.should_stop():
                raise Cancelled(f"Cancelled at epoch {epoch}, step {step} of {steps}.")
            value = loss(batch)
            value.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(value.item())
            done += 1
            elapsed = clock.elapsed()
            reporter.progress(
                {
                    "stage": "training",
                    "epoch": epoch,
                    "epochs": hp.epochs,
                    "step": step,
                    "steps": steps,
                    "loss": losses[-1],
                    **dev,
                    "elapsed": elapsed,
                    "remaining": elapsed / done * max(0, total - done),
                }
            )
        seconds = time.monotonic() - started
        train_seconds += seconds
        reporter.progress({"stage": f"evaluating epoch {epoch}", "epoch": epoch})
        started = time.monotonic()
        figures, kept = evaluate()
        evaluate_seconds += time.monotonic() - started
        record = {
            "epoch": epoch,
            "loss": float(np.mean(losses)) if losses else None,
            **figures,
            "seconds": seconds,
            "examples_per_second": sum(map(len, epoch_batches)) / seconds if seconds else None,
        }
        history.append(record)
        if best is None or dev_key(record) > dev_key(best[0]):
            state = {key: value.detach().cpu().clone() for key, value in model.state_dict().items()}
            best = (record, kept, state)
    model.load_state_dict(best[2])
    return Trained(history, best[0], best[1], train_seconds, evaluate_seconds)


def shuffled_batches(items: list, size: int, rng: random.Random) -> list[list]:
    """The items shuffled by `rng`, in batches of `size` (the last one shorter)."""
    order = list(items)
    rng.shuffle(order)
    return [order[start : start + size] for start in range(0, len(order), size)]


def finished(result: dict, clock: Clock, loaded: float, request: RunRequest) -> dict:
    """The result with what every trained or scored run stores beside its figures: load and
    total seconds, the environment and the hyperparameters."""
    result["durations"] = {**result.get("durations", {}), "load": loaded, "total": clock.elapsed()}
    result["environment"] = environment(request.device)
    result["hyperparameters"] = asdict(request.hyperparameters)
    return result


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
