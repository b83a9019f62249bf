"""Batch services: create with the task type's settings, items, publish, close, progress."""

import pytest

from annotation.quality.integrity import IntegritySettings
from annotation.task_types.write.task import DEFAULT_INSTRUCTIONS
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.batches import (
    batch_close,
    batch_create,
    batch_items_add,
    batch_progress,
    batch_publish,
)
from crowd.models import Assignment, Batch
from crowd.review import assignment_approve, assignment_reject
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create

pytestmark = pytest.mark.django_db


def test_write_batch_starts_from_default_rules_and_instructions():
    batch = batch_create(name=" Pilot ", task_type="write")
    assert batch.name == "Pilot"
    assert batch.status == Batch.Status.DRAFT
    assert batch.instructions == DEFAULT_INSTRUCTIONS
    assert batch.settings == {
        "rules": {
            "max_shared_ngram": 2,
            "max_shared_content_words": 2,
            "min_words": 20,
            "max_words": 150,
        },
        "integrity": IntegritySettings().to_dict(),
    }
    assert batch.settings["integrity"]["refuse_paste"] is False


def test_write_batch_settings_are_validated():
    with pytest.raises(ValueError, match="min_words"):
        batch_create(
            name="Bad", task_type="write", settings={"rules": {"min_words": 200, "max_words": 10}}
        )
    with pytest.raises(ValueError, match="Unknown setting"):
        batch_create(name="Bad", task_type="write", settings={"colour": "blue"})
    assert not Batch.objects.exists()


def test_partial_rules_keep_the_other_defaults():
    batch = batch_create(name="Long", task_type="write", settings={"rules": {"max_words": 300}})
    assert batch.settings["rules"]["max_words"] == 300
    assert batch.settings["rules"]["min_words"] == 20


def test_unknown_task_type_is_refused():
    with pytest.raises(LookupError):
        batch_create(name="X", task_type="nonsense")


def test_items_are_added_once_per_subject():
    proverb = proverb_create()
    batch = batch_create(name="X", task_type="write", items=[{"proverb": proverb}])
    assert batch_items_add(batch=batch, items=[{"proverb": proverb}, {"proverb": proverb}]) == 0
    assert batch.items.count() == 1


def test_publish_needs_items_and_is_idempotent():
    empty = batch_create(name="Empty", task_type="write")
    with pytest.raises(ValueError, match="at least one item"):
        batch_publish(batch=empty)
    batch = batch_create(name="X", task_type="write", items=[{"proverb": proverb_create()}])
    published = batch_publish(batch=batch)
    assert published.status == Batch.Status.PUBLISHED
    assert published.provider_ids == {"local": f"batch-{batch.pk}"}
    assert batch_publish(batch=published).published_at == published.published_at


def test_close_returns_open_reservations_and_cannot_be_published_again():
    batch = write_batch_create(proverbs=[proverb_create()])
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    batch_close(batch=batch)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RETURNED
    with pytest.raises(ValueError, match="closed"):
        batch_publish(batch=batch)


def test_progress_counts_per_proverb():
    birds = proverb_create(BIRDS)
    other = proverb_create("Haste makes waste")
    batch = write_batch_create(proverbs=[birds, other], target_per_item=3)
    item = batch.items.get(proverb=birds)
    done = []
    for _ in range(3):
        assignment = assignment_reserve_next(batch=batch, worker=worker_create(), item=item)
        done.append(assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY}))
    assignment_approve(assignment=done[0].assignment)
    assignment_reject(assignment=done[1].assignment, message="Off topic.")
    assignment_reserve_next(batch=batch, worker=worker_create(), item=item)

    progress = batch_progress(batch=batch)
    birds_row, other_row = progress["items"]
    assert birds_row["label"] == BIRDS
    assert {key: birds_row[key] for key in ("target", "reserved", "submitted", "approved")} == {
        "target": 3,
        "reserved": 1,
        "submitted": 1,
        "approved": 1,
    }
    assert (birds_row["rejected"], birds_row["open"]) == (1, 0)
    assert (other_row["approved"], other_row["open"]) == (0, 3)
    assert progress["totals"]["target"] == 6
    assert progress["totals"]["complete_items"] == 0


def test_progress_names_items_by_their_content_in_a_fixed_number_of_queries(
    django_assert_max_num_queries,
):
    from tests.factories import crowd_narrative_create, task_batch_create

    write = write_batch_create(proverbs=[proverb_create(BIRDS)])
    for number in range(3):
        crowd_narrative_create(
            proverb=write.items.get().proverb,
            batch=write,
            text=f"Story {number}: {BIRDS_STORY}",
        )
    choose = task_batch_create(task_type="choose", source_batch=write)
    with django_assert_max_num_queries(2):
        progress = batch_progress(batch=choose)
    labels = sorted(row["label"] for row in progress["items"])
    assert labels[0] == "“Story 0: Maya and Leo met at a…” (Birds of a feather flock together)"
    assert len(labels) == 3
