"""Large imports in the admin: the import pages start a job, its page shows progress then
the report; the job list is read-only."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.intake.import_jobs import import_job_create, import_job_run
from annotation.models import ImportJob, Narrative, Proverb

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"
PROVERBS = b"Time is money\nHaste makes waste\n" + b"y" * 400 + b"\nA stitch in time saves nine\n"


@pytest.fixture
def small_threshold(settings):
    settings.PARABLE_IMPORT_BACKGROUND_LINES = 3


def test_a_large_proverb_list_becomes_a_job_whose_page_shows_its_progress(
    client, researcher, small_threshold, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    upload = SimpleUploadedFile("p.txt", PROVERBS)
    with django_capture_on_commit_callbacks():
        response = client.post("/admin/annotation/proverb/import/", {"file": upload})
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/annotation/importjob/{job.pk}/progress/"
    page = client.get(response["Location"]).content.decode()
    assert 'data-status="queued"' in page
    assert '<meta http-equiv="refresh"' in page
    assert "Waiting for a worker" in page
    assert Proverb.objects.count() == 0


def test_a_running_jobs_page_shows_the_counts_of_its_stage(client, researcher):
    client.force_login(researcher)
    job = import_job_create(kind=ImportJob.Kind.EPIC, content=b"[]", filename="epic.json")
    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJob.Status.RUNNING,
        progress_done=1200,
        progress_total=2500,
        progress_stage="Extracting keywords",
    )
    page = client.get(f"/admin/annotation/importjob/{job.pk}/progress/").content.decode()
    assert '<progress max="2500" value="1200">' in page
    assert "Extracting keywords: 1200 of 2500" in page


def test_the_job_page_shows_the_report_once_the_job_ran(
    client, researcher, small_threshold, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    upload = SimpleUploadedFile("p.txt", PROVERBS)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/admin/annotation/proverb/import/", {"file": upload})
    page = client.get(response["Location"]).content.decode()
    assert 'data-status="succeeded"' in page
    assert '<meta http-equiv="refresh"' not in page
    assert "Created: 3" in page
    assert "Line 3 is 400 characters long" in page
    assert set(Proverb.objects.values_list("source", flat=True)) == {"p"}


def test_a_large_dataset_file_becomes_a_job_with_its_split_files(
    client, researcher, small_threshold, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    splits = [
        SimpleUploadedFile(path.name, path.read_bytes()) for path in (FIXTURE / "splits").iterdir()
    ]
    upload = SimpleUploadedFile("epic.json", (FIXTURE / "dataset.json").read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/dataset/import/", {"file": upload, "splits": splits, "source_label": "ePiC"}
        )
    job = ImportJob.objects.get()
    assert response["Location"] == f"/admin/annotation/importjob/{job.pk}/progress/"
    page = client.get(response["Location"]).content.decode()
    assert "Narratives: 6 (6 created, 0 updated, 0 unchanged)" in page
    assert "Split seen: 4 train, 2 test" in page
    assert Narrative.objects.filter(source="imported").count() == 6


def test_the_job_page_of_a_failed_import_shows_the_reason(client, researcher):
    client.force_login(researcher)
    records = json.loads((FIXTURE / "dataset.json").read_text())
    del records[1]["fields"]["quote"]
    job = import_job_run(
        job_id=import_job_create(kind="epic", content=json.dumps(records).encode()).pk
    )
    page = client.get(f"/admin/annotation/importjob/{job.pk}/progress/").content.decode()
    assert 'data-status="failed"' in page
    assert "Nothing was imported: Record 2: (Q1N2) lacks field(s) quote." in page


def test_the_job_list_is_read_only_for_researchers(client, researcher):
    job = import_job_create(kind="proverbs", content=PROVERBS, filename="p.txt")
    client.force_login(researcher)
    page = client.get("/admin/annotation/importjob/").content.decode()
    assert "p.txt" in page
    assert f"/admin/annotation/importjob/{job.pk}/progress/" in page
    assert client.get("/admin/annotation/importjob/add/").status_code == 403
    assert client.post(f"/admin/annotation/importjob/{job.pk}/delete/").status_code == 403


def test_reviewers_see_neither_the_job_list_nor_a_job(client, reviewer):
    job = import_job_create(kind="proverbs", content=PROVERBS)
    client.force_login(reviewer)
    assert client.get("/admin/annotation/importjob/").status_code == 403
    assert client.get(f"/admin/annotation/importjob/{job.pk}/progress/").status_code == 403
