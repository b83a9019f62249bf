"""Django's database sessions, with the read that every request of a signed-in worker or
user makes as one plain SQL statement (SESSION_ENGINE = "common.sessions").

Loading a session is the one statement every worker request shares; through the ORM it
builds the same query anew each time, which costs the web worker more than PostgreSQL
takes to answer it. Everything else (saving, cycling, flushing, expiry) is Django's.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


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
