"""The crowd admin: new write batch from its form, progress per proverb, worker links, stats."""

import json
import re

import pytest

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Batch, Worker
from crowd.workers import invite_read
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


def test_add_batch_offers_each_task_type_form(client, researcher):
    client.force_login(researcher)
    page = client.get("/admin/crowd/batch/add/").content.decode()
    assert 'href="/admin/crowd/batch/new/write/"' in page


@pytest.mark.parametrize(("key", "target"), [("write", 10), ("align", 2), ("cloze", 5)])
def test_a_new_batch_form_starts_from_its_types_target(client, researcher, key, target):
    client.force_login(researcher)
    form = client.get(f"/admin/crowd/batch/new/{key}/").content.decode()
    field = re.search(r'<input type="number" name="target_per_item" value="(\d+)"', form)
    assert int(field.group(1)) == target


def test_researcher_creates_a_write_batch_for_chosen_proverbs(client, researcher):
    proverbs = [proverb_create() for _ in range(5)]
    client.force_login(researcher)
    form = client.get("/admin/crowd/batch/new/write/").content.decode()
    assert "Do not mention the proverb" in form  # default instructions, ready to edit
    response = client.post(
        "/admin/crowd/batch/new/write/",
        {
            "name": "Pilot",
            "proverbs": [proverb.pk for proverb in proverbs],
            "target_per_item": 3,
            "per_worker_cap": 5,
            "reward": "0.50",
            "time_allowed_minutes": 30,
            "instructions": "",
            "min_words": 20,
            "max_words": 150,
            "max_shared_ngram": 2,
            "max_shared_content_words": 2,
            "publish": "on",
        },
    )
    batch = Batch.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/crowd/batch/{batch.pk}/progress/"
    assert (batch.status, batch.target_per_item, batch.per_worker_cap) == ("published", 3, 5)
    assert batch.time_allowed_seconds == 1800
    assert batch.created_by == researcher
    assert batch.items.count() == 5


def test_the_target_hourly_rate_is_set_on_the_batch_form_and_shown_as_money(
    client, researcher, settings
):
    settings.PARABLE_LAB_CURRENCY = "EUR"  # a lab batch's amounts are in the lab's currency
    proverb = proverb_create()
    client.force_login(researcher)
    fields = {
        "name": "Paid fairly",
        "proverbs": [proverb.pk],
        "target_per_item": 3,
        "reward": "0.25",
        "time_allowed_minutes": 30,
        "min_words": 20,
        "max_words": 150,
        "max_shared_ngram": 2,
        "max_shared_content_words": 2,
    }
    refused = client.post("/admin/crowd/batch/new/write/", {**fields, "target_hourly_rate": "1e30"})
    assert refused.status_code == 200 and not Batch.objects.exists()
    client.post("/admin/crowd/batch/new/write/", {**fields, "target_hourly_rate": "12.50"})
    batch = Batch.objects.get()
    assert batch.target_hourly_cents == 1250
    progress = client.get(f"/admin/crowd/batch/{batch.pk}/progress/").content.decode()
    assert "reward 0.25 EUR a task · target pay 12.50 EUR an hour" in progress
    change = client.get(f"/admin/crowd/batch/{batch.pk}/change/").content.decode()
    assert 'name="target_hourly_rate" value="12.50"' in change
    assert 'name="reward" value="0.25"' in change
    assert "Reward per task (EUR)" in change and "Target pay per hour (EUR)" in change


def test_form_errors_are_shown_and_nothing_is_created(client, researcher):
    client.force_login(researcher)
    page = client.post(
        "/admin/crowd/batch/new/write/", {"name": "Pilot", "min_words": 200, "max_words": 10}
    ).content.decode()
    assert "This field is required" in page
    assert not Batch.objects.exists()


