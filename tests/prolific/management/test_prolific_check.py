"""manage.py prolific_check against the stand-in: it passes when Parable is set up as a real
account needs, and for each setting missing or wrong it fails and names that setting."""

import io
import re

import pytest
from django.core.management import CommandError, call_command

from prolific.models import Study
from tests.prolific.helpers import write_study

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def account(standin, settings, live_server):
    """The stand-in as a real account: Parable's public URL answers (the live server) and
    the webhooks are subscribed."""
    settings.PARABLE_PUBLIC_URL = live_server.url
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
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert "Celery beat polls every study on Prolific every 120 s" in check()


def test_a_study_the_workspace_cannot_pay_for_fails_and_says_how_much_to_add(account):
    account.state.workspaces[account.workspace_id]["available_balance"] = 500
    study = write_study(publish=False).prolific_study
    out = failing("--study", str(study.pk))
    assert "5.00 GBP available in the workspace, and this study costs 6.30 GBP" in out
    assert "add at least 1.30 GBP to the workspace" in out
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
