"""The Prolific client against the stand-in: retries, both error shapes, pagination."""

import pytest

from prolific.client import ProlificClient, ProlificError, error_message


def study_fields(**overrides):
    fields = {
        "name": "Write stories",
        "description": "Write three short stories.",
        "external_study_url": "https://parable.example/prolific/start/?PROLIFIC_PID={{%PROLIFIC_PID%}}",
        "prolific_id_option": "url_parameters",
        "completion_codes": [
            {"code": "ABC123", "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}
        ],
        "total_available_places": 5,
        "estimated_completion_time": 5,
        "reward": 150,
    }
    return {**fields, **overrides}


def test_token_goes_in_the_authorization_header(standin):
    assert ProlificClient().me()["balance"] == standin.state.balance
    with pytest.raises(ProlificError) as refused:
        ProlificClient(token="wrong").me()
    assert refused.value.status == 401
    assert "Unauthorized: Invalid token." in str(refused.value)


def test_missing_token_is_refused_before_any_call(standin):
    with pytest.raises(ProlificError, match="PROLIFIC_API_TOKEN is not set"):
        ProlificClient(token="").me()
    assert standin.state.requests == []


def test_429_is_retried_with_backoff_then_succeeds(standin, monkeypatch):
    waits = []
    monkeypatch.setattr("prolific.client.time.sleep", waits.append)
    standin.state.fail(path="users/me", status=429, count=2)
    client = ProlificClient(backoff=0.5)
    assert client.me()["name"] == "Stand-in Researcher"
    assert standin.state.requests.count(("GET", "/api/v1/users/me/")) == 3
    assert waits == [0.5, 1.0]


def test_5xx_past_the_retries_raises_with_prolifics_message(standin):
    standin.state.fail(path="users/me", status=503, count=10)
    with pytest.raises(ProlificError) as failed:
        ProlificClient(retries=2).me()
    assert failed.value.status == 503
    assert "Server error: The service is unavailable." in str(failed.value)
    assert len(standin.state.requests) == 3


def test_throttling_past_the_retries_carries_the_flat_error_shape(standin):
    standin.state.fail(path="users/me", status=429, count=10)
    with pytest.raises(ProlificError, match=r"Throttled: Expected available in 1 second\."):
        ProlificClient(retries=1).me()


def test_field_errors_carry_the_nested_error_shape(standin):
    fields = study_fields(completion_code="OLD")
    del fields["reward"]
    with pytest.raises(ProlificError) as refused:
        ProlificClient().study_create(fields=fields)
    assert refused.value.status == 400
    assert "reward: This field is required." in str(refused.value)
    assert "completion_code: Retired: use completion_codes." in str(refused.value)


def test_error_message_reads_both_shapes():
    nested = {"error": {"status": 400, "title": "Bad request", "detail": {"reward": ["Too low"]}}}
    assert error_message(nested) == "Bad request: reward: Too low"
    assert error_message({"message": "Throttled", "detail": "Wait"}) == "Throttled: Wait"
    assert error_message("not json") == ""


def test_submissions_follow_next_links_until_null(standin):
    client = ProlificClient()
    study = client.study_create(fields=study_fields())
    client.study_transition(study_id=study["id"], action="PUBLISH")
    for _ in range(5):
        standin.state.submission_start(study_id=study["id"])
    listed = client.study_submissions(study_id=study["id"])
    assert len({row["id"] for row in listed}) == 5
    pages = [r for r in standin.state.requests if r[1].endswith("/submissions/")]
    assert len(pages) == 3  # page size 2: 2 + 2 + 1


def test_places_only_grow_once_published(standin):
    client = ProlificClient()
    study = client.study_create(fields=study_fields())
    client.study_transition(study_id=study["id"], action="PUBLISH")
    assert (
        client.study_update(study_id=study["id"], fields={"total_available_places": 8})[
            "total_available_places"
        ]
        == 8
    )
    with pytest.raises(ProlificError, match="Places can only be increased"):
        client.study_update(study_id=study["id"], fields={"total_available_places": 3})


@pytest.mark.parametrize("shape", ["results", "object"])
def test_hook_subscription_is_confirmed_whichever_shape_prolific_answers(standin, shape):
    """The reference documents 201 {"results": [...]}, the monitoring guide a top-level id."""
    standin.state.subscription_shape = shape
    answer = ProlificClient().hook_subscribe(
        event_type="submission.status.change",
        target_url="https://parable.example/prolific/webhook/",
        workspace_id=standin.workspace_id,
    )
    assert answer["is_enabled"] is True
    assert [hook["is_enabled"] for hook in standin.state.subscriptions.values()] == [True]


def test_a_subscription_answer_without_an_id_is_a_clear_error(standin):
    standin.state.subscription_shape = "empty"
    with pytest.raises(ProlificError, match="no subscription id"):
        ProlificClient().hook_subscribe(
            event_type="submission.status.change",
            target_url="https://parable.example/prolific/webhook/",
            workspace_id=standin.workspace_id,
        )


def test_a_plain_http_webhook_target_is_refused(standin):
    with pytest.raises(ProlificError, match="target_url must use https"):
        ProlificClient().hook_subscribe(
            event_type="submission.status.change",
            target_url="http://parable.example/prolific/webhook/",
            workspace_id=standin.workspace_id,
        )


def test_paths_without_a_trailing_slash_are_answered(standin):
    client = ProlificClient()
    assert client.request("GET", "users/me").json()["name"] == "Stand-in Researcher"
    study = client.study_create(fields=study_fields())
    assert client.request("GET", f"studies/{study['id']}").json()["id"] == study["id"]


def test_submissions_are_listed_by_study(standin):
    client = ProlificClient()
    first, second = (client.study_create(fields=study_fields()) for _ in range(2))
    for study in (first, second):
        client.study_transition(study_id=study["id"], action="PUBLISH")
    mine = standin.state.submission_start(study_id=first["id"], participant_id="p1")
    standin.state.submission_start(study_id=second["id"], participant_id="p2")
    listed = client.request("GET", "submissions/", params={"study": first["id"]}).json()
    assert [row["id"] for row in listed["results"]] == [mine["id"]]


def test_a_repeated_submission_transition_is_ignored(standin):
    client = ProlificClient()
    study = client.study_create(fields=study_fields())
    client.study_transition(study_id=study["id"], action="PUBLISH")
    submission = standin.state.submission_start(study_id=study["id"], participant_id="p1")
    standin.state.submission_set_status(submission_id=submission["id"], status="AWAITING REVIEW")
    client.submission_transition(submission_id=submission["id"], action="APPROVE")
    again = client.submission_transition(submission_id=submission["id"], action="APPROVE")
    assert again["status"] == "APPROVED"
    with pytest.raises(ProlificError) as other:  # a different request is not a repeat
        client.submission_transition(
            submission_id=submission["id"],
            action="REJECT",
            message="x" * 100,
            rejection_category="LOW_EFFORT",
        )
    assert other.value.status == 400


@pytest.mark.parametrize(
    "body",
    [
        {"action": "REJECT", "message": "x" * 100, "rejection_category": ["LOW_EFFORT"]},
        {"action": ["APPROVE"]},
        {"action": "REJECT", "message": {"text": "x"}, "rejection_category": "LOW_EFFORT"},
    ],
)
def test_malformed_transitions_get_prolifics_error_shape(standin, body):
    client = ProlificClient()
    study = client.study_create(fields=study_fields())
    client.study_transition(study_id=study["id"], action="PUBLISH")
    submission = standin.state.submission_start(study_id=study["id"], participant_id="p1")
    standin.state.submission_set_status(submission_id=submission["id"], status="AWAITING REVIEW")
    with pytest.raises(ProlificError) as refused:
        client.request("POST", f"submissions/{submission['id']}/transition/", json=body)
    assert refused.value.status == 400
    assert refused.value.body["error"]["title"] == "Bad request"


def test_a_message_without_its_study_is_refused(standin):
    with pytest.raises(ProlificError, match="study_id: This field is required"):
        ProlificClient().message_send(recipient_id="p1", study_id="", body="Thanks")
    assert standin.state.messages == []


def test_the_cost_calculator_answers_only_the_total(standin):
    cost = ProlificClient().study_cost(reward=150, total_available_places=1)
    assert cost == {"total_cost": 210.0}


def test_a_participant_group_needs_a_workspace(standin):
    with pytest.raises(ProlificError, match="Either a workspace or organisation ID"):
        ProlificClient().participant_group_create(name="Blocked", workspace_id="")
    group = ProlificClient().participant_group_create(
        name="Blocked", workspace_id=standin.workspace_id
    )
    assert standin.state.groups[group["id"]]["workspace_id"] == standin.workspace_id


def test_the_workspace_balance_is_the_workspaces_not_the_personal_one(standin):
    standin.state.balance = 7
    balance = ProlificClient().workspace_balance(workspace_id=standin.workspace_id)
    assert balance["available_balance"] == 500_000 and balance["currency_code"] == "GBP"
    project = ProlificClient().project_get(project_id=standin.project_id)
    assert project["workspace"] == standin.workspace_id


def test_bulk_approve_takes_one_documented_form_and_approves_later(standin):
    study = ProlificClient().study_create(fields=study_fields())
    ProlificClient().study_transition(study_id=study["id"], action="PUBLISH")
    submission = standin.state.submission_start(study_id=study["id"], participant_id="p1")
    standin.state.submission_set_status(
        submission_id=submission["id"], status="AWAITING REVIEW", code="ABC123"
    )
    with pytest.raises(ProlificError) as mixed:
        ProlificClient().request(
            "POST",
            "submissions/bulk-approve/",
            json={"study_id": study["id"], "submission_ids": [submission["id"]]},
        )
    assert mixed.value.status == 400
    ProlificClient().request(
        "POST", "submissions/bulk-approve/", json={"submission_ids": [submission["id"]]}
    )
    assert submission["status"] == "AWAITING REVIEW"  # processed asynchronously
    one = ProlificClient().submission_get(submission_id=submission["id"])
    assert one["status"] == "APPROVED" and one["entered_code"] == "ABC123"


def test_rejecting_in_a_full_study_pauses_it(standin):
    client = ProlificClient()
    study = client.study_create(fields=study_fields(total_available_places=2))
    client.study_transition(study_id=study["id"], action="PUBLISH")
    done = []
    for participant in ("p1", "p2"):
        submission = standin.state.submission_start(
            study_id=study["id"], participant_id=participant
        )
        standin.state.submission_set_status(
            submission_id=submission["id"], status="AWAITING REVIEW"
        )
        done.append(submission)
    client.submission_transition(
        submission_id=done[0]["id"], action="REJECT", message="x" * 100, rejection_category="OTHER"
    )
    assert client.study_get(study_id=study["id"])["status"] == "PAUSED"


def test_publishing_is_processed_then_active_and_stop_completes_an_empty_study(standin):
    client = ProlificClient()
    study = client.study_create(fields=study_fields())
    standin.state.publishing_held = True
    assert client.study_transition(study_id=study["id"], action="PUBLISH")["status"] == "PUBLISHING"
    assert client.study_get(study_id=study["id"])["status"] == "PUBLISHING"
    standin.state.publishing_held = False
    assert client.study_get(study_id=study["id"])["status"] == "ACTIVE"
    assert client.study_transition(study_id=study["id"], action="STOP")["status"] == "COMPLETED"
