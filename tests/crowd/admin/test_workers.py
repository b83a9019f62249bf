"""The worker admin: invite links only for researchers, never for blocked workers."""

import pytest
from django.test import Client

from crowd.models import Worker
from tests.factories import proverb_create, worker_create, write_batch_create

pytestmark = pytest.mark.django_db


def _invite_links(page: str) -> list[str]:
    return [part.split('"')[0] for part in page.split('value="http://testserver')[1:]]


def _show_links(client, workers):
    return client.post(
        "/admin/crowd/worker/",
        {"action": "show_invite_links", "_selected_action": [worker.pk for worker in workers]},
        follow=True,
    ).content.decode()


def test_reviewer_gets_no_invite_link_and_cannot_sign_in_as_a_worker(client, reviewer):
    batch = write_batch_create(proverbs=[proverb_create()])
    worker = worker_create()
    client.force_login(reviewer)
    listing = client.get("/admin/crowd/worker/").content.decode()
    assert "show_invite_links" not in listing
    page = _show_links(client, [worker])
    assert _invite_links(page) == [] and "/w/" not in page
    assert client.get("/admin/crowd/worker/add-local/").status_code == 403
    assert client.get(f"/tasks/{batch.pk}/next/").status_code == 403


def test_researchers_link_signs_the_worker_in(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create()])
    worker = worker_create()
    client.force_login(researcher)
    links = _invite_links(_show_links(client, [worker]))
    assert len(links) == 2
    browser = Client()
    assert browser.get(links[1]).status_code == 302
    response = browser.get(f"/tasks/{batch.pk}/next/")
    assert response.status_code == 302 and "/tasks/a/" in response["Location"]


def test_blocked_workers_get_no_invite_links(client, researcher):
    worker = worker_create()
    Worker.objects.filter(pk=worker.pk).update(blocked=True, blocked_reason="spam")
    client.force_login(researcher)
    assert _invite_links(_show_links(client, [worker])) == []


def test_worker_statistics_with_a_batch_that_is_not_an_id_is_a_400(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/crowd/worker/stats/?batch=abc").status_code == 400
    assert client.get("/admin/crowd/worker/stats/?batch=999").status_code == 404
