"""common.sessions: Django's database sessions read with one plain SQL statement."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.sessions import SessionStore
from frontend.workers import SESSION_KEY
from tests.factories import BIRDS, invite_path, proverb_create, worker_create, write_batch_create

pytestmark = pytest.mark.django_db


def test_the_project_uses_it():
    assert settings.SESSION_ENGINE == "common.sessions"


def test_a_saved_session_loads_back_in_one_statement():
    store = SessionStore()
    store["parable_worker_id"] = 7
    store.save()

    with CaptureQueriesContext(connection) as queries:
        loaded = SessionStore(store.session_key).load()

    assert loaded == {"parable_worker_id": 7}
    assert len(queries) == 1


def test_an_expired_or_unknown_session_loads_empty_and_drops_its_key():
    store = SessionStore()
    store["parable_worker_id"] = 7
    store.save()
    Session.objects.filter(session_key=store.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )

    for key in (store.session_key, "no-such-session-key-0123456789ab"):
        again = SessionStore(key)
        assert again.load() == {}
        assert again.session_key is None


def _late(client, path: str, cookie: str):
    """A request the browser sent earlier with session key `cookie`, answered now: its
    response's cookies land in the browser's one cookie jar, as a browser applies them."""
    late = Client()
    late.cookies[settings.SESSION_COOKIE_NAME] = cookie
    response = late.get(path)
    client.cookies.update(response.cookies)
    return response


def test_a_late_answer_to_a_request_made_before_a_worker_link_keeps_the_worker_signed_in(
    client, researcher
):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    worker = worker_create()
    client.force_login(researcher)
    before = client.cookies[settings.SESSION_COOKIE_NAME].value

    # The researcher opens a worker's link while the review queue's fetch is still running.
    opened = client.get(invite_path(worker=worker, batch=batch))
    task_path = client.get(opened.url).url
    late = _late(client, f"/admin/review/{batch.pk}/next/", before)

    assert late.status_code == 302  # the old session is gone: to the login page
    assert settings.SESSION_COOKIE_NAME not in late.cookies  # and the cookie is left alone
    assert client.get(task_path).status_code == 200
    assert client.session[SESSION_KEY] == worker.pk


def test_a_request_that_ends_its_own_session_still_deletes_the_cookie(client, researcher):
    client.force_login(researcher)
    response = client.post("/admin/logout/")

    assert response.cookies[settings.SESSION_COOKIE_NAME].value == ""
    assert response.cookies[settings.SESSION_COOKIE_NAME]["max-age"] == 0
