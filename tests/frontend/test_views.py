"""Worker pages: entry by signed invite, next task, the write page, JSON submit."""

import json

import pytest
from django.test import Client

from annotation.models import Narrative
from crowd.models import Assignment
from crowd.workers import invite_token
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    invite_token_issued_ago,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)


def enter(client, batch, worker=None):
    worker = worker or worker_create()
    response = client.get(f"/w/{invite_token(worker=worker, batch=batch)}/")
    assert response["Location"] == f"/tasks/{batch.pk}/next/"
    response = client.get(f"/tasks/{batch.pk}/next/")
    return Assignment.objects.get(pk=response["Location"].rstrip("/").rsplit("/", 1)[-1])


def post_submit(client, assignment, text, key="k"):
    return client.post(
        f"/tasks/a/{assignment.pk}/submit/",
        json.dumps({"payload": {"text": text}, "submission_key": key}),
        content_type="application/json",
    )


def test_forged_invite_is_refused(client):
    response = client.get("/w/not-a-token/")
    assert response.status_code == 404
    assert "not valid" in response.content.decode()


def test_blocked_workers_link_and_session_are_refused_with_the_reason(client, batch):
    worker = worker_create()
    assignment = enter(client, batch, worker)
    post_submit(client, assignment, BIRDS_STORY)
    assert client.get("/tasks/").status_code == 200
    worker.blocked, worker.blocked_reason = True, "Copied <b>stories</b>."
    worker.save()
    for path in ("/tasks/", f"/tasks/a/{assignment.pk}/", f"/tasks/{batch.pk}/next/"):
        response = client.get(path)
        assert response.status_code == 403
        assert "Copied &lt;b&gt;stories&lt;/b&gt;." in response.content.decode()
    response = client.get(f"/w/{invite_token(worker=worker, batch=batch)}/")
    assert response.status_code == 403
    assert 'data-testid="blocked-reason">Copied &lt;b&gt;stories' in response.content.decode()
    # Signed out: the session keeps the reason only, never the worker.
    assert "_auth_user_id" not in client.session
    assert dict(client.session.items()) == {"parable_blocked_reason": "Copied <b>stories</b>."}


def test_a_blocked_workers_link_shows_no_work_even_in_a_fresh_browser(batch):
    worker = worker_create()
    worker.blocked, worker.blocked_reason = True, "Spam."
    worker.save()
    browser = Client()
    response = browser.get(f"/w/{invite_token(worker=worker, batch=batch)}/")
    assert response.status_code == 403 and "Spam." in response.content.decode()
    assert browser.get(f"/tasks/{batch.pk}/next/").status_code == 403
    assert not Assignment.objects.filter(worker=worker).exists()


def test_expired_invite_says_so_and_signs_nobody_in(client, batch, settings):
    settings.PARABLE_INVITE_MAX_AGE = 60
    token = invite_token_issued_ago(worker=worker_create(), seconds=61)
    response = client.get(f"/w/{token}/")
    assert response.status_code == 404 and "expired" in response.content.decode()
    assert client.get("/tasks/").status_code == 403


def test_next_task_without_a_session_is_refused(client, batch):
    assert client.get(f"/tasks/{batch.pk}/next/").status_code == 403


def test_write_page_has_the_meters_config_and_escaped_proverb(client, batch):
    assignment = enter(client, batch)
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert 'id="narrative"' in page
    assert "/static/task_types/write/page.js" in page
    config = json.loads(page.split('id="task-config" type="application/json">')[1].split("<")[0])
    assert config["proverb"] == BIRDS
    assert config["submit_url"] == f"/tasks/a/{assignment.pk}/submit/"
    assert config["draft_key"] == f"parable:draft:{assignment.pk}"
    assert config["rules"]["max_shared_ngram"] == 2
    assert "the" in config["stopwords"]


def test_another_workers_assignment_is_not_found(client, batch):
    assignment = enter(client, batch)
    intruder = client.__class__()
    enter(intruder, batch)
    assert intruder.get(f"/tasks/a/{assignment.pk}/").status_code == 404
    assert post_submit(intruder, assignment, BIRDS_STORY).status_code == 404


def test_failing_submit_is_a_400_with_the_rules_messages(client, batch):
    assignment = enter(client, batch)
    response = post_submit(client, assignment, "They were birds of a feather.")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == (
        'Your story repeats the phrase "birds of a feather" from the proverb. Rephrase it. '
        "Your story has 6 words; write at least 20."
    )
    assert [violation["rule"] for violation in body["details"]["violations"]] == [
        "ngram",
        "too_short",
    ]


def test_submit_then_retry_returns_the_stored_result(client, batch):
    assignment = enter(client, batch)
    first = post_submit(client, assignment, BIRDS_STORY)
    again = post_submit(client, assignment, BIRDS_STORY)
    assert first.status_code == again.status_code == 200
    assert (first.json()["replayed"], again.json()["replayed"]) == (False, True)
    assert first.json()["result"] == again.json()["result"]
    assert first.json()["next_url"] == f"/tasks/{batch.pk}/next/"
    assert Narrative.objects.count() == 1


