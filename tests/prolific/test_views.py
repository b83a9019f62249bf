"""Participants' pages and the webhook over HTTP: entry, continuation, completion redirect,
refusals, signature checks."""

import json
import time

import pytest
from django.urls import reverse
from django.utils import timezone

from crowd.models import Assignment
from prolific.models import (
    ParticipantSession,
    Study,
    Submission,
    WebhookEvent,
    WebhookRefusal,
)
from prolific.signatures import signature
from tests.factories import BIRDS_STORY, invite_path, worker_create
from tests.prolific.conftest import WEBHOOK_SECRET
from tests.prolific.helpers import finish_on_prolific, write_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(standin):
    return write_study()


def enter(client, standin, batch, participant="p1"):
    submission = standin.state.submission_start(
        study_id=batch.prolific_study.study_id, participant_id=participant
    )
    query = {
        "PROLIFIC_PID": submission["participant_id"],
        "STUDY_ID": submission["study_id"],
        "SESSION_ID": submission["id"],
    }
    return client.get(reverse("prolific:enter"), query), submission


def test_entry_opens_the_first_item_and_submits_lead_to_the_completion_code(client, standin, batch):
    response, _ = enter(client, standin, batch)
    assert response.url == reverse("prolific:session_continue")
    for _ in range(3):
        task = client.get(reverse("prolific:session_continue"))
        assert task.url.startswith("/tasks/a/")
        page = client.get(task.url)
        assert page.context["task_config"]["next_url"] == reverse("prolific:session_continue")
        answer = client.post(
            task.url + "submit/",
            json.dumps({"payload": {"text": BIRDS_STORY}}),
            content_type="application/json",
        )
        assert answer.json()["next_url"] == reverse("prolific:session_continue")
    done = client.get(reverse("prolific:session_continue"))
    code = batch.prolific_study.completion_code
    assert done.url == f"{standin.url}/submissions/complete?cc={code}"
    assert ParticipantSession.objects.get().status == ParticipantSession.Status.FINISHED
    again, _ = enter(client, standin, batch)
    assert again.status_code == 403
    assert b"already completed" in again.content


def test_forged_participant_id_is_refused_before_any_item_is_reserved(client, standin, batch):
    submission = standin.state.submission_start(
        study_id=batch.prolific_study.study_id, participant_id="p1"
    )
    response = client.get(
        reverse("prolific:enter"),
        {
            "PROLIFIC_PID": "forged",
            "STUDY_ID": submission["study_id"],
            "SESSION_ID": submission["id"],
        },
    )
    assert response.status_code == 403
    assert b"belongs to someone else" in response.content
    assert not Assignment.objects.exists()


def test_entry_without_parameters_is_refused(client, standin, batch):
    response = client.get(reverse("prolific:enter"), {"PROLIFIC_PID": "p1"})
    assert response.status_code == 400
    assert not Assignment.objects.exists()


def test_a_prolific_participant_sees_no_local_batch_nor_its_name(client, standin, batch):
    from annotation.models import ContinuationPair
    from tests.factories import (
        continuation_batch_create,
        figurative_import_fixture,
        figurative_narrative_create,
        proverb_create,
        write_batch_create,
    )

    local = write_batch_create(proverbs=[proverb_create()], name="Lab stories, secret title")
    figurative_import_fixture("idiom")
    pairs = [pair.pk for pair in ContinuationPair.objects.order_by("id")]
    gated = continuation_batch_create(
        narratives=[figurative_narrative_create()],
        name="Lab idioms, secret title",
        settings={"qualification": {"pairs": pairs, "min_correct": 1}},
    )
    enter(client, standin, batch)
    home = client.get("/tasks/")
    assert home.status_code == 200
    assert "secret title" not in home.content.decode()
    assert client.get(f"/tasks/{gated.pk}/qualify/").status_code == 404
    assert client.get(f"/tasks/{local.pk}/next/").status_code == 404


def test_continue_without_a_session_is_refused(client, standin, batch):
    assert client.get(reverse("prolific:session_continue")).status_code == 403


def post_webhook(client, body: bytes, *, secret=WEBHOOK_SECRET, timestamp=None, event_id="e1"):
    timestamp = timestamp or str(int(time.time()))
    return client.post(
        reverse("prolific:webhook"),
        body,
        content_type="application/json",
        headers={
            "X-Event-ID": event_id,
            "X-Prolific-Request-Timestamp": timestamp,
            "X-Prolific-Request-Signature": signature(
                secret=secret, timestamp=timestamp, body=body
            ),
        },
    )


def test_webhook_with_a_bad_signature_is_refused(client, standin, batch):
    body = json.dumps({"event_id": "e1", "resource_id": "abc"}).encode()
    response = post_webhook(client, body, secret="not-the-secret")
    assert response.status_code == 403
    assert not WebhookEvent.objects.exists()
    stale = post_webhook(client, body, timestamp=str(int(time.time()) - 7200))
    assert stale.status_code == 403
    refusals = list(WebhookRefusal.objects.order_by("id").values_list("reason", flat=True))
    assert refusals[0] == "signature does not match the workspace secret"
    assert refusals[1].startswith("timestamp 720") and refusals[1].endswith("behind our clock")


