"""Import jobs: a stored upload imported later by a task, with its report or its error."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import transaction
from django.utils import timezone

from annotation.curation.services import ProverbFileError, proverbs_import
from annotation.datasets.epic import dataset_import_epic
from annotation.intake.import_jobs import (
    import_job_create,
    import_job_run,
    import_runs_in_background,
    upload_import,
)
from annotation.models import ImportJob, Narrative, Proverb, VariantGroup
from annotation.task_types.align.models import SpanPair
from annotation.tasks import import_jobs_requeue_task

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"
PROVERBS = (
    b"Time is money\nHaste makes waste\n" + b"y" * 400 + b"\nTIME is money!\n"
    b"Haste makes waist\nA stitch in time saves nine\n"
)


def _splits() -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in (FIXTURE / "splits").iterdir()}


def _as_if_imported_in_the_request(service, **arguments) -> dict:
    """The report the request's own import would give, with nothing of it kept."""
    with transaction.atomic():
        report = service(**arguments).as_dict()
        transaction.set_rollback(True)
    return report


def test_a_file_over_the_line_threshold_runs_in_the_background(settings):
    settings.PARABLE_IMPORT_BACKGROUND_LINES = 3
    assert not import_runs_in_background(content=b"a\nb\nc\n")
    assert import_runs_in_background(content=b"a\nb\nc\nd")


def test_a_file_over_the_byte_threshold_runs_in_the_background(settings):
    settings.PARABLE_IMPORT_BACKGROUND_BYTES = 10
    assert not import_runs_in_background(content=b"[" + b"1" * 8 + b"]")
    assert import_runs_in_background(content=b"[" + b"1," * 8 + b"1]")


def test_a_small_upload_is_imported_now_and_a_large_one_becomes_a_job(settings, researcher):
    now = upload_import(
        kind="proverbs", content=PROVERBS, filename="p.txt", options={"source": "s"}
    )
    assert now.job is None and now.report.created == Proverb.objects.count() > 0
    settings.PARABLE_IMPORT_BACKGROUND_LINES = 3
    later = upload_import(
        kind="epic",
        content=(FIXTURE / "dataset.json").read_bytes(),
        filename="dataset.json",
        options={"source_label": "ePiC"},
        splits=_splits(),
        created_by=researcher,
    )
    assert later.report is None
    assert (later.job.kind, later.job.status, later.job.created_by) == (
        "epic",
        "queued",
        researcher,
    )
    assert sorted(later.job.split_files) == sorted(_splits())
    assert not Narrative.objects.exists()


