"""Django's database sessions, read in one plain SQL statement (every worker request makes
it, and the ORM building it anew cost more than PostgreSQL's answer), and Django's session
middleware, except that a session gone meanwhile leaves the browser's cookie alone.
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
    """Django's session middleware, except that a request whose cookie names a session gone
    meanwhile, and which did not end one itself (`flush`), leaves the cookie alone: opening a
    worker's link cycles the key, and another tab's request with the old key would otherwise
    delete the new cookie, signing the worker out."""

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
