"""The MTurk admin: the batch page's actions and warnings, the results upload, and who may
do what."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from crowd.models import Assignment, ProviderAction, Worker
from mturk.models import HIT, MTurkAssignment
from mturk.sync import batch_sync
from tests.factories import BIRDS, mturk_batch_create, proverb_create, provider_calls_send
from tests.mturk.test_provider import _work

pytestmark = pytest.mark.django_db

RESULTS = Path(__file__).parents[1] / "fixtures" / "mturk" / "batch_results_write.csv"


def _page(batch) -> str:
    return f"/admin/mturk/publication/batch/{batch.pk}/"


def test_publish_on_the_batch_page_creates_one_hit_per_item(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(), proverb_create()], publish=False)
    client.force_login(researcher)
    response = client.post(_page(batch), {"action": "publish"}, follow=True)
    assert "published on MTurk" in response.content.decode()
    assert len(standin.state.hits) == 2
    batch.refresh_from_db()
    assert batch.status == "published"


def test_reviewer_sees_the_batch_but_cannot_publish_or_expire(client, reviewer, standin):
    batch = mturk_batch_create(proverbs=[proverb_create()], target_per_item=2)
    client.force_login(reviewer)
    assert client.get(_page(batch)).status_code == 200
    hit = HIT.objects.get()
    assert client.post(_page(batch), {"action": "expire", "hit": hit.pk}).status_code == 403
    assert standin.state.hits[hit.hit_id]["HITStatus"] == "Assignable"
    draft = mturk_batch_create(proverbs=[proverb_create()], publish=False)
    assert client.post(_page(draft), {"action": "publish"}).status_code == 403
    assert list(standin.state.hits) == [hit.hit_id]


def test_an_unknown_action_needs_the_change_permission_and_does_nothing(
    client, reviewer, researcher, standin
):
    batch = mturk_batch_create(proverbs=[proverb_create()], target_per_item=2)
    client.force_login(reviewer)
    assert client.post(_page(batch), {"action": "sync_all"}).status_code == 403
    client.force_login(researcher)
    shown = client.post(_page(batch), {"action": "sync_all"}, follow=True).content.decode()
    assert "Unknown action." in shown


def test_anonymous_visitor_is_sent_to_login(client, standin):
    batch = mturk_batch_create(proverbs=[proverb_create()], target_per_item=2)
    response = client.get(_page(batch))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_reject_block_unblock_refill_and_expire_from_the_batch_page(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    hit = HIT.objects.get()
    answer = _work(standin, hit, "A1WORKER")
    client.force_login(researcher)
    client.post(_page(batch), {"action": "sync"})
    client.post(_page(batch), {"action": "reject", "answer": answer.pk, "feedback": ""})
    assert Assignment.objects.get(pk=answer.pk).status == "submitted"  # feedback required
    client.post(_page(batch), {"action": "reject", "answer": answer.pk, "feedback": "Off topic"})
    provider_calls_send()  # as once the review has committed
    assert MTurkAssignment.objects.get().status == "Rejected"
    worker = Worker.objects.get(external_id="A1WORKER")
    client.post(_page(batch), {"action": "block", "worker": worker.pk, "reason": "Spam"})
    provider_calls_send()
    assert standin.state.blocks == {"A1WORKER": "Spam"}
    client.post(_page(batch), {"action": "unblock", "worker": worker.pk})
    provider_calls_send()
    assert standin.state.blocks == {}
    client.post(_page(batch), {"action": "add", "hit": hit.pk, "count": "1"})
    assert standin.state.hits[hit.hit_id]["MaxAssignments"] == 3
    response = client.post(
        _page(batch), {"action": "add", "hit": hit.pk, "count": "7"}, follow=True
    )
    assert "fewer than 10" in response.content.decode()
    assert standin.state.hits[hit.hit_id]["MaxAssignments"] == 3
    client.post(_page(batch), {"action": "expire", "hit": hit.pk})
    standin_hit = standin.state.hits[hit.hit_id]
    assert standin_hit["Expiration"] <= timezone.now()
    page = client.get(_page(batch)).content.decode()
    assert "(expired)" in page and "Rejected" in page


def test_page_warns_of_work_that_auto_approves_within_a_day(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    _work(standin, HIT.objects.get(), "A1WORKER")
    batch_sync(batch=batch)
    client.force_login(researcher)
    assert 'data-testid="auto-approval-warning"' not in client.get(_page(batch)).content.decode()
    MTurkAssignment.objects.update(auto_approval_at=timezone.now() + timedelta(hours=3))
    page = client.get(_page(batch)).content.decode()
    assert 'data-testid="auto-approval-warning"' in page
    due = MTurkAssignment.objects.get().auto_approval_at
    assert f'data-testid="next-auto-approval">{due:%Y-%m-%d %H:%M} UTC' in page


def test_page_flags_an_answer_no_mturk_assignment_vouches_for(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    _work(standin, HIT.objects.get(), "A1WORKER", submit=False)
    batch_sync(batch=batch)
    client.force_login(researcher)
    page = client.get(_page(batch)).content.decode()
    assert 'data-testid="unmatched"' in page and "A1WORKER" in page
    answer = Assignment.objects.get(worker__external_id="A1WORKER")
    assert answer.status == "unconfirmed" and "Reject here (frees the slot)" in page
    client.post(
        _page(batch),
        {"action": "reject", "answer": answer.pk, "feedback": "No MTurk assignment matches."},
    )
    answer.refresh_from_db()
    assert answer.status == "rejected"
    provider_calls_send()
    assert "RejectAssignment" not in standin.state.calls  # MTurk has nothing to reject
    assert "Reject here" not in client.get(_page(batch)).content.decode()


def test_double_sent_bonus_form_pays_once(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(), "A1WORKER")
    client.force_login(researcher)
    client.post(_page(batch), {"action": "sync"})
    client.post(_page(batch), {"action": "approve", "answer": answer.pk})
    form = {
        "action": "bonus",
        "answer": answer.pk,
        "amount": "0.40",
        "reason": "Great",
    }
    in_cents = client.post(_page(batch), {**form, "amount": "40"}, follow=True)
    assert "not in cents: 40 cents would be 0.40" in in_cents.content.decode()
    client.post(_page(batch), form)
    response = client.post(_page(batch), form, follow=True)
    assert "already has this bonus of 0.40 USD" in response.content.decode()
    assert "it is paid once" in response.content.decode()
    assert provider_calls_send() == ["done", "done"]  # the approval, the one bonus
    assert len(standin.state.bonuses) == 1
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 40


def _results_upload(client, upload):
    return client.post(
        "/admin/mturk/publication/import-results/",
        {
            "file": upload,
            "batch_type": "write",
            "mapping": "proverb=Input.proverb,narrative=Answer.story",
        },
    )


def test_results_upload_reports_bad_lines(client, researcher, standin):
    client.force_login(researcher)
    with RESULTS.open("rb") as upload:
        response = _results_upload(client, upload)
    page = response.content.decode()
    assert 'data-testid="created">3<' in page
    assert "line 5:" in page and "line 8:" in page
    assert Assignment.objects.filter(worker__provider="mturk").count() == 3


def test_results_upload_over_the_import_limit_is_refused_whole(
    client, researcher, standin, settings
):
    settings.PARABLE_IMPORT_MAX_BYTES = RESULTS.stat().st_size - 1
    client.force_login(researcher)
    with RESULTS.open("rb") as upload:
        response = _results_upload(client, upload)
    page = response.content.decode()
    assert "the import limit (PARABLE_IMPORT_MAX_BYTES); nothing was imported" in page
    assert not Assignment.objects.filter(worker__provider="mturk").exists()


def test_researcher_sets_up_a_draft_batch_for_mturk_in_the_admin(client, researcher, standin):
    from crowd.batches import batch_create

    batch = batch_create(name="Stories", task_type="write", items=[{"proverb": proverb_create()}])
    client.force_login(researcher)
    response = client.post(
        "/admin/mturk/publication/add/",
        {
            "batch": batch.pk,
            "title": "Write a story",
            "description": "Write a short story for a proverb.",
            "keywords": "story",
            "auto_approval_delay_seconds": 4320,  # minutes in the form
            "lifetime_seconds": 10080,
            "locales": "US",
            "min_approval_rate": 95,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == _page(batch)
    batch.refresh_from_db()
    assert batch.provider == "mturk" and batch.mturk.min_approval_rate == 95
    assert (batch.mturk.auto_approval_delay_seconds, batch.mturk.lifetime_seconds) == (
        259200,
        604800,
    )
    form = client.get(f"/admin/mturk/publication/{batch.mturk.pk}/change/").content.decode()
    assert "Auto-approval delay (minutes)" in form
    page = client.get(_page(batch)).content.decode()
    assert 'data-testid="publish"' in page


def test_hits_assignments_and_calls_are_listed_read_only(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(), "A1WORKER")
    batch_sync(batch=batch)
    from crowd.review import assignment_approve, assignment_bonus

    assignment_approve(assignment=answer)
    assignment_bonus(assignment=answer, cents=10, reason="Thanks")
    provider_calls_send()
    client.force_login(researcher)
    for model in ("mturk/hit", "mturk/mturkassignment", "crowd/provideraction"):
        page = client.get(f"/admin/{model}/")
        assert page.status_code == 200
        assert f"/admin/{model}/add/" not in page.content.decode()
    calls = client.get("/admin/crowd/provideraction/?provider=mturk").content.decode()
    assert calls.count('<td class="field-status">Done</td>') == 2 and "Pay a bonus" in calls
    settings_page = client.get(f"/admin/mturk/publication/{batch.mturk.pk}/change/")
    assert settings_page.status_code == 200
    assert 'name="title"' not in settings_page.content.decode()  # read only once published


def test_a_block_mturk_refuses_is_kept_on_its_call_and_the_worker_stays_blocked_here(
    client, researcher, standin
):
    from annotation.models import Narrative

    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    standin.state.fail_next("CreateWorkerBlock", "RequestError")
    client.force_login(researcher)
    response = client.post(
        "/admin/annotation/narrative/",
        {
            "action": "block_workers",
            "_selected_action": [Narrative.objects.get(assignment=answer).pk],
            "reason": "Spam",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert "1 worker(s) blocked." in response.content.decode()
    assert provider_calls_send() == ["refused"]
    assert "CreateWorkerBlock was refused" in ProviderAction.objects.get(kind="block").note
    calls = client.get("/admin/crowd/provideraction/?status=refused").content.decode()
    assert "CreateWorkerBlock was refused" in calls
    assert Worker.objects.get(external_id="A1WORKER").blocked  # Parable serves them nothing
    assert standin.state.blocks == {}


def test_results_upload_with_a_field_over_the_csv_limit_names_its_line_and_column(
    client, researcher, standin
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    rows = RESULTS.read_text(encoding="utf-8").splitlines(keepends=True)
    rows.insert(2, f'3HIT9,T1,3ASG9,A5FRED,Approved,,,60,Time is money,"{"x" * 140_000}",\r\n')
    client.force_login(researcher)
    response = _results_upload(client, SimpleUploadedFile("results.csv", "".join(rows).encode()))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Nothing was imported: Line 3: field Answer.story is longer than 131,072" in page
    assert not Assignment.objects.filter(worker__provider="mturk").exists()


def test_results_upload_where_every_row_fails_writes_no_batch(client, researcher, standin):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from crowd.models import Batch

    lines = RESULTS.read_text(encoding="utf-8").splitlines(keepends=True)
    failing = "".join([lines[0], *lines[4:7]])  # the header and three broken rows
    client.force_login(researcher)
    response = _results_upload(client, SimpleUploadedFile("failing.csv", failing.encode()))
    page = response.content.decode()
    assert 'data-testid="created">0<' in page and "line 2:" in page
    assert 'data-testid="nothing-written"' in page
    assert not Batch.objects.exists()
    assert not Worker.objects.exists()


def test_extending_a_hit_by_absurd_or_malformed_hours_is_refused_with_a_message(
    client, researcher, standin
):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)])
    hit = HIT.objects.get()
    expiration = standin.state.hits[hit.hit_id]["Expiration"]
    client.force_login(researcher)
    for hours, message in (
        ("99999999999", "at most 8,760 hours"),
        ("9" * 40, "The number of hours must be a whole number."),
        ("2.5", "The number of hours must be a whole number."),
    ):
        response = client.post(
            _page(batch), {"action": "extend", "hit": hit.pk, "hours": hours}, follow=True
        )
        assert response.status_code == 200
        assert message in response.content.decode()
    assert standin.state.hits[hit.hit_id]["Expiration"] == expiration
    client.post(_page(batch), {"action": "extend", "hit": hit.pk, "hours": "8760"})
    assert standin.state.hits[hit.hit_id]["Expiration"] > expiration


def test_admin_names_follow_the_readme(client, researcher):
    client.force_login(researcher)
    index = client.get("/admin/").content.decode()
    assert "MTurk settings" in index and "MTurk assignments" in index and "Bonuss" not in index


def test_a_published_batchs_settings_show_durations_in_minutes(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)])  # 3 days, 7 days by default
    client.force_login(researcher)
    page = client.get(f"/admin/mturk/publication/{batch.mturk.pk}/change/").content.decode()
    assert "Auto-approval delay (minutes)" in page and "HIT lifetime (minutes)" in page
    assert ">4320<" in page.replace(" ", "") and ">10080<" in page.replace(" ", "")
    assert "259200" not in page and "604800" not in page


def test_a_hits_page_shows_its_auto_approval_delay_in_minutes(client, researcher, standin):
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)])
    client.force_login(researcher)
    page = client.get(f"/admin/mturk/hit/{HIT.objects.get(batch=batch).pk}/change/")
    text = page.content.decode()
    assert "Auto-approval delay (minutes)" in text and ">4320<" in text.replace(" ", "")
    assert "259200" not in text
