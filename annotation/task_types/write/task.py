"""The "write a narrative" task: a worker writes a short story illustrating a proverb. The
page's overlap meter (frontend/static/frontend/overlap.js) and the server run the same rules
(annotation/text.py check_overlap): a story the page accepts is accepted here.
"""

from __future__ import annotations

import re

from django import forms
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.db.models import Q
from django.utils import timezone

from annotation.models import Narrative, Proverb
from annotation.opponents.batch_settings import (
    ROUND_KEYS,
    RoundFields,
    round_lines,
    rounds_schema,
    rounds_settings_clean,
)
from annotation.opponents.checks import (
    narrative_round_record,
    opponent_live_check,
    opponent_page_context,
    opponent_submit_check,
)
from annotation.opponents.outcomes import story_reviewed
from annotation.opponents.selectors import round_review_lines
from annotation.quality.integrity import (
    DEFAULT_CANARY_INSTRUCTION,
    IntegritySettings,
)
from annotation.task_parts.imported import imported_proverb
from annotation.task_parts.overlap_rules import (
    batch_rules,
    marked_pieces,
    overlap_lines,
    rules_entered,
    rules_schema,
)
from annotation.task_parts.sources import settings_keys_check, settings_object
from annotation.task_parts.writing_record import (
    batch_integrity,
    canary_context,
    integrity_schema,
    writing_record_clean,
    writing_record_context,
    writing_record_store,
)
from annotation.text import OverlapRules, check_overlap, load_stopwords
from common.task_queue import queue_on_commit
from crowd import task_types
from crowd.forms import BatchForm
from crowd.models import Assignment, Batch, BatchItem
from crowd.providers import batch_currency
from crowd.task_types import SubmissionError

# Far above any sensible story, far below what would strain the check.
MAX_CHARACTERS = 20_000

DEFAULT_INSTRUCTIONS = """\
Read the proverb and write a short, realistic story of about 100 words that shows what \
it means: everyday people, a situation, what happened.

Do not mention the proverb or any part of it. Your story may not repeat a phrase of three \
or more words from the proverb, and may use at most two of its words (small words such as \
"a", "of" or "the" do not count). The meter under the text box counts your words and marks \
the words your story shares with the proverb; Submit stays disabled, and the page says why, \
until your story follows the rules.

Write your own story: do not copy one from elsewhere. Your draft is kept in this browser \
while you write."""

# Past collections were held to their own rules when they ran: an imported story is
# taken as written and still records its overlap figures.
PERMISSIVE_RULES = {
    "max_shared_ngram": 10_000,
    "max_shared_content_words": 10_000,
    "min_words": 1,
    "max_words": 100_000,
}


