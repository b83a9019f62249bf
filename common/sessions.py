"""Django's database sessions, with the read that every request of a signed-in worker or
user makes as one plain SQL statement (SESSION_ENGINE = "common.sessions"), and Django's
session middleware, except that a request holding a session that no longer exists leaves
the browser's cookie alone (`SessionMiddleware`).

Loading a session is the one statement every worker request shares; through the ORM it
builds the same query anew each time, which costs the web worker more than PostgreSQL
takes to answer it. Everything else (saving, cycling, flushing, expiry) is Django's.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.sessions import middleware
from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone
from django.utils.cache import patch_vary_headers


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        model = self.model
        connection = connections[router.db_for_read(model)]
        table = connection.ops.quote_name(model._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",
                [self.session_key, now],
            )
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return model(session_key=self.session_key, session_data=row[0])


class SessionMiddleware(middleware.SessionMiddleware):
    """Django's session middleware, except for a request whose cookie names a session that
    is gone and which did not end one itself: its response leaves the cookie alone.

    Opening a worker's link gives the browser a new session key (against session
    fixation) and deletes the old session. A request the browser sent before, with the
    old key, still running then (the review queue's fetch of its next submission, a
    submit from another tab), finds no session; Django's middleware answers it with
    "delete the session cookie", and the browser, which by then holds the new key,
    deletes that: the worker's next page is a 404, signed out. A session emptied by the
    request itself (a logout, a dropped worker: `flush` marks it modified) still has its
    cookie deleted."""

    def process_response(self, request, response):
        session = getattr(request, "session", None)
        if (
            session is not None
            and settings.SESSION_COOKIE_NAME in request.COOKIES
            and session.accessed
            and not session.modified
            and session.is_empty()
        ):
            patch_vary_headers(response, ("Cookie",))
            return response
        return super().process_response(request, response)
