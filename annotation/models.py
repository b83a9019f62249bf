"""The dataset: proverbs and their curation, narratives, span pairs, ratings, choice questions.

Crowd bookkeeping (workers, batches, assignments) lives in the crowd app; the rows
here point at the assignment that produced them, or at none when imported.
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

# The rounds' rows are the app's models too (annotation/opponents/models.py).
from annotation.opponents.models import (  # noqa: F401
    NarrativeRound,
    OpponentCheck,
    OpponentEvaluation,
)
from annotation.text import first_words


class Proverb(models.Model):
    class Status(models.TextChoices):
        CANDIDATE = "candidate", "Candidate"
        CURATED = "curated", "Curated"
        REJECTED = "rejected", "Rejected"

    text = models.CharField(max_length=300)
    normalized_text = models.CharField(
        max_length=300,
        unique=True,
        help_text="Case, punctuation, whitespace and quote style folded: the duplicate key.",
    )
    source = models.CharField(max_length=200, blank=True)
    meaning = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE)
    variant_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="variants",
        help_text="The canonical proverb this one was merged into.",
    )
    is_demo = models.BooleanField(
        default=False, help_text="Loaded by the demo set-up; removable in one action."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(variant_of=F("id")), name="proverb_not_variant_of_itself"
            ),
            models.CheckConstraint(condition=~Q(text=""), name="proverb_text_not_empty"),
            models.CheckConstraint(
                condition=Q(status__in=["candidate", "curated", "rejected"]),
                name="proverb_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.text


class VariantGroup(models.Model):
    """Proverbs proposed as lexical variants of one another, awaiting a decision."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        MERGED = "merged", "Merged"
        DISMISSED = "dismissed", "Dismissed"

    proverbs = models.ManyToManyField(Proverb, related_name="variant_groups")
    score = models.FloatField(help_text="Strongest pairwise similarity in the group (0 to 1).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    canonical = models.ForeignKey(
        Proverb, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    member_key = models.CharField(
        max_length=500,
        unique=True,
        help_text="Sorted member ids: the same group is never proposed twice.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-score", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(score__gte=0) & Q(score__lte=1), name="variant_group_score_range"
            ),
        ]

    def __str__(self) -> str:
        return f"Variant group {self.pk} ({self.get_status_display()})"


class CurationTarget(models.Model):
    """How many curated proverbs the researcher is aiming for (one row)."""

    curated_target = models.PositiveIntegerField(default=250)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="curation_target_singleton")]

    def __str__(self) -> str:
        return f"Target: {self.curated_target} curated proverbs"


