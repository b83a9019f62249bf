"""The opponent's checks on the write page of a round: asked through the page's check URL by
the task's own worker, answered by the run's model, limited per task; the story's round
recorded at submit; the writing rules and integrity controls whatever the model says."""

import json
import re
import time
from datetime import timedelta

import pytest
from django.test import Client

from annotation.models import Narrative, NarrativeRound, OpponentCheck
from annotation.opponents.checks import CHECK_LOST_AFTER, opponent_check_answer
from crowd.models import Assignment
from crowd.workers import invite_token
from tests.annotation.opponents.conftest import CHICKENS
from tests.factories import (
    FIXTURES,
    STORIES,
    round_batch_create,
    worker_create,
    writing_record,
)

pytestmark = pytest.mark.django_db


def enter(client, batch, worker=None) -> Assignment:
    worker = worker or worker_create()
    client.get(f"/w/{invite_token(worker=worker, batch=batch)}/")
    response = client.get(f"/tasks/{batch.pk}/next/")
    return Assignment.objects.get(pk=response["Location"].rstrip("/").rsplit("/", 1)[-1])


def ask(client, assignment, **payload):
    response = client.post(
        f"/tasks/a/{assignment.pk}/check/", json.dumps(payload), content_type="application/json"
    )
    return response.status_code, (response.json() if response.status_code == 200 else None)


def ask_model(client, assignment, text, capture) -> dict:
    """Ask the model about the text as the page does: the check's task runs once the
    request's transaction commits (as after the response), and the page polls."""
    with capture(execute=True):
        _, state = ask(client, assignment, opponent="check", text=text)
    if state["status"] == "pending":
        _, state = ask(client, assignment, opponent="poll", check=state["check"])
    return state


def submit(client, assignment, text, **payload):
    return client.post(
        f"/tasks/a/{assignment.pk}/submit/",
        json.dumps({"payload": {"text": text, **payload}, "submission_key": "k"}),
        content_type="application/json",
    )


@pytest.fixture
def batch(opponent, proverbs):
    def make(**opponent_settings):
        return round_batch_create(
            proverbs=[proverbs[CHICKENS]],
            opponent={"run": opponent.pk, **opponent_settings},
            target_per_item=3,
        )

    return make