def test_refused_deliveries_are_shown_in_the_admin(client, researcher, standin, batch):
    body = json.dumps({"resource_id": "abc", "event_type": "x"}).encode()
    post_webhook(client, body, secret="not-the-secret", event_id="<b>ev</b>")
    client.force_login(researcher)
    page = client.get(reverse("admin:prolific_webhookrefusal_changelist")).content.decode()
    assert "signature does not match the workspace secret" in page
    assert "&lt;b&gt;ev&lt;/b&gt;" in page and "<b>ev</b>" not in page


def test_a_signed_delivery_with_a_nul_in_its_event_type_is_a_400(client, standin, batch):
    body = json.dumps({"resource_id": "abc", "event_type": "submission.status\u0000"}).encode()
    response = post_webhook(client, body)
    assert response.status_code == 400
    assert response.json() == {"error": "The delivery's event_type is not an event type."}
    assert not WebhookEvent.objects.exists()


def test_refused_deliveries_are_kept_to_the_newest_two_hundred(client, standin):
    for number in range(230):
        client.post(
            reverse("prolific:webhook"),
            b"{}",
            content_type="application/json",
            headers={"X-Event-ID": f"flood-{number}"},
        )
    kept = list(WebhookRefusal.objects.order_by("id").values_list("event_id", flat=True))
    assert len(kept) == 200
    assert kept[0] == "flood-30" and kept[-1] == "flood-229"


def post_delivery(client, body: bytes, headers: dict):
    return client.post(
        reverse("prolific:webhook"),
        body,
        content_type="application/json",
        headers={name: value for name, value in headers.items() if name != "Content-Type"},
    )


def finished_event(client, standin, batch):
    """A participant finishes on Prolific: the submission and its documented event body."""
    _, submission = enter(client, standin, batch)
    finish_on_prolific(standin, submission)
    event = {
        "resource_id": submission["id"],
        "event_type": "submission.status.change",
        "participant_id": submission["participant_id"],
        "status": "AWAITING REVIEW",
    }
    return submission, event


def test_a_delivery_repeated_with_its_event_id_and_a_new_timestamp_is_processed_once(
    client, standin, batch
):
    _, event = finished_event(client, standin, batch)
    first = standin.state.signed_delivery(event=event, event_id="ev-7", happened_at="t")
    again = standin.state.signed_delivery(
        event=event, event_id="ev-7", happened_at="t", sent_at=time.time() + 30
    )
    assert again[1]["X-Prolific-Request-Timestamp"] != first[1]["X-Prolific-Request-Timestamp"]
    assert post_delivery(client, *first).json() == {"outcome": "recorded"}
    assert post_delivery(client, *again).json() == {"outcome": "repeat"}
    assert WebhookEvent.objects.get().event_id == "ev-7"


def test_a_submission_that_arrives_by_webhook_has_its_completion_code(client, standin, batch):
    submission, event = finished_event(client, standin, batch)
    post_delivery(
        client, *standin.state.signed_delivery(event=event, event_id="e", happened_at="t")
    )
    code = standin.state.studies[submission["study_id"]]["completion_codes"][0]["code"]
    assert Submission.objects.get().study_code == code


def test_a_malformed_or_unknown_delivery_is_answered_without_a_server_error(client, standin):
    nul = json.dumps({"resource_id": "ab\u0000c", "event_type": "x"}).encode()
    assert post_webhook(client, nul).status_code == 400
    unknown = json.dumps({"resource_id": "nosuch", "event_type": "x"}).encode()
    assert post_webhook(client, unknown, event_id="e2").json() == {"outcome": "unknown"}
    assert post_webhook(client, unknown, event_id="e2").json() == {"outcome": "repeat"}


def test_signed_webhook_links_the_submission(client, standin, batch):
    _, submission = enter(client, standin, batch)
    finish_on_prolific(standin, submission)
    body = json.dumps(
        {
            "event_id": "e1",
            "event_type": "submission.status.change",
            "resource_id": submission["id"],
        }
    ).encode()
    assert post_webhook(client, body).json() == {"outcome": "recorded"}
    assert post_webhook(client, body).json() == {"outcome": "repeat"}
    session = ParticipantSession.objects.get()
    assert session.submission.status == "AWAITING REVIEW"


def test_signed_webhook_that_is_not_json_is_a_400(client, standin):
    assert post_webhook(client, b"not json").status_code == 400


def test_batch_links_keep_participants_in_their_session(client, standin, batch):
    enter(client, standin, batch)
    response = client.get(reverse("frontend:next", args=[batch.pk]))
    assert response.url == reverse("prolific:session_continue")
    assert Assignment.objects.count() == 3  # nothing reserved beyond the session


def test_local_workers_cannot_take_prolific_batches(client, standin, batch):
    client.get(invite_path(worker=worker_create()))
    assert client.get(reverse("frontend:next", args=[batch.pk])).status_code == 404
    assert not Assignment.objects.exists()