def test_an_epic_upload_imported_now_has_its_keywords_queued(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as queued:
        started = upload_import(
            kind="epic", content=(FIXTURE / "dataset.json").read_bytes(), filename="dataset.json"
        )
    assert started.job is None and started.report.narratives_created == Narrative.objects.count()
    assert Narrative.objects.filter(keywords_pending_since__isnull=False).count() > 0
    assert queued  # the extraction task, sent once the import commits


def test_creating_a_job_queues_it_on_commit_and_imports_nothing(
    researcher, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as queued:
        job = import_job_create(
            kind="proverbs", content=PROVERBS, filename="p.txt", created_by=researcher
        )
    assert len(queued) == 1
    job.refresh_from_db()
    assert (job.status, job.created_by, bytes(job.content)) == ("queued", researcher, PROVERBS)
    assert Proverb.objects.count() == 0


def test_the_queued_task_runs_the_job_once_the_request_commits(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = import_job_create(kind="proverbs", content=PROVERBS, filename="p.txt")
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert Proverb.objects.count() == 4


def test_a_proverb_job_imports_the_same_as_the_request_and_stores_the_report():
    expected = _as_if_imported_in_the_request(
        proverbs_import, content=PROVERBS, filename="p.txt", source="List"
    )
    job = import_job_create(
        kind="proverbs", content=PROVERBS, filename="p.txt", options={"source": "List"}
    )
    job = import_job_run(job_id=job.pk)
    assert job.status == "succeeded"
    assert job.report == expected
    assert expected["created"] == 4 and expected["duplicates"] == 1
    assert len(expected["errors"]) == 1 and expected["variant_groups"] == 1
    assert set(Proverb.objects.values_list("source", flat=True)) == {"List"}
    assert (job.progress_done, job.progress_total, job.error) == (1, 1, "")
    assert job.started_at and job.finished_at
    assert bytes(job.content) == b""


def test_an_epic_job_imports_the_same_as_the_request_with_its_split_files():
    content = (FIXTURE / "dataset.json").read_bytes()
    expected = _as_if_imported_in_the_request(
        dataset_import_epic, content=content, splits=_splits(), source_label="ePiC"
    )
    job = import_job_create(
        kind="epic",
        content=content,
        filename="epic.json",
        options={"source_label": "ePiC"},
        splits=_splits(),
    )
    job = import_job_run(job_id=job.pk)
    assert job.status == "succeeded"
    assert job.report == {**expected, "keywords_extracted": 6}
    assert job.report["splits"]["seen"] == {"train": 4, "test": 2}
    imported = Narrative.objects.filter(source="imported", source_label="ePiC")
    assert imported.count() == 6
    assert all(n.keywords["verbs"] and n.keywords_pending_since is None for n in imported)


def test_a_malformed_file_fails_the_job_with_the_reason_and_writes_nothing():
    records = json.loads((FIXTURE / "dataset.json").read_text())
    del records[1]["fields"]["quote"]
    job = import_job_create(kind="epic", content=json.dumps(records).encode())
    job = import_job_run(job_id=job.pk)
    assert job.status == "failed"
    assert job.error.startswith("Nothing was imported: Record 2: (Q1N2) lacks field(s) quote.")
    assert job.report is None
    assert (Proverb.objects.count(), Narrative.objects.count()) == (0, 0)


def test_a_proverb_list_over_the_line_limit_is_refused_before_it_becomes_a_job(settings):
    settings.PARABLE_IMPORT_MAX_LINES = 2
    with pytest.raises(ProverbFileError, match="PARABLE_IMPORT_MAX_LINES"):
        import_job_create(kind="proverbs", content=PROVERBS)
    assert ImportJob.objects.count() == 0


def test_a_failure_halfway_through_fails_the_job_and_writes_nothing(monkeypatch):
    def broken(**_):
        raise RuntimeError("the variant index is unavailable")

    monkeypatch.setattr("annotation.curation.services.variant_groups_propose", broken)
    job = import_job_run(job_id=import_job_create(kind="proverbs", content=PROVERBS).pk)
    assert job.status == "failed"
    assert job.error == "Nothing was imported: RuntimeError: the variant index is unavailable"
    assert (Proverb.objects.count(), VariantGroup.objects.count()) == (0, 0)


def test_running_a_finished_job_again_changes_nothing():
    content = (FIXTURE / "dataset.json").read_bytes()
    job = import_job_run(job_id=import_job_create(kind="epic", content=content).pk)
    counts = (Narrative.objects.count(), SpanPair.objects.count(), Proverb.objects.count())
    Narrative.objects.all().delete()
    again = import_job_run(job_id=job.pk)
    assert (again.status, again.report, again.finished_at) == (
        "succeeded",
        job.report,
        job.finished_at,
    )
    assert counts[0] == 6
    assert Narrative.objects.count() == 0


def test_a_running_job_is_left_alone():
    job = import_job_create(kind="proverbs", content=PROVERBS)
    ImportJob.objects.filter(pk=job.pk).update(status="running")
    assert import_job_run(job_id=job.pk).status == "running"
    assert Proverb.objects.count() == 0


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="Unknown import kind"):
        import_job_create(kind="figurative", content=PROVERBS)
    assert ImportJob.objects.count() == 0


def test_a_job_whose_task_was_lost_is_queued_again_by_beat(settings):
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 60
    lost = import_job_create(kind="proverbs", content=PROVERBS)
    ImportJob.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    fresh = import_job_create(kind="proverbs", content=b"Haste makes waste\n")
    assert import_jobs_requeue_task.delay().get() == 1
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert (lost.status, fresh.status) == ("succeeded", "queued")
    assert import_jobs_requeue_task.delay().get() == 0