class Narrative(models.Model):
    class Source(models.TextChoices):
        CROWD = "crowd", "Crowd"
        IMPORTED = "imported", "Imported"
        MODEL = "model", "Model"

    class Status(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    class Split(models.TextChoices):
        NONE = "", "None"
        TRAIN = "train", "Train"
        TEST = "test", "Test"

    proverb = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="narratives")
    text = models.TextField()
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.CROWD)
    source_label = models.CharField(
        max_length=200,
        blank=True,
        help_text='Where it came from, to compare sources ("ePiC", "model run 3", a paper).',
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SUBMITTED)
    assignment = models.OneToOneField(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="narrative",
    )
    worker = models.ForeignKey(
        "crowd.Worker",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="narratives",
    )
    external_id = models.CharField(
        max_length=100, null=True, blank=True, unique=True, help_text='e.g. ePiC\'s "Q12N3".'
    )
    word_count = models.PositiveIntegerField(default=0)
    proverb_quote = models.CharField(
        max_length=300,
        blank=True,
        help_text="The proverb as an imported record quoted it, when that differs from the "
        "proverb's text (the export gives it back); its span pairs' proverb offsets point "
        "into it.",
    )
    overlap = models.JSONField(default=dict, blank=True)
    keywords = models.JSONField(
        default=dict, blank=True, help_text="Verbs and named entities, for generation."
    )
    keywords_pending_since = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="Approved, keywords not extracted yet: re-queued after the grace period.",
    )
    split_seen = models.CharField(max_length=8, choices=Split.choices, default="", blank=True)
    split_unseen = models.CharField(max_length=8, choices=Split.choices, default="", blank=True)
    # Where a split file put the narrative (0-based, within its file): exported split
    # files keep the imported order. Empty for splits drawn from a seed.
    split_seen_position = models.PositiveIntegerField(null=True, blank=True)
    split_unseen_position = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_message = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        permissions = [
            ("review_narrative", "Can approve or reject narratives"),
            # Granted one by one (no role has it): raw ids identify people on Prolific/MTurk.
            ("export_raw_worker_ids", "Can export raw provider worker ids"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="narrative_text_not_empty"),
            models.CheckConstraint(
                condition=Q(source="crowd", assignment__isnull=False, worker__isnull=False)
                | ~Q(source="crowd"),
                name="crowd_narrative_has_assignment_and_worker",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["submitted", "approved", "rejected"]),
                name="narrative_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["proverb", "status"])]

    def __str__(self) -> str:
        return f"“{first_words(self.text)}” ({self.proverb.text})"


class SpanPair(models.Model):
    """A contiguous proverb span aligned with a contiguous narrative span ([start, end))."""

    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="span_pairs")
    assignment = models.ForeignKey(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="span_pairs",
    )
    position = models.PositiveSmallIntegerField(help_text="1 to 5, the slot in its alignment.")
    proverb_start = models.PositiveIntegerField()
    proverb_end = models.PositiveIntegerField()
    proverb_span = models.CharField(max_length=300)
    narrative_start = models.PositiveIntegerField()
    narrative_end = models.PositiveIntegerField()
    narrative_span = models.TextField()
    ambiguous = models.BooleanField(
        default=False, help_text="Imported string occurred more than once; first match taken."
    )

    class Meta:
        ordering = ["narrative_id", "assignment_id", "position"]
        constraints = [
            models.CheckConstraint(
                condition=Q(proverb_end__gt=F("proverb_start")), name="span_pair_proverb_nonempty"
            ),
            models.CheckConstraint(
                condition=Q(narrative_end__gt=F("narrative_start")),
                name="span_pair_narrative_nonempty",
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1) & Q(position__lte=5), name="span_pair_position_range"
            ),
            models.UniqueConstraint(
                fields=["narrative", "assignment", "position"],
                name="span_pair_unique_position",
                nulls_distinct=False,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.proverb_span!r} ~ {self.narrative_span[:40]!r}"


class Rating(models.Model):
    """One Likert judgement (1 to 5) of one criterion for a narrative or an alignment."""

    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="ratings")
    alignment = models.ForeignKey(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="alignment_ratings",
        help_text="Set when the rated thing is one worker's alignment of the narrative.",
    )
    assignment = models.ForeignKey(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="ratings"
    )
    criterion = models.CharField(max_length=64)
    value = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(value__gte=1) & Q(value__lte=5), name="rating_value_likert"
            ),
            models.UniqueConstraint(
                fields=["assignment", "criterion"], name="rating_one_per_criterion"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.criterion}={self.value} on {self.narrative}"


class ChoiceQuestion(models.Model):
    """Which proverb does this narrative illustrate: the answer and 4 distractors, in order."""

    narrative = models.ForeignKey(
        Narrative, on_delete=models.CASCADE, related_name="choice_questions"
    )
    correct = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="+")
    options = models.JSONField(
        help_text="Proverb ids in the order shown, the correct one included."
    )
    distractor_source = models.CharField(max_length=64)
    model_chosen = models.ForeignKey(
        Proverb,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The option a trained model ranks first, when a model answered the question.",
    )
    model_label = models.CharField(max_length=200, blank=True, help_text="Which model answered.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Which proverb: {self.narrative}"


class ChoiceAnswer(models.Model):
    question = models.ForeignKey(ChoiceQuestion, on_delete=models.CASCADE, related_name="answers")
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="choice_answer"
    )
    chosen = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="+")
    is_correct = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.chosen.text} (answer to {self.question})"


