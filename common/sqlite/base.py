"""The SQLite backend of the embedded default: Django's, with a process's writers taking
turns in order (SQLite's busy handler sleeps longer the longer a writer waits, so newcomers
keep the lock and the oldest fails "database is locked"). A transaction waits for the
process's write turn, then begins IMMEDIATE; the busy timeout serves other processes' writers.
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
