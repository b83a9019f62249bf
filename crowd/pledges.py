"""A batch's pledge: the researcher's text a worker agrees to once, before their first task
of the batch (not to use AI tools to write, say), recorded per worker with the text shown."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from crowd.models import Batch, BatchPledge, Worker

DEFAULT_PLEDGE = """\
Please write your answers yourself, without AI tools such as ChatGPT or other chatbots, \
writing assistants or translation tools. This study collects how people write: text made \
by a language model would make the data useless for the research it is meant for, and \
would pass off a machine's words as a person's. By continuing you confirm that the work \
you submit is your own."""


def pledge_needed(*, batch: Batch, worker: Worker) -> bool:
    """Whether the worker must still agree to the batch's pledge before working on it."""
    if not batch.pledge.strip():
        return False
    return not BatchPledge.objects.filter(batch=batch, worker=worker).exists()


@transaction.atomic
def pledge_record(*, batch: Batch, worker: Worker) -> BatchPledge:
    """Record the worker's agreement to the batch's pledge as it reads now; idempotent
    (a second agreement, from another tab, keeps the first)."""
    if not batch.pledge.strip():
        raise ValueError("This batch asks for no pledge.")
    # get_or_create finds the other tab's agreement when it won the race (IntegrityError).
    pledge, _ = BatchPledge.objects.get_or_create(
        batch=batch, worker=worker, defaults={"text": batch.pledge}
    )
    return pledge


def pledge_times_of(*, batch_ids, worker_ids) -> dict[tuple[int, int], datetime]:
    """When these workers agreed to these batches' pledges, by (batch id, worker id); read
    by batch (an IN list of thousands of workers costs more than the batches' rows)."""
    worker_ids = set(worker_ids)
    rows = BatchPledge.objects.filter(batch_id__in=batch_ids).values_list(
        "batch_id", "worker_id", "agreed_at"
    )
    return {(batch, worker): at for batch, worker, at in rows if worker in worker_ids}
