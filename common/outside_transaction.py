"""The rule that no provider call (Prolific, MTurk) runs inside a database transaction: a
call can take seconds, holding row locks (on SQLite the whole database's write lock) that
long. Services record a call and send it after commit, or write its answer in a second
short transaction; the provider clients check the rule before every call.
"""

from __future__ import annotations

from django.db import connections


class CallInTransaction(RuntimeError):
    """A provider call was about to run inside a database transaction: a programming
    error, never a provider's refusal."""


def ensure_outside_transaction(call: str) -> None:
    """Raise CallInTransaction when any database connection of this thread is inside a
    transaction. The transaction a test case wraps around each test is not counted."""
    for connection in connections.all(initialized_only=True):
        if any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks):
            raise CallInTransaction(
                f"{call} was about to run inside a database transaction on {connection.alias!r}: "
                "send provider calls after commit, never while holding locks."
            )
