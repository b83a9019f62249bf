"""Provider-neutral crowd work: workers, batches, the items of a batch, and assignments.

An assignment is one worker's go at one batch item: on MTurk a HIT assignment, on
Prolific a submission, locally a reservation. Over 400 lines: one app's tables, each
with the constraints the database holds it to.
"""

from functools import reduce
from operator import or_

from django.conf import settings as django_settings
from django.db import models
from django.db.models import F, Q

from crowd.money import money_text


class Provider(models.TextChoices):
    LOCAL = "local", "Local (in-lab)"
    PROLIFIC = "prolific", "Prolific"
    MTURK = "mturk", "Amazon Mechanical Turk"


def _optional_key(model, *, related_name: str = "+", **options) -> models.ForeignKey:
    """An optional foreign key that PROTECTs the row it names: work is built on it."""
    return models.ForeignKey(
        model, null=True, blank=True, on_delete=models.PROTECT, related_name=related_name, **options
    )


class Worker(models.Model):
    provider = models.CharField(max_length=16, choices=Provider.choices)
    external_id = models.CharField(max_length=128, help_text="The provider's worker id.")
    display_name = models.CharField(max_length=200, blank=True)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "external_id"], name="worker_unique_per_provider"
            ),
            models.CheckConstraint(
                condition=Q(blocked=False) | ~Q(blocked_reason=""),
                name="blocked_worker_has_reason",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or f"{self.provider}:{self.external_id}"


class Batch(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=200)
    # A registered type's key (crowd.task_types): the types are not listed here.
    task_type = models.CharField(max_length=16)
    provider = models.CharField(max_length=16, choices=Provider.choices, default=Provider.LOCAL)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    settings = models.JSONField(
        default=dict, blank=True, help_text="Task-type settings (rules, bounds, criteria)."
    )
    instructions = models.TextField(blank=True)
    pledge = models.TextField(
        blank=True,
        help_text="Shown once before a worker's first task of the batch, to agree to; "
        "empty: no pledge step.",
    )
    target_per_item = models.PositiveIntegerField(
        default=10, help_text="Approved results wanted per item, each from a different worker."
    )
    per_worker_cap = models.PositiveIntegerField(
        null=True, blank=True, help_text="Most items one worker may do in this batch."
    )
    reward_cents = models.PositiveIntegerField(default=0)
    target_hourly_cents = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The hourly pay this batch aims at (reward plus bonuses), in cents.",
    )
    time_allowed_seconds = models.PositiveIntegerField(default=1800)
    source_batch = _optional_key(
        "self",
        related_name="chained_batches",
        help_text="Draw items from this batch's approved output.",
    )
    provider_ids = models.JSONField(default=dict, blank=True)
    is_demo = models.BooleanField(
        default=False, help_text="The demo batch of the set-up; removable in one action."
    )
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "batches"
        permissions = [("review_batch", "Can review the work of a batch")]
        constraints = [
            models.CheckConstraint(condition=Q(target_per_item__gte=1), name="batch_target_min_1"),
            models.CheckConstraint(
                condition=Q(per_worker_cap__isnull=True) | Q(per_worker_cap__gte=1),
                name="batch_cap_min_1",
            ),
            models.CheckConstraint(
                condition=Q(time_allowed_seconds__gte=60), name="batch_time_allowed_min_60"
            ),
            models.CheckConstraint(
                condition=~Q(source_batch=F("id")), name="batch_not_chained_to_itself"
            ),
        ]

    def __str__(self) -> str:
        return self.name


# The kinds of subject a batch item may have, one nullable foreign key each (BatchItem).
SUBJECT_FIELDS = (
    "proverb",
    "narrative",
    "source_assignment",
    "choice_question",
    "figurative_narrative",
    "continuation_pair",
    "cloze_item",
    "template_row",
)


