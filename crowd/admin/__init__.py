"""Admin of crowd bookkeeping: batches, items, assignments, workers, shared review actions,
the payments report and the calls owed to providers."""

from crowd.admin import batches, outbox, payments, review, workers  # noqa: F401
