"""Shared fixtures: users in each role, API clients, a headless Chromium, the test Redis."""

import os
import random

import pytest

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls in
# the same thread are still synchronous, so the async-safety guard is lifted here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_configure(config):
    """pytest-django's live server listens on a free port below the ephemeral range (under
    load a client socket can take an ephemeral port first), in 27800-27999 where no other
    test server looks, tried in random order so that two suites started together do not
    pick the same one. Each pytest-xdist worker picks its own (in its share of the range),
    whatever the process that started it chose."""
    chosen = os.environ.get("DJANGO_LIVE_TEST_SERVER_ADDRESS")
    if not config.getvalue("liveserver") and (xdist_worker() is not None or not chosen):
        port = free_loopback_port(range(27800, 28000), shuffled=True)
        os.environ["DJANGO_LIVE_TEST_SERVER_ADDRESS"] = f"127.0.0.1:{port}"


def xdist_worker() -> tuple[int, int] | None:
    """(this worker's number, how many workers) under pytest-xdist; None otherwise."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not name.startswith("gw"):
        return None
    return int(name[2:]), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture(scope="session", autouse=True)
def files_of_this_session(tmp_path_factory):
    """Uploaded files and trained models go to this session's own folder, never to the
    checkout's var/: parallel pytest processes number their rows alike (run-1, ...)."""
    from django.conf import settings

    folder = tmp_path_factory.mktemp("var")
    settings.MEDIA_ROOT = str(folder / "media")
    settings.PARABLE_MODELING_ARTIFACTS = str(folder / "models")


@pytest.fixture
def researcher(django_user_model):
    from django.contrib.auth.models import Group

    from crowd.access import RESEARCHERS

    user = django_user_model.objects.create_user(
        username="researcher", password="researcher-pass", is_staff=True
    )
    user.groups.add(Group.objects.get(name=RESEARCHERS))
    return user


@pytest.fixture
def reviewer(django_user_model):
    from django.contrib.auth.models import Group

    from crowd.access import REVIEWERS

    user = django_user_model.objects.create_user(
        username="reviewer", password="reviewer-pass", is_staff=True
    )
    user.groups.add(Group.objects.get(name=REVIEWERS))
    return user


@pytest.fixture
def worker_user(django_user_model):
    """A crowd worker with a site login: never staff."""
    return django_user_model.objects.create_user(username="worker", password="worker-pass")


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def researcher_api(api_client, researcher):
    api_client.force_authenticate(researcher)
    return api_client


@pytest.fixture(scope="session")
def redis_url():
    """The Redis that `make test` starts; its absence is a failure, never a skip.

    Each pytest-xdist worker has a database number of its own (1, 2, ...), so that its
    Celery workers never take another's tasks."""
    url = os.environ.get("PARABLE_TEST_REDIS_URL")
    if not url:
        pytest.fail("PARABLE_TEST_REDIS_URL is not set: run the suite with `make test`.")
    worker = xdist_worker()
    if worker is None:
        return url
    if worker[0] + 1 > 15:
        pytest.fail("Redis has 16 databases: run at most 15 pytest-xdist workers.")
    return f"{url.rsplit('/', 1)[0]}/{worker[0] + 1}"


@pytest.fixture(scope="session")
def browser(sentence_model_loaded):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def sentence_model_loaded():
    """Browser tests run Celery tasks in-process (eager), so a submitted story's similarity
    check runs inside the submit request: the embedding model is loaded once per session,
    before any page is opened, so no page waits on it (as no request does in production)."""
    from annotation.quality.embeddings import embedding_model_path, sentence_model

    sentence_model(embedding_model_path())


@pytest.fixture
def page(browser):
    context = browser.new_context()
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


def free_loopback_port(ports: range = range(27000, 27200), *, shuffled: bool = False) -> int:
    """A free TCP port on 127.0.0.1 (by default in 27000-27199, for servers the tests start);
    `shuffled` tries them in random order, so that two processes searching at once seldom
    pick the same one. A pytest-xdist worker looks only in its own share of `ports` (every
    n-th), so that two workers never pick the same port between probe and bind."""
    import socket

    worker = xdist_worker()
    if worker is not None:
        ports = ports[worker[0] :: worker[1]]
    for port in random.sample(ports, len(ports)) if shuffled else ports:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"No free port in {ports.start}-{ports.stop - 1}.")


@pytest.fixture
def standin(settings, monkeypatch):
    """A fresh MTurk stand-in on a loopback port; boto3 (dummy credentials) and the task
    pages' settings point at it."""
    from mturk import client
    from mturk.standin import serve_in_thread

    server = serve_in_thread(ports=range(27480, 27600))
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
