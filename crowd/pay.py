"""What work paid: realised hourly pay per batch and worker against the batch's target rate,
the one-action top-up to that rate (a bonus: run again, it pays nothing), the payments report.

Realised pay: paid work's reward and bonuses over its time, from its reservation, or from
the worker's previous submission in the batch when later (a Prolific session reserves its
items at once), to its submission.
"""

from __future__ import annotations

import math
import statistics

from django.db import transaction

from crowd.models import Assignment, Batch, Bonus, Worker
from crowd.money import MAX_HOURLY, money_text
from crowd.providers import batch_currency, get_provider
from crowd.review import ReviewError, assignment_bonus


def hourly_cents(cents: int, seconds: float) -> int | None:
    return round(cents * 3600 / seconds) if seconds > 0 else None


def _paid_work(batch: Batch):
    return (
        Assignment.objects.filter(
            item__batch=batch, status__in=Assignment.PAID, submitted_at__isnull=False
        )
        .select_related("worker")
        .order_by("worker_id", "submitted_at", "id")
    )


def batch_realised_pay(*, batch: Batch) -> dict:
    """Median time per task, realised hourly pay (all and per worker), the target, and
    what each worker below the target would need to reach it."""
    per_worker: dict[int, dict] = {}
    durations: list[float] = []
    previous: dict[int, object] = {}
    for task in _paid_work(batch):
        start = max(task.started_at, previous.get(task.worker_id, task.started_at))
        seconds = max((task.submitted_at - start).total_seconds(), 1.0)
        previous[task.worker_id] = task.submitted_at
        durations.append(seconds)
        row = per_worker.setdefault(
            task.worker_id,
            {"worker": task.worker, "tasks": 0, "seconds": 0.0, "reward": 0, "bonuses": 0},
        )
        row["tasks"] += 1
        row["seconds"] += seconds
        row["reward"] += batch.reward_cents
        row["bonuses"] += task.bonus_cents
        row["last"] = task
    target = batch.target_hourly_cents
    workers = []
    for row in per_worker.values():
        paid = row["reward"] + row["bonuses"]
        row["paid"] = paid
        row["minutes"] = round(row["seconds"] / 60, 1)
        row["hourly"] = hourly_cents(paid, row["seconds"])
        owed = math.ceil(target * row["seconds"] / 3600) - paid if target else 0
        row["top_up"] = max(owed, 0)
        workers.append(row)
    seconds = sum(row["seconds"] for row in workers)
    paid = sum(row["paid"] for row in workers)
    return {
        "tasks": len(durations),
        "median_seconds": statistics.median(durations) if durations else None,
        "hourly": hourly_cents(paid, seconds),
        "target": target,
        "workers": sorted(workers, key=lambda row: (row["hourly"] or 0, row["worker"].pk)),
        "below_target": sum(1 for row in workers if row["top_up"] > 0),
        "top_up": sum(row["top_up"] for row in workers),
    }


@transaction.atomic
def batch_target_rate_set(*, batch: Batch, target_hourly_cents: int | None) -> Batch:
    if target_hourly_cents is not None and not 1 <= target_hourly_cents <= MAX_HOURLY * 100:
        raise ValueError(f"The target hourly rate is an amount from 0.01 to {MAX_HOURLY}.")
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    batch.target_hourly_cents = target_hourly_cents
    batch.save(update_fields=["target_hourly_cents"])
    return batch


def top_up_reason(batch: Batch) -> str:
    return (
        f"Top-up of your pay for “{batch.name}” to "
        f"{money_text(batch.target_hourly_cents, batch_currency(batch))} "
        "an hour, the rate this study aims to pay."
    )


def batch_top_up(*, batch: Batch) -> dict:
    """Pay every worker below the batch's target hourly rate the bonus that brings them to
    it (on their last paid task), each through the provider's bonus path, once."""
    if not batch.target_hourly_cents:
        raise ValueError("Set the batch's target hourly rate before topping up to it.")
    reason = top_up_reason(batch)
    paid, cents, refused = 0, 0, []
    for row in batch_realised_pay(batch=batch)["workers"]:
        if row["top_up"] <= 0:
            continue
        try:
            assignment_bonus(assignment=row["last"], cents=row["top_up"], reason=reason)
        except ReviewError as error:
            refused.append(f"{row['worker']}: {error}")
            continue
        paid += 1
        cents += row["top_up"]
    return {"paid": paid, "cents": cents, "refused": refused}


def bonus_state_text(bonus: Bonus) -> str:
    """What happened to a bonus, in the provider's words: the one wording of the review
    queue, the worker's page and the report."""
    return get_provider(bonus.assignment.item.batch.provider).bonus_state(bonus=bonus)


def payments_report(*, batch: Batch | None = None) -> list[dict]:
    """Per worker and batch: paid tasks, rewards, the batch's currency, and each bonus with
    the state of the call that pays it."""
    work = Assignment.objects.filter(status__in=Assignment.PAID).select_related(
        "worker", "item__batch"
    )
    bonuses = Bonus.objects.select_related(
        "assignment__item__batch", "assignment__worker", "provider_action"
    )
    if batch is not None:
        work = work.filter(item__batch=batch)
        bonuses = bonuses.filter(assignment__item__batch=batch)
    rows: dict[tuple[int, int], dict] = {}

    def row_for(worker: Worker, of: Batch) -> dict:
        return rows.setdefault(
            (worker.pk, of.pk),
            {"worker": worker, "batch": of, "tasks": 0, "rewards": 0, "bonuses": []},
        )

    for task in work:
        row = row_for(task.worker, task.item.batch)
        row["tasks"] += 1
        row["rewards"] += task.item.batch.reward_cents
    for bonus in bonuses:
        row = row_for(bonus.assignment.worker, bonus.assignment.item.batch)
        row["bonuses"].append((bonus, bonus_state_text(bonus)))
    currencies = {of.pk: batch_currency(of) for of in {row["batch"] for row in rows.values()}}
    report = []
    for row in rows.values():
        row["currency"] = currencies[row["batch"].pk]
        row["bonus_cents"] = sum(bonus.cents for bonus, _ in row["bonuses"])
        row["unknown"] = sum(1 for _, state in row["bonuses"] if "unknown" in state.lower())
        report.append(row)
    return sorted(report, key=lambda row: (row["batch"].pk, row["worker"].pk))