def test_webhook_is_not_recorded_while_prolific_cannot_be_asked(client, standin, batch, settings):
    settings.PROLIFIC_RETRIES = 0
    _, submission = enter(client, standin, batch)
    body = json.dumps({"event_id": "e9", "resource_id": submission["id"]}).encode()
    standin.state.fail(path="/submissions/", status=503, count=1)
    assert post_webhook(client, body).status_code == 503
    assert not WebhookEvent.objects.exists()
    assert post_webhook(client, body).json() == {"outcome": "recorded"}


def work_through(client, rounds: int):
    """Submit the items the continue page hands out, `rounds` times."""
    for _ in range(rounds):
        task = client.get(reverse("prolific:session_continue"))
        client.post(
            task.url + "submit/",
            json.dumps({"payload": {"text": BIRDS_STORY}}),
            content_type="application/json",
        )


def test_an_unconfirmed_session_holds_one_slot_and_gets_no_completion_code(client, standin, batch):
    standin.state.fail(path="/submissions/", status=503, count=2)  # Prolific down at entry
    query = {"PROLIFIC_PID": "forged", "STUDY_ID": batch.prolific_study.study_id}
    client.get(reverse("prolific:enter"), {**query, "SESSION_ID": "madeup"})
    assert Assignment.objects.count() == 1  # one slot, not a session's three
    work_through(client, 1)
    done = client.get(reverse("prolific:session_continue"))  # Prolific up again: no such session
    assert done.status_code == 503
    assert b"has not confirmed your session" in done.content
    assert batch.prolific_study.completion_code.encode() not in done.content
    assert Assignment.objects.count() == 1
    assert ParticipantSession.objects.get().status == ParticipantSession.Status.ACTIVE


def test_a_real_session_unchecked_at_entry_gets_its_items_and_code_once_confirmed(
    client, standin, batch
):
    submission = standin.state.submission_start(
        study_id=batch.prolific_study.study_id, participant_id="p1"
    )
    standin.state.fail(path="/submissions/", status=503, count=2)
    query = {
        "PROLIFIC_PID": "p1",
        "STUDY_ID": batch.prolific_study.study_id,
        "SESSION_ID": submission["id"],
    }
    client.get(reverse("prolific:enter"), query)
    assert Assignment.objects.count() == 1
    work_through(client, 3)  # confirmed after the first: the other two follow
    assert Assignment.objects.count() == 3
    done = client.get(reverse("prolific:session_continue"))
    assert done.url.endswith(f"cc={batch.prolific_study.completion_code}")


def test_a_study_completed_on_prolific_closes_its_batch(client, standin, batch):
    study_id = batch.prolific_study.study_id
    standin.state.studies[study_id]["status"] = "COMPLETED"
    event = {"resource_id": study_id, "event_type": "study.status.change", "status": "COMPLETED"}
    delivery = standin.state.signed_delivery(event=event, event_id="s1", happened_at="t")
    assert post_delivery(client, *delivery).json() == {"outcome": "recorded"}
    batch.refresh_from_db()
    assert batch.status == "closed" and batch.prolific_study.status == "COMPLETED"


def test_a_high_return_rate_is_flagged_for_the_researcher(client, researcher, standin, batch):
    study_id = batch.prolific_study.study_id
    event = {"resource_id": study_id, "event_type": "study.has_high_return_rate"}
    delivery = standin.state.signed_delivery(event=event, event_id="s2", happened_at="t")
    post_delivery(client, *delivery)
    client.force_login(researcher)
    listing = client.get(reverse("admin:prolific_study_changelist")).content.decode()
    assert "high return rate" in listing
    manage = reverse("admin:prolific_study_manage", args=[batch.prolific_study.pk])
    page = client.get(manage).content.decode()
    assert 'data-testid="high-return-rate"' in page and 'name="pause"' in page


def test_the_studies_list_says_nothing_polls_under_the_embedded_default(
    client, researcher, standin, batch, settings
):
    settings.CELERY_BROKER_URL = ""
    client.force_login(researcher)
    listing = client.get(reverse("admin:prolific_study_changelist")).content.decode()
    assert "Polling keeps studies in sync" not in listing
    assert "Nothing polls Prolific here" in listing
    assert "only when someone presses Sync from Prolific" in listing
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    Study.objects.update(synced_at=timezone.now())
    listing = client.get(reverse("admin:prolific_study_changelist")).content.decode()
    assert "Celery beat polls every study on Prolific every 120 s." in listing


def test_the_studies_list_warns_when_no_verified_delivery_came_for_a_day(
    client, researcher, standin, batch, settings
):
    from datetime import timedelta

    client.force_login(researcher)
    listing = reverse("admin:prolific_study_changelist")
    assert "No verified webhook delivery" in client.get(listing).content.decode()
    WebhookEvent.objects.create(event_id="e-old", event_type="x", resource_id="r")
    WebhookEvent.objects.update(received_at=timezone.now() - timedelta(hours=30))
    assert (
        "No verified webhook delivery from Prolific since" in client.get(listing).content.decode()
    )
    WebhookEvent.objects.create(event_id="e-new", event_type="x", resource_id="r")
    assert "No verified webhook delivery" not in client.get(listing).content.decode()
