"""The admin: staff only; researchers import and decide, reviewers read."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Proverb, VariantGroup
from tests.factories import proverb_create

pytestmark = pytest.mark.django_db


def test_anonymous_is_sent_to_login(client):
    response = client.get("/admin/annotation/proverb/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_crowd_worker_cannot_enter_admin(client, worker_user):
    client.force_login(worker_user)
    response = client.get("/admin/annotation/proverb/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_reviewer_sees_list_but_cannot_import(client, reviewer):
    proverb_create("Time is money")
    client.force_login(reviewer)
    assert client.get("/admin/annotation/proverb/").status_code == 200
    assert client.get("/admin/annotation/proverb/import/").status_code == 403


def test_changelist_shows_curated_count_against_target(client, researcher):
    proverb_create("Time is money", status="curated")
    proverb_create("Haste makes waste", status="candidate")
    client.force_login(researcher)
    page = client.get("/admin/annotation/proverb/").content.decode()
    assert 'data-testid="curated-count">1<' in page
    assert 'data-testid="curated-target">250<' in page


def test_import_upload_reports_bad_lines(client, researcher):
    client.force_login(researcher)
    upload = SimpleUploadedFile("list.txt", b"Time is money\n" + b"z" * 301 + b"\n")
    page = client.post("/admin/annotation/proverb/import/", {"file": upload}, follow=True)
    assert Proverb.objects.filter(text="Time is money").exists()
    assert "Line 2 is 301 characters long" in page.content.decode()


def test_decide_view_merges_group(client, researcher):
    client.force_login(researcher)
    upload = SimpleUploadedFile(
        "list.txt", b"Birds of a feather flock together\nBirds of a feather\n"
    )
    client.post("/admin/annotation/proverb/import/", {"file": upload})
    group = VariantGroup.objects.get()
    canonical = Proverb.objects.get(text="Birds of a feather flock together")
    client.post(
        f"/admin/annotation/variantgroup/{group.pk}/decide/",
        {"canonical": canonical.pk, "merge": "1"},
    )
    group.refresh_from_db()
    assert group.status == "merged"
    assert Proverb.objects.get(text="Birds of a feather").variant_of == canonical


def test_reviewer_cannot_decide_variant_groups(client, reviewer):
    proverb_a = proverb_create("Birds of a feather flock together")
    group = VariantGroup.objects.create(member_key=str(proverb_a.pk), score=0.9)
    client.force_login(reviewer)
    response = client.post(f"/admin/annotation/variantgroup/{group.pk}/decide/", {"dismiss": "1"})
    assert response.status_code == 403
    group.refresh_from_db()
    assert group.status == "open"


def test_worker_text_in_proverb_list_is_escaped(client, researcher):
    proverb_create("<script>alert(1)</script> Time is money")
    client.force_login(researcher)
    page = client.get("/admin/annotation/proverb/").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_admin_index_links_dashboard_batches_and_agreement(client, researcher):
    client.force_login(researcher)
    page = client.get("/admin/").content.decode()
    for url in ("/admin/dataset/", "/admin/crowd/batch/", "/admin/agreement/"):
        assert f'href="{url}"' in page


def test_banner_counts_demo_apart_and_removes_it_after_confirmation(client, researcher):
    from annotation.datasets.demo import demo_proverbs_load

    demo_proverbs_load()
    proverb_create("A study proverb not in the demo list", status="curated")
    client.force_login(researcher)
    page = client.get("/admin/annotation/proverb/").content.decode()
    assert '<span data-testid="curated-count">1</span>' in page
    assert 'data-testid="demo-count"' in page
    assert 'href="/admin/annotation/proverb/remove-demo/"' in page
    confirm = client.get("/admin/annotation/proverb/remove-demo/").content.decode()
    assert "This removes" in confirm and 'data-testid="remove-demo-confirm"' in confirm
    assert Proverb.objects.filter(is_demo=True).exists()  # asked first, nothing removed yet
    response = client.post("/admin/annotation/proverb/remove-demo/", follow=True)
    assert "demo proverb(s)" in response.content.decode()
    assert list(Proverb.objects.values_list("text", flat=True)) == [
        "A study proverb not in the demo list"
    ]


def test_reviewers_cannot_remove_demo_data(client, reviewer):
    from annotation.datasets.demo import demo_proverbs_load

    demo_proverbs_load()
    client.force_login(reviewer)
    assert client.get("/admin/annotation/proverb/remove-demo/").status_code == 403
    assert client.post("/admin/annotation/proverb/remove-demo/").status_code == 403
    assert Proverb.objects.exists()


def test_mark_curated_warns_and_skips_a_merged_variant(client, researcher):
    canonical = proverb_create("Fortune favours the brave", status="curated")
    variant = proverb_create("Fortune favors the bold", status="rejected", variant_of=canonical)
    client.force_login(researcher)
    response = client.post(
        "/admin/annotation/proverb/",
        {"action": "mark_curated", "_selected_action": [variant.pk, canonical.pk]},
        follow=True,
    )
    page = response.content.decode()
    assert "Not curated: &#x27;Fortune favors the bold&#x27; (a variant of" in page
    variant.refresh_from_db()
    assert variant.status == "rejected"


def test_a_merged_variant_cannot_be_curated_on_its_change_page(client, researcher):
    canonical = proverb_create("Fortune favours the brave", status="curated")
    variant = proverb_create("Fortune favors the bold", status="rejected", variant_of=canonical)
    client.force_login(researcher)
    response = client.post(
        f"/admin/annotation/proverb/{variant.pk}/change/",
        {"text": variant.text, "meaning": "", "source": "", "status": "curated"},
    )
    assert response.status_code == 200
    assert "merged into &#x27;Fortune favours the brave&#x27;" in response.content.decode()
    variant.refresh_from_db()
    assert variant.status == "rejected"
