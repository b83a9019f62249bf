"""The trainers' shared optimizer and schedule: two learning rates, warm-up, decay."""

import pytest
import torch

from modeling.training.hyperparameters import Hyperparameters
from modeling.training.loop import optimizer_schedule


def rates(optimizer, scheduler, steps: int) -> list[list[float]]:
    seen = []
    for _ in range(steps):
        seen.append([group["lr"] for group in optimizer.param_groups])
        optimizer.step()
        scheduler.step()
    return seen


def test_new_parameters_learn_at_the_head_rate_with_warm_up_and_linear_decay():
    held, new = [torch.nn.Parameter(torch.zeros(2))], [torch.nn.Parameter(torch.zeros(2))]
    hp = Hyperparameters(learning_rate=2e-5, head_learning_rate=1e-3, warmup_ratio=0.2)
    optimizer, scheduler = optimizer_schedule(held, new, hp, total_steps=10)
    seen = rates(optimizer, scheduler, 10)
    assert seen[0] == [0.0, 0.0]  # warm-up starts from 0
    assert seen[1] == pytest.approx([1e-5, 5e-4])  # half-way through the 2 warm-up steps
    assert seen[2] == pytest.approx([2e-5, 1e-3])  # the peak: each part's own rate
    assert seen[6] == pytest.approx([1e-5, 5e-4])  # then linear decay to 0 at step 10
    assert seen[9] == pytest.approx([2.5e-6, 1.25e-4])


def test_a_constant_schedule_holds_the_rates_after_the_warm_up():
    held, new = [torch.nn.Parameter(torch.zeros(2))], [torch.nn.Parameter(torch.zeros(2))]
    hp = Hyperparameters(learning_rate=1e-4, head_learning_rate=1e-2, schedule="constant")
    optimizer, scheduler = optimizer_schedule(held, new, hp, total_steps=20)
    seen = rates(optimizer, scheduler, 20)
    assert seen[1] == pytest.approx([5e-5, 5e-3]) and seen[2:] == [[1e-4, 1e-2]] * 18


def test_without_new_parameters_there_is_one_group():
    held = [torch.nn.Parameter(torch.zeros(2))]
    optimizer, _ = optimizer_schedule(held, [], Hyperparameters(warmup_ratio=0), total_steps=5)
    assert [group["lr"] for group in optimizer.param_groups] == [2e-5]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"schedule": "cosine"}, "schedule is one of linear, constant"),
        ({"warmup_ratio": 1.0}, "warm-up share"),
        ({"head_learning_rate": 0}, "learning rates must be above 0"),
        ({"scale": -1}, "scale must be above 0"),
    ],
)
def test_bad_training_hyperparameters_are_refused(values, message):
    with pytest.raises(ValueError, match=message):
        Hyperparameters.from_dict(values)
