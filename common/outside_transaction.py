"""The rule that no provider call (Prolific, MTurk) runs inside a database transaction.

A call can take seconds (Prolific still processing, retries with backoff); inside a
transaction it would hold row locks, and on SQLite the write lock of the whole
database, for that long: other admin pages would wait, then fail with "database is
locked". So a service records what it will ask in a short transaction and sends the
call after commit (a task queued with common.task_queue.queue_on_commit), or locks,
reads, commits, calls, and writes the provider's answer in a second short
transaction. The provider clients check it before every call.
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
