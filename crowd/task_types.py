"""The task-type registry: the only way crowd code reaches a task's own logic.

A task type (write, align, rate, choose, ...) is one unit: it validates and stores a
submission, gives its page its context, shows the result for review and reacts to
a review. Task types register themselves from their app's `ready()`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from django.db.models import Q

    from crowd.models import Assignment, Batch


class SubmissionError(ValueError):
    """A submission the server refuses; the message is shown to the worker as is."""

    def __init__(self, message: str, *, field: str = "", details: Any = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.details = details


class SubmissionConflict(SubmissionError):
    """The assignment is already stored from another submission (another window or tab)."""


class TaskType:
    """Base class for task types; subclasses set `key`, `label`, `template`."""

    key: ClassVar[str]
    label: ClassVar[str]
    template: ClassVar[str]
    # The admin form researchers create batches of this type with (a crowd.forms.BatchForm);
    # None: the type is not offered in Batches → Add.
    batch_form: ClassVar[type | None] = None
    # The admin changelist the batch's submissions are reviewed on, as a URL name such as
    # "admin:annotation_rating_changelist" (filtered by ?batch=); "": no review page.
    review_changelist: ClassVar[str] = ""

    def default_settings(self) -> dict:
        """Per-batch settings a new batch of this type starts from."""
        return {}

    def default_instructions(self) -> str:
        return ""

    def clean_settings(self, settings: dict) -> dict:
        """Validate a batch's settings (raise ValueError with a clear message)."""
        return {**self.default_settings(), **settings}

    def page_context(self, *, assignment: Assignment) -> dict:
        """Context for the worker's page (beyond the common assignment/batch/item)."""
        return {}

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        """Check a submission against the batch's rules; raise SubmissionError."""
        raise NotImplementedError

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        """Write the validated submission (called inside the submit transaction)."""
        raise NotImplementedError

    def result(self, *, assignment: Assignment) -> dict:
        """The stored submission as JSON, returned again to a retried submit."""
        raise NotImplementedError

    def qualification_needed(self, *, batch: Batch, worker) -> bool:
        """True while the worker must first pass the batch's qualification test.

        Reservation refuses such a worker (NoWorkAvailable code "qualification") and
        the worker pages send them to frontend:qualify, which shows
        `qualification_context` and stores answers with `qualification_submit`.
        """
        return False

    def qualification_context(self, *, batch: Batch, worker) -> dict:
        """The qualification page's context: "questions", and "attempt" once answered."""
        return {}

    def qualification_submit(self, *, batch: Batch, worker, answers: dict) -> None:
        """Score and store the worker's answers; SubmissionError when they cannot be read."""
        raise LookupError(f"{self.label} batches have no qualification test.")

    def live_check(self, *, assignment: Assignment, payload: dict) -> dict:
        """What the page shows while the worker types (a read; nothing is stored).

        Task types whose check needs the server (a parser) implement it; the page
        POSTs to frontend:check. LookupError: this type has none.
        """
        raise LookupError(f"{self.label} tasks have no live check.")

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        """React to approve/reject (e.g. mark the narrative, feed chained batches)."""

    def review_url(self, *, batch: Batch) -> str:
        """Where the batch's submissions are reviewed in the admin ("" when nowhere)."""
        if not self.review_changelist:
            return ""
        from django.urls import reverse

        return f"{reverse(self.review_changelist)}?batch={batch.pk}"

    def built_on(self, *, assignment: Assignment) -> Q:
        """Which batch items (a filter on BatchItem) are built on this assignment's output.

        By default the items that name it as their source (e.g. ratings of an alignment);
        a type whose output is a record of its own (a narrative) adds the items about it.
        """
        from django.db.models import Q

        return Q(source_assignment=assignment)

    def items_refresh(self, *, batch: Batch) -> int:
        """Add items a chained batch draws from its source; returns how many were added."""
        return 0


_registry: dict[str, TaskType] = {}


def register(task_type: TaskType) -> TaskType:
    _registry[task_type.key] = task_type
    return task_type


def get(key: str) -> TaskType:
    try:
        return _registry[key]
    except KeyError:
        raise LookupError(f"No task type {key!r} is registered.") from None


def registered() -> dict[str, TaskType]:
    return dict(_registry)
