"""The demo proverb list shipped with Parable, loaded by the embedded default."""

from pathlib import Path

from django.db import transaction

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
        batch_publish(batch=batch)
        local_workers_create(count=workers, name_prefix=DEMO_WORKER_PREFIX)
    demo_workers = Worker.objects.filter(
        provider="local", display_name__startswith=f"{DEMO_WORKER_PREFIX} "
    ).order_by("id")
    return batch, list(demo_workers[:workers])
