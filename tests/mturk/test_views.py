"""The ExternalQuestion page: preview, MTurk's parameters, framing, cookie-free submit."""

import json
from urllib.parse import urlencode

import pytest
from django.test import Client

from crowd.models import Assignment
from mturk.entry import answer_token
from mturk.models import HIT
from tests.factories import BIRDS, BIRDS_STORY, mturk_batch_create, proverb_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def hit(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    return HIT.objects.get(batch=batch)


def _url(hit, **params) -> str:
    return f"/mturk/items/{hit.item_id}/?{urlencode(params)}"


def test_preview_shows_the_item_read_only_and_stores_nothing(hit):
    response = Client().get(_url(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId=hit.hit_id))
    assert response.status_code == 200
    body = response.content.decode()
    assert "This is a preview" in body and BIRDS in body
    assert 'data-testid="submit"' not in body
    assert not Assignment.objects.exists()


def test_page_is_framed_by_the_mturk_site_only_under_the_site_policy(hit, standin):
    response = Client().get(_url(hit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId=hit.hit_id))
    policy = response["Content-Security-Policy"]
    directives = dict(part.split(" ", 1) for part in policy.split("; "))
    assert directives["frame-ancestors"] == f"'self' {standin.url}"
    assert directives["form-action"] == f"'self' {standin.url}"  # externalSubmit
    assert directives["script-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert "X-Frame-Options" not in response


def test_accepted_assignment_opens_the_task_and_submits_without_a_cookie(hit, standin):
    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1WORKER")
    client = Client(enforce_csrf_checks=True)
    response = client.get(
        _url(
            hit,
            assignmentId=remote["AssignmentId"],
            hitId=hit.hit_id,
            workerId="A1WORKER",
            turkSubmitTo=standin.url,
        )
    )
    assert response.status_code == 200
    config = json.loads(
        response.content.decode()
        .split('id="task-config" type="application/json">')[1]
        .split("</script>")[0]
    )
    assert config["external_submit"] == {
        "url": f"{standin.url}/mturk/externalSubmit",
        "fields": {"assignmentId": remote["AssignmentId"], "parableAnswer": config["assignment"]},
    }
    fresh = Client(enforce_csrf_checks=True)  # no cookie at all
    stored = fresh.post(
        config["submit_url"],
        data=json.dumps({"payload": {"text": BIRDS_STORY}, "submission_key": "k1"}),
        content_type="application/json",
    )
    assert stored.status_code == 200, stored.content
    answer = Assignment.objects.get()
    assert answer.status == "submitted"
    assert answer.provider_assignment_id == remote["AssignmentId"]
    assert answer.worker.provider == "mturk" and answer.worker.external_id == "A1WORKER"


def test_submit_address_other_than_mturk_is_refused(hit, standin):
    response = Client().get(
        _url(
            hit,
            assignmentId="ABC123",
            hitId=hit.hit_id,
            workerId="A1WORKER",
            turkSubmitTo="https://evil.example.org",
        )
    )
    assert response.status_code == 400
    assert not Assignment.objects.exists()


def test_hit_of_another_item_is_refused(hit, standin):
    response = Client().get(
        _url(hit, assignmentId="ABC123", hitId="OTHERHIT", workerId="A1", turkSubmitTo=standin.url)
    )
    assert response.status_code == 400
    assert not Assignment.objects.exists()


def test_tampered_submit_token_is_not_found(hit):
    response = Client().post(
        "/mturk/answers/forged-token/submit/", data="{}", content_type="application/json"
    )
    assert response.status_code == 404


def _open(hit, standin, worker_id: str, assignment_id: str):
    return Client().get(
        _url(
            hit,
            assignmentId=assignment_id,
            hitId=hit.hit_id,
            workerId=worker_id,
            turkSubmitTo=standin.url,
        )
    )


def test_reopening_a_stored_answer_offers_to_send_it_to_mturk(hit, standin):
    from crowd.assignments import assignment_submit

    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1WORKER")
    _open(hit, standin, "A1WORKER", remote["AssignmentId"])
    assignment_submit(assignment=Assignment.objects.get(), payload={"text": BIRDS_STORY})
    page = _open(hit, standin, "A1WORKER", remote["AssignmentId"]).content.decode()
    assert 'data-testid="stored"' in page
    assert f'action="{standin.url}/mturk/externalSubmit"' in page
    assert f'value="{remote["AssignmentId"]}"' in page


def test_blocked_worker_is_told_and_gets_no_task(hit, standin):
    from crowd.models import Worker

    Worker.objects.create(
        provider="mturk", external_id="A1BLOCKED", blocked=True, blocked_reason="Spam"
    )
    page = _open(hit, standin, "A1BLOCKED", "ASSIGN1").content.decode()
    assert "cannot take tasks" in page
    assert not Assignment.objects.exists()


def test_made_up_assignments_do_not_lock_out_a_worker_who_accepts_the_hit(hit, standin):
    # Anyone can read the HIT id in its URLs: two made-up workers open the 2-slot item,
    # and one of them even stores an answer.
    for fake in ("FAKE1", "FAKE2"):
        assert _open(hit, standin, fake, f"MADEUP{fake}").status_code == 200
    squatter = Assignment.objects.get(worker__external_id="FAKE1")
    token = answer_token(squatter)
    stored = Client().post(
        f"/mturk/answers/{token}/submit/",
        data=json.dumps({"payload": {"text": BIRDS_STORY}, "submission_key": "k"}),
        content_type="application/json",
    )
    assert stored.status_code == 200, stored.content
    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1WORKER")
    page = _open(hit, standin, "A1WORKER", remote["AssignmentId"]).content.decode()
    assert 'id="task-config"' in page
    real = Assignment.objects.get(worker__external_id="A1WORKER")
    assert real.status == "reserved" and real.provider_assignment_id == remote["AssignmentId"]


def test_the_stand_in_finds_no_assignment_still_being_worked_on(hit, standin):
    from mturk.client import MTurkError, call

    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1WORKER")
    with pytest.raises(MTurkError, match="does not exist"):
        call("get_assignment", AssignmentId=remote["AssignmentId"])
    standin.state.submit(assignment_id=remote["AssignmentId"], answers={"parableAnswer": "1"})
    found = call("get_assignment", AssignmentId=remote["AssignmentId"])["Assignment"]
    assert found["AssignmentStatus"] == "Submitted"
