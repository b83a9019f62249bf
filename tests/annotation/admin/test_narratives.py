"""Narrative review in the admin: the list's figures, approve / reject / block, escaped text."""

import pytest

from annotation.models import Narrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Worker
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    narrative_create,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

HOSTILE = (
    'Tom wrote <script>alert("x")</script> and <img src=x onerror="alert(1)"> and '
    '<a href="javascript:alert(2)">a link</a> into his story about his friends.'
)


def submit(batch, text=BIRDS_STORY, worker=None):
    assignment = assignment_reserve_next(batch=batch, worker=worker or worker_create())
    return assignment_submit(assignment=assignment, payload={"text": text}).assignment


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=3)


def test_list_shows_proverb_word_count_overlap_and_time(client, reviewer, batch):
    submit(batch)
    client.force_login(reviewer)
    page = client.get("/admin/annotation/narrative/").content.decode()
    assert BIRDS in page
    assert "Maya and Leo met at a chess club" in page
    assert '<td class="field-word_count">30</td>' in page
    assert "1/6 · 0/5 · 0/4" in page
    assert 'class="field-time_taken">' in page


def test_batch_filter_keeps_that_batchs_narratives(client, reviewer, batch):
    submit(batch)
    other = write_batch_create(proverbs=[proverb_create("Haste makes waste")])
    narrative_create(proverb=other.items.get().proverb, text="Imported elsewhere.")
    client.force_login(reviewer)
    page = client.get(f"/admin/annotation/narrative/?batch={batch.pk}").content.decode()
    assert "Maya and Leo" in page
    assert "Imported elsewhere." not in page


def test_batch_filter_that_is_not_an_id_is_a_400(client, reviewer, batch):
    client.force_login(reviewer)
    assert client.get("/admin/annotation/narrative/?batch=abc").status_code == 400
    assert client.get("/admin/annotation/spanpair/?batch=abc").status_code == 400


def test_reviewer_approves_selected(client, reviewer, batch, django_capture_on_commit_callbacks):
    assignment = submit(batch)
    narrative = Narrative.objects.get()
    client.force_login(reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/annotation/narrative/",
            {"action": "approve_selected", "_selected_action": [narrative.pk]},
            follow=True,
        )
    assert "1 submission(s) approved." in response.content.decode()
    narrative.refresh_from_db()
    assignment.refresh_from_db()
    assert narrative.status == assignment.status == "approved"
    assert narrative.keywords["verbs"]


def test_reject_asks_for_a_message_then_rejects(client, reviewer, batch):
    submit(batch)
    narrative = Narrative.objects.get()
    client.force_login(reviewer)
    selection = {"action": "reject_selected", "_selected_action": [narrative.pk]}
    asked = client.post("/admin/annotation/narrative/", selection)
    assert 'name="reason"' in asked.content.decode()
    client.post("/admin/annotation/narrative/", {**selection, "reason": "Not a story."})
    narrative.refresh_from_db()
    assert narrative.status == "rejected"
    assert narrative.review_message == "Not a story."
    assert narrative.assignment.status == Assignment.Status.REJECTED


def test_block_worker_action_blocks_the_author(client, reviewer, batch):
    worker = worker_create()
    submit(batch, worker=worker)
    client.force_login(reviewer)
    client.post(
        "/admin/annotation/narrative/",
        {
            "action": "block_workers",
            "_selected_action": [Narrative.objects.get().pk],
            "reason": "Copied from the web.",
        },
    )
    worker = Worker.objects.get(pk=worker.pk)
    assert worker.blocked
    assert worker.blocked_reason == "Copied from the web."


def test_researcher_without_review_rights_sees_no_review_actions(client, django_user_model, batch):
    submit(batch)
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    from django.contrib.auth.models import Permission

    viewer.user_permissions.add(Permission.objects.get(codename="view_narrative"))
    client.force_login(viewer)
    page = client.get("/admin/annotation/narrative/").content.decode()
    assert "approve_selected" not in page


@pytest.mark.parametrize(
    "url", ["/admin/annotation/narrative/", "/admin/annotation/narrative/{}/change/"]
)
def test_worker_html_is_shown_as_text(client, researcher, batch, url):
    worker = worker_create(display_name='<b onmouseover="alert(3)">Eve</b>')
    proverb = batch.items.get().proverb
    narrative = narrative_create(
        proverb=proverb, text=HOSTILE, worker=worker, overlap={"shared_words": ["<i>"]}
    )
    client.force_login(researcher)
    page = client.get(url.format(narrative.pk)).content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "<script>alert(" not in page
    assert "<img src=x" not in page
    assert '<a href="javascript:' not in page
    assert "<b onmouseover" not in page


def test_crowd_narrative_cannot_be_deleted_in_the_admin(client, researcher, batch):
    submit(batch)
    client.force_login(researcher)
    response = client.get(f"/admin/annotation/narrative/{Narrative.objects.get().pk}/delete/")
    assert response.status_code == 403


def test_extract_keywords_action_fills_the_selected_approved_narratives_without_them(
    client, researcher, django_capture_on_commit_callbacks
):
    proverb = proverb_create()
    missing = narrative_create(proverb=proverb, text="Ana sang in Paris.", status="approved")
    pending = narrative_create(proverb=proverb, text="Tom wrote it.", status="submitted")
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/annotation/narrative/",
            {"action": "extract_keywords", "_selected_action": [missing.pk, pending.pk]},
            follow=True,
        )
    assert "Keyword extraction queued for 1 approved narrative(s) without keywords." in (
        response.content.decode()
    )
    missing.refresh_from_db()
    pending.refresh_from_db()
    assert missing.keywords["verbs"] == ["sing"] and missing.keywords_pending_since is None
    assert pending.keywords == {}


