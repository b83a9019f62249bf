"""The narratives API: list with filters, review actions with their permissions."""

import pytest

from annotation.models import Narrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Worker
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    narrative_create,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=3)


def submitted_narrative(batch, worker=None) -> Narrative:
    assignment = assignment_reserve_next(batch=batch, worker=worker or worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    return Narrative.objects.get(assignment=assignment)


def test_list_filters_by_status_batch_and_worker(researcher_api, batch):
    worker = worker_create()
    mine = submitted_narrative(batch, worker)
    submitted_narrative(batch)
    narrative_create(proverb=proverb_create(), text="Imported.")

    def ids(**query):
        return [
            row["id"] for row in researcher_api.get("/api/narratives/", query).json()["results"]
        ]

    assert len(ids()) == 3
    assert len(ids(batch=batch.pk)) == 2
    assert ids(worker=worker.pk) == [mine.pk]
    assert len(ids(status="submitted", source="crowd")) == 2


def test_list_row_carries_figures_for_review(researcher_api, batch):
    narrative = submitted_narrative(batch)
    row = researcher_api.get(f"/api/narratives/{narrative.pk}/").json()
    assert row["proverb_text"] == BIRDS
    assert row["batch"] == batch.pk
    assert row["word_count"] == 30
    assert row["overlap"]["1"] == {"shared": 1, "proverb": 6, "ratio": 0.1667}
    assert row["seconds_taken"] >= 0


def test_reviewer_approves_and_keywords_follow(
    api_client, reviewer, batch, django_capture_on_commit_callbacks
):
    narrative = submitted_narrative(batch)
    api_client.force_authenticate(reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(f"/api/narratives/{narrative.pk}/approve/")
    assert response.status_code == 200
    assert response.json()["status"] == "approved"
    narrative.refresh_from_db()
    assert "meet" in narrative.keywords["verbs"]


def test_reject_needs_a_message_and_reopens_the_slot(researcher_api, batch):
    narrative = submitted_narrative(batch)
    assert researcher_api.post(f"/api/narratives/{narrative.pk}/reject/", {}).status_code == 400
    response = researcher_api.post(
        f"/api/narratives/{narrative.pk}/reject/", {"message": "Too short a plot."}
    )
    assert response.json()["status"] == "rejected"
    assert response.json()["review_message"] == "Too short a plot."
    progress = researcher_api.get(f"/api/batches/{batch.pk}/progress/").json()
    assert progress["items"][0]["open"] == 3


def test_block_worker(researcher_api, batch):
    narrative = submitted_narrative(batch)
    response = researcher_api.post(
        f"/api/narratives/{narrative.pk}/block-worker/", {"reason": "Spam."}
    )
    assert response.status_code == 200
    assert Worker.objects.get(pk=narrative.worker_id).blocked


def test_imported_narrative_is_not_reviewed(researcher_api):
    narrative = narrative_create(proverb=proverb_create(), text="Imported.")
    response = researcher_api.post(f"/api/narratives/{narrative.pk}/approve/")
    assert response.status_code == 409


def test_staff_without_review_permission_cannot_review(api_client, django_user_model, batch):
    from django.contrib.auth.models import Permission

    narrative = submitted_narrative(batch)
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_narrative"))
    api_client.force_authenticate(viewer)
    assert api_client.get("/api/narratives/").status_code == 200
    assert api_client.post(f"/api/narratives/{narrative.pk}/approve/").status_code == 403


def test_anonymous_gets_401(api_client):
    assert api_client.get("/api/narratives/").status_code == 401


@pytest.mark.parametrize(
    "query",
    [
        {"worker": "abc"},
        {"proverb": "1.5"},
        {"batch": "-3"},
        {"batch": str(2**64)},
        {"status": "x"},
    ],
)
def test_invalid_filters_are_a_400_naming_the_parameter(researcher_api, query):
    response = researcher_api.get("/api/narratives/", query)
    assert response.status_code == 400
    assert set(response.json()) == set(query)


def test_filters_do_not_apply_to_review_actions(researcher_api, batch):
    narrative = submitted_narrative(batch)
    response = researcher_api.post(f"/api/narratives/{narrative.pk}/approve/?worker=abc")
    assert response.status_code == 200
