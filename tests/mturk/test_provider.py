"""The MTurk provider through real boto3 against the stand-in: publish, sync, review, pay."""

import pytest

from crowd.models import Assignment, ProviderAction, Worker
from crowd.review import ReviewError, assignment_approve, assignment_bonus, assignment_reject
from mturk.entry import mturk_task_open
from mturk.models import HIT, MTurkAssignment
from mturk.standin import RequestError
from mturk.sync import batch_sync
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    mturk_batch_create,
    proverb_create,
    provider_calls_send,
)

pytestmark = pytest.mark.django_db


def _work(standin, hit: HIT, worker_id: str, *, submit: bool = True) -> Assignment:
    """A worker accepts the HIT on the stand-in, stores an answer here, submits to MTurk."""
    from crowd.assignments import assignment_submit

    remote = standin.state.accept(hit_id=hit.hit_id, worker_id=worker_id)
    answer = mturk_task_open(
        item=hit.item,
        assignment_id=remote["AssignmentId"],
        hit_id=hit.hit_id,
        worker_id=worker_id,
    )
    assignment_submit(assignment=answer, payload={"text": BIRDS_STORY})
    if submit:
        standin.state.submit(assignment_id=remote["AssignmentId"], answers={"done": "1"})
    return Assignment.objects.get(pk=answer.pk)


def test_publish_creates_one_hit_per_item_with_the_target_as_max_assignments(standin):
    batch = mturk_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create()], target_per_item=3
    )
    hits = list(HIT.objects.filter(batch=batch))
    assert len(hits) == 2
    assert {hit.max_assignments for hit in hits} == {3}
    remote = standin.state.hits[hits[0].hit_id]
    assert remote["ExternalURL"].endswith(f"/mturk/items/{hits[0].item_id}/")
    assert remote["Reward"] == "0.50"