def test_the_page_asks_the_model_and_gets_its_rank_of_the_studys_proverbs(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    (found, *_), (fooled, *_) = verdicts
    assignment = enter(client, batch(show_guesses=True))
    state = ask_model(client, assignment, found, django_capture_on_commit_callbacks)
    assert state["status"] == "answered" and state["found"] is True
    assert (state["rank"], state["candidates"]) == (1, len(proverbs))
    assert state["guesses"][0]["proverb"] == CHICKENS and len(state["guesses"]) == 3
    assert (state["checks_used"], state["checks_left"]) == (1, 9)
    state = ask_model(client, assignment, fooled, django_capture_on_commit_callbacks)
    assert state["found"] is False and state["rank"] > 1
    check = OpponentCheck.objects.get(pk=state["check"])
    # Only the answer is kept: a draft's text is gone once the model answered.
    assert check.text == "" and check.proverb_rank == state["rank"]
    assert check.top_proverb_id != proverbs[CHICKENS].pk


def test_the_guesses_are_shown_only_where_the_batch_shows_them(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    (found, *_), _ = verdicts
    assignment = enter(client, batch())
    state = ask_model(client, assignment, found, django_capture_on_commit_callbacks)
    assert state["status"] == "answered" and "guesses" not in state


def test_a_story_that_breaks_the_writing_rules_is_not_shown_to_the_model(client, batch):
    assignment = enter(client, batch())
    status, state = ask(
        client, assignment, opponent="check", text="Never count your chickens before they hatch."
    )
    assert status == 200 and state["status"] == "refused"
    assert "writing rules" in state["message"] and "chickens" in state["message"]
    assert not OpponentCheck.objects.exists()


def test_checks_are_limited_per_task_and_a_text_asked_again_is_not_counted_twice(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    (found, *_), (fooled, *_) = verdicts
    assignment = enter(client, batch(max_checks=2))
    first = ask_model(client, assignment, found, django_capture_on_commit_callbacks)
    again = ask_model(client, assignment, f"  {found} ", django_capture_on_commit_callbacks)
    ask_model(client, assignment, fooled, django_capture_on_commit_callbacks)
    assert again["check"] == first["check"] and again["checks_used"] == 1
    _, refused = ask(client, assignment, opponent="check", text=STORIES[CHICKENS][3])
    assert refused["status"] == "refused" and refused["checks_left"] == 0
    assert "used your 2 checks" in refused["message"]
    assert OpponentCheck.objects.filter(assignment=assignment).count() == 2


def test_one_check_waits_at_a_time_and_a_lost_one_frees_the_task(client, batch, verdicts):
    (found, *_), (fooled, *_) = verdicts
    assignment = enter(client, batch())
    _, waiting = ask(client, assignment, opponent="check", text=found)  # no task runs here
    assert waiting["status"] == "pending"
    _, refused = ask(client, assignment, opponent="check", text=fooled)
    assert refused["status"] == "refused" and "still answering" in refused["message"]
    lost = OpponentCheck.objects.get(pk=waiting["check"])
    lost.requested_at -= CHECK_LOST_AFTER + timedelta(seconds=1)
    lost.save()
    _, asked = ask(client, assignment, opponent="check", text=fooled)
    assert asked["status"] == "pending" and asked["checks_used"] == 1
    lost.refresh_from_db()
    assert lost.status == OpponentCheck.Status.FAILED and lost.text == ""
    # The page polls its check; the answer arrives when the task runs.
    opponent_check_answer(check_id=asked["check"])
    _, polled = ask(client, assignment, opponent="poll", check=asked["check"])
    assert polled["status"] == "answered" and polled["found"] is False


def test_only_the_tasks_own_worker_asks_or_reads_its_checks(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    (found, *_), _ = verdicts
    chosen = batch()
    assignment = enter(client, chosen)
    state = ask_model(client, assignment, found, django_capture_on_commit_callbacks)
    other = Client()
    enter(other, chosen)
    assert ask(other, assignment, opponent="check", text=found)[0] == 404
    assert ask(other, assignment, opponent="poll", check=state["check"])[0] == 404
    mine = enter(other, round_batch_create(proverbs=[proverbs[CHICKENS]], round=1))
    # A batch with no opponent has no check; a check of another task is not found.
    assert ask(other, mine, opponent="check", text=found)[0] == 404
    assert ask(client, assignment, opponent="poll", check=state["check"] + 1000)[0] == 404


def test_a_model_that_cannot_load_fails_the_check_with_its_reason(
    client, batch, opponent, django_capture_on_commit_callbacks
):
    opponent.model_name = "/nowhere/no-model"
    opponent.save()
    assignment = enter(client, batch())
    state = ask_model(client, assignment, STORIES[CHICKENS][0], django_capture_on_commit_callbacks)
    assert state["status"] == "failed" and "Cannot load the model" in state["message"]
    assert state["checks_used"] == 0  # a failed check does not count


def test_require_mode_takes_only_a_story_shown_to_the_model_that_it_did_not_find(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    (found, *_), (fooled, *_) = verdicts
    assignment = enter(client, batch(mode="require"))
    response = submit(client, assignment, fooled)
    assert response.status_code == 400 and "ask the model" in response.json()["error"]
    ask_model(client, assignment, found, django_capture_on_commit_callbacks)
    response = submit(client, assignment, found)
    assert response.status_code == 400 and "still finds the proverb" in response.json()["error"]
    ask_model(client, assignment, fooled, django_capture_on_commit_callbacks)
    assert submit(client, assignment, fooled).status_code == 200
    record = NarrativeRound.objects.get()
    assert (record.fooled, record.checks, record.mode) == (True, 2, "require")


def test_submit_keeps_the_round_and_the_answer_on_the_exact_story(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    _, (fooled, *_) = verdicts
    assignment = enter(client, batch(mode="bonus", bonus_cents=25))
    state = ask_model(client, assignment, fooled, django_capture_on_commit_callbacks)
    assert submit(client, assignment, fooled).status_code == 200
    record = NarrativeRound.objects.select_related("submit_check").get()
    assert record.submit_check_id == state["check"]  # the page's answer, not asked again
    assert (record.round, record.opponent_run, record.mode, record.bonus_cents) == (
        2,
        opponent.pk,
        "bonus",
        25,
    )
    assert record.fooled is True and record.checks == 1
    assert record.opponent_label.startswith(f"run {opponent.pk}: retrieval seen")


def test_a_story_submitted_unchecked_is_answered_after_submit(
    client, batch, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    (found, *_), _ = verdicts
    assignment = enter(client, batch())
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert submit(client, assignment, found).status_code == 200
    record = NarrativeRound.objects.select_related("submit_check").get()
    assert record.fooled is None and record.checks == 0
    check = record.submit_check
    assert check.kind == "submit" and check.status == "pending" and check.text == found
    for callback in queued:  # the submit's own tasks: the similarity check, this answer
        callback()
    record.refresh_from_db()
    assert record.fooled is False and record.submit_check.proverb_rank == 1


def test_writing_rules_and_integrity_apply_whatever_the_model_says(
    client, opponent, proverbs, verdicts, django_capture_on_commit_callbacks
):
    _, (fooled, *_) = verdicts
    chosen = round_batch_create(
        proverbs=[proverbs[CHICKENS]],
        opponent={"run": opponent.pk, "mode": "bonus", "bonus_cents": 25},
    )
    chosen.settings["integrity"]["refuse_paste"] = True
    chosen.save()
    assignment = enter(client, chosen)
    ask_model(client, assignment, fooled, django_capture_on_commit_callbacks)
    response = submit(client, assignment, fooled, telemetry=writing_record(pasted=80))
    assert response.status_code == 400 and "pasted" in response.json()["error"]
    too_close = f"{fooled} Never count your chickens before they hatch."
    response = submit(client, assignment, too_close, telemetry=writing_record(typed=120))
    assert response.status_code == 400 and "chickens" in response.json()["error"]
    assert not Narrative.objects.exists()


def test_the_page_states_the_round_and_its_rules_and_a_preview_asks_nothing(
    client, batch, researcher
):
    chosen = batch(mode="bonus", bonus_cents=25, validate=True, max_checks=4)
    assignment = enter(client, chosen)
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert "Round 2: can you fool the model?" in page
    assert "earns a bonus of 0.25 once it is approved and other workers confirm" in page
    assert 'data-testid="opponent-check"' in page
    config = json.loads(re.search(r'id="task-config"[^>]*>(.*?)</script>', page).group(1))
    assert config["opponent"] == {
        "round": 2,
        "mode": "bonus",
        "show_guesses": False,
        "bonus": "0.25",
        "validate": True,
        "max_checks": 4,
        "checks_used": 0,
    }
    staff = Client()
    staff.force_login(researcher)
    preview = staff.get(f"/tasks/preview/{chosen.pk}/").content.decode()
    assert 'data-testid="opponent-preview"' in preview and "up to 4 times" in preview
    assert 'data-testid="opponent-check"' not in preview


def _release(copies: int) -> bytes:
    """The ePiC release fixture's records `copies` times over, each copy's pks its own."""
    records = json.loads((FIXTURES / "epic_release" / "epic.json").read_bytes())
    return json.dumps(
        [{**record, "pk": f"C{copy}{record['pk']}"} for copy in range(copies) for record in records]
    ).encode()


@pytest.mark.django_db(transaction=True)
def test_a_model_check_answers_within_two_seconds_while_an_import_runs(client, batch, verdicts):
    """Without a broker, tasks run on a thread per lane: the import job on the bulk lane
    (its spans, keywords and integrity check) does not hold up the writer's check."""
    from annotation.intake.import_jobs import import_job_create
    from annotation.models import ImportJob
    from common.task_queue import tasks_after_response_wait, tasks_in_lanes

    (found, *_), _ = verdicts  # the opponent's model loaded, as a running server has it
    assignment = enter(client, batch())
    with tasks_in_lanes():  # as after the import page's response
        job = import_job_create(kind=ImportJob.Kind.EPIC, content=_release(20), filename="e.json")
    deadline = time.monotonic() + 30
    while ImportJob.objects.get(pk=job.pk).status == ImportJob.Status.QUEUED:
        assert time.monotonic() < deadline, "the import job never started"
        time.sleep(0.05)
    with tasks_in_lanes():  # as after the check's response
        status, state = ask(client, assignment, opponent="check", text=found)
    asked = time.monotonic()
    check = OpponentCheck.objects.get(pk=state["check"])
    while check.status == OpponentCheck.Status.PENDING and time.monotonic() - asked < 30:
        time.sleep(0.05)
        check.refresh_from_db()
    answered_in = time.monotonic() - asked
    import_running = ImportJob.objects.get(pk=job.pk).status == ImportJob.Status.RUNNING
    tasks_after_response_wait(timeout=600)
    assert (status, check.status, import_running) == (200, OpponentCheck.Status.ANSWERED, True)
    assert answered_in < 2
    assert ImportJob.objects.get(pk=job.pk).status == ImportJob.Status.SUCCEEDED
