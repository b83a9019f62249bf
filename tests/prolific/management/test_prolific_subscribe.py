"""manage.py prolific_subscribe against the stand-in: subscribes each event once, whatever
shape Prolific answers in, however often it is run, and reports Prolific's refusals."""

import io

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db

TARGET = "https://parable.example.org/prolific/webhook/"


@pytest.fixture
def public(settings):
    settings.PARABLE_PUBLIC_URL = "https://parable.example.org"


def subscribe(**options) -> str:
    out = io.StringIO()
    call_command("prolific_subscribe", stdout=out, **options)
    return out.getvalue()


def enabled(standin) -> list[str]:
    return sorted(
        hook["event_type"]
        for hook in standin.state.subscriptions.values()
        if hook["is_enabled"] and hook["target_url"] == TARGET
    )


EVENTS = ["study.has_high_return_rate", "study.status.change", "submission.status.change"]


def test_each_event_is_subscribed_and_confirmed_from_the_documented_answer(standin, public):
    out = subscribe()
    assert enabled(standin) == EVENTS
    assert out.count("Subscribed https://parable.example.org/prolific/webhook/ to") == 3


def test_running_it_again_adds_nothing(standin, public):
    subscribe()
    out = subscribe()
    assert len(standin.state.subscriptions) == 3
    assert out.count("is already subscribed to") == 3


def test_a_subscription_left_unconfirmed_is_replaced_not_added_to(standin, public):
    standin.state.subscription_shape = "empty"  # created on Prolific, then no id to confirm
    with pytest.raises(CommandError, match="no subscription id"):
        subscribe()
    assert [hook["is_enabled"] for hook in standin.state.subscriptions.values()] == [False]
    standin.state.subscription_shape = "results"
    out = subscribe()
    assert "not enabled" in out
    assert enabled(standin) == EVENTS and len(standin.state.subscriptions) == 3


def test_prolifics_refusal_is_a_command_error(standin, settings):
    settings.PARABLE_PUBLIC_URL = "http://parable.example.org"
    with pytest.raises(CommandError, match="target_url must use https"):
        subscribe()
    assert standin.state.subscriptions == {}


def test_without_a_workspace_it_says_what_to_set(standin, settings, public):
    settings.PROLIFIC_WORKSPACE_ID = ""
    with pytest.raises(CommandError, match="Set PROLIFIC_WORKSPACE_ID"):
        subscribe()
