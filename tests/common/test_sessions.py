"""common.sessions: Django's database sessions read with one plain SQL statement."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.sessions import SessionStore

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
