"""The requester API for large imports: 202 with a job, and the job's status endpoint."""

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.intake.import_jobs import import_job_create, import_job_run
from annotation.models import ImportJob, Proverb

pytestmark = pytest.mark.django_db
PROVERBS = b"Time is money\nHaste makes waste\nTIME is money!\nA stitch in time saves nine\n"


@pytest.fixture
def small_threshold(settings):
    settings.PARABLE_IMPORT_BACKGROUND_LINES = 3


def _post(client, content: bytes = PROVERBS, **fields):
    upload = SimpleUploadedFile("p.txt", content)
    return client.post("/api/proverbs/import/", {"file": upload, **fields}, format="multipart")


def test_a_large_import_answers_202_with_the_job_and_imports_nothing_yet(
    researcher_api, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as queued:
        response = _post(researcher_api, source="List")
    assert response.status_code == 202
    job = ImportJob.objects.get()
    assert response.json() == {
        "job": job.pk,
        "status": "queued",
        "status_url": f"http://testserver/api/import-jobs/{job.pk}/",
    }
    assert response["Location"] == response.json()["status_url"]
    assert (job.kind, job.options, job.filename) == ("proverbs", {"source": "List"}, "p.txt")
    assert len(queued) == 1
    assert Proverb.objects.count() == 0


def test_the_job_s_status_holds_the_report_once_it_ran(
    researcher_api, small_threshold, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        status_url = _post(researcher_api).json()["status_url"]
    body = researcher_api.get(status_url).json()
    assert body["status"] == "succeeded"
    assert body["progress"] == {"done": 1, "total": 1, "stage": "Done"}
    assert body["report"] == {"created": 3, "duplicates": 1, "variant_groups": 0, "errors": []}
    assert body["error"] == ""
    assert Proverb.objects.count() == 3


def test_a_queued_job_s_status_shows_it_waiting(researcher_api):
    job = import_job_create(kind="proverbs", content=PROVERBS)
    body = researcher_api.get(f"/api/import-jobs/{job.pk}/").json()
    assert (body["status"], body["report"], body["started_at"]) == ("queued", None, None)
    assert body["progress"] == {"done": 0, "total": 1, "stage": "Waiting for a worker"}


def test_a_failed_job_s_status_gives_the_reason(researcher_api):
    job = import_job_run(job_id=import_job_create(kind="epic", content=b"not json").pk)
    body = researcher_api.get(f"/api/import-jobs/{job.pk}/").json()
    assert (body["status"], body["report"]) == ("failed", None)
    assert body["error"].startswith("Nothing was imported: ")


def test_a_large_file_over_the_line_limit_is_refused_at_once(
    researcher_api, small_threshold, settings
):
    settings.PARABLE_IMPORT_MAX_LINES = 2
    response = _post(researcher_api)
    assert response.status_code == 400
    assert "more than 2 lines" in response.json()["errors"][0]["message"]
    assert ImportJob.objects.count() == 0


def test_a_small_import_still_runs_in_the_request(researcher_api):
    response = _post(researcher_api)
    assert response.status_code == 201
    assert response.json()["created"] == 3
    assert ImportJob.objects.count() == 0


def test_the_status_needs_login(api_client):
    job = import_job_create(kind="proverbs", content=PROVERBS)
    assert api_client.get(f"/api/import-jobs/{job.pk}/").status_code == 401


def test_the_status_is_denied_to_reviewers_and_crowd_workers(api_client, reviewer, worker_user):
    job = import_job_create(kind="proverbs", content=PROVERBS)
    for user in (reviewer, worker_user):
        api_client.force_authenticate(user)
        assert api_client.get(f"/api/import-jobs/{job.pk}/").status_code == 403


def test_the_status_needs_the_permission_of_the_job_s_import(api_client, django_user_model):
    curator = django_user_model.objects.create_user(username="curator", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="add_proverb"))
    proverbs = import_job_create(kind="proverbs", content=PROVERBS)
    dataset = import_job_create(kind="epic", content=b"[]")
    api_client.force_authenticate(curator)
    assert api_client.get(f"/api/import-jobs/{proverbs.pk}/").status_code == 200
    assert api_client.get(f"/api/import-jobs/{dataset.pk}/").status_code == 403


def test_the_schema_documents_the_status_endpoint_and_the_202(researcher_api):
    paths = researcher_api.get("/api/schema/?format=json").json()["paths"]
    assert "get" in paths["/api/import-jobs/{id}/"]
    assert "202" in paths["/api/proverbs/import/"]["post"]["responses"]
