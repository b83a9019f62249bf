"""The SQLite database backend of the embedded default: Django's, with a process's writers
taking turns in the order they came instead of racing for SQLite's write lock.

SQLite has one write lock per database file. A transaction that finds it held waits in
SQLite's busy handler, which sleeps and tries again, sleeping longer the longer it has
waited (up to 100 ms between tries): under a lab's steady writes the newcomers, who try
again after 1-5 ms, keep taking the lock first, and a writer that has waited longest can
wait out the whole busy timeout and fail "database is locked" while the lock was free
many times. Here a transaction first waits for the process's write turn (a lock its
threads queue on, woken one at a time), then begins IMMEDIATE as before; the busy
timeout is left to writers of other processes (a management command, a second server).
"""

from __future__ import annotations

import threading

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError

# The write turn of each database file, shared by every connection of this process.
_turns: dict[str, threading.Lock] = {}
_turns_guard = threading.Lock()


def _write_turn(name: str) -> threading.Lock:
    with _turns_guard:
        return _turns.setdefault(str(name), threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    """A transaction holds the process's write turn from its BEGIN to its COMMIT or
    ROLLBACK (or the connection's close), waiting for it at most the busy timeout."""

    _turn_held: threading.Lock | None = None

    def _start_transaction_under_autocommit(self):
        turn = _write_turn(self.settings_dict["NAME"])
        timeout = self.settings_dict["OPTIONS"].get("timeout", 5)
        if not turn.acquire(timeout=timeout):
            raise OperationalError("database is locked (waited for this process's writers)")
        self._turn_held = turn
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._turn_release()
            raise

    def _turn_release(self) -> None:
        turn, self._turn_held = self._turn_held, None
        if turn is not None:
            turn.release()

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self._turn_release()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._turn_release()

    def _close(self):
        try:
            return super()._close()
        finally:
            self._turn_release()
