"""The Prolific stand-in, started on a free port of the tests' range and wired in by settings."""

import random

import pytest

from prolific.standin import StandIn

TOKEN = "standin-token"
WEBHOOK_SECRET = "standin-webhook-secret"


def standin_start(**options) -> StandIn:
    """A stand-in on a free port in 27200-27399 (other suites use the range too)."""
    ports = list(range(27200, 27400))
    random.shuffle(ports)
    for port in ports:
        try:
            return StandIn(port=port, token=TOKEN, webhook_secret=WEBHOOK_SECRET, **options).start()
        except OSError:
            continue
    raise RuntimeError("No free port in 27200-27399 for the Prolific stand-in.")


def standin_settings(settings, server: StandIn) -> None:
    """Point Parable at the stand-in as at a real account: token, workspace, project,
    webhook secret and completion URL."""
    settings.PROLIFIC_API_URL = server.api_url
    settings.PROLIFIC_API_TOKEN = TOKEN
    settings.PROLIFIC_WORKSPACE_ID = server.workspace_id
    settings.PROLIFIC_PROJECT_ID = server.project_id
    settings.PROLIFIC_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.PROLIFIC_COMPLETION_URL = f"{server.url}/submissions/complete"
    # Nothing listens there: a test that needs Parable's public URL to answer sets the
    # live server's (the pre-flight check asks it, never anything off this machine), which
    # the trial's allowance takes as the stand-in's runs do.
    settings.PARABLE_PUBLIC_URL = "http://127.0.0.1:9"
    settings.PROLIFIC_LOCAL_TRIAL = True


def standin_wired(settings, **options) -> StandIn:
    """A stand-in started, with Prolific's settings pointed at it."""
    server = standin_start(**options)
    standin_settings(settings, server)
    return server


@pytest.fixture
def reachable(settings, live_server):
    """Parable's public URL answers as this deployment (the live server: its tests need the
    transactional database), as the pre-flight check asks before a study is published."""
    settings.PARABLE_PUBLIC_URL = live_server.url
    return live_server


@pytest.fixture
def standin(settings):
    server = standin_wired(settings, page_size=2)
    yield server
    server.stop()
