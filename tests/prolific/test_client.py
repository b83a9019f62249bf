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


def test_hook_subscription_is_confirmed_with_the_returned_secret(standin):
    answer = ProlificClient().hook_subscribe(
        event_type="submission.status.change",
        target_url="https://parable.example/prolific/webhook/",
        workspace_id="ws1",
    )
    assert answer["is_enabled"] is True
    assert [hook["is_enabled"] for hook in standin.state.subscriptions.values()] == [True]


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
    ProlificClient().submissions_bulk_approve(submission_ids=[submission["id"]])
    assert submission["status"] == "AWAITING REVIEW"  # processed asynchronously
    one = ProlificClient().submission_get(submission_id=submission["id"])
    assert one["status"] == "APPROVED" and one["entered_code"] == "ABC123"
