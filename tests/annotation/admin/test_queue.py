"""The review queue's pages: next submission as JSON, decisions through the review services."""

import pytest

from annotation.models import Narrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, SavedReviewMessage
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    worker_create,
    write_batch_create,
    writing_record,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=5)


def submit(batch, text=BIRDS_STORY, worker=None):
    assignment = assignment_reserve_next(batch=batch, worker=worker or worker_create())
    payload = {"text": text, "telemetry": writing_record()}  # typed in the page: no flag
    return assignment_submit(assignment=assignment, payload=payload).assignment


def next_of(client, batch, skip=""):
    return client.get(f"/admin/review/{batch.pk}/next/", {"skip": skip}).json()


def decide(client, assignment, decision, message=""):
    url = f"/admin/review/{assignment.item.batch_id}/{assignment.pk}/decide/"
    return client.post(url, {"decision": decision, "message": message})


def test_next_gives_the_oldest_submission_with_its_display_and_figures(client, reviewer, batch):
    first, second = submit(batch), submit(batch)
    client.force_login(reviewer)
    data = next_of(client, batch)
    assert data["counts"] == {"awaiting": 2, "approved": 0, "rejected": 0}
    submission = data["submission"]
    assert submission["assignment"] == first.pk
    assert submission["display"]["proverb"] == BIRDS
    assert "".join(piece["text"] for piece in submission["display"]["pieces"]) == BIRDS_STORY
    assert submission["display"]["word_count"] == 30
    assert submission["worker"]["approval_rate"] is None
    assert next_of(client, batch, skip=str(first.pk))["submission"]["assignment"] == second.pk


def test_next_is_null_when_nothing_awaits_review(client, reviewer, batch):
    client.force_login(reviewer)
    assert next_of(client, batch)["submission"] is None


def test_approve_then_the_next_one_comes(client, reviewer, batch):
    first, second = submit(batch), submit(batch)
    client.force_login(reviewer)
    assert decide(client, first, "approve").json()["done"] == "Approved."
    first.refresh_from_db()
    assert first.status == Assignment.Status.APPROVED
    assert next_of(client, batch)["submission"]["assignment"] == second.pk


def test_reject_needs_a_message_and_stores_it(client, reviewer, batch):
    assignment = submit(batch)
    client.force_login(reviewer)
    refused = decide(client, assignment, "reject")
    assert refused.status_code == 409
    assert "needs a message" in refused.json()["error"]
    decide(client, assignment, "reject", "Too close to the proverb.")
    narrative = Narrative.objects.get(assignment=assignment)
    assert (narrative.status, narrative.review_message) == ("rejected", "Too close to the proverb.")


def test_block_rejects_the_submission_and_blocks_the_worker(client, reviewer, batch):
    assignment = submit(batch)
    client.force_login(reviewer)
    assert decide(client, assignment, "block").status_code == 409
    decide(client, assignment, "block", "Spam.")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.REJECTED
    assert assignment.worker.blocked


def test_flags_name_a_blocked_worker(client, reviewer, batch):
    assignment = submit(batch)
    client.force_login(reviewer)
    assert next_of(client, batch)["submission"]["flags"] == []
    assignment.worker.blocked, assignment.worker.blocked_reason = True, "Spam."
    assignment.worker.save()
    assert [flag["code"] for flag in next_of(client, batch)["submission"]["flags"]] == ["blocked"]


def test_queue_page_offers_saved_messages_escaped(client, reviewer, batch):
    SavedReviewMessage.objects.create(text="<b>Too short</b>", position=0)
    client.force_login(reviewer)
    page = client.get(f"/admin/review/{batch.pk}/").content.decode()
    assert "&lt;b&gt;Too short&lt;/b&gt;" in page
    assert "review_queue.js" in page


def test_bonus_dialog_offers_the_batchs_bonus_reasons_not_rejection_messages(
    client, reviewer, batch
):
    from crowd.review import assignment_approve, assignment_bonus

    SavedReviewMessage.objects.create(text="Off topic: please reread the proverb.", position=0)
    earlier = assignment_approve(assignment=submit(batch))
    assignment_bonus(assignment=earlier, cents=20, reason="An <em>unusual</em> angle")
    client.force_login(reviewer)
    page = client.get(f"/admin/review/{batch.pk}/").content.decode()
    rejections = page.split('data-testid="saved-rejections"')[1].split("</ol>")[0]
    bonuses = page.split('data-testid="bonus-reasons"')[1].split("</ol>")[0]
    assert "Off topic" in rejections and "Off topic" not in bonuses
    assert "An &lt;em&gt;unusual&lt;/em&gt; angle" in bonuses and "unusual" not in rejections


