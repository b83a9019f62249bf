"""The batches API: create with items, progress, publish and close, invite links; in the schema."""

import pytest

from crowd.models import Batch, Worker
from crowd.workers import invite_read
from tests.factories import proverb_create, write_batch_create

pytestmark = pytest.mark.django_db


def create_payload(*proverbs, **fields):
    return {
        "name": "Pilot",
        "task_type": "write",
        "items": [{"proverb": proverb.pk} for proverb in proverbs],
        **fields,
    }


def test_researcher_creates_and_publishes_a_write_batch(researcher_api):
    proverbs = [proverb_create() for _ in range(5)]
    response = researcher_api.post(
        "/api/batches/",
        create_payload(
            *proverbs,
            target_per_item=3,
            per_worker_cap=5,
            settings={"rules": {"max_words": 120}},
            publish=True,
        ),
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["status"], body["item_count"], body["target_per_item"]) == ("published", 5, 3)
    assert body["settings"]["rules"]["max_words"] == 120
    assert Batch.objects.get().created_by.username == "researcher"


def test_invalid_settings_are_a_400_with_the_reason(researcher_api):
    response = researcher_api.post(
        "/api/batches/",
        create_payload(proverb_create(), settings={"rules": {"min_words": -1}}),
        format="json",
    )
    assert response.status_code == 400
    assert "must not be negative" in response.json()["detail"]
    assert not Batch.objects.exists()


def test_unknown_task_type_and_subjectless_item_are_refused(researcher_api):
    response = researcher_api.post(
        "/api/batches/", {"name": "X", "task_type": "dance", "items": [{}]}, format="json"
    )
    assert response.status_code == 400
    assert set(response.json()) == {"task_type", "items"}


def test_progress_lists_each_proverb(researcher_api):
    batch = write_batch_create(proverbs=[proverb_create("Haste makes waste")], target_per_item=3)
    body = researcher_api.get(f"/api/batches/{batch.pk}/progress/").json()
    assert body["items"][0]["label"] == "Haste makes waste"
    assert body["items"][0]["target"] == 3
    assert body["totals"]["open"] == 3


def test_reviewer_reads_progress_but_cannot_create_or_close(api_client, reviewer):
    batch = write_batch_create(proverbs=[proverb_create()])
    api_client.force_authenticate(reviewer)
    assert api_client.get(f"/api/batches/{batch.pk}/progress/").status_code == 200
    created = api_client.post("/api/batches/", create_payload(proverb_create()), format="json")
    assert created.status_code == 403
    assert api_client.post(f"/api/batches/{batch.pk}/close/").status_code == 403


def test_close_and_publish_again_is_a_conflict(researcher_api):
    batch = write_batch_create(proverbs=[proverb_create()])
    assert researcher_api.post(f"/api/batches/{batch.pk}/close/").json()["status"] == "closed"
    response = researcher_api.post(f"/api/batches/{batch.pk}/publish/")
    assert response.status_code == 409
    assert "cannot be published again" in response.json()["detail"]


def test_invites_create_local_workers_with_links_into_the_batch(researcher_api):
    batch = write_batch_create(proverbs=[proverb_create()])
    response = researcher_api.post(
        f"/api/batches/{batch.pk}/invites/", {"count": 2, "name_prefix": "Lab"}, format="json"
    )
    assert response.status_code == 201
    links = response.json()
    assert [link["name"] for link in links] == ["Lab 1", "Lab 2"]
    token = links[0]["url"].rstrip("/").rsplit("/", 1)[-1]
    assert links[0]["url"].startswith("http://testserver/w/")
    assert invite_read(token) == (Worker.objects.get(pk=links[0]["worker"]), batch.pk)


def test_crowd_worker_login_cannot_use_the_api(api_client, worker_user):
    api_client.force_authenticate(worker_user)
    assert api_client.get("/api/batches/").status_code == 403


def test_schema_lists_batch_and_narrative_endpoints(researcher_api):
    schema = researcher_api.get("/api/schema/", {"format": "json"}).json()
    for path in (
        "/api/batches/",
        "/api/batches/{id}/progress/",
        "/api/batches/{id}/invites/",
        "/api/narratives/",
        "/api/narratives/{id}/approve/",
        "/api/narratives/{id}/reject/",
        "/api/narratives/{id}/block-worker/",
    ):
        assert path in schema["paths"], path


def test_list_filters_by_status_and_counts_items(researcher_api):
    write_batch_create(proverbs=[proverb_create(), proverb_create()])
    researcher_api.post("/api/batches/", create_payload(proverb_create()), format="json")
    rows = researcher_api.get("/api/batches/", {"status": "published"}).json()["results"]
    assert [(row["status"], row["item_count"]) for row in rows] == [("published", 2)]


def test_counts_beyond_the_database_integer_are_a_400(researcher_api):
    proverb = proverb_create()
    for field in ("target_per_item", "per_worker_cap", "reward_cents", "time_allowed_seconds"):
        response = researcher_api.post(
            "/api/batches/",
            {"name": "Big", "task_type": "write", "items": [{"proverb": proverb.pk}], field: 2**31},
            format="json",
        )
        assert response.status_code == 400 and field in response.json()
    assert not Batch.objects.exists()


def test_nul_inside_settings_is_a_400_and_creates_nothing(researcher_api):
    proverb = proverb_create()
    response = researcher_api.post(
        "/api/batches/",
        '{"name": "N", "task_type": "write", "items": [{"proverb": '
        + str(proverb.pk)
        + '}], "settings": {"note": "a\\u0000b"}}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "NUL character" in response.json()["detail"]
    assert not Batch.objects.exists()