def test_submit_from_another_window_is_a_409_and_keeps_the_first_text(client, batch):
    assignment = enter(client, batch)
    assert post_submit(client, assignment, BIRDS_STORY, key="tab-1").status_code == 200
    response = post_submit(client, assignment, BIRDS_STORY + " Another ending.", key="tab-2")
    assert response.status_code == 409
    assert "already submitted from another window" in response.json()["error"]
    assert Narrative.objects.get().text == BIRDS_STORY


def test_submitted_page_shows_the_story_escaped(client, batch):
    assignment = enter(client, batch)
    post_submit(client, assignment, BIRDS_STORY + " <script>alert(1)</script>")
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert 'data-testid="submitted-text"' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "write.js" not in page


def test_unreadable_body_is_a_400(client, batch):
    assignment = enter(client, batch)
    response = client.post(
        f"/tasks/a/{assignment.pk}/submit/", "{oops", content_type="application/json"
    )
    assert response.status_code == 400


def test_worker_at_cap_is_told_so_on_the_next_page(client):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS), proverb_create()], per_worker_cap=1)
    assignment = enter(client, batch)
    post_submit(client, assignment, BIRDS_STORY)
    page = client.get(f"/tasks/{batch.pk}/next/").content.decode()
    assert 'data-code="cap"' in page
    assert "You have reached the limit of 1 tasks in this batch." in page


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ('{"payload": {"text": "A\\u0000B"}, "submission_key": "k"}', "NUL character"),
        ('{"payload": {"text": "story"}, "submission_key": "k\\u0000"}', "NUL character"),
        ('{"payload": {"text": "\\ud800 story"}, "submission_key": "k"}', "lone surrogate"),
        ('{"payload": ' * 5000 + "{}" + "}" * 5000, "nested deeper"),
        (b'{"payload": {"text": "caf\xe9"}}', "not UTF-8"),
        ('{"payload": {"text": "x"}, "submission_key": ' + "9" * 5000 + "}", "longer than"),
    ],
)
def test_unstorable_submit_is_a_400_saying_why_and_stores_nothing(client, batch, body, reason):
    assignment = enter(client, batch)
    response = client.post(
        f"/tasks/a/{assignment.pk}/submit/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert reason in response.json()["error"]
    assert not Narrative.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.RESERVED


def test_preview_shows_the_real_instructions_and_a_sample_item_and_stores_nothing(
    client, researcher
):
    from crowd.models import Assignment, Worker
    from tests.factories import BIRDS, proverb_create, write_batch_create

    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], instructions="Write <b>well</b>.")
    client.force_login(researcher)
    page = client.get(f"/tasks/preview/{batch.pk}/").content.decode()
    assert 'data-testid="preview-note"' in page
    assert "Write &lt;b&gt;well&lt;/b&gt;." in page
    assert BIRDS in page
    assert "Give this task back" not in page
    assert not Assignment.objects.exists()
    assert not Worker.objects.exists()
    refused = client.post("/tasks/preview/submit/")
    assert refused.status_code == 400
    assert "nothing is stored" in refused.json()["error"]


def test_preview_is_for_staff_with_the_batch_permission(client, worker_user, django_user_model):
    from tests.factories import BIRDS, proverb_create, write_batch_create

    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    assert client.get(f"/tasks/preview/{batch.pk}/").status_code == 302
    client.force_login(worker_user)
    assert client.get(f"/tasks/preview/{batch.pk}/").status_code == 302
    staff = django_user_model.objects.create_user(username="staff", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get(f"/tasks/preview/{batch.pk}/").status_code == 403


def test_worker_page_shows_submissions_with_the_reviewer_s_message_escaped(client, batch):
    from crowd.review import assignment_reject

    assignment = enter(client, batch)
    post_submit(client, assignment, BIRDS_STORY)
    assignment_reject(assignment=assignment, message="Too close to <b>the</b> proverb.")
    page = client.get("/tasks/").content.decode()
    assert "Too close to &lt;b&gt;the&lt;/b&gt; proverb." in page
    assert "Rejected" in page
    assert 'data-testid="earnings-total">0.00<' in page


def test_a_rejected_story_shows_the_message_as_its_own_sentence(client, batch):
    from crowd.review import assignment_reject

    assignment = enter(client, batch)
    post_submit(client, assignment, BIRDS_STORY)
    assignment_reject(assignment=assignment, message="Use at most 600 characters.")
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert "it was not accepted. Thank you!" in page
    assert "Message from the researcher: Use at most 600 characters.</p>" in page
    assert ".." not in page.replace("...", "")


def test_an_approved_and_excluded_story_reads_approved_to_its_worker(client, batch):
    from crowd.review import assignment_approve_exclude

    assignment = enter(client, batch)
    post_submit(client, assignment, BIRDS_STORY)
    assignment_approve_exclude(assignment=assignment, reason="Reads like another story.")
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert "it was approved. Thank you!" in page
    assert "not accepted" not in page and "Reads like another story" not in page


@pytest.fixture
def busy_batch():
    """Three proverbs, two narratives already in on the first: the next worker has a choice."""
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create(), proverb_create()], target_per_item=3
    )
    for _ in range(2):
        writer = Client()
        post_submit(writer, enter(writer, batch), BIRDS_STORY)
    return batch


