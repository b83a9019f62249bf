"""The demo proverbs and write batch shipped with Parable, marked `is_demo`: the curated
count leaves them out, and `demo_data_remove` takes them away before a real study."""

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import Count, ProtectedError, RestrictedError

from annotation.curation.services import ImportReport, proverbs_import
from annotation.models import Proverb, VariantGroup
from crowd import task_types
from crowd.models import Batch, Worker
from crowd.workers import DEMO_WORKER_PREFIX, demo_workers

DEMO_PROVERBS = Path(__file__).resolve().parents[1] / "data" / "demo_proverbs.csv"


@transaction.atomic
def demo_proverbs_load() -> ImportReport | None:
    """Import the demo list into an empty database (else None); proverbs outside a variant
    group are curated."""
    if Proverb.objects.exists():
        return None
    report = proverbs_import(content=DEMO_PROVERBS.read_bytes(), filename=DEMO_PROVERBS.name)
    Proverb.objects.update(is_demo=True)  # the database had none before
    in_groups = VariantGroup.objects.filter(status=VariantGroup.Status.OPEN).values("proverbs")
    Proverb.objects.exclude(pk__in=in_groups).update(status=Proverb.Status.CURATED)
    return report


DEMO_BATCH_NAME = "Demo: write narratives"
DEMO_KEPT_SHOWN = 10  # kept proverbs named one by one; the rest are counted


@transaction.atomic
def demo_write_batch_ensure(
    *, proverbs: int = 5, per_proverb: int = 3, workers: int = 3
) -> tuple[Batch, list[Worker]] | None:
    """The demo write batch, published, and its local demo workers (or None): created once,
    while no write batch exists, on `proverbs` curated demo proverbs (never a study's own)."""
    from crowd.batches import batch_create, batch_publish
    from crowd.workers import local_workers_create

    writing = task_types.producing("narratives").key
    batch = Batch.objects.filter(name=DEMO_BATCH_NAME, task_type=writing).first()
    if batch is None:
        if Batch.objects.filter(task_type=writing).exists():
            return None
        curated = Proverb.objects.filter(status=Proverb.Status.CURATED, is_demo=True)
        chosen = list(curated.order_by("id")[:proverbs])
        if not chosen:
            return None
        batch = batch_create(
            name=DEMO_BATCH_NAME,
            task_type=writing,
            target_per_item=per_proverb,
            per_worker_cap=len(chosen),
            time_allowed_seconds=30 * 60,
            items=[{"proverb": proverb} for proverb in chosen],
        )
        batch.is_demo = True
        batch.save(update_fields=["is_demo"])
        batch_publish(batch=batch)
        local_workers_create(count=workers, name_prefix=DEMO_WORKER_PREFIX)
    return batch, list(demo_workers().order_by("id")[:workers])


@dataclass(frozen=True)
class DemoRemoval:
    """What a removal took (or, previewed, would take) and what it kept, one line each, with why."""

    batches: int
    narratives: int
    workers: int
    proverbs: int
    proverbs_kept: int
    kept: tuple[str, ...] = ()

    def summary(self) -> str:
        return (
            f"{self.proverbs} demo proverb(s), {self.batches} demo batch(es) with "
            f"{self.narratives} narrative(s), {self.workers} demo worker(s)"
        )