def test_synced_answer_is_linked_approved_and_paid_once(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    hit = HIT.objects.get(batch=batch)
    answer = _work(standin, hit, "A1WORKER")
    assert batch_sync(batch=batch) == 1
    remote = MTurkAssignment.objects.get()
    assert remote.answer_id == answer.pk and remote.status == "Submitted"
    assignment_approve(assignment=answer, message="Lovely story")
    assert standin.state.calls.count("ApproveAssignment") == 0  # sent once the review commits
    assert provider_calls_send() == ["done"]
    stored = standin.state.assignments[remote.assignment_id]
    assert stored["AssignmentStatus"] == "Approved"
    assert stored["RequesterFeedback"] == "Lovely story"
    answer.refresh_from_db()
    assignment_bonus(assignment=answer, cents=25, reason="Great work")
    assert provider_calls_send() == ["done"]
    assert provider_calls_send() == []
    assert [b["BonusAmount"] for b in standin.state.bonuses] == ["0.25"]
    bonus_call = ProviderAction.objects.get(kind="bonus")
    assert bonus_call.bonus.cents == 25 and bonus_call.reference == remote.assignment_id


def test_forged_worker_id_is_never_linked_approved_or_paid(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    hit = HIT.objects.get(batch=batch)
    real = standin.state.accept(hit_id=hit.hit_id, worker_id="A1REAL")
    forged = mturk_task_open(
        item=hit.item, assignment_id=real["AssignmentId"], hit_id=hit.hit_id, worker_id="AFORGED"
    )
    from crowd.assignments import assignment_submit

    assignment_submit(assignment=forged, payload={"text": BIRDS_STORY})
    standin.state.submit(assignment_id=real["AssignmentId"], answers={"done": "1"})
    batch_sync(batch=batch)
    assert MTurkAssignment.objects.get().answer is None
    with pytest.raises(ReviewError, match="mturk has no record confirming"):
        assignment_approve(assignment=forged)
    assert Assignment.objects.get(pk=forged.pk).status == "unconfirmed"
    assert standin.state.assignments[real["AssignmentId"]]["AssignmentStatus"] == "Submitted"
    assert standin.state.bonuses == [] and not ProviderAction.objects.exists()


def test_answer_mturk_never_vouches_for_is_rejected_here_once_its_time_is_over(standin):
    from datetime import timedelta

    from crowd.assignments import assignment_submit

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    hit = HIT.objects.get(batch=batch)
    forged = mturk_task_open(
        item=hit.item, assignment_id="NOSUCHASSIGNMENT", hit_id=hit.hit_id, worker_id="AFORGED"
    )
    assignment_submit(assignment=forged, payload={"text": BIRDS_STORY})
    batch_sync(batch=batch)
    assert Assignment.objects.get(pk=forged.pk).status == "unconfirmed"  # may still arrive
    Assignment.objects.filter(pk=forged.pk).update(
        started_at=forged.started_at - timedelta(seconds=batch.time_allowed_seconds + 3600)
    )
    batch_sync(batch=batch)
    rejected = Assignment.objects.get(pk=forged.pk)
    assert rejected.status == "rejected" and "not counted or paid" in rejected.review_message
    assert standin.state.calls.count("RejectAssignment") == 0


def test_retried_publish_creates_no_hit_twice(standin):
    from crowd.batches import batch_publish
    from mturk.publishing import hits_create

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    first = HIT.objects.get(batch=batch)
    # As after a publish whose database transaction failed once MTurk had the HIT.
    HIT.objects.all().delete()
    hits_create(batch=batch)
    assert list(standin.state.hits) == [first.hit_id]
    assert HIT.objects.get().hit_id == first.hit_id
    assert batch_publish(batch=batch).status == "published"


def test_a_bonus_whose_answer_is_lost_is_retried_with_its_token_and_pays_once(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    assignment_approve(assignment=answer)
    provider_calls_send()
    # MTurk pays, then answers with a fault: boto3 retries the same request, token and all.
    standin.state.fail_next("SendBonus", "ServiceFault", after=True)
    assignment_bonus(assignment=answer, cents=30, reason="Thanks")
    assert provider_calls_send() == ["done"]
    assert standin.state.calls.count("SendBonus") == 2
    assert len(standin.state.bonuses) == 1
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 30


def test_throttled_calls_are_retried_until_they_succeed(standin):
    standin.state.fail_next("CreateHITWithHITType", "ThrottlingException", times=2)
    standin.state.fail_next("GetHIT", "ServiceFault", times=1)
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    assert HIT.objects.filter(batch=batch).count() == 1
    assert batch_sync(batch=batch) == 0
    assert standin.state.calls.count("CreateHITWithHITType") == 3


def test_more_than_a_hundred_assignments_on_one_hit_are_all_synced(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=130)
    hit = HIT.objects.get(batch=batch)
    for number in range(130):
        remote = standin.state.accept(hit_id=hit.hit_id, worker_id=f"AW{number:04d}")
        standin.state.submit(assignment_id=remote["AssignmentId"], answers={"done": "1"})
    assert batch_sync(batch=batch) == 130
    assert MTurkAssignment.objects.filter(hit=hit).count() == 130
    assert standin.state.calls.count("ListAssignmentsForHIT") == 2
    assert batch_sync(batch=batch) == 0


def test_reject_needs_feedback_and_rejects_on_mturk(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    assignment_reject(assignment=answer, message="Off topic")
    assert provider_calls_send() == ["done"]
    remote = MTurkAssignment.objects.get()
    assert standin.state.assignments[remote.assignment_id]["AssignmentStatus"] == "Rejected"
    assert remote.status == "Rejected"


def test_hit_type_carries_the_qualification_requirements(standin):
    from crowd.batches import batch_publish
    from mturk.publishing import publication_set

    blocked = Worker.objects.create(
        provider="mturk", external_id="ABLOCKED", blocked=True, blocked_reason="Spam"
    )
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], publish=False)
    publication_set(
        batch=batch,
        title="Write a story",
        description="Write a story for a proverb.",
        locales="US, gb",
        min_approval_rate=95,
        min_approved_hits=500,
        test_xml="<QuestionForm>…</QuestionForm>",
        answer_key_xml="<AnswerKey>…</AnswerKey>",
        test_min_score=80,
    )
    batch_publish(batch=batch)
    hit_type = next(iter(standin.state.hit_types.values()))
    requirements = {r["QualificationTypeId"]: r for r in hit_type["QualificationRequirements"]}
    assert requirements["00000000000000000071"]["LocaleValues"] == [
        {"Country": "US"},
        {"Country": "GB"},
    ]
    assert requirements["000000000000000000L0"]["IntegerValues"] == [95]
    assert requirements["00000000000000000040"]["IntegerValues"] == [500]
    test = next(q for q in standin.state.qualification_types.values() if q["Test"])
    assert test["AnswerKey"] == "<AnswerKey>…</AnswerKey>"
    assert requirements[test["QualificationTypeId"]]["IntegerValues"] == [80]
    exclusion = next(r for r in requirements.values() if r["Comparator"] == "DoesNotExist")[
        "QualificationTypeId"
    ]
    assert standin.state.qualification_scores == {(exclusion, blocked.external_id): 1}
    hit = HIT.objects.get(batch=batch)
    with pytest.raises(RequestError, match="does not meet"):
        standin.state.accept(hit_id=hit.hit_id, worker_id=blocked.external_id)


def test_worker_at_the_cap_gets_the_exclusion_qualification(standin):
    batch = mturk_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create()], target_per_item=2, per_worker_cap=1
    )
    first, second = HIT.objects.filter(batch=batch).order_by("item__position")
    _work(standin, first, "A1WORKER")
    batch_sync(batch=batch)
    with pytest.raises(RequestError, match="does not meet"):
        standin.state.accept(hit_id=second.hit_id, worker_id="A1WORKER")
    standin.state.accept(hit_id=second.hit_id, worker_id="A2OTHER")