class FigurativeNarrative(models.Model):
    """A narrative containing an idiom or a simile (the figurative narratives benchmark).

    The expression is located by offsets into `text` ([start, end)); the text holds no
    markup. `meaning` is the idiom's meaning or the simile's property.
    """

    class Kind(models.TextChoices):
        IDIOM = "idiom", "Idiom"
        SIMILE = "simile", "Simile"

    class Split(models.TextChoices):
        NONE = "", "None"
        TRAIN = "train", "Train"
        DEV = "dev", "Dev"
        TEST = "test", "Test"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    text = models.TextField()
    expression = models.CharField(max_length=300)
    expression_start = models.PositiveIntegerField(null=True, blank=True)
    expression_end = models.PositiveIntegerField(null=True, blank=True)
    meaning = models.TextField(
        blank=True, help_text="The idiom's meaning or the simile's property (empty: none given)."
    )
    split = models.CharField(
        max_length=8,
        choices=Split.choices,
        default="",
        blank=True,
        help_text="The split of the file that first brought the narrative; option pairs "
        "carry their own split.",
    )
    source_values = models.JSONField(
        null=True,
        blank=True,
        help_text="The narrative, expression and meaning fields as published, kept only where "
        "they cannot be rebuilt from the text and span (markup twice or missing, spaces, "
        "false): the export gives them back as they were.",
    )
    content_key = models.CharField(
        max_length=64,
        unique=True,
        help_text="Hash of kind, text and expression: re-imports find the same row, and a "
        "narrative published with two glosses is one row.",
    )
    source_line = models.TextField(
        blank=True,
        help_text="The line that brought it without an option pair, as published (option "
        "pairs keep their own lines).",
    )
    source_state = models.CharField(
        max_length=64,
        blank=True,
        help_text="Digest of what the export rebuilds the line from, when it was imported: "
        "while it still matches, the export writes the line as published.",
    )
    literal_use_confirmed = models.BooleanField(
        default=False,
        help_text="A reviewer confirmed the expression is used literally: left out of new work.",
    )
    similarity = models.JSONField(
        null=True,
        blank=True,
        help_text="The dataset check against the stories of the same expression "
        "(annotation/quality/similarity_scan.py); empty until it has run.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="figurative_text_not_empty"),
            models.CheckConstraint(
                condition=Q(kind__in=["idiom", "simile"]), name="figurative_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(expression_start__isnull=True, expression_end__isnull=True)
                | Q(expression_end__gt=F("expression_start")),
                name="figurative_span_nonempty",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} “{self.expression}”: “{first_words(self.text)}”"


class ContinuationPair(models.Model):
    """Two candidate continuations of a figurative narrative, one of them the plausible one.

    Imported from the benchmark's option1/option2/correctanswer, or made from an approved
    crowd continuation. `shown_first` (1 or 2) is the stored random order of display.
    """

    class Source(models.TextChoices):
        IMPORTED = "imported", "Imported"
        CROWD = "crowd", "Crowd"

    narrative = models.ForeignKey(
        FigurativeNarrative, on_delete=models.CASCADE, related_name="option_pairs"
    )
    option1 = models.TextField()
    option2 = models.TextField()
    correct = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="1 or 2: the plausible option; empty when the labels are withheld (a test "
        "split): answers to such a pair count in no accuracy.",
    )
    split = models.CharField(
        max_length=8,
        choices=FigurativeNarrative.Split.choices,
        default="",
        blank=True,
        help_text="The split of the question (the pair): one narrative may have pairs in train "
        "and in dev.",
    )
    published_answer = models.CharField(
        max_length=16,
        blank=True,
        help_text="correctanswer as the imported file gave it (a placeholder where the labels "
        "are withheld), given back by the export.",
    )
    shown_first = models.PositiveSmallIntegerField(default=1)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.IMPORTED)
    continuation = models.OneToOneField(
        "Continuation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="option_pair",
    )
    withdrawn = models.BooleanField(
        default=False,
        help_text="Its continuation was rejected after approval: no new items, not exported.",
    )
    source_line = models.TextField(
        blank=True,
        help_text="The imported line this pair came from, as published (its escapes, its "
        "gloss, its spacing): the export writes it while `source_state` still matches.",
    )
    source_state = models.CharField(
        max_length=64,
        blank=True,
        help_text="Digest of what the export rebuilds the line from (narrative and pair), "
        "when it was imported.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(correct__in=[1, 2]) | Q(correct__isnull=True),
                name="pair_correct_1_2_or_unlabelled",
            ),
            models.CheckConstraint(
                condition=Q(shown_first__in=[1, 2]), name="pair_shown_first_1_or_2"
            ),
            models.UniqueConstraint(
                fields=["narrative", "option1", "option2"], name="pair_unique_options"
            ),
        ]

    def __str__(self) -> str:
        first, second = first_words(self.option1), first_words(self.option2)
        return f"{self.narrative.expression}: “{first}” / “{second}”"


class Continuation(models.Model):
    """One worker's plausible and implausible continuation, or a literal-use flag."""

    narrative = models.ForeignKey(
        FigurativeNarrative, on_delete=models.PROTECT, related_name="continuations"
    )
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="continuation"
    )
    plausible = models.TextField(blank=True)
    implausible = models.TextField(blank=True)
    literal_use = models.BooleanField(
        default=False, help_text="The worker says the expression is used literally here."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(literal_use=True) | (~Q(plausible="") & ~Q(implausible="")),
                name="continuation_written_or_flagged",
            ),
        ]

    def __str__(self) -> str:
        return f"Continuation of {self.narrative}"


