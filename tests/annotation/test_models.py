"""Database constraints hold even when the services are bypassed."""

import pytest
from django.db import IntegrityError, transaction

from annotation.models import Proverb
from annotation.task_types.align.models import SpanPair
from annotation.task_types.rate.models import Rating
from crowd.models import Worker
from tests.factories import (
    assignment_create,
    batch_create,
    narrative_create,
    proverb_create,
    worker_create,
)

pytestmark = pytest.mark.django_db


def test_duplicate_normalized_proverb_rejected_by_database():
    proverb_create("Birds of a feather flock together.")
    with pytest.raises(IntegrityError), transaction.atomic():
        Proverb.objects.create(
            text="birds of a FEATHER flock together",
            normalized_text="birds of a feather flock together",
        )


def test_proverb_cannot_be_its_own_variant():
    proverb = proverb_create()
    proverb.variant_of = proverb
    with pytest.raises(IntegrityError), transaction.atomic():
        proverb.save()


def test_unknown_proverb_status_rejected():
    with pytest.raises(IntegrityError), transaction.atomic():
        Proverb.objects.create(text="x y", normalized_text="x y", status="maybe")


def test_worker_unique_per_provider_but_not_across_providers():
    Worker.objects.create(provider="mturk", external_id="A1")
    Worker.objects.create(provider="prolific", external_id="A1")
    with pytest.raises(IntegrityError), transaction.atomic():
        Worker.objects.create(provider="mturk", external_id="A1")


def test_blocked_worker_needs_reason():
    with pytest.raises(IntegrityError), transaction.atomic():
        worker_create(blocked=True, blocked_reason="")


def test_crowd_narrative_needs_assignment_and_worker():
    with pytest.raises(IntegrityError), transaction.atomic():
        narrative_create(proverb=proverb_create(), source="crowd")


def test_span_pair_must_cover_at_least_one_character():
    narrative = narrative_create(proverb=proverb_create(), text="Once upon a time.")
    with pytest.raises(IntegrityError), transaction.atomic():
        SpanPair.objects.create(
            narrative=narrative,
            position=1,
            proverb_start=3,
            proverb_end=3,
            proverb_span="",
            narrative_start=0,
            narrative_end=4,
            narrative_span="Once",
        )


def test_rating_outside_likert_scale_rejected():
    proverb = proverb_create()
    narrative = narrative_create(proverb=proverb)
    batch = batch_create(task_type="rate")
    item = batch.items.create(narrative=narrative)
    assignment = assignment_create(item=item, worker=worker_create())
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(
            narrative=narrative, assignment=assignment, criterion="Overall", value=6
        )


def test_worker_gets_one_assignment_per_item():
    batch = batch_create()
    item = batch.items.create(proverb=proverb_create())
    worker = worker_create()
    assignment_create(item=item, worker=worker)
    with pytest.raises(IntegrityError), transaction.atomic():
        assignment_create(item=item, worker=worker)


def test_batch_item_needs_a_subject():
    batch = batch_create()
    with pytest.raises(IntegrityError), transaction.atomic():
        batch.items.create()


def test_records_are_named_by_their_content_not_their_ids():
    from tests.factories import choice_answer_create

    proverb = proverb_create("Birds of a feather flock together")
    narrative = narrative_create(
        proverb=proverb, text="Maya and Leo met at a chess club and became friends."
    )
    assert str(narrative) == (
        "“Maya and Leo met at a chess club…” (Birds of a feather flock together)"
    )
    answer = choice_answer_create(narrative=narrative, correct=True)
    assert str(answer.question) == f"Which proverb: {narrative}"
    assert str(answer.assignment.item) == str(answer.question)
    assert str(answer) == f"Birds of a feather flock together (answer to {answer.question})"
