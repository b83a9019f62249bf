"""The agreement and chained-batch API for choose-the-continuation and cloze batches."""

import pytest

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Batch
from tests.factories import (
    crowd_narrative_create,
    figurative_import_fixture,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


def test_a_choose_continuation_batch_is_created_from_imported_pairs(researcher_api):
    figurative_import_fixture("idiom")
    response = researcher_api.post(
        "/api/chained-batches/",
        {
            "name": "Which continuation?",
            "task_type": "continue_choice",
            "settings": {"imported": {"kind": "idiom", "split": "any"}},
            "publish": True,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert Batch.objects.get(pk=response.json()["id"]).items.count() == 3


def test_a_batch_with_nothing_to_draw_is_refused(researcher_api):
    response = researcher_api.post(
        "/api/chained-batches/",
        {"name": "Empty", "task_type": "continue_choice", "settings": {}},
        format="json",
    )
    assert response.status_code == 400


def test_cloze_agreement_is_read_through_the_api(researcher_api, client):
    write = write_batch_create(proverbs=[proverb_create("Time is money")])
    crowd_narrative_create(
        proverb=write.items.get().proverb,
        batch=write,
        text="Anna lost her keys. She searched the house. Her brother found them.",
    )
    created = researcher_api.post(
        "/api/chained-batches/",
        {
            "name": "Cloze",
            "task_type": "cloze",
            "source_batch": write.pk,
            "settings": {"condition": "subject_verb", "blank": "last"},
            "publish": True,
        },
        format="json",
    ).json()
    batch = Batch.objects.get(pk=created["id"])
    for text in ("Her brother found them.", "Her dog found them."):
        assignment = assignment_reserve_next(batch=batch, worker=worker_create())
        assignment_submit(assignment=assignment, payload={"text": text})
    report = researcher_api.get(f"/api/agreement/{batch.pk}/").json()["cloze"]
    assert (report["condition"], report["match_rate"], report["agreement"]) == (
        "subject_verb",
        1,
        1,
    )
    assert client.get(f"/api/agreement/{batch.pk}/").status_code in (401, 403)
