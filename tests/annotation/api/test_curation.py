"""The requester API: login and permissions required, proverbs resource, import and curate."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token

from annotation.models import Proverb, VariantGroup
from tests.factories import proverb_create

pytestmark = pytest.mark.django_db


def test_anonymous_gets_401(api_client):
    assert api_client.get("/api/proverbs/").status_code == 401
    assert api_client.post("/api/proverbs/", {"text": "Time is money"}).status_code == 401


def test_crowd_worker_login_gets_403(api_client, worker_user):
    api_client.force_authenticate(worker_user)
    assert api_client.get("/api/proverbs/").status_code == 403
    assert api_client.get("/api/schema/").status_code == 403


def test_reviewer_can_read_but_not_create_or_import(api_client, reviewer):
    proverb_create("Time is money")
    api_client.force_authenticate(reviewer)
    assert api_client.get("/api/proverbs/").status_code == 200
    assert api_client.post("/api/proverbs/", {"text": "Haste makes waste"}).status_code == 403
    upload = SimpleUploadedFile("p.txt", b"Haste makes waste\n")
    assert (
        api_client.post("/api/proverbs/import/", {"file": upload}, format="multipart").status_code
        == 403
    )
    assert Proverb.objects.count() == 1


def test_token_auth_works_for_researcher(api_client, researcher):
    token = Token.objects.create(user=researcher)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api_client.get("/api/proverbs/").status_code == 200


def test_create_normalizes_and_refuses_duplicates(researcher_api):
    response = researcher_api.post("/api/proverbs/", {"text": "Time is money."}, format="json")
    assert response.status_code == 201
    assert response.json()["normalized_text"] == "time is money"
    again = researcher_api.post("/api/proverbs/", {"text": "TIME is money"}, format="json")
    assert again.status_code == 409  # well formed, but clashes with a stored proverb
    assert "already" in again.json()["detail"]


def test_list_filters_by_status(researcher_api):
    proverb_create("Time is money", status="curated")
    proverb_create("Haste makes waste", status="candidate")
    response = researcher_api.get("/api/proverbs/?status=curated")
    assert [row["text"] for row in response.json()["results"]] == ["Time is money"]


def test_import_returns_report_with_bad_lines(researcher_api):
    upload = SimpleUploadedFile("p.txt", b"Time is money\n" + b"y" * 400 + b"\nTime is money!\n")
    response = researcher_api.post("/api/proverbs/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201
    body = response.json()
    assert (body["created"], body["duplicates"]) == (1, 1)
    assert body["errors"][0]["line"] == 2


def test_import_of_binary_file_is_400_and_writes_nothing(researcher_api):
    upload = SimpleUploadedFile("p.bin", b"\x00\x01\x02\x03binary")
    response = researcher_api.post("/api/proverbs/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert "binary" in response.json()["errors"][0]["message"]
    assert Proverb.objects.count() == 0


def test_curate_action_sets_status(researcher_api):
    proverb = proverb_create("Time is money", status="candidate")
    response = researcher_api.post(f"/api/proverbs/{proverb.pk}/curate/", {"status": "curated"})
    assert response.json()["status"] == "curated"


def test_curate_action_refuses_a_merged_variant(researcher_api):
    canonical = proverb_create("Fortune favours the brave", status="curated")
    variant = proverb_create("Fortune favors the bold", status="rejected", variant_of=canonical)
    response = researcher_api.post(f"/api/proverbs/{variant.pk}/curate/", {"status": "curated"})
    assert response.status_code == 400
    assert "a variant of 'Fortune favours the brave'" in response.json()["status"][0]
    variant.refresh_from_db()
    assert variant.status == "rejected"


def test_merge_and_dismiss_through_api(researcher_api):
    upload = SimpleUploadedFile(
        "p.txt",
        b"Birds of a feather flock together\nBirds of a feather\n"
        b"A stitch in time saves nine\nA stitch in time\n",
    )
    researcher_api.post("/api/proverbs/import/", {"file": upload}, format="multipart")
    groups = researcher_api.get("/api/variant-groups/?status=open").json()["results"]
    assert len(groups) == 2
    birds = next(g for g in groups if "Birds of a feather" in {p["text"] for p in g["proverbs"]})
    canonical = next(p for p in birds["proverbs"] if p["text"].endswith("together"))
    merged = researcher_api.post(
        f"/api/variant-groups/{birds['id']}/merge/", {"canonical": canonical["id"]}
    )
    assert merged.json()["status"] == "merged"
    other = next(g for g in groups if g["id"] != birds["id"])
    assert (
        researcher_api.post(f"/api/variant-groups/{other['id']}/dismiss/").json()["status"]
        == "dismissed"
    )
    assert researcher_api.post(f"/api/variant-groups/{other['id']}/dismiss/").status_code == 409
    assert VariantGroup.objects.filter(status="open").count() == 0


def test_openapi_schema_lists_proverbs(researcher_api):
    response = researcher_api.get("/api/schema/?format=json")
    assert response.status_code == 200
    assert "/api/proverbs/import/" in response.json()["paths"]


def test_openapi_schema_validates_without_warnings(tmp_path):
    from django.core.management import call_command

    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml")
    )
    assert "/api/batches/{id}/progress/" in (tmp_path / "schema.yml").read_text()


def test_partial_update_without_text_keeps_the_text(researcher_api):
    proverb = proverb_create("Time is money")
    response = researcher_api.patch(
        f"/api/proverbs/{proverb.pk}/", {"status": "curated"}, format="json"
    )
    assert response.status_code == 200
    proverb.refresh_from_db()
    assert (proverb.status, proverb.text, proverb.normalized_text) == (
        "curated",
        "Time is money",
        "time is money",
    )


def test_import_of_a_million_lines_is_refused_whole(researcher_api):
    upload = SimpleUploadedFile("huge.txt", b"Time is money\n" * 1_000_000)
    response = researcher_api.post("/api/proverbs/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert "more than 50,000 lines" in response.json()["errors"][0]["message"]
    assert not Proverb.objects.exists()


def test_import_over_the_size_limit_is_refused(researcher_api, settings):
    settings.PARABLE_IMPORT_MAX_BYTES = 1000
    upload = SimpleUploadedFile("big.txt", b"Time is money\n" * 100)
    response = researcher_api.post("/api/proverbs/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert "larger than 1,000 bytes" in response.json()["errors"][0]["message"]
    assert not Proverb.objects.exists()


def test_an_import_source_longer_than_its_column_is_a_400_keeping_nothing(researcher_api):
    upload = SimpleUploadedFile("p.txt", b"Haste makes waste\n", content_type="text/plain")
    response = researcher_api.post(
        "/api/proverbs/import/", {"file": upload, "source": "x" * 201}, format="multipart"
    )
    assert response.status_code == 400
    assert "source" in response.json()
    assert not Proverb.objects.exists()