class BatchItem(models.Model):
    """One unit of work in a batch; which subject field is set depends on the task type.

    The one exception to "a task type is one unit": one nullable foreign key per kind of
    subject instead of a generic reference keeps PROTECT, the database's has-a-subject and
    one-item-per-subject checks, and the joins queries follow (`item__narrative__proverb`).
    A task type with a new kind of subject adds its foreign key here and in SUBJECT_FIELDS.
    """

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="items")
    proverb = _optional_key("annotation.Proverb")
    narrative = _optional_key("annotation.Narrative")
    source_assignment = _optional_key(
        "crowd.Assignment",
        help_text="An earlier assignment whose output this item is about (e.g. an alignment).",
    )
    choice_question = _optional_key("annotation.ChoiceQuestion")
    figurative_narrative = _optional_key("annotation.FigurativeNarrative")
    continuation_pair = _optional_key("annotation.ContinuationPair")
    cloze_item = _optional_key("annotation.ClozeItem")
    template_row = _optional_key("annotation.TemplateRow")
    is_gold = models.BooleanField(default=False)
    gold_answer = models.JSONField(null=True, blank=True)
    position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set when the work this item is built on was rejected after approval: "
        "no worker is served it, and its answers are left out of agreement and analysis.",
    )
    withdrawn_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["batch_id", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=reduce(or_, (Q(**{f"{name}__isnull": False}) for name in SUBJECT_FIELDS)),
                name="batch_item_has_subject",
            ),
            models.CheckConstraint(
                condition=Q(is_gold=False) | Q(gold_answer__isnull=False),
                name="gold_item_has_answer",
            ),
            models.UniqueConstraint(
                fields=["batch", *SUBJECT_FIELDS],
                name="batch_item_unique_subject",
                nulls_distinct=False,
            ),
        ]

    def __str__(self) -> str:
        # Named by its subject's content; an earlier assignment's name says nothing of it.
        named = (getattr(self, name) for name in SUBJECT_FIELDS if name != "source_assignment")
        subject = next((found for found in named if found is not None), None)
        return str(subject) if subject is not None else f"Item {self.pk} of batch {self.batch_id}"


class Assignment(models.Model):
    class Status(models.TextChoices):
        RESERVED = "reserved", "Reserved"
        SUBMITTED = "submitted", "Submitted"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        EXPIRED = "expired", "Expired"
        RETURNED = "returned", "Returned"
        # Paid as approved, but kept out of the dataset (suspicious, not proven bad).
        EXCLUDED = "excluded", "Approved and excluded"
        # Awaiting the provider's confirmation (MTurk): holds no slot, counts for nothing.
        UNCONFIRMED = "unconfirmed", "Stored, awaiting the provider's confirmation"

    ACTIVE = (Status.RESERVED, Status.SUBMITTED, Status.APPROVED)  # holding an item's slot
    PAID = (Status.APPROVED, Status.EXCLUDED)
    STORED = (*PAID, Status.SUBMITTED, Status.REJECTED, Status.UNCONFIRMED)  # a submission

    item = models.ForeignKey(BatchItem, on_delete=models.PROTECT, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RESERVED)
    started_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_message = models.TextField(blank=True)
    exclusion_reason = models.TextField(
        blank=True, help_text="Why approved work is kept out of the dataset (not shown to them)."
    )
    bonus_cents = models.PositiveIntegerField(default=0)
    provider_assignment_id = models.CharField(max_length=128, blank=True)
    provider_submission_id = models.CharField(max_length=128, blank=True)
    submission_key = models.CharField(
        max_length=64, blank=True, help_text="Client key of the submit request: retries match it."
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "worker"], name="one_assignment_per_worker"),
            models.CheckConstraint(
                condition=Q(expires_at__gt=F("started_at")), name="assignment_expires_after_start"
            ),
            models.CheckConstraint(
                condition=Q(submitted_at__isnull=True) | Q(submitted_at__gte=F("started_at")),
                name="assignment_submitted_after_start",
            ),
            models.CheckConstraint(
                condition=~Q(status__in=["submitted", "approved", "rejected", "excluded"])
                | Q(submitted_at__isnull=False),
                name="submitted_assignment_has_time",
            ),
        ]
        indexes = [
            models.Index(fields=["item", "status"]),
            models.Index(fields=["worker"]),
            # The reservations past their time, found without visiting the live ones.
            models.Index(
                fields=["expires_at"],
                condition=Q(status="reserved"),
                name="assignment_reservation_expiry",
            ),
        ]

    def __str__(self) -> str:
        return f"Assignment {self.pk} ({self.status})"


class ItemDone(models.Model):
    """How many assignments of an item are submitted or approved, kept by database triggers
    (migration 0006); its own table, so a submit never waits on an item row a reservation holds."""

    item = models.OneToOneField(
        BatchItem, primary_key=True, on_delete=models.CASCADE, related_name="done"
    )
    count = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.item_id}: {self.count} done"


