"""A batch as a Prolific study: settings, places, cost, the study Prolific gets, transitions."""

import pytest

from crowd.batches import batch_close, batch_publish
from crowd.models import Batch
from crowd.providers import batch_currency
from prolific.client import ProlificError
from prolific.models import Study
from prolific.preflight import study_publish_confirmed
from prolific.studies import (
    study_cost,
    study_places_add,
    study_prepare,
    study_transition,
)
from prolific.submissions import study_sync
from tests.factories import prolific_batch_create, proverb_create
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db


def test_places_follow_targets_and_session_size(standin):
    batch = write_study(publish=False)
    assert batch.provider == "prolific"
    assert batch.prolific_study.total_available_places == 3  # 4 items x 2 / 3 per session


def test_cost_comes_from_prolifics_calculator_and_is_stored(standin):
    batch = write_study(publish=False)
    cost = study_cost(study=batch.prolific_study)
    assert cost["reward"] == 150  # 50 cents an item, 3 items a session
    assert cost["rewards"] == 450  # the reward is what each place pays: documented
    # Prolific returns only the total: its fees and VAT are the rest, together.
    assert cost["total_cost"] == 630 and cost["fees_and_vat"] == 180
    assert "fees" not in cost and "vat" not in cost
    batch.prolific_study.refresh_from_db()
    assert batch.prolific_study.cost_cents == 630
    # The workspace's currency, stored with the cost: the batch's amounts are in it.
    assert batch.prolific_study.currency == "GBP" == batch_currency(batch)


def test_the_study_is_created_in_the_project_and_spends_the_workspaces_wallet(standin):
    standin.state.balance = 0  # the researcher's personal balance
    batch = write_study()
    remote = standin.state.studies[batch.prolific_study.study_id]
    assert remote["project"] == standin.project_id
    assert standin.state.workspaces[standin.workspace_id]["available_balance"] == 500_000 - 630
    assert standin.state.balance == 0


@pytest.mark.parametrize("name", ["PROLIFIC_PROJECT_ID", "PROLIFIC_WORKSPACE_ID"])
def test_a_study_is_not_created_without_a_workspace_and_project(standin, settings, name):
    setattr(settings, name, "")
    batch = write_study(publish=False)
    with pytest.raises(ProlificError, match=f"Set {name}"):
        confirm_and_publish(batch)
    assert standin.state.studies == {} and standin.state.groups == {}


def test_a_project_of_another_workspace_is_refused_before_anything_is_made(standin, settings):
    standin.state.workspaces["other"] = {**standin.state.workspaces[standin.workspace_id]}
    standin.state.projects["theirs"] = {"id": "theirs", "title": "T", "workspace": "other"}
    settings.PROLIFIC_PROJECT_ID = "theirs"
    batch = write_study(publish=False)
    with pytest.raises(ProlificError, match="PROLIFIC_PROJECT_ID"):
        confirm_and_publish(batch)
    assert standin.state.studies == {}


def test_publishing_is_refused_while_the_workspace_cannot_pay(standin):
    standin.state.workspaces[standin.workspace_id]["available_balance"] = 100
    batch = write_study(publish=False)
    with pytest.raises(ProlificError, match="Balance") as refused:
        confirm_and_publish(batch)
    assert "1.00 GBP" in str(refused.value) and "6.30 GBP" in str(refused.value)
    assert standin.state.studies == {}
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DRAFT


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("estimated", "floor"), [(5, 12), (25, 37), (60, 78)])
def test_the_time_allowed_is_at_least_prolifics_floor_and_reservations_last_as_long(
    standin, reachable, estimated, floor
):
    batch = write_study(publish=False, time_allowed_seconds=600)
    study_prepare(batch=batch, estimated_minutes=estimated)
    confirm_and_publish(batch)
    remote = standin.state.studies[batch.prolific_study.study_id]
    assert remote["maximum_allowed_time"] == floor  # 2 + X + 2·sqrt(X), rounded up
    batch.refresh_from_db()
    assert batch.time_allowed_seconds >= remote["maximum_allowed_time"] * 60


