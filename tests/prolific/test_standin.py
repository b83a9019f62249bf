"""The Prolific stand-in as other Prolific clients call it (plain HTTP): started with given
workspace and project ids, lists paged by limit and offset, Prolific's documented shapes
for messages, participant groups and bonus errors, and the endpoints beyond Parable's own
(workspaces, studies, a study's cost, screen-out, bulk and unread messages, a group's
participants, hook event types, deleting a draft)."""

import os
import signal
import socket
import subprocess
import sys

import pytest
import requests

from prolific.client import ProlificClient
from tests.processes import ROOT
from tests.prolific.conftest import TOKEN
from tests.prolific.test_client import study_fields

HEADERS = {"Authorization": f"Token {TOKEN}"}


def call(standin, method: str, path: str, **options) -> requests.Response:
    return requests.request(
        method, f"{standin.api_url}{path}", headers=HEADERS, timeout=10, **options
    )


def published_study(standin, **fields) -> dict:
    client = ProlificClient()
    study = client.study_create(fields=study_fields(**fields))
    client.study_transition(study_id=study["id"], action="PUBLISH")
    standin.state.publishing_process()
    return study


def test_the_command_serves_given_workspace_and_project_ids_and_prints_them():
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    command = [
        sys.executable,
        "manage.py",
        "prolific_standin",
        f"--port={port}",
        f"--token={TOKEN}",
        "--workspace-id=64f1c0ffee0000000000aaaa",
        "--project-id=64f1c0ffee0000000000bbbb",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        printed = ""
        while "Stop with Ctrl-C" not in printed:
            line = server.stdout.readline()
            assert line, f"the stand-in stopped: {printed}"
            printed += line
        assert "PROLIFIC_WORKSPACE_ID=64f1c0ffee0000000000aaaa" in printed
        assert "PROLIFIC_PROJECT_ID=64f1c0ffee0000000000bbbb" in printed
        assert "PROLIFIC_LOCAL_TRIAL=true" in printed
        api = f"http://127.0.0.1:{port}/api/v1/"
        project = requests.get(f"{api}projects/64f1c0ffee0000000000bbbb/", headers=HEADERS)
        assert project.json()["workspace"] == "64f1c0ffee0000000000aaaa"
        workspaces = requests.get(f"{api}workspaces/", headers=HEADERS).json()["results"]
        assert [workspace["id"] for workspace in workspaces] == ["64f1c0ffee0000000000aaaa"]
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        server.stdout.close()


def test_lists_are_paged_by_limit_and_offset(standin):
    study = published_study(standin)
    for _ in range(5):
        standin.state.submission_start(study_id=study["id"])
    page = call(standin, "GET", f"studies/{study['id']}/submissions/?limit=2&offset=2").json()
    assert len(page["results"]) == 2 and page["meta"] == {"count": 5}
    assert page["_links"]["next"]["href"].endswith("limit=2&offset=4")
    assert page["_links"]["previous"]["href"].endswith("limit=2&offset=0")
    last = call(standin, "GET", f"studies/{study['id']}/submissions/?limit=2&offset=4").json()
    assert len(last["results"]) == 1 and last["_links"]["next"]["href"] is None
    everyone = call(standin, "GET", f"submissions/?study={study['id']}&limit=10").json()
    assert len(everyone["results"]) == 5
    assert call(standin, "GET", "workspaces/?limit=0").status_code == 400
    assert call(standin, "GET", "workspaces/?offset=-1").status_code == 400


def test_a_message_is_answered_204_and_every_send_delivers_again(standin):
    study = published_study(standin)
    message = {"recipient_id": "p1", "body": "Thanks", "study_id": study["id"]}
    for _ in range(2):  # no id makes a repeat safe: each call sends
        sent = call(standin, "POST", "messages/", json=message)
        assert (sent.status_code, sent.content) == (204, b"")
    bulk = {"ids": ["p2", "p3"], "body": "A second part opens", "study_id": study["id"]}
    assert call(standin, "POST", "messages/bulk/", json=bulk).status_code == 204
    group = ProlificClient().participant_group_create(
        name="Writers", workspace_id="standin-workspace"
    )
    ProlificClient().participant_group_add(group_id=group["id"], participant_ids=["p4"])
    to_group = {"participant_group_id": group["id"], "body": "Hello group"}
    assert call(standin, "POST", "messages/participant-group/", json=to_group).status_code == 204
    sent_to = [message["recipient_id"] for message in standin.state.messages]
    assert sent_to == ["p1", "p1", "p2", "p3", "p4"]
    with_p1 = call(standin, "GET", "messages/?user_id=p1").json()["results"]
    assert [row["body"] for row in with_p1] == ["Thanks", "Thanks"]
    assert with_p1[0]["sender_id"] == "standin-researcher"
    assert call(standin, "GET", "messages/").status_code == 400  # user_id or created_after
    refused = call(standin, "POST", "messages/bulk/", json={**bulk, "ids": []})
    assert refused.status_code == 400


def test_unread_messages_are_listed_and_stay_unread(standin):
    standin.state.participant_writes(participant_id="p1", body="When is the bonus?", study_id="s1")
    for _ in range(2):
        unread = call(standin, "GET", "messages/unread/").json()["results"]
        assert [(row["sender_id"], row["body"]) for row in unread] == [("p1", "When is the bonus?")]
    assert unread[0]["data"]["study_id"] == "s1"
    since = call(standin, "GET", "messages/?created_after=2020-01-01T00:00:00Z").json()
    assert len(since["results"]) == 1


def test_adding_to_a_group_answers_every_member_with_when_it_was_added(standin):
    client = ProlificClient()
    group = client.participant_group_create(name="Blocked", workspace_id="standin-workspace")
    first = client.participant_group_add(group_id=group["id"], participant_ids=["p1"])
    again = client.participant_group_add(group_id=group["id"], participant_ids=["p1", "p2"])
    assert [row["participant_id"] for row in again["results"]] == ["p1", "p2"]
    assert again["results"][0]["datetime_created"] == first["results"][0]["datetime_created"]
    listed = call(standin, "GET", f"participant-groups/{group['id']}/participants/?limit=1")
    assert listed.json()["results"] == again["results"][:1]
    assert listed.json()["meta"] == {"count": 2}


def test_a_bonus_for_someone_who_did_not_take_part_is_refused_by_their_id(standin):
    study = published_study(standin)
    submission = standin.state.submission_start(study_id=study["id"], participant_id="p1")
    rows = f"p1,0.50\nstranger,0.25\n{submission['id']},abc"
    refused = call(
        standin,
        "POST",
        "submissions/bonus-payments/",
        json={"study_id": study["id"], "csv_bonuses": rows},
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["detail"]["csv_bonuses"] == [
        "stranger did not take part in this study.",
        f"{submission['id']}: 'abc' is not a positive amount.",
    ]


def test_studies_are_listed_by_state_and_by_project(standin):
    draft = ProlificClient().study_create(
        fields=study_fields(name="Draft", project="standin-project")
    )
    live = published_study(standin, name="Live")
    listed = call(standin, "GET", "studies/").json()["results"]
    assert {row["name"]: row["status"] for row in listed} == {
        "Draft": "UNPUBLISHED",
        "Live": "ACTIVE",
    }
    assert listed[1]["published_at"] and listed[0]["published_at"] is None
    drafts = call(standin, "GET", "studies/?state=(UNPUBLISHED)").json()["results"]
    assert [row["id"] for row in drafts] == [draft["id"]]
    both = call(standin, "GET", "studies/?state=(UNPUBLISHED|ACTIVE)").json()["results"]
    assert len(both) == 2
    in_project = call(standin, "GET", "projects/standin-project/studies/").json()["results"]
    assert [row["id"] for row in in_project] == [draft["id"]] and live["id"] != draft["id"]


def gbp(amount: float) -> dict:
    return {"amount": amount, "currency": "GBP"}


def test_a_studys_cost_gives_rewards_fees_and_tax_now_and_projected(standin):
    study = published_study(standin, total_available_places=3, reward=150)
    submission = standin.state.submission_start(study_id=study["id"])
    standin.state.submission_set_status(submission_id=submission["id"], status="APPROVED")
    now = call(standin, "GET", f"studies/{study['id']}/cost/").json()
    assert now["rewards"] == {"rewards": gbp(150), "fees": gbp(50), "tax": gbp(10)}
    assert now["bonuses"] == {"rewards": gbp(0), "fees": gbp(0), "tax": gbp(0)}
    projected = call(standin, "GET", f"studies/{study['id']}/cost/?is_projected=true").json()
    assert projected["rewards"]["rewards"] == gbp(450)
    calculator = ProlificClient().study_cost(reward=150, total_available_places=3)
    assert calculator["total_cost"] == sum(part["amount"] for part in projected["rewards"].values())


def test_screen_out_pays_each_active_submission_once_and_reopens_its_place(standin):
    study = published_study(standin, total_available_places=2, is_custom_screening=True)
    submission = standin.state.submission_start(study_id=study["id"])
    body = {
        "submission_ids": [submission["id"]],
        "bonus_per_submission": 0.4,
        "increase_places": True,
    }
    screened = call(standin, "POST", f"studies/{study['id']}/screen-out-submissions/", json=body)
    assert screened.status_code == 200
    assert screened.json()["payment_per_participant"] == {"amount": 0.4, "currency": "GBP"}
    assert standin.state.submissions[submission["id"]]["status"] == "SCREENED OUT"
    assert standin.state.studies[study["id"]]["total_available_places"] == 3
    again = call(standin, "POST", f"studies/{study['id']}/screen-out-submissions/", json=body)
    assert again.status_code == 400 and "is SCREENED OUT" in again.text
    assert [payment["cents"] for payment in standin.state.payments] == [40]
    plain = published_study(standin)
    other = standin.state.submission_start(study_id=plain["id"])
    body["submission_ids"] = [other["id"]]
    refused = call(standin, "POST", f"studies/{plain['id']}/screen-out-submissions/", json=body)
    assert refused.status_code == 400 and "is_custom_screening" in refused.text


def test_hook_event_types_list_what_the_stand_in_delivers(standin):
    types = call(standin, "GET", "hooks/event-types/").json()["results"]
    assert {row["event_type"] for row in types} == {
        "study.status.change",
        "submission.status.change",
        "study.has_high_return_rate",
    }
    assert all(row["description"] for row in types)


@pytest.mark.parametrize("published", [False, True])
def test_only_a_draft_study_can_be_deleted(standin, published):
    study = (
        published_study(standin)
        if published
        else ProlificClient().study_create(fields=study_fields())
    )
    deleted = call(standin, "DELETE", f"studies/{study['id']}/")
    if published:
        assert deleted.status_code == 400 and study["id"] in standin.state.studies
    else:
        assert (deleted.status_code, deleted.content) == (204, b"")
        assert call(standin, "GET", f"studies/{study['id']}/").status_code == 404
