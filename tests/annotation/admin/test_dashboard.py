"""The dataset pages in the admin: dashboard, ePiC import upload, export download."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from annotation.analysis.selectors import definitions
from annotation.models import Narrative, NarrativeIntegrity
from tests.factories import (
    batch_create,
    crowd_narrative_create,
    narrative_create,
    proverb_create,
    rating_create,
    writing_record,
)

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "epic"
SECTIONS = (
    "Collection",
    "Dataset statistics",
    "Lexical overlap",
    "Diversity",
    "Sentiment",
    "Readability",
    "Human evaluation",
    "Writing integrity",
    "Scope and parameters",
)


def _small_dataset() -> None:
    proverb = proverb_create("Time is money")
    for text in ("Raj lost customers every minute.", "Ana was happy to save an hour."):
        narrative = crowd_narrative_create(proverb=proverb, text=text)
        rating_create(narrative=narrative, criterion="overall", value=4)


def test_dashboard_shows_every_section_table_and_plot(client, researcher):
    _small_dataset()
    client.force_login(researcher)
    page = client.get("/admin/dataset/").content.decode()
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in page
    for header in ("Jaccard, paired", "Welch&#x27;s t-tests", "Pairwise agreement", "Per proverb"):
        assert header in page
    assert page.count('<figure class="plot"><svg') == 6
    assert '<td class="definition">Number of approved narratives' in page


def test_dashboard_writes_every_definition_as_help_text(client, researcher):
    _small_dataset()
    client.force_login(researcher)
    page = client.get("/admin/dataset/").content.decode()
    for key, text in definitions().items():
        assert escape(text) in page, key


def test_dashboard_escapes_proverbs_and_labels(client, researcher):
    proverb = proverb_create("<script>alert(1)</script> waits for no one")
    narrative = narrative_create(
        proverb=proverb, text="A tide came in.", status="approved", source_label="<img src=x>"
    )
    rating_create(narrative=narrative, criterion="overall", value=3)
    client.force_login(researcher)
    page = client.get("/admin/dataset/").content.decode()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; waits for no one" in page
    assert "<img src=x>" not in page
    assert "imported:&lt;img src=x&gt;" in page


def test_dashboard_shows_the_share_of_each_flag_per_batch_and_worker(client, researcher):
    proverb = proverb_create("Time is money")
    batch = batch_create(task_type="write", name="Pilot write")
    for typed, pasted in ((160, 0), (0, 160)):
        narrative = crowd_narrative_create(proverb=proverb, batch=batch)
        NarrativeIntegrity.objects.create(
            narrative=narrative, telemetry=writing_record(typed=typed, pasted=pasted)
        )
    client.force_login(researcher)
    page = client.get("/admin/dataset/").content.decode()
    section = page[page.index("<h2>Writing integrity</h2>") :]
    assert f"<td>{batch.pk}: Pilot write</td><td>2</td><td>0.5</td>" in section
    assert '<th scope="col">Pasted from outside</th>' in section


def test_dashboard_limits_the_analysis_to_chosen_batches(client, researcher):
    proverb = proverb_create("Time is money")
    batch = batch_create()
    crowd_narrative_create(proverb=proverb, batch=batch)
    crowd_narrative_create(proverb=proverb)
    client.force_login(researcher)
    page = client.get(f"/admin/dataset/?batch={batch.pk}&approved_only=on").content.decode()
    assert f"<td>scope.batches</td><td>{batch.pk}</td>" in page
    assert "<td>scope.narratives_loaded</td><td>1</td>" in page


def test_anonymous_is_sent_to_login(client):
    for url in ("/admin/dataset/", "/admin/dataset/import/", "/admin/dataset/export/"):
        response = client.get(url)
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]


def test_crowd_worker_is_sent_to_login(client, worker_user):
    client.force_login(worker_user)
    response = client.get("/admin/dataset/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_staff_without_permissions_is_denied(client, django_user_model):
    staff = django_user_model.objects.create_user(username="staff", password="x", is_staff=True)
    client.force_login(staff)
    for url in ("/admin/dataset/", "/admin/dataset/import/", "/admin/dataset/export/"):
        assert client.get(url).status_code == 403


def test_reviewer_reads_and_exports_but_cannot_import(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/dataset/").status_code == 200
    assert client.get("/admin/dataset/export/").status_code == 200
    assert client.get("/admin/dataset/import/").status_code == 403


def test_import_upload_reports_counts_and_problems(client, researcher):
    client.force_login(researcher)
    splits = [
        SimpleUploadedFile(path.name, path.read_bytes()) for path in (FIXTURE / "splits").iterdir()
    ]
    upload = SimpleUploadedFile("epic.json", (FIXTURE / "dataset.json").read_bytes())
    page = client.post(
        "/admin/dataset/import/",
        {"file": upload, "splits": splits, "source_label": "ePiC"},
    ).content.decode()
    assert Narrative.objects.filter(source="imported").count() == 6
    assert "Narratives: 6 (6 created, 0 updated, 0 unchanged)" in page
    assert "Span pairs: 11 (1 ambiguous, 1 unresolved)" in page
    assert "Split seen: 4 train, 2 test" in page
    assert "Q1N3 slot 3: span_narrative_3 &#x27;motivational posters&#x27; not found" in page


def test_import_upload_of_a_malformed_file_writes_nothing(client, researcher):
    client.force_login(researcher)
    records = json.loads((FIXTURE / "dataset.json").read_text())
    del records[1]["fields"]["quote"]
    upload = SimpleUploadedFile("epic.json", json.dumps(records).encode())
    page = client.post(
        "/admin/dataset/import/", {"file": upload, "source_label": "ePiC"}, follow=True
    ).content.decode()
    assert "Nothing was imported" in page
    assert "Record 2: (Q1N2) lacks field(s) quote." in page
    assert Narrative.objects.count() == 0


def test_export_downloads_data_and_card_as_a_zip(client, researcher):
    _small_dataset()
    client.force_login(researcher)
    response = client.post(
        "/admin/dataset/export/", {"format": "jsonl", "seed": 0, "statistics": "on"}
    )
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="parable-jsonl.zip"'
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sorted(archive.namelist()) == ["README.md", "dataset.jsonl"]
    rows = archive.read("dataset.jsonl").decode().splitlines()
    assert len(rows) == 2
    assert "| narratives | 2 |" in archive.read("README.md").decode()