def test_publish_creates_the_study_with_current_fields_and_publishes_it(standin):
    batch = write_study(time_allowed_seconds=1200)
    study = batch.prolific_study
    remote = standin.state.studies[study.study_id]
    assert remote["status"] == "PUBLISHING" == study.status  # Prolific's answer to PUBLISH
    study_sync(study=study)  # Prolific has processed it since
    assert Study.objects.get(pk=study.pk).status == "ACTIVE" == remote["status"]
    assert batch.provider_ids == {"prolific_study": study.study_id}
    assert remote["external_study_url"].endswith(
        "/prolific/start/?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}"
        "&SESSION_ID={{%SESSION_ID%}}"
    )
    assert remote["prolific_id_option"] == "url_parameters"
    assert remote["completion_codes"] == [
        {
            "code": study.completion_code,
            "code_type": "COMPLETED",
            "actions": [{"action": "MANUALLY_REVIEW"}],
        }
    ]
    assert "completion_code" not in remote and "eligibility_requirements" not in remote
    assert remote["submissions_config"] == {"max_submissions_per_participant": 1}
    assert remote["maximum_allowed_time"] == 20  # over the floor for 5 minutes (12)
    assert remote["reward"] == 150
    blocklist = {
        "filter_id": "participant_group_blocklist",
        "selected_values": [study.blocklist_group_id],
    }
    assert blocklist in remote["filters"]


@pytest.mark.django_db(transaction=True)
def test_eligibility_filters_use_prolifics_filter_ids(standin, reachable):
    batch = write_study(publish=False)
    study_prepare(
        batch=batch,
        items_per_session=2,
        countries=["1"],
        first_languages=["19"],
        min_approval_rate=95,
        filter_ids={"first_languages": "first-language"},
    )
    confirm_and_publish(batch)
    filters = standin.state.studies[batch.prolific_study.study_id]["filters"]
    assert {"filter_id": "current-country-of-residence", "selected_values": ["1"]} in filters
    assert {"filter_id": "first-language", "selected_values": ["19"]} in filters
    assert {"filter_id": "approval_rate", "selected_range": {"lower": 95, "upper": 100}} in filters


def test_a_study_without_a_reward_is_not_published(standin):
    batch = write_study(publish=False, reward_cents=0)
    with pytest.raises(ProlificError, match="reward"):
        confirm_and_publish(batch)
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DRAFT
    assert standin.state.studies == {}


def confirm_and_publish(batch):
    study = Study.objects.get(batch=batch)
    return study_publish_confirmed(study=study, cost_cents=study_cost(study=study)["total_cost"])


@pytest.mark.django_db(transaction=True)
def test_publishing_needs_the_cost_confirmed_first(standin, reachable):
    batch = write_study(publish=False)
    with pytest.raises(ProlificError, match="confirm it first"):
        batch_publish(batch=batch)
    assert standin.state.studies == {}
    with pytest.raises(ValueError, match="now quotes"):
        study_publish_confirmed(study=batch.prolific_study, cost_cents=1)
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DRAFT
    confirm_and_publish(batch)
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.PUBLISHED


@pytest.mark.django_db(transaction=True)
def test_a_failed_publish_is_retried_on_the_same_draft(standin, reachable):
    batch = write_study(publish=False)
    standin.state.fail(path="/transition/", status=503, count=50)
    with pytest.raises(ProlificError):
        confirm_and_publish(batch)
    assert len(standin.state.studies) == 1
    standin.state.failures.clear()
    confirm_and_publish(batch)
    assert len(standin.state.studies) == 1
    assert [s["status"] for s in standin.state.studies.values()] == ["PUBLISHING"]


def test_a_published_batch_cannot_be_prepared_again(standin):
    batch = write_study()
    with pytest.raises(ValueError, match="Only a draft batch"):
        study_prepare(batch=batch)


