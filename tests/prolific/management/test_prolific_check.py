"""manage.py prolific_check against the stand-in: it passes when Parable is set up as a real
account needs, and for each setting missing or wrong it fails and names that setting."""

import io
import re

import pytest
from django.core.management import CommandError, call_command

from prolific.models import Study
from tests.factories import prolific_batch_create, proverb_create
from tests.prolific.helpers import write_study

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def account(standin, reachable):
    """The stand-in as a real account: Parable's public URL answers (the live server) and
    the webhooks are subscribed."""
    call_command("prolific_subscribe", stdout=io.StringIO())
    return standin


def check(*options) -> str:
    out = io.StringIO()
    call_command("prolific_check", *options, stdout=out)
    return out.getvalue()


def failing(*options) -> str:
    """The command's output, and its error's last line, of a run that fails."""
    out = io.StringIO()
    with pytest.raises(CommandError, match="check\\(s\\) failed") as failed:
        call_command("prolific_check", *options, stdout=out)
    return f"{out.getvalue()}{failed.value}"


def test_an_account_set_up_as_prolific_needs_passes_every_check(account):
    study = write_study(publish=False).prolific_study
    out = check("--study", str(study.pk))
    assert out.count("ok  ") == 8 and "FAIL" not in out
    assert "6.30 GBP" in out  # the study's cost, against the workspace's 5000.00 GBP
    assert out.endswith("Every check passed.\n")


@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        (
            "PROLIFIC_API_URL",
            "http://127.0.0.1:9/api/v1/",
            "could not be asked at PROLIFIC_API_URL",
        ),
        ("PROLIFIC_API_TOKEN", "", "Set PROLIFIC_API_TOKEN"),
        ("PROLIFIC_API_TOKEN", "revoked", "Prolific refuses PROLIFIC_API_TOKEN (401)"),
        ("PROLIFIC_WORKSPACE_ID", "", "Set PROLIFIC_WORKSPACE_ID"),
        ("PROLIFIC_WORKSPACE_ID", "nosuch", "PROLIFIC_WORKSPACE_ID=nosuch names no workspace"),
        ("PROLIFIC_PROJECT_ID", "", "Set PROLIFIC_PROJECT_ID"),
        ("PROLIFIC_PROJECT_ID", "nosuch", "PROLIFIC_PROJECT_ID=nosuch names no project"),
        ("PROLIFIC_PROJECT_ID", "theirs", "is a project of workspace other, not of"),
        ("PROLIFIC_WEBHOOK_SECRET", "", "PROLIFIC_WEBHOOK_SECRET is not set"),
        ("PROLIFIC_WEBHOOK_SECRET", "old", "PROLIFIC_WEBHOOK_SECRET is not the workspace's"),
        ("PARABLE_PUBLIC_URL", "http://parable.example.org", "Set PARABLE_PUBLIC_URL"),
        ("PARABLE_PUBLIC_URL", "http://127.0.0.1:9", "could not be reached"),
    ],
)
def test_each_missing_or_wrong_setting_fails_and_is_named(account, settings, setting, value, said):
    account.state.workspaces["other"] = {**account.state.workspaces[account.workspace_id]}
    account.state.projects["theirs"] = {"id": "theirs", "title": "T", "workspace": "other"}
    setattr(settings, setting, value)
    out = failing()
    assert said in out
    assert re.search(rf"FAIL [^\n]*{re.escape(said)}", out)


def test_unsubscribed_webhooks_fail_unless_beat_polls(account, settings):
    account.state.subscriptions.clear()
    assert "run manage.py prolific_subscribe" in failing()
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    out = failing()  # no broker there: /healthz answers 503, and the public URL check says so
    assert re.search(r"ok +Submissions reach Parable: .* Celery beat polls every study", out)
    assert re.search(
        r"FAIL Public URL: [^\n]*/healthz answered 503 as this deployment, unwell", out
    )


def test_a_public_url_on_this_machine_fails_outside_a_trial(account, settings):
    settings.PROLIFIC_LOCAL_TRIAL = False  # the live server's loopback address, as for real
    out = failing()
    assert re.search(
        r"FAIL Public URL: PARABLE_PUBLIC_URL is http://127\.0\.0\.1:\d+, which is", out
    )
    assert "participants cannot reach it" in out
    assert out.endswith("publishing is refused while these fail: Public URL.")


def test_without_a_study_the_balance_must_cover_every_study_not_published_yet(account):
    # A study running on Prolific has its cost locked already: it waits for nothing.
    running = prolific_batch_create(proverbs=[proverb_create("Haste makes waste")], publish=False)
    type(running).objects.filter(pk=running.pk).update(status="published")
    Study.objects.filter(batch=running).update(study_id="running", status="ACTIVE")
    draft = write_study(publish=False)
    account.state.workspaces[account.workspace_id]["available_balance"] = 340
    out = failing()
    assert (
        "3.40 GBP available in the workspace, and the 1 study(ies) not published yet "
        f"(“{draft.name}”) cost 6.30 GBP (Prolific's total, with fees and VAT): short by "
        "2.90 GBP. Add at least 2.90 GBP to the workspace on Prolific"
    ) in out
    assert out.endswith("publishing is refused while these fail: Balance.")
    account.state.workspaces[account.workspace_id]["available_balance"] = 630
    assert "630.00" not in check() and "cost 6.30 GBP." in check()


def test_without_a_study_waiting_the_balance_alone_is_said(account):
    assert "5000.00 GBP available in the workspace; no study waits to be published." in check()


def test_a_study_the_workspace_cannot_pay_for_fails_and_says_how_much_to_add(account):
    account.state.workspaces[account.workspace_id]["available_balance"] = 500
    study = write_study(publish=False).prolific_study
    out = failing("--study", str(study.pk))
    assert "5.00 GBP available in the workspace, and this study costs 6.30 GBP" in out
    assert "short by 1.30 GBP. Add at least 1.30 GBP to the workspace" in out
    assert out.endswith(
        "1 check(s) failed: Balance; publishing is refused while these fail: Balance."
    )


def test_a_filter_prolific_no_longer_lists_fails(account):
    batch = write_study(publish=False)
    Study.objects.filter(batch=batch).update(countries=["1"])
    account.state.filters.pop(0)  # Prolific retired the country filter
    out = failing("--study", str(batch.prolific_study.pk))
    assert "uses filter current-country-of-residence, which Prolific no longer lists" in out


def test_reservations_shorter_than_prolifics_time_fail(account):
    batch = write_study(publish=False)
    type(batch).objects.filter(pk=batch.pk).update(time_allowed_seconds=300)
    out = failing("--study", str(batch.prolific_study.pk))
    assert "reserves their items for 5 min: set the batch's time allowed to at least 12 min" in out