def test_queue_needs_the_review_permission(client, worker_user, django_user_model, batch):
    assignment = submit(batch)
    staff = django_user_model.objects.create_user(username="staff", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get(f"/admin/review/{batch.pk}/next/").status_code == 403
    assert decide(client, assignment, "approve").status_code == 403
    client.force_login(worker_user)
    assert client.get(f"/admin/review/{batch.pk}/next/").status_code == 302
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED


def test_a_decision_on_another_batch_s_submission_is_not_found(client, reviewer, batch):
    assignment = submit(batch)
    other = write_batch_create(proverbs=[proverb_create("Haste makes waste")])
    client.force_login(reviewer)
    response = client.post(
        f"/admin/review/{other.pk}/{assignment.pk}/decide/", {"decision": "approve"}
    )
    assert response.status_code == 404


def test_index_lists_batches_with_awaiting_counts(client, reviewer, batch):
    submit(batch)
    client.force_login(reviewer)
    page = client.get("/admin/review/").content.decode()
    assert f'data-batch="{batch.pk}"' in page
    assert f"/admin/review/{batch.pk}/" in page


def test_queue_page_draws_the_batchs_flags_over_its_submissions(client, reviewer, batch):
    submit(batch)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    payload = {"text": BIRDS_STORY, "telemetry": writing_record(typed=0, pasted=300)}
    assignment_submit(assignment=assignment, payload=payload)
    client.force_login(reviewer)
    page = client.get(f"/admin/review/{batch.pk}/").content.decode()
    assert 'data-testid="drift"' in page
    assert "<svg" in page and "<th>Pasted from outside</th>" in page
    assert "<td>100%</td>" in page


def test_bonus_key_approves_and_pays_a_lab_worker_once(client, reviewer, batch, settings):
    settings.PARABLE_LAB_CURRENCY = "EUR"
    client.force_login(reviewer)
    assignment = submit(batch)
    page = client.get(f"/admin/review/{batch.pk}/").content.decode()
    assert "Bonus (EUR), an amount like 0.25 (not cents)" in page
    url = f"/admin/review/{batch.pk}/{assignment.pk}/decide/"
    form = {"decision": "bonus", "message": "A vivid story", "amount": "0.75"}
    assert client.post(url, {**form, "amount": ""}).status_code == 409  # an amount is needed
    in_cents = client.post(url, {**form, "amount": "75"})  # cents typed as an amount
    assert in_cents.status_code == 400
    assert (
        "at most 20.00. Amounts are typed in the currency, not in cents: 75 cents would be 0.75"
        in (in_cents.json()["error"])
    )
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SUBMITTED
    done = client.post(url, form).json()["done"]
    # A lab worker's bonus is recorded for the lab to pay, as the payments report says.
    assert done.startswith("Approved; bonus of 0.75 EUR for ")
    assert "recorded for the lab to pay (Parable pays lab workers nothing)" in done
    again = client.post(url, form)
    assert again.status_code == 409
    assert f"Assignment {assignment.pk} already has this bonus of 0.75 EUR" in again.json()["error"]
    assert "now recorded for the lab to pay" in again.json()["error"]
    paid = Assignment.objects.get(pk=assignment.pk)
    assert (paid.status, paid.bonus_cents) == (Assignment.Status.APPROVED, 75)


def test_exclude_key_pays_but_keeps_the_story_out(client, reviewer, batch):
    client.force_login(reviewer)
    assignment = submit(batch)
    assert decide(client, assignment, "exclude").status_code == 409  # a reason is needed
    decide(client, assignment, "exclude", "Reads like a paraphrase of another story.")
    excluded = Assignment.objects.get(pk=assignment.pk)
    assert excluded.status == Assignment.Status.EXCLUDED
    assert Narrative.objects.get(assignment=assignment).status != Narrative.Status.APPROVED