class ContinuationAnswer(models.Model):
    """A worker's choice of the plausible continuation among a pair's two options."""

    pair = models.ForeignKey(ContinuationPair, on_delete=models.CASCADE, related_name="answers")
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="continuation_answer"
    )
    chosen = models.PositiveSmallIntegerField(help_text="1 or 2.")
    is_correct = models.BooleanField(null=True, help_text="Empty: the pair is unlabelled.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(chosen__in=[1, 2]), name="answer_chosen_1_or_2"),
        ]

    def __str__(self) -> str:
        return f"Answer to {self.pair}"


class ClozeItem(models.Model):
    """A story with one sentence left out, its other sentences shown as the condition says.

    `sentences` are the story's sentences as written; `shown` the same list as shown in
    the condition (the left-out one is null); `original_lemma` the left-out sentence's
    main-verb lemma. Built with spaCy's parser when a cloze batch takes the story.
    """

    class Condition(models.TextChoices):
        FULL = "full", "Full sentences"
        ARGUMENTS = "arguments", "Main verb and its arguments"
        SUBJECT_VERB = "subject_verb", "Subject and verb"

    narrative = models.ForeignKey(Narrative, on_delete=models.PROTECT, related_name="cloze_items")
    condition = models.CharField(max_length=16, choices=Condition.choices)
    blank_index = models.PositiveSmallIntegerField()
    sentences = models.JSONField()
    shown = models.JSONField()
    original_lemma = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["narrative", "condition", "blank_index"], name="cloze_item_unique"
            ),
            models.CheckConstraint(
                condition=Q(condition__in=["full", "arguments", "subject_verb"]),
                name="cloze_condition_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Cloze ({self.condition}, sentence {self.blank_index + 1}) of {self.narrative}"


class ClozeResponse(models.Model):
    """A worker's sentence for a cloze item, with its main-verb lemma (spaCy)."""

    item = models.ForeignKey(ClozeItem, on_delete=models.CASCADE, related_name="responses")
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="cloze_response"
    )
    text = models.TextField()
    lemma = models.CharField(max_length=100)
    matches = models.BooleanField(help_text="Its main-verb lemma is the original's.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"“{first_words(self.text)}” (cloze answer)"


class QualificationAttempt(models.Model):
    """A worker's one go at a batch's qualification test (option pairs with known answers)."""

    batch = models.ForeignKey("crowd.Batch", on_delete=models.CASCADE, related_name="+")
    worker = models.ForeignKey(
        "crowd.Worker", on_delete=models.PROTECT, related_name="qualification_attempts"
    )
    answers = models.JSONField(help_text="{option pair id: chosen option (1 or 2)}.")
    correct = models.PositiveIntegerField()
    passed = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "worker"], name="one_qualification_attempt"),
        ]

    def __str__(self) -> str:
        return f"Qualification of worker {self.worker_id} for batch {self.batch_id}"


class DatasetAnalysis(models.Model):
    """The last analysis of the dataset in one scope, and the job computing a fresh one.

    `result` was computed on the data whose state key is `result_state`; when the
    dataset's state key differs, a job recomputes it (status queued, then running with
    progress) while the page keeps showing the last result.
    """

    class Status(models.TextChoices):
        IDLE = "idle", "Idle"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FAILED = "failed", "Failed"

    scope_key = models.CharField(max_length=500, unique=True)
    scope = models.JSONField(help_text="batches, sources, approved_only, seed")
    result = models.JSONField(null=True, blank=True)
    plots = models.JSONField(default=dict, blank=True, help_text="SVG text by plot name.")
    result_state = models.CharField(max_length=64, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IDLE)
    job_state = models.CharField(max_length=64, blank=True)
    requested_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_stage = models.CharField(max_length=100, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "dataset analyses"
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["idle", "queued", "running", "failed"]),
                name="dataset_analysis_valid_status",
            )
        ]

    def __str__(self) -> str:
        return f"Analysis of {self.scope_key}"


class PilotLabel(models.TextChoices):
    """How a pilot story is known to have been written (annotation/quality/calibration.py)."""

    COMPOSED = "composed", "Composed on the page"
    TRANSCRIBED = "transcribed", "Transcribed from another text"