def test_pause_resume_and_close_move_the_study_on_prolific(standin):
    batch = write_study()
    study = batch.prolific_study
    assert study_transition(study=study, action="pause").status == "PAUSED"
    assert study_transition(study=study, action="resume").status == "ACTIVE"
    batch_close(batch=batch)
    # Nothing left to review: Prolific completes it, and Parable records that.
    assert standin.state.studies[study.study_id]["status"] == "COMPLETED"
    assert Study.objects.get(pk=study.pk).status == "COMPLETED"


def test_closing_with_work_awaiting_review_leaves_it_to_review(standin):
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    batch_close(batch=batch)
    study = Study.objects.get(batch=batch)
    assert standin.state.studies[study.study_id]["status"] == "AWAITING REVIEW" == study.status


def test_a_study_still_publishing_is_stopped_when_its_batch_closes(standin):
    standin.state.publishing_held = True
    batch = write_study()
    study = Study.objects.get(batch=batch)
    assert study.status == "PUBLISHING"
    batch_close(batch=batch)
    assert standin.state.studies[study.study_id]["status"] == "COMPLETED"


def test_a_study_prolific_paused_is_stopped_when_its_batch_closes(standin):
    batch = write_study()
    study = Study.objects.get(batch=batch)
    standin.state.studies[study.study_id]["status"] = "PAUSED"  # Parable not told yet
    batch_close(batch=batch)
    assert standin.state.studies[study.study_id]["status"] == "COMPLETED"


def fill_and_return_one(standin, batch):
    """Every place done and awaiting review, then one returned by its participant: Prolific
    pauses the study."""
    submissions = []
    for participant in ("p1", "p2", "p3"):
        session, submission = take_part(standin, batch, participant)
        submit_all(session)
        finish_on_prolific(standin, submission)
        submissions.append(submission)
    study_sync(study=batch.prolific_study)
    standin.state.submission_set_status(submission_id=submissions[0]["id"], status="RETURNED")


def test_a_full_study_prolific_paused_after_a_return_is_known_as_paused_by_prolific(standin):
    batch = write_study()
    fill_and_return_one(standin, batch)
    study = Study.objects.get(batch=batch)
    assert standin.state.studies[study.study_id]["status"] == "PAUSED"
    study_sync(study=study)
    study.refresh_from_db()
    assert study.status == "PAUSED" and study.paused_on_prolific


def test_adding_places_to_a_study_prolific_paused_resumes_it(standin):
    batch = write_study()
    fill_and_return_one(standin, batch)
    study = Study.objects.get(batch=batch)
    study_sync(study=study)
    study = study_places_add(study=Study.objects.get(pk=study.pk), places=1)
    remote = standin.state.studies[study.study_id]
    assert remote["status"] == "ACTIVE" == study.status
    assert remote["total_available_places"] == 4


def test_adding_places_to_a_study_the_researcher_paused_keeps_it_paused(standin):
    study = write_study().prolific_study
    study_transition(study=study, action="pause")
    study = study_places_add(study=Study.objects.get(pk=study.pk), places=1)
    assert standin.state.studies[study.study_id]["status"] == "PAUSED" == study.status


def test_adding_places_patches_the_total(standin):
    study = write_study().prolific_study
    study = study_places_add(study=study, places=2)
    assert study.total_available_places == 5
    assert standin.state.studies[study.study_id]["total_available_places"] == 5
    with pytest.raises(ValueError):
        study_places_add(study=study, places=0)


def test_unprepared_batch_cannot_publish_on_prolific(standin):
    from crowd.batches import batch_create

    batch = batch_create(
        name="Bare", task_type="write", provider="prolific", items=[{"proverb": proverb_create()}]
    )
    with pytest.raises(Exception, match="prepare it under Prolific"):
        batch_publish(batch=batch)


def test_align_and_rate_batches_run_as_studies(standin):
    from tests.factories import written_batch_create

    source = written_batch_create(text="Sam paid a lawyer by the hour and regretted it.")
    for task_type in ("align", "rate"):
        batch = prolific_batch_create(task_type=task_type, source_batch=source, items_per_session=1)
        assert standin.state.studies[batch.prolific_study.study_id]["status"] == "PUBLISHING"
        assert batch.items.count() == 1