@transaction.atomic
def demo_data_remove(*, commit: bool = True) -> DemoRemoval:
    """Remove the demo batch with its work and workers, and the demo proverbs, where they can go.

    Each part is deleted in a savepoint, kept whole when a protected row (study data) refuses
    it, and the result says what stayed and why (a demo proverb kept is no longer marked
    demo). With commit=False nothing changes: the result is a preview.
    """
    from annotation.models import Narrative
    from crowd.models import Assignment, BatchItem

    kept: list[str] = []
    batch_count = narrative_count = 0
    for batch in Batch.objects.select_for_update().filter(is_demo=True).order_by("id"):
        narratives = Narrative.objects.filter(assignment__item__batch=batch)
        count = narratives.count()

        def remove_batch(batch=batch, narratives=narratives):
            for task_type in task_types.in_order():
                task_type.narratives_forget(narratives=narratives)
            narratives.delete()
            Assignment.objects.filter(item__batch=batch).delete()
            BatchItem.objects.filter(batch=batch).delete()
            batch.delete()

        why = _delete_or_say_why(remove_batch)
        if why:
            kept.append(f"the batch {batch.name!r} and its {count} narrative(s): {why}")
        else:
            batch_count, narrative_count = batch_count + 1, narrative_count + count
    worker_count = 0
    for worker in demo_workers().order_by("id"):
        why = _delete_or_say_why(worker.delete)
        if why:
            kept.append(f"the worker {worker.display_name!r}: {why}")
        else:
            worker_count += 1
    proverb_count, proverbs_kept = _demo_proverbs_remove(kept)
    if not commit:
        transaction.set_rollback(True)
    return DemoRemoval(
        batch_count, narrative_count, worker_count, proverb_count, proverbs_kept, tuple(kept)
    )


def _demo_proverbs_remove(kept: list[str]) -> tuple[int, int]:
    """Delete the demo proverbs nothing uses; keep the rest as study proverbs (counts)."""
    demo_proverbs = Proverb.objects.filter(is_demo=True)
    groups = list(
        VariantGroup.objects.filter(proverbs__in=demo_proverbs).values_list("pk", flat=True)
    )
    # What the task types' rows name where no foreign key protects it (ids in JSON).
    named = task_types.gathered("proverbs_named")
    reasons = {
        proverb.pk: (proverb, named[proverb.pk]) for proverb in demo_proverbs.filter(pk__in=named)
    }
    removable = demo_proverbs.exclude(pk__in=reasons)
    removed = removable.count()
    if _delete_or_say_why(removable.delete):  # one proverb at a time, to find which stay
        removed = 0
        for proverb in removable:
            why = _delete_or_say_why(proverb.delete)
            if why:
                reasons[proverb.pk] = (proverb, why)
            else:
                removed += 1
    Proverb.objects.filter(pk__in=reasons).update(is_demo=False)
    shown = sorted(reasons.values(), key=lambda pair: pair[0].pk)
    for proverb, why in shown[:DEMO_KEPT_SHOWN]:
        kept.append(f"the proverb {proverb.text!r}, now a study proverb: {why}")
    if len(shown) > DEMO_KEPT_SHOWN:
        kept.append(f"{len(shown) - DEMO_KEPT_SHOWN} more demo proverb(s) that study data uses")
    VariantGroup.objects.filter(pk__in=groups).annotate(members=Count("proverbs")).filter(
        members__lt=2
    ).delete()
    return removed, len(reasons)


def _delete_or_say_why(delete) -> str:
    """Run delete() in a savepoint; when a protected reference refuses it, roll it back and
    say what uses the rows ("" when they were deleted)."""
    try:
        with transaction.atomic():
            delete()
    except ProtectedError as error:
        return _used_by(error.protected_objects)
    except RestrictedError as error:
        return _used_by(error.restricted_objects)
    return ""


def _used_by(rows) -> str:
    """What protects rows: "used by choice answers (2, in 'Choose: study')"."""
    counts: Counter[str] = Counter()
    batches: defaultdict[str, set[str]] = defaultdict(set)
    for row in rows:
        kind = str(row._meta.verbose_name_plural)
        counts[kind] += 1
        if (batch := _batch_of(row)) is not None:
            batches[kind].add(repr(batch.name))
    parts = []
    for kind, count in sorted(counts.items()):
        where = f", in {', '.join(sorted(batches[kind]))}" if batches[kind] else ""
        parts.append(f"{kind} ({count}{where})")
    return "used by " + ", ".join(parts)


def _batch_of(row) -> Batch | None:
    """The batch a protecting row belongs to, through its batch, item or assignment, if any."""
    while row is not None and not isinstance(row, Batch):
        row = next(
            (
                getattr(row, name)
                for name in ("batch", "item", "assignment")
                if getattr(row, name, None) is not None
            ),
            None,
        )
    return row
