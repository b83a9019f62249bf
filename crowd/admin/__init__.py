"""Admin of crowd bookkeeping: batches, items, assignments, workers, shared review actions."""

from crowd.admin import batches, payments, review, workers  # noqa: F401