class BatchPledge(models.Model):
    """A worker's agreement to a batch's pledge, with the text they were shown."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="pledges")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="pledges")
    text = models.TextField()
    agreed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "worker"], name="one_pledge_per_worker")
        ]

    def __str__(self) -> str:
        return f"Pledge of worker {self.worker_id} in batch {self.batch_id}"


class OpenItem(models.Model):
    """An item a worker may be served and how many of its slots are held, in one index in
    serving order, so that finding the next item visits a handful of rows.

    Kept by database triggers (migration 0011), with copies of the item's batch, gold flag
    and position. A stale reservation counts in `held` until marked expired; a reservation
    recounts the slots under the item's row lock, so `held` only orders and filters.
    """

    item = models.OneToOneField(
        BatchItem, primary_key=True, on_delete=models.CASCADE, related_name="open_slots"
    )
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="+", db_index=False)
    is_gold = models.BooleanField()
    position = models.PositiveIntegerField()
    held = models.IntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(
                fields=["batch", "is_gold", "held", "position", "item"],
                name="open_item_serving_order",
            )
        ]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.held} held"


MAX_SAVED_MESSAGE = 600


class SavedReviewMessage(models.Model):
    """A rejection message reviewers pick from instead of typing it again."""

    # Bounded so that the unique index takes any text: PostgreSQL's index rows hold at
    # most 2,704 bytes, and 600 characters are at most 2,400 bytes of UTF-8.
    text = models.TextField(
        unique=True, max_length=MAX_SAVED_MESSAGE, help_text="Shown to the worker as is."
    )
    position = models.PositiveIntegerField(default=0, help_text="Order in the review queue.")

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.text


class Bonus(models.Model):
    """A bonus on an assignment: one per reason and amount, so a resent form pays no more."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="bonuses")
    cents = models.PositiveIntegerField()
    reason = models.TextField()
    reason_digest = models.CharField(
        max_length=64, help_text="SHA-256 of the reason: long reasons stay indexable."
    )
    paid_before_cents = models.PositiveIntegerField(
        help_text="The assignment's bonus total before this one (the provider's step key)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "bonuses"
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "cents", "reason_digest"], name="bonus_paid_once"
            ),
            models.CheckConstraint(condition=Q(cents__gte=1), name="bonus_positive"),
        ]

    def __str__(self) -> str:
        return f"Bonus of {money_text(self.cents)} on assignment {self.assignment_id}"

    @property
    def amount(self) -> str:
        """In the study's currency, as the worker page and the payments report show it."""
        return money_text(self.cents)


class ProviderAction(models.Model):
    """A call a review decision owes its provider (the outbox), written in the decision's
    transaction so neither commits without the other; crowd.outbox sends it."""

    class Kind(models.TextChoices):
        APPROVE = "approve", "Approve"
        REJECT = "reject", "Reject"
        BONUS = "bonus", "Pay a bonus"
        BLOCK = "block", "Block"
        UNBLOCK = "unblock", "Unblock"
        NOTIFY = "notify", "Message"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENDING = "sending", "Being sent"
        UNKNOWN = "unknown", "Outcome unknown"
        DONE = "done", "Done"
        REFUSED = "refused", "Refused by the provider"
        SUPERSEDED = "superseded", "Superseded by a later decision before it was sent"

    # Statuses that say nothing more will happen to the call.
    FINISHED = (Status.DONE, Status.REFUSED, Status.SUPERSEDED)

    provider = models.CharField(max_length=16, choices=Provider.choices)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    assignment = _optional_key(
        Assignment,
        related_name="provider_actions",
        help_text="The work the call is about (approve, reject, bonus).",
    )
    worker = _optional_key(
        Worker,
        related_name="provider_actions",
        help_text="The worker the call is about (block, unblock, message).",
    )
    bonus = models.OneToOneField(
        Bonus,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="provider_action",
        help_text="The bonus the call pays; none once a refusal took the bonus back.",
    )
    payload = models.JSONField(
        default=dict, blank=True, help_text="What the call carries, and the provider's progress."
    )
    reference = models.CharField(
        max_length=128,
        blank=True,
        help_text="The provider's id the call acts on (a submission, an MTurk assignment).",
    )
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When it was last sent.")
    finished_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, help_text="The provider's answer or the last failure.")

    class Meta:
        ordering = ["id"]
        verbose_name = "provider call"
        constraints = [
            models.CheckConstraint(
                condition=Q(assignment__isnull=False, worker__isnull=True)
                | Q(assignment__isnull=True, worker__isnull=False),
                name="provider_action_one_subject",
            ),
        ]
        indexes = [
            # What beat looks for: the calls not finished.
            models.Index(
                fields=["status", "created_at"],
                condition=Q(status__in=["pending", "sending", "unknown"]),
                name="provider_action_unfinished",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.provider} ({self.get_status_display()})"