def pilot_stories(*, each: int, seed: int, labelled: bool) -> dict[str, list[int]]:
    """A write batch's stories with writing records, `each` composed and `each` copied;
    their ids by kind (labelled as such when `labelled`)."""
    import random

    from annotation.models import NarrativeIntegrity
    from annotation.quality.integrity import telemetry_clean
    from tests.factories import batch_create, crowd_narrative_create, writing_record_of

    rng = random.Random(seed)
    batch, proverb = batch_create(task_type="write"), proverb_create(BIRDS)
    ids = {"composed": [], "transcribed": []}
    for kind in ["composed", "transcribed"] * each:
        narrative = crowd_narrative_create(proverb=proverb, batch=batch, text="x" * 500)
        NarrativeIntegrity.objects.create(
            narrative=narrative,
            telemetry=telemetry_clean(writing_record_of(kind, rng)),
            pilot_label=kind if labelled else "",
        )
        ids[kind].append(narrative.pk)
    return ids


def test_pilot_labels_then_calibration_from_the_list_and_the_score_on_the_story(client, reviewer):
    from annotation.models import WritingCalibration

    ids = pilot_stories(each=12, seed=8, labelled=False)
    batch = Narrative.objects.get(pk=ids["composed"][0]).assignment.item.batch
    client.force_login(reviewer)
    for kind, action in (("composed", "mark_composed"), ("transcribed", "mark_transcribed")):
        response = client.post(
            "/admin/annotation/narrative/",
            {"action": action, "_selected_action": ids[kind]},
            follow=True,
        )
        assert f"12 marked {kind}." in response.content.decode()
    response = client.post(
        "/admin/annotation/narrative/",
        {"action": "calibrate_writing_score", "_selected_action": ids["composed"][:1]},
        follow=True,
    )
    assert "cross-validated accuracy" in response.content.decode()
    assert "95% interval" in response.content.decode()
    calibration = WritingCalibration.objects.get(batch=batch)
    page = client.get(f"/admin/annotation/narrative/{ids['composed'][0]}/change/").content
    page = page.decode()
    assert 'data-testid="writing-score"' in page
    assert f"cross-validated accuracy {calibration.cv_accuracy:.0%}" in page
    assert "pilot label: Composed on the page" in page
    assert "No pledge asked in this batch." in page


def test_calibrating_on_a_pilot_of_three_and_three_is_refused_and_keeps_the_defaults(
    client, reviewer
):
    from annotation.models import WritingCalibration

    ids = pilot_stories(each=3, seed=3, labelled=True)
    client.force_login(reviewer)
    response = client.post(
        "/admin/annotation/narrative/",
        {"action": "calibrate_writing_score", "_selected_action": ids["composed"][:1]},
        follow=True,
    )
    assert "needs at least 10 stories marked composed" in response.content.decode()
    assert not WritingCalibration.objects.exists()
    page = client.get(f"/admin/annotation/narrative/{ids['composed'][0]}/change/").content
    assert "Default weights" in page.decode()


def test_bonus_action_pays_each_selected_approved_story_once(client, reviewer, batch):
    from crowd.models import Bonus
    from crowd.review import assignment_approve

    assignment_approve(assignment=submit(batch))
    narrative = Narrative.objects.get()
    client.force_login(reviewer)
    selection = {"action": "bonus_selected", "_selected_action": [narrative.pk]}
    asked = client.post("/admin/annotation/narrative/", selection)
    assert 'name="amount"' in asked.content.decode()
    assert "An amount in the study's currency, like 0.50 (not cents)" in asked.content.decode()
    form = {**selection, "amount": "0.40", "reason": "Lovely"}
    client.post("/admin/annotation/narrative/", form)
    again = client.post("/admin/annotation/narrative/", form, follow=True).content.decode()
    assert "it is paid once" in again
    assert list(Bonus.objects.values_list("cents", "reason")) == [(40, "Lovely")]


def test_exclude_action_pays_and_keeps_the_story_out(client, reviewer, batch):
    submit(batch)
    narrative = Narrative.objects.get()
    client.force_login(reviewer)
    selection = {"action": "exclude_selected", "_selected_action": [narrative.pk]}
    client.post("/admin/annotation/narrative/", {**selection, "exclusion": "Odd timing."})
    narrative.refresh_from_db()
    assert narrative.assignment.status == Assignment.Status.EXCLUDED
    assert narrative.assignment.exclusion_reason == "Odd timing."
    assert narrative.status != Narrative.Status.APPROVED


def test_approved_and_excluded_story_says_so_in_the_list_and_on_its_page(client, reviewer, batch):
    from crowd.review import assignment_approve_exclude, assignment_reject

    assignment_approve_exclude(assignment=submit(batch), reason="Reads like <i>a paraphrase</i>")
    assignment_reject(assignment=submit(batch), message="Off topic.")
    excluded = Narrative.objects.get(assignment__status=Assignment.Status.EXCLUDED)
    client.force_login(reviewer)
    listing = client.get("/admin/annotation/narrative/").content.decode()
    assert "Approved, excluded: Reads like &lt;i&gt;a paraphrase&lt;/i&gt;" in listing
    assert listing.count('<td class="field-status_shown">Rejected</td>') == 1
    page = client.get(f"/admin/annotation/narrative/{excluded.pk}/change/").content.decode()
    assert "Approved, excluded: Reads like &lt;i&gt;a paraphrase&lt;/i&gt;" in page
    filtered = client.get("/admin/annotation/narrative/", {"status": "excluded"}).content
    assert "Reads like" in filtered.decode() and "Off topic" not in filtered.decode()
    rejected = client.get("/admin/annotation/narrative/", {"status": "rejected"}).content
    assert "Reads like" not in rejected.decode()
