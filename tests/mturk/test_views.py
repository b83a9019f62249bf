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
    assert answer.status == "unconfirmed"  # until MTurk has it submitted too
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


def _config(page) -> dict:
    """The task page's configuration (its json_script)."""
    text = page.content.decode()
    assert 'id="task-config"' in text, text[-600:]
    return json.loads(text.split('id="task-config" type="application/json">')[1].split("<")[0])


def _submit(config: dict, text: str = BIRDS_STORY):
    return Client().post(
        config["submit_url"],
        data=json.dumps({"payload": {"text": text}, "submission_key": "k"}),
        content_type="application/json",
    )


def _stored(hit, standin, worker_id: str, assignment_id: str, text: str = BIRDS_STORY):
    """Open the task page under these claims and store an answer through its submit URL."""
    config = _config(_open(hit, standin, worker_id, assignment_id))
    assert _submit(config, text).status_code == 200
    return Assignment.objects.select_related("worker").get(pk=config["assignment"])


def _done(hit) -> int:
    from crowd.models import ItemDone

    done = ItemDone.objects.filter(item_id=hit.item_id).values_list("count", flat=True).first()
    return done or 0  # no row: nothing done yet


FORGED_STORY = BIRDS_STORY.replace("spicy noodles", "cold soup")


def test_a_forged_answer_under_a_workers_id_leaves_them_the_task_and_counts_for_nothing(
    hit, standin
):
    from datetime import timedelta

    from django.utils import timezone

    from crowd.assignments import item_slot_free, worker_load
    from crowd.models import OpenItem
    from crowd.review import unvouched_release
    from mturk.sync import batch_sync

    # Anyone who reads the HIT id in a preview URL and knows a worker's id can do this.
    forged = _stored(hit, standin, "A1REAL", "FORGEDASSIGNMENT1", FORGED_STORY)
    assert forged.status == "unconfirmed"
    assert _done(hit) == 0 and OpenItem.objects.get(item_id=hit.item_id).held == 0
    assert worker_load(batch=hit.batch, worker=forged.worker) == 0
    assert item_slot_free(item_id=hit.item_id, now=timezone.now())

    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1REAL")
    real = _stored(hit, standin, "A1REAL", remote["AssignmentId"])  # not "no tasks left"
    standin.state.submit(assignment_id=remote["AssignmentId"], answers={"parableAnswer": "1"})
    batch_sync(batch=hit.batch)
    real.refresh_from_db()
    forged.refresh_from_db()
    assert real.status == "submitted" and real.worker.external_id == "A1REAL"
    assert real.mturk_assignment.assignment_id == remote["AssignmentId"]
    assert real.narrative.worker == real.worker
    assert forged.status == "unconfirmed" and forged.worker.external_id != "A1REAL"
    assert forged.narrative.worker == forged.worker  # its text went aside with it
    assert _done(hit) == 1  # the real answer only
    later = timezone.now() + timedelta(seconds=hit.batch.time_allowed_seconds, hours=1)
    assert unvouched_release(batch=hit.batch, now=later) == 1
    forged.refresh_from_db()
    assert forged.status == "rejected" and not forged.bonuses.exists()
    assert _done(hit) == 1


def test_a_forged_claim_arriving_later_cannot_take_a_workers_answer(hit, standin):
    from mturk.sync import batch_sync

    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1REAL")
    working = _config(_open(hit, standin, "A1REAL", remote["AssignmentId"]))
    forged = _stored(hit, standin, "A1REAL", "FORGEDASSIGNMENT2", FORGED_STORY)
    assert _submit(working).status_code == 200  # the real worker's page still stores
    standin.state.submit(assignment_id=remote["AssignmentId"], answers={"parableAnswer": "1"})
    batch_sync(batch=hit.batch)
    real = Assignment.objects.select_related("worker").get(pk=working["assignment"])
    assert real.status == "submitted" and real.worker.external_id == "A1REAL"
    assert real.narrative.text == BIRDS_STORY and real.narrative.worker == real.worker
    forged.refresh_from_db()
    assert forged.status == "unconfirmed" and forged.worker.external_id != "A1REAL"
    assert _done(hit) == 1


def test_forged_answers_count_against_no_cap(standin):
    batch = mturk_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create()], target_per_item=2, per_worker_cap=1
    )
    first, second = HIT.objects.filter(batch=batch).order_by("item__position")
    _stored(first, standin, "A1REAL", "FORGEDASSIGNMENT3", FORGED_STORY)
    remote = standin.state.accept(hit_id=second.hit_id, worker_id="A1REAL")
    page = _open(second, standin, "A1REAL", remote["AssignmentId"]).content.decode()
    assert "limit" not in page and 'id="task-config"' in page


def test_a_worker_mturk_vouches_for_is_not_served_the_item_again_under_another_id(hit, standin):
    from mturk.sync import batch_sync

    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1REAL")
    _stored(hit, standin, "A1REAL", remote["AssignmentId"])
    standin.state.submit(assignment_id=remote["AssignmentId"], answers={"parableAnswer": "1"})
    batch_sync(batch=hit.batch)
    page = _open(hit, standin, "A1REAL", "FORGEDASSIGNMENT4")
    assert page.status_code == 400 and "already done this task" in page.content.decode()
    assert Assignment.objects.filter(item=hit.item).count() == 1


def test_blocking_a_set_aside_claim_never_blocks_the_worker_on_mturk(hit, standin):
    from crowd.models import ProviderAction
    from crowd.review import ReviewError, worker_block

    forged = _stored(hit, standin, "A1REAL", "FORGEDASSIGNMENT5", FORGED_STORY)
    remote = standin.state.accept(hit_id=hit.hit_id, worker_id="A1REAL")
    _open(hit, standin, "A1REAL", remote["AssignmentId"])  # sets the forged answer aside
    forged.refresh_from_db()
    assert forged.worker.external_id.startswith("A1REAL/")
    with pytest.raises(ReviewError, match="claim MTurk has not vouched for"):
        worker_block(worker=forged.worker, reason="Spam")
    forged.worker.refresh_from_db()
    assert not forged.worker.blocked and not ProviderAction.objects.exists()
    assert standin.state.blocks == {}
