"""Provider-neutral crowd work: workers, batches, the items of a batch, and assignments.

An assignment is one worker's go at one batch item; on MTurk it maps to a HIT
assignment, on Prolific to a submission, locally to a reservation.
"""

from django.conf import settings as django_settings
from django.db import models
from django.db.models import F, Q

from crowd.money import money_text


class Provider(models.TextChoices):
    LOCAL = "local", "Local (in-lab)"
    PROLIFIC = "prolific", "Prolific"
    MTURK = "mturk", "Amazon Mechanical Turk"


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
    source_batch = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
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


class BatchItem(models.Model):
    """One unit of work in a batch; which field is set depends on the task type.

    The one documented exception to "a task type is one unit": an item names its
    subject through one nullable foreign key per kind of subject (proverb, narrative,
    earlier assignment, choice question, figurative narrative, option pair, cloze
    item, row of a HIT template's CSV) instead of one generic reference. Real foreign
    keys keep what a generic reference would lose: PROTECT against deleting a subject
    that has work, the database's check that an item has a subject and its
    unique-subject constraint (one item per subject and batch), and joins that the
    agreement, review and export queries follow (`item__narrative__proverb`). A new
    task type whose items are about a proverb, a narrative or an earlier assignment
    adds nothing here; one with a new kind of subject adds its foreign key, in
    SUBJECT_FIELDS (crowd/batches.py) and in the two constraints below.
    """

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="items")
    proverb = models.ForeignKey(
        "annotation.Proverb", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    narrative = models.ForeignKey(
        "annotation.Narrative", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    source_assignment = models.ForeignKey(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="An earlier assignment whose output this item is about (e.g. an alignment).",
    )
    choice_question = models.ForeignKey(
        "annotation.ChoiceQuestion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    figurative_narrative = models.ForeignKey(
        "annotation.FigurativeNarrative",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    continuation_pair = models.ForeignKey(
        "annotation.ContinuationPair",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    cloze_item = models.ForeignKey(
        "annotation.ClozeItem", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    template_row = models.ForeignKey(
        "annotation.TemplateRow", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
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
                condition=Q(proverb__isnull=False)
                | Q(narrative__isnull=False)
                | Q(source_assignment__isnull=False)
                | Q(choice_question__isnull=False)
                | Q(figurative_narrative__isnull=False)
                | Q(continuation_pair__isnull=False)
                | Q(cloze_item__isnull=False)
                | Q(template_row__isnull=False),
                name="batch_item_has_subject",
            ),
            models.CheckConstraint(
                condition=Q(is_gold=False) | Q(gold_answer__isnull=False),
                name="gold_item_has_answer",
            ),
            models.UniqueConstraint(
                fields=[
                    "batch",
                    "proverb",
                    "narrative",
                    "source_assignment",
                    "choice_question",
                    "figurative_narrative",
                    "continuation_pair",
                    "cloze_item",
                    "template_row",
                ],
                name="batch_item_unique_subject",
                nulls_distinct=False,
            ),
        ]

    def __str__(self) -> str:
        subject = (
            self.proverb
            or self.narrative
            or self.choice_question
            or self.figurative_narrative
            or self.continuation_pair
            or self.cloze_item
            or self.template_row
        )
        return str(subject) if subject is not None else f"Item {self.pk} of batch {self.batch_id}"


class Assignment(models.Model):
    class Status(models.TextChoices):
        RESERVED = "reserved", "Reserved"
        SUBMITTED = "submitted", "Submitted"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        EXPIRED = "expired", "Expired"
        RETURNED = "returned", "Returned"
        # Paid as approved, but kept out of the dataset, agreement, chained batches and
        # exports (suspicious, not proven bad); its slot reopens.
        EXCLUDED = "excluded", "Approved and excluded"
        # Stored under a provider's claim that the provider confirms only once the worker
        # has submitted there too (MTurk): it holds no slot and counts for nothing until
        # the provider vouches for it (crowd.review.assignment_confirm).
        UNCONFIRMED = "unconfirmed", "Stored, awaiting the provider's confirmation"

    # Statuses that hold one of the item's slots.
    ACTIVE = (Status.RESERVED, Status.SUBMITTED, Status.APPROVED)
    # Statuses of an assignment whose submission is stored.
    STORED = (
        Status.SUBMITTED,
        Status.APPROVED,
        Status.REJECTED,
        Status.EXCLUDED,
        Status.UNCONFIRMED,
    )
    # Statuses of work the worker is paid for.
    PAID = (Status.APPROVED, Status.EXCLUDED)

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
    """How many assignments of an item are submitted or approved: the slots next-task
    ordering counts without visiting every assignment.

    Kept by database triggers on crowd_assignment (migration 0006), so every status
    change counts, queryset updates and provider syncs included. Only the ordering and
    filtering of candidates read it; a reservation recounts the item's slots under its
    row lock. In its own table, not on BatchItem, so that a submit (assignment row, then
    this row) never waits on an item row a reservation holds.
    """

    item = models.OneToOneField(
        BatchItem, primary_key=True, on_delete=models.CASCADE, related_name="done"
    )
    count = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.item_id}: {self.count} done"


class BatchPledge(models.Model):
    """A worker's agreement to a batch's pledge, with the text they were shown: asked once,
    before their first task of the batch (crowd/pledges.py), and shown in review and
    exports beside their work."""

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
    """An item a worker may be served (not withdrawn) and how many of its slots are held
    (reserved, submitted or approved): what finding the next item reads, in one index in
    serving order, so that it visits a handful of rows whatever the batch holds.

    Kept by database triggers on crowd_batchitem and crowd_assignment (migration 0011),
    like ItemDone. A reservation past its time still counts in `held` until it is marked
    expired (assignments_expire, which finding the next item runs for its batch first);
    a reservation recounts the item's live slots under its row lock, so `held` only
    orders and filters. Batch, gold flag and position are copies of the item's, kept by
    the same triggers, for the index.
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
    """A bonus paid on an assignment, whatever the provider: the one record that says a
    bonus for this assignment with this reason and amount is paid once (a resent form
    finds it), shown to the worker and in the payments report."""

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
    """A call a review decision owes its provider (approve, reject, pay a bonus, block,
    unblock, message): the outbox. It is written in the decision's own transaction, so a
    decision never commits without the row that carries it out, nor the row without its
    decision; crowd.outbox sends it after commit, and beat sends what is left, under the
    provider's rules for calls that must not be repeated blindly. The admin and the
    payments report show a call's state from here: waiting, being sent, done, refused or
    unknown (no answer: settled from the provider's own records where it keeps them).
    """

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
    assignment = models.ForeignKey(
        Assignment,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="provider_actions",
        help_text="The work the call is about (approve, reject, bonus).",
    )
    worker = models.ForeignKey(
        Worker,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
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
