"""The MTurk stand-in on a loopback port, and boto3 pointed at it with dummy credentials."""

import pytest

from mturk import client
from mturk.standin import serve_in_thread

PORTS = range(27480, 27600)


@pytest.fixture
def standin(settings, monkeypatch):
    """A fresh stand-in per test; settings point the client and the task pages at it."""
    server = serve_in_thread(ports=PORTS)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTESTSTANDIN")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    settings.MTURK_ENDPOINT = server.url
    settings.MTURK_MAX_ATTEMPTS = 4
    client._client.cache_clear()
    yield server
    server.shutdown()
    server.server_close()
    client._client.cache_clear()
