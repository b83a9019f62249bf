"""Creating a template batch: one item per CSV row, the upload report, and a refused upload
that stores nothing, through the service, the admin's form and the API."""

import pytest

from annotation.task_types.template.creation import template_batch_create, upload_read
from annotation.task_types.template.models import HitTemplate, TemplateRow
from annotation.task_types.template.parsing import TemplateError
from crowd.models import Batch, BatchItem
from tests.annotation.task_types.template.helpers import LAYOUT, PAGE, PAIRS, REVIEWS

pytestmark = pytest.mark.django_db


def test_each_csv_row_becomes_an_item_of_a_draft_batch():
    batch, _ = template_batch_create(
        name="Reviews", source=LAYOUT, content=REVIEWS, template_name="sentiment.html"
    )
    assert batch.task_type == "template" and batch.status == Batch.Status.DRAFT
    assert batch.target_per_item == 3  # the type's own unless asked
    template = HitTemplate.objects.get(pk=batch.settings["template"])
    assert template.name == "sentiment.html" and template.columns[2] == "review_id"
    items = list(batch.items.select_related("template_row").order_by("position"))
    assert [item.template_row.position for item in items] == [1, 2, 3, 4, 5]
    # The repeated review is a HIT of its own, as on MTurk; the extra columns are kept.
    assert items[4].template_row.values["annotator_note"] == "duplicate of row 1"
    assert str(items[0]) == "Row 1 of sentiment.html"


def test_the_report_says_what_the_upload_holds():
    lines = upload_read(source=LAYOUT, content=REVIEWS)[2]
    assert lines[0] == "Template: the requester UI's layout. CSV: 5 row(s), Windows-1252."
    assert lines[1] == "Variables, each a column of the CSV: ${review_text}, ${source}."
    assert "(kept, exported as Input.*): review_id, annotator_note." in lines[2]
    assert "sentiment (radio), on_topic (radio), topic (select), aspects (checkbox)" in lines[3]
    assert lines[4] == "Free-text fields with a writing record: explanation."
    assert "submit untouched: sentiment (neutral)" in lines[5]
    assert lines[6].startswith("Row 1 as a worker reads it: Instructions Read the review")
    assert "Arrived in two days" in lines[6] and "From: amazon.com" in lines[6]
    assert lines[8].startswith("Row 3 as a worker reads it:") and "It’s a book" in lines[8]


def test_a_refused_upload_stores_nothing():
    with pytest.raises(TemplateError, match="no column"):
        template_batch_create(name="Pairs", source=PAGE, content=b"pair_id\np1\n")
    assert not Batch.objects.exists()
    assert not HitTemplate.objects.exists() and not TemplateRow.objects.exists()


def test_the_admin_form_uploads_and_reports(client, researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(researcher)
    form = client.get("/admin/crowd/batch/new/template/").content.decode()
    assert 'enctype="multipart/form-data"' in form and 'name="csv_file"' in form
    fields = {
        "name": "Entailment",
        "target_per_item": "3",
        "reward": "0.20",
        "time_allowed_minutes": "10",
        "canary_word": "quixotic",
        "template_file": SimpleUploadedFile("entailment.html", PAGE.encode()),
        "csv_file": SimpleUploadedFile("pairs.csv", PAIRS),
    }
    response = client.post("/admin/crowd/batch/new/template/", fields, follow=True)
    batch = Batch.objects.get()
    assert batch.items.count() == 4 and batch.reward_cents == 20
    assert batch.settings["integrity"]["canary_word"] == "quixotic"
    page = response.content.decode()
    assert "Template: a whole HTMLQuestion page. CSV: 4 row(s), UTF-8 with BOM." in page


def test_the_admin_form_refuses_with_the_reason_and_stores_nothing(client, researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(researcher)
    fields = {
        "name": "Crowd",
        "target_per_item": "3",
        "reward": "0.20",
        "time_allowed_minutes": "10",
        "template_file": SimpleUploadedFile("t.html", b"<crowd-form><crowd-input name='a'>"),
        "csv_file": SimpleUploadedFile("rows.csv", b"a\n1\n"),
    }
    page = client.post("/admin/crowd/batch/new/template/", fields).content.decode()
    assert "crowd-html-elements (&lt;crowd-form&gt;, &lt;crowd-input&gt;)" in page
    assert not Batch.objects.exists() and not HitTemplate.objects.exists()


def test_the_api_creates_a_batch_and_returns_the_report(researcher_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = {
        "name": "Reviews",
        "template": SimpleUploadedFile("layout.html", LAYOUT.encode()),
        "csv": SimpleUploadedFile("reviews.csv", REVIEWS),
        "target_per_item": 2,
    }
    response = researcher_api.post("/api/template-batches/", body, format="multipart")
    assert response.status_code == 201
    assert response.json()["batch"]["item_count"] == 5
    assert response.json()["report"][0].endswith("5 row(s), Windows-1252.")
    assert BatchItem.objects.filter(batch_id=response.json()["batch"]["id"]).count() == 5


def test_the_api_refuses_an_upload_with_the_reason(researcher_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = {
        "name": "Pairs",
        "template": SimpleUploadedFile("page.html", PAGE.encode()),
        "csv": SimpleUploadedFile("pairs.csv", "pair_id\np1\n".encode("utf-16")),
    }
    response = researcher_api.post("/api/template-batches/", body, format="multipart")
    assert response.status_code == 400 and "UTF-16" in response.json()["detail"]
    assert not Batch.objects.exists()


def test_the_api_needs_the_add_batch_permission(api_client, reviewer):
    api_client.force_authenticate(reviewer)
    response = api_client.post("/api/template-batches/", {}, format="multipart")
    assert response.status_code == 403