class NarrativeIntegrity(models.Model):
    """How a narrative was written and how it compares with the dataset (writing integrity).

    `telemetry` is the task page's content-blind writing record (counts and times, no
    keystrokes); `embedding` is the story's sentence embedding as float16 bytes; `similarity`
    holds the nearest story of the same proverb and the worker's nearest earlier story;
    `canary` the hidden instruction the story followed; `pilot_label` a researcher's label
    of how a pilot story was written, for calibrating the writing-process score.
    """

    narrative = models.OneToOneField(
        Narrative, on_delete=models.CASCADE, related_name="integrity", primary_key=True
    )
    telemetry = models.JSONField(null=True, blank=True)
    embedding = models.BinaryField(null=True, blank=True)
    embedding_model = models.CharField(max_length=300, blank=True)
    similarity = models.JSONField(default=dict, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    canary = models.JSONField(
        null=True,
        blank=True,
        help_text="Set when the story uses the word of the task page's hidden canary "
        'instruction: {"word", "instruction"} as the page carried them.',
    )
    pilot_label = models.CharField(
        max_length=16,
        choices=PilotLabel.choices,
        blank=True,
        help_text="A researcher's label for calibrating the writing-process score.",
    )

    class Meta:
        verbose_name = "narrative integrity"
        verbose_name_plural = "narrative integrity"
        indexes = [
            # The stories waiting for their check: a check's pass and beat's re-queue read
            # these few rows, not the whole table.
            models.Index(
                fields=["narrative"],
                condition=Q(checked_at__isnull=True),
                name="integrity_waiting",
            )
        ]

    def __str__(self) -> str:
        return f"Integrity of narrative {self.narrative_id}"


class WritingCalibration(models.Model):
    """A batch's writing-process score calibrated on its labelled pilot stories
    (annotation/quality/calibration.py): the fitted figures (writing_score.Calibration)
    and their cross-validated accuracy. The batch's unlabelled stories are scored with it."""

    batch = models.OneToOneField(
        "crowd.Batch", on_delete=models.CASCADE, related_name="writing_calibration"
    )
    fitted = models.JSONField()
    cv_accuracy = models.FloatField()
    fitted_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Writing calibration of batch {self.batch_id}"


class ImportJob(models.Model):
    """A large proverb list or ePiC file imported in the background, with its progress.

    The upload's bytes are kept on the row (at most PARABLE_IMPORT_MAX_BYTES each) until
    the job has run; `report` holds the import report on success, `error` the reason
    nothing was imported on failure.
    """

    class Kind(models.TextChoices):
        PROVERBS = "proverbs", "Proverb list"
        EPIC = "epic", "ePiC dataset"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    filename = models.CharField(max_length=255, blank=True)
    content = models.BinaryField(editable=False)
    split_files = models.JSONField(
        default=dict, blank=True, help_text="ePiC split files: base64 bytes by file name."
    )
    options = models.JSONField(default=dict, blank=True, help_text="source or source_label")
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_stage = models.CharField(max_length=100, blank=True)
    report = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "succeeded", "failed"]),
                name="import_job_valid_status",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["proverbs", "epic"]), name="import_job_valid_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"Import job {self.pk} ({self.kind}, {self.filename or 'no name'})"


class ImportedFile(models.Model):
    """A dataset file as it was imported: its name and fields, for the methods section
    (which file, with which fields), and its layout, for the export to give it back byte
    for byte (annotation.datasets.layouts).

    One row per file an export writes back: an ePiC dataset by source label, an ePiC split
    file by setting and part, a figurative file by kind and split. Importing a file again
    under the same key replaces the row.
    """

    class Kind(models.TextChoices):
        EPIC = "epic", "ePiC dataset"
        EPIC_SPLIT = "epic_split", "ePiC split file"
        FIGURATIVE = "figurative", "Figurative narratives"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(
        max_length=300,
        unique=True,
        help_text="What the export writes back: epic:<source label>, "
        "epic_split:<setting>:<part>, figurative:<kind>:<split>.",
    )
    filename = models.CharField(max_length=255, blank=True)
    fields = models.JSONField(
        default=list, blank=True, help_text="The fields the file's records hold, in order."
    )
    records = models.PositiveIntegerField(default=0, help_text="Records or lines read.")
    layout = models.JSONField(
        null=True,
        blank=True,
        help_text="How the file was written (indent, escapes, key order, final newline); "
        "empty when no json.dumps layout writes it: its export gives the values back, not "
        "the bytes.",
    )
    imported_at = models.DateTimeField()

    class Meta:
        ordering = ["kind", "key"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.filename or self.key}"