# Statement counts of one worker cycle, in the test's transaction (which adds a
# SAVEPOINT and a RELEASE to each view's transaction): next 7 + 2 (the session, the batch,
# the worker's row lock, its live reservation, the candidate items, the item's row lock
# and the reservation), page 2 (the session, the assignment with all it shows), submit
# 5 + 2 (the session, the locked assignment, the story, its writing record, the
# assignment's status).
def test_next_task_runs_at_most_nine_statements(client, busy_batch, django_assert_max_num_queries):
    post_submit(client, enter(client, busy_batch), BIRDS_STORY)
    with django_assert_max_num_queries(9):
        response = client.get(f"/tasks/{busy_batch.pk}/next/")
    assert response.status_code == 302


def test_task_page_runs_at_most_two_statements(client, busy_batch, django_assert_max_num_queries):
    assignment = enter(client, busy_batch)
    with django_assert_max_num_queries(2):
        page = client.get(f"/tasks/a/{assignment.pk}/")
    assert 'id="narrative"' in page.content.decode()


def test_submit_runs_at_most_seven_statements(client, busy_batch, django_assert_max_num_queries):
    assignment = enter(client, busy_batch)
    with django_assert_max_num_queries(7):
        response = post_submit(client, assignment, BIRDS_STORY)
    assert response.status_code == 200
    assert Narrative.objects.filter(assignment=assignment).exists()


def test_the_demo_batch_is_offered_to_demo_workers_only(client):
    from annotation.datasets.demo import demo_proverbs_load, demo_write_batch_ensure

    demo_proverbs_load()
    demo, demo_workers = demo_write_batch_ensure()
    batch = write_batch_create(proverbs=[proverb_create("A study proverb")], name="Study: write")
    study_worker = worker_create(display_name="Worker 1")
    client.get(f"/w/{invite_token(worker=study_worker)}/")
    page = client.get("/tasks/").content.decode()
    assert batch.name in page and demo.name not in page
    assert client.get(f"/tasks/{demo.pk}/next/").status_code == 404
    demo_browser = Client()
    demo_browser.get(f"/w/{invite_token(worker=demo_workers[0])}/")
    page = demo_browser.get("/tasks/").content.decode()
    assert batch.name in page and demo.name in page
    assert demo_browser.get(f"/tasks/{demo.pk}/next/").status_code == 302


def _pledge_form(page: str) -> dict:
    import re

    return {
        name: re.search(rf'name="{name}" value="([^"]*)"', page).group(1)
        for name in ("token", "back")
    }


def test_pledge_agreement_needs_the_pages_signed_token_and_stays_on_this_site(client):
    from crowd.models import BatchPledge

    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], pledge="Write it yourself.")
    assignment = enter(client, batch)
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert "Write it yourself." in page and 'id="narrative"' not in page
    form = _pledge_form(page)
    forged = client.post("/tasks/pledge/", {"token": form["token"] + "x", "agree": "yes"})
    assert forged.status_code == 400 and not BatchPledge.objects.exists()
    elsewhere = client.post(
        "/tasks/pledge/", {"token": form["token"], "back": "https://evil.example/", "agree": "yes"}
    )
    assert elsewhere["Location"] == "/tasks/"
    assert BatchPledge.objects.get().worker == assignment.worker
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert 'id="narrative"' in page


def test_another_workers_pledge_token_does_not_pledge_for_this_worker(client, batch):
    from crowd.models import BatchPledge

    batch.pledge = "Write it yourself."
    batch.save()
    first = enter(client, batch)
    token = _pledge_form(client.get(f"/tasks/a/{first.pk}/").content.decode())["token"]
    other = Client()
    enter(other, batch)
    other.post("/tasks/pledge/", {"token": token, "agree": "yes", "back": "/tasks/"})
    assert list(BatchPledge.objects.values_list("worker_id", flat=True)) == [first.worker_id]


def test_preview_shows_the_pledge_workers_are_asked_for_beside_the_task(client, researcher):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], pledge="No <i>AI</i> tools.")
    client.force_login(researcher)
    page = client.get(f"/tasks/preview/{batch.pk}/").content.decode()
    assert 'data-testid="preview-pledge"' in page and "No &lt;i&gt;AI&lt;/i&gt; tools." in page
    assert 'id="narrative"' in page  # the preview shows the task, not the pledge step
