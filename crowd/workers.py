"""Local workers and their invite links, and per-worker statistics for review.

An invite link carries a signed token (it cannot be forged or guessed), exchanged for a
session on first visit; a provider's worker id typed into a URL is never enough.
"""

from __future__ import annotations

import secrets
from statistics import median

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.urls import reverse
from django.utils import timezone

from crowd.models import Assignment, Batch, Bonus, Worker
from crowd.money import money_text
from crowd.pay import bonus_state_text

INVITE_SALT = "parable.crowd.invite"


@transaction.atomic
def local_worker_create(*, display_name: str = "") -> Worker:
    return Worker.objects.create(
        provider="local", external_id=secrets.token_hex(8), display_name=display_name.strip()
    )


@transaction.atomic
def local_workers_create(*, count: int, name_prefix: str = "Worker") -> list[Worker]:
    """Create `count` local workers named "<prefix> <n>", numbered from 1 per prefix, after
    the highest number of that prefix ("Lab writer 1", ... beside "Worker 4")."""
    if count < 1:
        raise ValueError("Create at least one worker.")
    prefix = name_prefix.strip() or "Worker"
    names = Worker.objects.filter(provider="local", display_name__startswith=f"{prefix} ")
    numbers = [name[len(prefix) + 1 :] for name in names.values_list("display_name", flat=True)]
    start = max((int(number) for number in numbers if number.isdecimal()), default=0)
    return [
        local_worker_create(display_name=f"{prefix} {number}")
        for number in range(start + 1, start + count + 1)
    ]


DEMO_WORKER_PREFIX = "Demo worker"  # the demo set-up's workers, named "Demo worker <n>"


def demo_workers():
    """The local workers the demo set-up created: they alone are offered demo batches."""
    return Worker.objects.filter(
        provider="local", display_name__startswith=f"{DEMO_WORKER_PREFIX} "
    )


def worker_offered(*, worker: Worker, batch: Batch) -> bool:
    """Whether the batch is for this worker at all: only batches of the worker's own
    provider (a Prolific participant never sees a local batch), and a demo batch only for
    demo workers, so that study workers never see or take it."""
    if batch.provider != worker.provider:
        return False
    return not batch.is_demo or demo_workers().filter(pk=worker.pk).exists()


def worker_open_batches(*, worker: Worker) -> list[Batch]:
    """The published local batches a worker's page offers (`worker_offered`): none to a
    Prolific or MTurk worker."""
    batches = Batch.objects.filter(status=Batch.Status.PUBLISHED, provider="local")
    return [batch for batch in batches.order_by("id") if worker_offered(worker=worker, batch=batch)]


def invite_token(*, worker: Worker, batch: Batch | None = None) -> str:
    """A signed token naming the worker (and the batch to start in, if any)."""
    return signing.dumps({"w": worker.pk, "b": batch.pk if batch else None}, salt=INVITE_SALT)


def invite_url(request, *, worker: Worker, batch: Batch | None = None) -> str:
    """The absolute invite link of a local worker (into a batch, or to their task list)."""
    token = invite_token(worker=worker, batch=batch)
    return request.build_absolute_uri(reverse("frontend:invite", args=[token]))


class WorkerBlocked(Exception):
    """A blocked worker's link: `reason` is the one the researcher gave, shown to them."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def invite_read(token: str) -> tuple[Worker, int | None]:
    """The worker and batch id a token names.

    Raises signing.BadSignature if forged, signing.SignatureExpired (a subclass) when
    older than PARABLE_INVITE_MAX_AGE seconds (when set), Worker.DoesNotExist when the
    worker is gone, and WorkerBlocked when blocked: blocking a worker disables their links.
    """
    data = signing.loads(token, salt=INVITE_SALT, max_age=settings.PARABLE_INVITE_MAX_AGE or None)
    worker = Worker.objects.get(pk=data["w"], provider="local")
    if worker.blocked:
        raise WorkerBlocked(worker.blocked_reason)
    return worker, data.get("b")


def worker_stats(*, batch: Batch | None = None) -> list[dict]:
    """Per worker: submitted, approved, rejected, approval rate (of reviewed work), median
    seconds from reservation to submission, blocked."""
    assignments = Assignment.objects.filter(submitted_at__isnull=False)
    if batch is not None:
        assignments = assignments.filter(item__batch=batch)
    counts = (
        assignments.values(
            "worker_id", "worker__display_name", "worker__external_id", "worker__blocked"
        )
        .annotate(
            submitted=Count("id"),
            approved=Count("id", filter=Q(status="approved")),
            rejected=Count("id", filter=Q(status="rejected")),
        )
        .order_by("worker_id")
    )
    durations: dict[int, list[float]] = {}
    for worker_id, started, submitted in assignments.values_list(
        "worker_id", "started_at", "submitted_at"
    ):
        durations.setdefault(worker_id, []).append((submitted - started).total_seconds())
    rows = []
    for row in counts:
        reviewed = row["approved"] + row["rejected"]
        rows.append(
            {
                "worker": row["worker_id"],
                "name": row["worker__display_name"] or row["worker__external_id"],
                "blocked": row["worker__blocked"],
                "submitted": row["submitted"],
                "approved": row["approved"],
                "rejected": row["rejected"],
                "approval_rate": round(row["approved"] / reviewed, 3) if reviewed else None,
                "median_seconds": round(median(durations[row["worker_id"]]), 1),
                "median_minutes": round(median(durations[row["worker_id"]]) / 60, 1),
            }
        )
    return rows


def worker_overview(*, worker: Worker, now=None) -> dict:
    """What a worker sees of their own work: open tasks, submissions with the reviewer's
    message, and earnings (rewards of approved work and bonuses, as amounts); each bonus
    comes with its state at the provider, in the provider's words."""
    now = now or timezone.now()
    assignments = Assignment.objects.filter(worker=worker).select_related("item__batch")
    open_tasks = list(
        assignments.filter(status=Assignment.Status.RESERVED, expires_at__gt=now).order_by(
            "expires_at"
        )
    )
    messaged = Q(status__in=Assignment.STORED) | (
        Q(status=Assignment.Status.RETURNED) & ~Q(review_message="")
    )
    submissions = list(assignments.filter(messaged).order_by("-submitted_at", "-id")[:200])
    figures = assignments.aggregate(
        approved=Count("id", filter=Q(status__in=Assignment.PAID)),
        awaiting=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        rewards=Sum("item__batch__reward_cents", filter=Q(status__in=Assignment.PAID)),
        bonuses=Sum("bonus_cents"),
    )
    rewards, bonuses = figures["rewards"] or 0, figures["bonuses"] or 0
    bonuses_given = list(
        Bonus.objects.filter(assignment__worker=worker)
        .select_related("assignment__item__batch")
        .order_by("-created_at")[:200]
    )
    return {
        "open_tasks": open_tasks,
        "submissions": submissions,
        "bonuses": [(bonus, bonus_state_text(bonus)) for bonus in bonuses_given],
        "earnings": {
            "rewards": money_text(rewards),
            "bonuses": money_text(bonuses),
            "total": money_text(rewards + bonuses),
            "approved": figures["approved"],
            "awaiting_review": figures["awaiting"],
        },
    }
