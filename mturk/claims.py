"""Whose answer is whose on MTurk: a task page's worker and assignment ids are claims, and
only MTurk's own records settle them.

An answer bound to an assignment id MTurk has not vouched for is set aside for a new claim:
it moves, with what it stored, to a worker row of its own (`claim_external_id`), holding no
slot and never paid. Once MTurk vouches for it (mturk.sync), it moves to the worker's row,
setting aside any other claim there, and counts from then on.
"""

from __future__ import annotations

import hashlib

from django.db import transaction

from crowd.models import Assignment, Worker
from crowd.review import assignment_confirm


def claim_external_id(worker_id: str, assignment_id: str) -> str:
    """The external id of the worker row an answer set aside lives under: the claimed
    worker id and a digest of the assignment id (MTurk's ids reach 64 characters each)."""
    digest = hashlib.sha256(assignment_id.encode()).hexdigest()[:16]
    return f"{worker_id}/{digest}"


def is_claim(worker: Worker) -> bool:
    """Whether the worker row holds a set-aside claim rather than an MTurk worker."""
    return "/" in worker.external_id


def _move(answer: Assignment, worker: Worker) -> None:
    """Move an answer, and the rows of its work that name its worker (a narrative), to
    another worker row. The rows are found through every model that refers to both an
    assignment and a worker, so a task type's own rows follow without being named here."""
    for relation in Assignment._meta.related_objects:
        if relation.many_to_many:
            continue
        model = relation.related_model
        for field in model._meta.concrete_fields:
            if field.is_relation and field.many_to_one and field.related_model is Worker:
                model.objects.filter(
                    **{relation.field.name: answer, field.name: answer.worker_id}
                ).update(**{field.name: worker})
    Assignment.objects.filter(pk=answer.pk).update(worker=worker)
    answer.worker = worker


def answer_set_aside(*, answer: Assignment) -> None:
    """Move an answer MTurk has not vouched for off its worker's row, to its claim's own."""
    worker_id = answer.worker.external_id
    aside, _ = Worker.objects.get_or_create(
        provider="mturk",
        external_id=claim_external_id(worker_id, answer.provider_assignment_id),
        defaults={
            "display_name": f"{worker_id} (unconfirmed assignment {answer.provider_assignment_id})"[
                :200
            ]
        },
    )
    _move(answer, aside)


@transaction.atomic
def answer_vouched(*, answer: Assignment, worker_id: str) -> Assignment:
    """MTurk vouches for this answer (its assignment, HIT and worker match): it moves to
    the worker's own row, any other claim there is set aside, and it counts from now."""
    worker, _ = Worker.objects.get_or_create(provider="mturk", external_id=worker_id)
    if answer.worker_id != worker.pk:
        occupant = (
            Assignment.objects.filter(item_id=answer.item_id, worker=worker)
            .select_related("worker")
            .first()
        )
        if occupant is not None:
            answer_set_aside(answer=occupant)
        _move(answer, worker)
    return assignment_confirm(assignment=answer)