def test_auto_approval_on_mturk_is_mirrored_into_review(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    remote = next(iter(standin.state.assignments.values()))
    remote["AutoApprovalTime"] = remote["SubmitTime"]  # the delay has passed
    batch_sync(batch=batch)
    assert Assignment.objects.get(pk=answer.pk).status == "approved"
    assert MTurkAssignment.objects.get().status == "Approved"


def test_a_message_is_one_call_per_worker_and_mturks_refusals_are_kept(standin):
    from crowd.review import workers_notify

    workers = [
        Worker.objects.create(provider="mturk", external_id=f"AW{number:04d}")
        for number in range(5)
    ]
    standin.state.workers_seen.update(w.external_id for w in workers)
    standin.state.workers_seen -= {"AW0003"}  # never worked for this requester
    assert workers_notify(workers=workers, subject="New HITs", message="More") == 5
    assert standin.state.notifications == []  # sent once the decision commits
    assert provider_calls_send() == ["done", "done", "done", "refused", "done"]
    assert [sent["WorkerIds"] for sent in standin.state.notifications if sent["WorkerIds"]] == [
        ["AW0000"],
        ["AW0001"],
        ["AW0002"],
        ["AW0004"],
    ]
    refused = ProviderAction.objects.get(status="refused")
    assert refused.worker.external_id == "AW0003"
    assert "could not notify AW0003" in refused.note


def test_approving_a_rejection_past_the_30_day_override_window_is_refused_at_once(standin):
    from datetime import timedelta

    from django.utils import timezone

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    assignment_reject(assignment=answer, message="Off topic")
    provider_calls_send()
    remote = MTurkAssignment.objects.get()
    old = timezone.now() - timedelta(days=31)
    standin.state.assignments[remote.assignment_id]["SubmitTime"] = old
    MTurkAssignment.objects.filter(pk=remote.pk).update(submitted_at=old)
    standin.state.calls.clear()
    with pytest.raises(ReviewError, match="only within 30 days of submission"):
        assignment_approve(assignment=answer)
    assert "ApproveAssignment" not in standin.state.calls
    assert Assignment.objects.get(pk=answer.pk).status == "rejected"


def test_extend_moves_the_expiry_on_mturk(standin):
    from mturk.hits import hit_extend

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    hit = HIT.objects.get(batch=batch)
    extended = hit_extend(hit=hit, seconds=3 * 24 * 3600)
    remote = standin.state.hits[hit.hit_id]["Expiration"]
    assert abs((remote - extended.expires_at).total_seconds()) < 1
    assert extended.expires_at > hit.expires_at


def test_beat_task_syncs_every_published_mturk_batch(standin):
    from mturk.tasks import hits_sync_task

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    assert hits_sync_task.delay().get() == 1
    assert hits_sync_task.delay(batch.pk).get() == 0
    assert MTurkAssignment.objects.get().answer is not None


def test_api_refuses_to_approve_a_narrative_mturk_does_not_vouch_for(standin, researcher_api):
    from annotation.models import Narrative

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER", submit=False)
    narrative = Narrative.objects.get(assignment=answer)
    response = researcher_api.post(f"/api/narratives/{narrative.pk}/approve/")
    assert response.status_code == 409
    assert "mturk has no record confirming" in response.json()["detail"]
    assert Narrative.objects.get(pk=narrative.pk).status == "submitted"


def test_mturk_is_off_until_an_endpoint_is_set(settings):
    from crowd.providers import ProviderError
    from mturk import client

    settings.MTURK_ENDPOINT = ""
    with pytest.raises(ProviderError, match="MTurk is off: MTURK_ENDPOINT is not set"):
        client.call("get_account_balance")


def test_a_bonus_mturk_refuses_is_taken_back_and_can_be_sent_again(standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    assignment_approve(assignment=answer)
    provider_calls_send()
    standin.state.fail_next("SendBonus", "RequestError")
    assignment_bonus(assignment=answer, cents=40, reason="Thanks")
    assert provider_calls_send() == ["refused"]
    assert "SendBonus was refused" in ProviderAction.objects.get(kind="bonus").note
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 0
    assert not answer.bonuses.exists() and standin.state.bonuses == []
    assignment_bonus(assignment=answer, cents=40, reason="Thanks")  # not "paid before"
    assert provider_calls_send() == ["done"]
    assert [b["BonusAmount"] for b in standin.state.bonuses] == ["0.40"]
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 40


def test_a_bonus_left_unknown_is_settled_from_mturks_list_a_day_later_not_sent_again(
    standin, settings
):
    from crowd.outbox import provider_action_reconcile

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    assignment_approve(assignment=answer)
    provider_calls_send()
    settings.MTURK_MAX_ATTEMPTS = 0  # botocore retries none: the fault is the last word
    standin.state.fail_next("SendBonus", "ServiceFault", after=True)  # paid, then a fault
    assignment_bonus(assignment=answer, cents=30, reason="Thanks")
    assert provider_calls_send() == ["unknown"]
    standin.state.tokens_expire()  # a repeat would pay again now
    bonus = ProviderAction.objects.get(kind="bonus")
    assert provider_action_reconcile(action_id=bonus.pk) == "done"
    assert standin.state.calls.count("SendBonus") == 1
    assert [b["BonusAmount"] for b in standin.state.bonuses] == ["0.30"]
