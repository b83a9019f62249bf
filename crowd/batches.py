"""Batch services and selectors: create, add items, publish, close, progress."""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from crowd import task_types
from crowd.models import SUBJECT_FIELDS, Assignment, Batch, BatchItem
from crowd.providers import get_provider


@transaction.atomic
def batch_create(
    *,
    name: str,
    task_type: str,
    provider: str = "local",
    target_per_item: int | None = None,
    per_worker_cap: int | None = None,
    reward_cents: int = 0,
    target_hourly_cents: int | None = None,
    time_allowed_seconds: int = 1800,
    instructions: str = "",
    pledge: str = "",
    settings: dict | None = None,
    source_batch: Batch | None = None,
    created_by=None,
    items: list[dict] | None = None,
) -> Batch:
    """Create a draft batch; `items` are BatchItem field dicts (e.g. {"proverb": p}). Left
    out, the target per item and the instructions are the task type's."""
    registered_type = task_types.get(task_type)  # `task_type` is the key the batch stores
    if not name.strip():
        raise ValueError("A batch needs a name.")
    checked = registered_type.checked_settings(settings or {})
    batch = Batch.objects.create(
        name=name.strip(),
        task_type=task_type,
        provider=provider,
        target_per_item=target_per_item or registered_type.target_per_item,
        per_worker_cap=per_worker_cap,
        reward_cents=reward_cents,
        target_hourly_cents=target_hourly_cents,
        time_allowed_seconds=time_allowed_seconds,
        instructions=instructions.strip() or registered_type.instructions_for(checked),
        pledge=pledge.strip(),
        settings=checked,
        source_batch=source_batch,
        created_by=created_by,
    )
    batch_items_add(batch=batch, items=items or [])
    # Items drawn from a source batch or from the dataset (settings), if the type has any.
    registered_type.items_refresh(batch=batch)
    return batch


ANALYZE_AFTER = 1_000  # items added at once, after which PostgreSQL's statistics are renewed


def _subject_key(fields: dict) -> tuple:
    def ident(value):
        return getattr(value, "pk", value)

    return tuple(ident(fields.get(name)) for name in SUBJECT_FIELDS)


@transaction.atomic
def batch_items_add(*, batch: Batch, items: list[dict]) -> int:
    """Add items, skipping subjects the batch already holds; returns how many were added."""
    Batch.objects.select_for_update().get(pk=batch.pk)  # one writer of a batch's items at a time
    existing = {
        tuple(row) for row in batch.items.values_list(*(f"{name}_id" for name in SUBJECT_FIELDS))
    }
    start = batch.items.order_by("-position").values_list("position", flat=True).first() or 0
    new = []
    for fields in items:
        key = _subject_key(fields)
        if key in existing:
            continue
        existing.add(key)
        new.append(BatchItem(batch=batch, position=start + len(new) + 1, **fields))
    BatchItem.objects.bulk_create(new)
    if len(new) >= ANALYZE_AFTER and connection.vendor == "postgresql":
        # Until PostgreSQL's statistics count the new items, its planner takes the batch
        # for a few rows and sorts all of them for each next item, instead of reading
        # OpenItem's serving-order index (70 ms instead of 0.4 at 25,000 items): count
        # them now rather than at autovacuum's next pass.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE crowd_openitem")
    return len(new)


def _publish_check(batch: Batch) -> None:
    if batch.status == Batch.Status.CLOSED:
        raise ValueError("A closed batch cannot be published again.")
    if not batch.items.exists() and batch.source_batch_id is None:
        raise ValueError("A batch needs at least one item before it is published.")


def batch_publish(*, batch: Batch) -> Batch:
    """Publish the batch on its provider, asked outside any transaction (publishing can
    take many calls, and is safe to repeat); the batch is marked published after."""
    batch = Batch.objects.get(pk=batch.pk)
    if batch.status == Batch.Status.PUBLISHED:
        return batch
    _publish_check(batch)
    provider_ids = get_provider(batch.provider).publish(batch=batch)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        if batch.status == Batch.Status.PUBLISHED:
            return batch
        _publish_check(batch)
        batch.provider_ids = {**batch.provider_ids, **provider_ids}
        batch.status = Batch.Status.PUBLISHED
        batch.published_at = timezone.now()
        batch.save(update_fields=["provider_ids", "status", "published_at"])
    return batch


def batch_close(*, batch: Batch) -> Batch:
    """Close the batch: the provider is told first, outside any transaction (a refusal
    closes nothing), then the batch is closed and its reservations returned."""
    batch = Batch.objects.get(pk=batch.pk)
    if batch.status == Batch.Status.CLOSED:
        return batch
    get_provider(batch.provider).close(batch=batch)
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        if batch.status == Batch.Status.CLOSED:
            return batch
        batch.status = Batch.Status.CLOSED
        batch.closed_at = timezone.now()
        batch.save(update_fields=["status", "closed_at"])
        batch_reservations = Assignment.objects.filter(
            item__batch=batch, status=Assignment.Status.RESERVED
        )
        batch_reservations.update(status=Assignment.Status.RETURNED)
    return batch


# What an item's name (BatchItem.__str__: its subject, by content) reads, in one query.
ITEM_SUBJECTS = (
    "proverb",
    "narrative__proverb",
    "choice_question__narrative__proverb",
    "figurative_narrative",
    "continuation_pair__narrative",
    "cloze_item__narrative__proverb",
    "template_row__template",
)


def batch_progress(*, batch: Batch, now=None) -> dict:
    """Per item and in total: target, reserved, submitted (awaiting review), approved,
    rejected, and open slots. A withdrawn item has none open, leaves the total target and
    says why."""
    now = now or timezone.now()
    rows = (
        batch.items.select_related(*ITEM_SUBJECTS)
        .annotate(
            reserved=Count(
                "assignments",
                filter=Q(assignments__status="reserved", assignments__expires_at__gt=now),
            ),
            submitted=Count("assignments", filter=Q(assignments__status="submitted")),
            approved=Count("assignments", filter=Q(assignments__status="approved")),
            rejected=Count("assignments", filter=Q(assignments__status="rejected")),
        )
        .order_by("position", "id")
    )
    items = [
        {
            "item": row.pk,
            "label": str(row),
            "target": 0 if row.withdrawn_at else batch.target_per_item,
            "reserved": row.reserved,
            "submitted": row.submitted,
            "approved": row.approved,
            "rejected": row.rejected,
            "open": 0
            if row.withdrawn_at
            else max(0, batch.target_per_item - row.reserved - row.submitted - row.approved),
            "is_gold": row.is_gold,
            "withdrawn": row.withdrawn_reason or ("withdrawn" if row.withdrawn_at else ""),
        }
        for row in rows
    ]
    totals = {
        key: sum(item[key] for item in items)
        for key in ("target", "reserved", "submitted", "approved", "rejected", "open")
    }
    totals["complete_items"] = sum(
        1 for item in items if not item["withdrawn"] and item["approved"] >= item["target"]
    )
    totals["withdrawn_items"] = sum(1 for item in items if item["withdrawn"])
    return {"batch": batch.pk, "items": items, "totals": totals}