def test_reviewer_cannot_create_batches(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/crowd/batch/new/write/").status_code == 403


def test_progress_page_lists_each_proverb_with_its_counts(client, reviewer):
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create()], target_per_item=3
    )
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    client.force_login(reviewer)
    page = client.get(f"/admin/crowd/batch/{batch.pk}/progress/").content.decode()
    assert BIRDS in page
    assert 'data-testid="target-total">6<' in page
    assert f'href="/admin/annotation/narrative/?batch={batch.pk}"' in page
    assert 'name="close"' not in page  # reviewers read; researchers publish and close


def test_progress_page_closes_the_batch(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create()])
    client.force_login(researcher)
    client.post(f"/admin/crowd/batch/{batch.pk}/progress/", {"close": "Close batch"})
    batch.refresh_from_db()
    assert batch.status == Batch.Status.CLOSED


def test_invalid_settings_are_refused_when_editing_a_batch(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create()])
    client.force_login(researcher)
    page = client.post(
        f"/admin/crowd/batch/{batch.pk}/change/",
        {
            "name": batch.name,
            "instructions": "x",
            "target_per_item": 3,
            "reward": "0",
            "time_allowed_minutes": 10,
            "settings": '{"rules": {"max_words": -5}}',
        },
    ).content.decode()
    assert "must not be negative" in page
    batch.refresh_from_db()
    assert batch.settings["rules"]["max_words"] == 150


def test_time_allowed_is_edited_and_shown_in_minutes(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create()])
    client.force_login(researcher)
    form = client.get(f"/admin/crowd/batch/{batch.pk}/change/").content.decode()
    assert 'name="time_allowed_minutes" value="30"' in form
    assert "time_allowed_seconds" not in form
    client.post(
        f"/admin/crowd/batch/{batch.pk}/change/",
        {
            "name": batch.name,
            "instructions": "x",
            "target_per_item": 3,
            "reward": "0",
            "time_allowed_minutes": 10,
            "settings": json.dumps(batch.settings),
        },
    )
    batch.refresh_from_db()
    assert batch.time_allowed_seconds == 600
    progress = client.get(f"/admin/crowd/batch/{batch.pk}/progress/").content.decode()
    assert "10 min allowed" in progress


def test_add_local_workers_shows_their_links_into_the_batch(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create()])
    client.force_login(researcher)
    page = client.post(
        "/admin/crowd/worker/add-local/", {"count": 3, "name_prefix": "Lab", "batch": batch.pk}
    ).content.decode()
    workers = list(Worker.objects.order_by("id"))
    assert [str(worker) for worker in workers] == ["Lab 1", "Lab 2", "Lab 3"]
    links = [part.split('"')[0] for part in page.split('value="http://testserver/w/')[1:]]
    assert len(links) == 3
    assert invite_read(links[0].rstrip("/")) == (workers[0], batch.pk)


def test_invite_links_action_lists_general_and_batch_links(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create()], name="Open batch")
    worker = worker_create(display_name="Ann")
    client.force_login(researcher)
    page = client.post(
        "/admin/crowd/worker/",
        {"action": "show_invite_links", "_selected_action": [worker.pk]},
    ).content.decode()
    assert page.count('data-testid="invite-link"') == 2
    assert "Open batch" in page
    assert batch.name in page


def test_worker_stats_page(client, reviewer):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    worker = worker_create(display_name="<i>Ann</i>")
    assignment_submit(
        assignment=assignment_reserve_next(batch=batch, worker=worker),
        payload={"text": BIRDS_STORY},
    )
    client.force_login(reviewer)
    page = client.get(f"/admin/crowd/worker/stats/?batch={batch.pk}").content.decode()
    assert "&lt;i&gt;Ann&lt;/i&gt;" in page
    assert "<i>Ann</i>" not in page
    row = page.split("&lt;i&gt;Ann&lt;/i&gt;")[1].split("</tr>")[0]
    assert "<td>1</td><td>0</td><td>0</td>" in row
    assert re.search(r'<td title="[\d.]+ s">[\d.]+ min</td>', row)  # the median, in minutes
