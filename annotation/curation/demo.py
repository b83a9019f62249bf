"""The demo proverb list shipped with Parable, loaded by the embedded default.

Demo proverbs and the demo batch are marked `is_demo`: the curated count leaves them out,
and `demo_data_remove` takes them away in one action before a real study.
"""

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import Q

from annotation.curation.services import ImportReport, proverbs_import
from annotation.models import Proverb, VariantGroup
from crowd.models import Batch, Worker

DEMO_PROVERBS = Path(__file__).resolve().parents[1] / "data" / "demo_proverbs.csv"


@transaction.atomic
def demo_proverbs_load() -> ImportReport | None:
    """Import the demo list into an empty database; proverbs outside a variant group are curated.

    Returns None when proverbs already exist.
    """
    if Proverb.objects.exists():
        return None
    report = proverbs_import(content=DEMO_PROVERBS.read_bytes(), filename=DEMO_PROVERBS.name)
    Proverb.objects.update(is_demo=True)  # the database had none before
    in_groups = VariantGroup.objects.filter(status=VariantGroup.Status.OPEN).values("proverbs")
    Proverb.objects.exclude(pk__in=in_groups).update(status=Proverb.Status.CURATED)
    return report


DEMO_BATCH_NAME = "Demo: write narratives"
DEMO_WORKER_PREFIX = "Demo worker"


@transaction.atomic
def demo_write_batch_ensure(
    *, proverbs: int = 5, per_proverb: int = 3, workers: int = 3
) -> tuple[Batch, list[Worker]] | None:
    """The demo "write narratives" batch, published, and its local demo workers.

    Created once, when the database has curated proverbs and no write batch yet:
    `proverbs` curated proverbs, `per_proverb` narratives each, `workers` workers.
    Returns the batch and its workers (also when it existed), or None.
    """
    from crowd.batches import batch_create, batch_publish
    from crowd.workers import local_workers_create

    batch = Batch.objects.filter(name=DEMO_BATCH_NAME, task_type="write").first()
    if batch is None:
        if Batch.objects.filter(task_type="write").exists():
            return None
        chosen = list(
            Proverb.objects.filter(status=Proverb.Status.CURATED).order_by("id")[:proverbs]
        )
        if not chosen:
            return None
        batch = batch_create(
            name=DEMO_BATCH_NAME,
            task_type="write",
            target_per_item=per_proverb,
            per_worker_cap=len(chosen),
            time_allowed_seconds=30 * 60,
            items=[{"proverb": proverb} for proverb in chosen],
        )
        batch.is_demo = True
        batch.save(update_fields=["is_demo"])
        batch_publish(batch=batch)
        local_workers_create(count=workers, name_prefix=DEMO_WORKER_PREFIX)
    demo_workers = Worker.objects.filter(
        provider="local", display_name__startswith=f"{DEMO_WORKER_PREFIX} "
    ).order_by("id")
    return batch, list(demo_workers[:workers])


@dataclass(frozen=True)
class DemoRemoval:
    batches: int
    narratives: int
    workers: int
    proverbs: int
    proverbs_kept: int


@transaction.atomic
def demo_data_remove() -> DemoRemoval:
    """Remove the demo batch with its work and workers, and the demo proverbs.

    A demo proverb that real data uses (an imported narrative, a study batch's item)
    stays, no longer marked demo. Refuses (ValueError, nothing removed) while a study
    batch draws from a demo batch.
    """
    from annotation.models import ChoiceQuestion, Narrative
    from crowd.models import Assignment, BatchItem

    batches = Batch.objects.select_for_update().filter(is_demo=True)
    chained = Batch.objects.filter(source_batch__in=batches).exclude(is_demo=True)
    if chained.exists():
        names = ", ".join(sorted(chained.values_list("name", flat=True)))
        raise ValueError(f"Batches draw from the demo batch ({names}): remove them first.")
    narratives = Narrative.objects.filter(assignment__item__batch__in=batches)
    if BatchItem.objects.exclude(batch__in=batches).filter(narrative__in=narratives).exists():
        raise ValueError("Study batches hold demo narratives: remove those batches first.")
    workers = list(
        Worker.objects.filter(
            provider="local", display_name__startswith=f"{DEMO_WORKER_PREFIX} "
        ).values_list("pk", flat=True)
    )
    narrative_count = narratives.count()
    ChoiceQuestion.objects.filter(narrative__in=narratives).delete()
    narratives.delete()
    Assignment.objects.filter(item__batch__in=batches).delete()
    BatchItem.objects.filter(batch__in=batches).delete()
    batch_count = batches.count()
    batches.delete()
    idle_workers = Worker.objects.filter(pk__in=workers, assignments__isnull=True)
    worker_count = idle_workers.count()
    idle_workers.delete()
    demo_proverbs = Proverb.objects.filter(is_demo=True)
    in_use = demo_proverbs.filter(
        Q(narratives__isnull=False) | Q(pk__in=BatchItem.objects.values("proverb_id"))
    ).distinct()
    kept = demo_proverbs.filter(pk__in=in_use.values("pk")).update(is_demo=False)
    VariantGroup.objects.filter(proverbs__in=demo_proverbs).delete()
    proverb_count = demo_proverbs.count()
    demo_proverbs.delete()
    return DemoRemoval(batch_count, narrative_count, worker_count, proverb_count, kept)