class WriteBatchForm(RoundFields, BatchForm):
    """A write-narratives batch: curated proverbs, the overlap and length rules, and its
    round and opponent (annotation/opponents)."""

    proverbs = forms.ModelMultipleChoiceField(
        queryset=Proverb.objects.filter(status=Proverb.Status.CURATED).order_by("text"),
        widget=FilteredSelectMultiple("curated proverbs", is_stacked=False),
        help_text="Each proverb is one item: it gets the wanted number of narratives.",
    )
    min_words = forms.IntegerField(min_value=1, initial=OverlapRules.min_words)
    max_words = forms.IntegerField(min_value=1, initial=OverlapRules.max_words)
    max_shared_ngram = forms.IntegerField(
        min_value=0,
        initial=OverlapRules.max_shared_ngram,
        label="Longest phrase shared with the proverb",
        help_text="In tokens, stopwords included: 2 lets “of a” pass and refuses “birds of a”.",
    )
    max_shared_content_words = forms.IntegerField(
        min_value=0,
        initial=OverlapRules.max_shared_content_words,
        label="Content words shared with the proverb",
        help_text="Distinct shared words that are not stopwords (case-folded).",
    )

    refuse_paste = forms.BooleanField(
        required=False,
        label="Refuse pasted text",
        help_text="The page blocks pasting and dropping text and says so; the server refuses "
        "a story whose writing record shows a paste.",
    )
    canary_word = forms.CharField(
        required=False,
        max_length=60,
        label="Canary word",
        help_text="Optional: an unusual word (e.g. “quixotic”) that a hidden instruction in "
        "the task text asks the writer to use. Sighted readers and screen readers do not get "
        "the instruction; it comes along when the task text is copied (into a language "
        "model, say). A story that uses the word is flagged, with the canary shown.",
    )
    canary_instruction = forms.CharField(
        required=False,
        max_length=500,
        label="Canary instruction",
        help_text="Empty: “" + DEFAULT_CANARY_INSTRUCTION.format(word="<word>") + "”",
    )

    field_order = (
        "name",
        "proverbs",
        "target_per_item",
        "per_worker_cap",
        "reward",
        "time_allowed_minutes",
        "min_words",
        "max_words",
        "max_shared_ngram",
        "max_shared_content_words",
        # The controls against written-elsewhere stories, side by side.
        "refuse_paste",
        "ask_pledge",
        "pledge",
        "canary_word",
        "canary_instruction",
        *RoundFields.base_fields,  # in the order declared
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructions"].initial = DEFAULT_INSTRUCTIONS

    def clean(self):
        data = super().clean()
        try:
            OverlapRules.from_dict(rules_entered(data))
            self._integrity(data)
        except (TypeError, ValueError) as error:
            raise forms.ValidationError(str(error)) from error
        return data

    @staticmethod
    def _integrity(data: dict) -> IntegritySettings:
        word = (data.get("canary_word") or "").strip()
        if word and not re.fullmatch(r"\w+(?:[-']\w+)*", word):
            raise ValueError("The canary word must be one word (letters, digits, - or ').")
        return IntegritySettings.from_dict(
            {
                "refuse_paste": bool(data.get("refuse_paste")),
                "canary_word": word,
                "canary_instruction": (data.get("canary_instruction") or "").strip()
                if word
                else "",
            }
        )

    def batch_settings(self) -> dict:
        integrity = self._integrity(self.cleaned_data)
        return {
            "rules": rules_entered(self.cleaned_data),
            "integrity": integrity.to_dict(),
            **self.round_settings(),
        }

    def batch_items(self) -> list[dict]:
        return [{"proverb": proverb} for proverb in self.cleaned_data["proverbs"]]


class WriteTask(task_types.TaskType):
    key = "write"
    produces = "narratives"
    label = "Write narratives"
    template = "task_types/write/page.html"
    batch_form = WriteBatchForm  # crowd/admin/batches.py offers "New Write narratives batch"
    review_changelist = "admin:annotation_narrative_changelist"  # review_url links there
    import_fields = ("proverb", "narrative")

    def default_settings(self) -> dict:
        return {"rules": OverlapRules().to_dict(), "integrity": IntegritySettings().to_dict()}

    def default_instructions(self) -> str:
        return DEFAULT_INSTRUCTIONS

    def settings_schema(self) -> dict:
        return settings_object(
            {"rules": rules_schema(), "integrity": integrity_schema(), **rounds_schema()}
        )

    def clean_settings(self, settings: dict) -> dict:
        """{"rules": {max_shared_ngram, ...}, "integrity": IntegritySettings' fields}, and
        in rounds "round" and "opponent" (annotation.opponents.batch_settings)."""
        settings_keys_check(settings, {"rules", "integrity", *ROUND_KEYS}, batch="write")
        return {
            "rules": batch_rules(settings).to_dict(),
            "integrity": batch_integrity(settings).to_dict(),
            **rounds_settings_clean(settings),
        }

    def page_context(self, *, assignment: Assignment) -> dict:
        proverb = _proverb(assignment)
        rules = batch_rules(assignment.item.batch.settings)
        writing = writing_record_context(assignment.item.batch.settings)
        opponent = opponent_page_context(assignment=assignment)
        return {
            "proverb": proverb,
            "rules": rules,
            "refuse_paste": writing["refuse_paste"],
            "canary": canary_context(assignment.item.batch.settings),
            "narrative": (
                Narrative.objects.filter(assignment=assignment).first()
                if assignment.status in assignment.STORED
                else None  # nothing stored yet: no query
            ),
            # Approved, or approved and excluded (paid, kept out of the dataset): the
            # worker's story was approved either way.
            "approved": assignment.status in assignment.PAID,
            "opponent": opponent,
            "task_config": {
                "proverb": proverb.text,
                "rules": rules.to_dict(),
                "stopwords": sorted(load_stopwords()),
                "opponent": opponent,
                **writing,
            },
        }

    def settings_lines(self, *, batch: Batch) -> list[str]:
        return round_lines(batch.settings, currency=batch_currency(batch))

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        text = payload.get("text")
        if not isinstance(text, str) or not text.strip():
            raise SubmissionError("Write your story in the box before submitting.", field="text")
        text = text.strip()
        if len(text) > MAX_CHARACTERS:
            raise SubmissionError(
                f"Your story is longer than {MAX_CHARACTERS:,} characters; shorten it.",
                field="text",
            )
        settings = assignment.item.batch.settings
        telemetry = writing_record_clean(payload=payload, integrity=batch_integrity(settings))
        check = check_overlap(_proverb(assignment).text, text, batch_rules(settings))
        if not check["ok"]:
            violations = check["violations"]
            raise SubmissionError(
                " ".join(violation["message"] for violation in violations),
                field="text",
                details={"violations": violations},
            )
        # In a round that requires it, only a story the model did not find.
        opponent_submit_check(assignment=assignment, text=text)
        return {"text": text, "check": check, "telemetry": telemetry}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        check = cleaned["check"]
        narrative = Narrative.objects.create(
            proverb=_proverb(assignment),
            text=cleaned["text"],
            source=Narrative.Source.CROWD,
            source_label=assignment.item.batch.name,
            assignment=assignment,
            worker=assignment.worker,
            word_count=check["word_count"],
            overlap=overlap_figures(check),
        )
        writing_record_store(
            narrative=narrative,
            telemetry=cleaned["telemetry"],
            integrity=batch_integrity(assignment.item.batch.settings),
        )
        narrative_round_record(assignment=assignment, narrative=narrative)

    def live_check(self, *, assignment: Assignment, payload: dict) -> dict:
        """The opponent's check of the draft (a batch with an opponent; LookupError, a 404,
        otherwise): the overlap meter itself runs in the page."""
        rules = batch_rules(assignment.item.batch.settings)
        return opponent_live_check(assignment=assignment, payload=payload, rules=rules)

    def result(self, *, assignment: Assignment) -> dict:
        narrative = assignment.narrative  # cached by store() on a first submit; else one query
        return {
            "narrative": narrative.pk,
            "text": narrative.text,
            "word_count": narrative.word_count,
            "status": narrative.status,
        }

    def built_on(self, *, assignment: Assignment) -> Q:
        """Items about the narrative: to align or rate it, questions on it, its alignments."""
        return (
            super().built_on(assignment=assignment)
            | Q(narrative__assignment=assignment)
            | Q(choice_question__narrative__assignment=assignment)
            | Q(source_assignment__item__narrative__assignment=assignment)
        )

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        narrative = Narrative.objects.select_for_update().get(assignment=assignment)
        narrative.status = Narrative.Status.APPROVED if approved else Narrative.Status.REJECTED
        narrative.reviewed_at = assignment.reviewed_at or timezone.now()
        narrative.review_message = assignment.review_message
        # Recorded with the approval, so that a lost task is re-queued (analysis.keywords).
        narrative.keywords_pending_since = timezone.now() if approved else None
        narrative.save(
            update_fields=["status", "reviewed_at", "review_message", "keywords_pending_since"]
        )
        if approved:
            queue_on_commit("annotation.narrative_keywords_extract", narrative.pk)
        story_reviewed(assignment=assignment, approved=approved)

    def review_display(self, *, assignment: Assignment) -> dict:
        narrative = Narrative.objects.select_related("proverb").get(assignment=assignment)
        return {
            "kind": "write",
            "proverb": narrative.proverb.text,
            "pieces": marked_pieces(narrative.proverb.text, narrative.text),
            "word_count": narrative.word_count,
            "overlap": overlap_lines(narrative.overlap or {}),
            "opponent": round_review_lines(narrative_id=narrative.pk),
        }

    def import_settings(self) -> dict:
        return {"rules": PERMISSIVE_RULES}

    def import_subject(self, *, batch: Batch, fields: dict[str, str]) -> dict:
        return {"proverb": imported_proverb(batch=batch, fields=fields)}

    def import_payload(self, *, item: BatchItem, fields: dict[str, str]) -> dict:
        return {"text": fields.get("narrative", "")}


def overlap_figures(check: dict) -> dict:
    """What Narrative.overlap keeps of a check_overlap result: per-n figures and shared words."""
    return {
        **check["overlap"],
        "shared_words": check["shared_words"],
        "shared_content_words": check["shared_content_words"],
        "longest_shared_ngram": check["longest_shared_ngram"],
    }


def _proverb(assignment: Assignment) -> Proverb:
    proverb = assignment.item.proverb
    if proverb is None:
        raise SubmissionError("This task has no proverb; ask the researcher for another link.")
    return proverb


task_type = WriteTask()
