"""The "write continuations" task (Chakrabarty, Choi & Shwartz 2022): a plausible and an
implausible next sentence of a narrative with an idiom or a simile, without the words of its
meaning (check_overlap's rules, as the page's meter). The worker may flag a literal use
instead; approval confirms it. An approved continuation becomes an option pair.
"""

from __future__ import annotations

import random

from django import forms
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.models import ContinuationPair, FigurativeNarrative
from annotation.quality.reports import counted
from annotation.task_parts.option_pairs import continuation_pair_create
from annotation.task_parts.overlap_rules import batch_rules, rules_entered, rules_schema
from annotation.task_parts.sources import settings_keys_check, settings_object
from annotation.task_types.continuation import qualification
from annotation.task_types.continuation.models import Continuation, QualificationAttempt
from annotation.task_types.continuation.qualification import (
    clean_qualification,
    qualification_entered,
    qualification_sentences,
)
from annotation.text import OverlapRules, check_overlap, load_stopwords, overlap_tokens
from common.request_input import MAX_INT
from crowd import task_types
from crowd.forms import BatchForm
from crowd.models import Assignment, Batch, BatchItem
from crowd.task_types import SubmissionError

MAX_CHARACTERS = 2_000
WORKERS_PER_NARRATIVE = (3, 10)
DEFAULT_RULES = OverlapRules(
    max_shared_ngram=1, max_shared_content_words=0, min_words=5, max_words=25
)
FIELDS = ("plausible", "implausible")

INSTRUCTIONS = """\
Read the story. The highlighted expression is an idiom or a simile; its meaning is shown \
under the story. Write two different next sentences for the story:

- a plausible one, which makes sense only if the expression is understood correctly;
- an implausible one, which would make sense only if it were misunderstood.

Do not give the meaning away: your sentences may not use the words of the meaning (small \
words such as "a" or "the" do not count); the meter marks them as you type. If the \
expression is used literally in this story, tick the box instead of writing."""


def _violation_message(violation: dict, which: str) -> str:
    words = ", ".join(violation["words"])
    if violation["rule"] == "ngram":
        return f'Your {which} sentence repeats "{" ".join(violation["words"])}" from the meaning.'
    if violation["rule"] == "content_words":
        return f"Your {which} sentence uses words of the meaning ({words}): rephrase it."
    return f"Your {which} sentence {violation['message'].removeprefix('Your story ')}"


def continuation_check(*, meaning: str, plausible: str, implausible: str, rules) -> list[dict]:
    """The rule breaches of a pair of continuations, each {field, rule, message, words}."""
    problems = []
    for field, text in zip(FIELDS, (plausible, implausible), strict=True):
        if not text.strip():
            empty = {"rule": "empty", "message": f"Write the {field} sentence.", "words": []}
            problems.append({"field": field, **empty})
            continue
        check = check_overlap(meaning, text, rules)
        problems.extend(
            {**violation, "field": field, "message": _violation_message(violation, field)}
            for violation in check["violations"]
        )
    if plausible.strip() and [t.norm for t in overlap_tokens(plausible)] == [
        t.norm for t in overlap_tokens(implausible)
    ]:
        same = "The two sentences are the same: make the implausible one different."
        problems.append({"field": "implausible", "rule": "same", "message": same, "words": []})
    return problems


class ContinuationBatchForm(BatchForm):
    """A continuation batch: imported idiom or simile narratives, length and overlap limits."""

    kind = forms.ChoiceField(choices=FigurativeNarrative.Kind.choices)
    split = forms.ChoiceField(
        choices=[("", "any"), *FigurativeNarrative.Split.choices[1:]], required=False
    )
    sample = forms.IntegerField(
        min_value=1, required=False, help_text="At most this many narratives (seeded); empty: all."
    )
    seed = forms.IntegerField(initial=1)
    min_words = forms.IntegerField(min_value=1, initial=DEFAULT_RULES.min_words)
    max_words = forms.IntegerField(min_value=1, initial=DEFAULT_RULES.max_words)
    max_shared_ngram = forms.IntegerField(
        min_value=0,
        initial=DEFAULT_RULES.max_shared_ngram,
        label="Longest phrase shared with the meaning",
    )
    max_shared_content_words = forms.IntegerField(
        min_value=0,
        initial=DEFAULT_RULES.max_shared_content_words,
        label="Content words shared with the meaning",
    )

    qualification_pairs = forms.CharField(
        required=False,
        label="Qualification test",
        help_text="Ids of option pairs with known answers (e.g. imported ones), separated by "
        "commas: workers answer them once, before their first task. Empty: no test.",
    )
    qualification_min_correct = forms.IntegerField(
        min_value=0,
        required=False,
        label="Correct answers to pass",
        help_text="Empty: all of them.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructions"].initial = INSTRUCTIONS
        low, high = WORKERS_PER_NARRATIVE
        self.fields["target_per_item"] = forms.IntegerField(
            min_value=low,
            max_value=high,
            label="Workers per narrative",
            help_text=f"{low} to {high}, each a different worker.",
        )

    def clean(self):
        data = super().clean()
        try:
            OverlapRules.from_dict(rules_entered(data))
        except (TypeError, ValueError) as error:
            raise forms.ValidationError(str(error)) from error
        if not self.errors and not self._narratives(data):
            raise forms.ValidationError("No imported narratives of that kind and split.")
        if not self.errors:
            try:
                data["qualification"] = clean_qualification(qualification_entered(data))
            except ValueError as error:
                self.add_error("qualification_pairs", str(error))
        return data

    @staticmethod
    def _narratives(data: dict) -> list[FigurativeNarrative]:
        narratives = FigurativeNarrative.objects.filter(
            kind=data["kind"], literal_use_confirmed=False
        )
        if data.get("split"):
            split = data["split"]
            narratives = narratives.filter(Q(split=split) | Q(option_pairs__split=split)).distinct()
        ordered = list(narratives.order_by("id"))
        if data.get("sample"):
            random.Random(data.get("seed") or 1).shuffle(ordered)
            ordered = sorted(ordered[: data["sample"]], key=lambda narrative: narrative.pk)
        return ordered

    def batch_settings(self) -> dict:
        return {
            "rules": rules_entered(self.cleaned_data),
            "qualification": self.cleaned_data["qualification"],
        }

    def batch_items(self) -> list[dict]:
        return [
            {"figurative_narrative": narrative} for narrative in self._narratives(self.cleaned_data)
        ]


class ContinuationTask(task_types.TaskType):
    key = "continue"
    produces = "continuations"
    label = "Write continuations"
    target_per_item = WORKERS_PER_NARRATIVE[0]
    template = "task_types/continue/page.html"
    batch_form = ContinuationBatchForm
    review_changelist = "admin:annotation_continuation_changelist"
    agreement_template = "task_types/continue/agreement.html"

    def default_settings(self) -> dict:
        return {"rules": DEFAULT_RULES.to_dict(), "qualification": {"pairs": [], "min_correct": 0}}

    def default_instructions(self) -> str:
        return INSTRUCTIONS

    def settings_schema(self) -> dict:
        """Rules as a write batch's, and a qualification test of distinct option pairs (what
        no schema states, clean_settings checks: min_correct <= the pairs, pairs that exist
        and have a known answer)."""
        whole = {"type": "integer", "minimum": 0, "maximum": MAX_INT}
        pair = {"type": "integer", "minimum": 1, "maximum": MAX_INT}
        qualification = settings_object(
            {"pairs": {"type": "array", "items": pair, "uniqueItems": True}, "min_correct": whole}
        )
        return settings_object({"rules": rules_schema(), "qualification": qualification})

    def clean_settings(self, settings: dict) -> dict:
        """{"rules": OverlapRules', "qualification": {"pairs": [ids], "min_correct": n}}."""
        settings_keys_check(settings, {"rules", "qualification"}, batch="continuation")
        rules = {**DEFAULT_RULES.to_dict(), **(settings.get("rules") or {})}
        return {
            "rules": OverlapRules.from_dict(rules).to_dict(),
            "qualification": clean_qualification(settings.get("qualification")),
        }

    qualification_needed = staticmethod(qualification.qualification_needed)
    qualification_context = staticmethod(qualification.qualification_context)
    qualification_submit = staticmethod(qualification.qualification_attempt_create)

    def methods_sentences(self, *, batch: Batch | None = None, imported=None) -> list[str]:
        return qualification_sentences(batch) if batch is not None else []

    def page_context(self, *, assignment: Assignment) -> dict:
        narrative = _narrative(assignment)
        rules = batch_rules(assignment.item.batch.settings)
        return {
            "figurative": narrative,
            "segments": narrative.segments(),
            "meaning_label": "Meaning" if narrative.kind == "idiom" else "Property",
            "fields": FIELDS,
            "rules": rules,
            "continuation": Continuation.objects.filter(assignment=assignment).first(),
            "task_config": {
                "meaning": narrative.meaning,
                "rules": rules.to_dict(),
                "stopwords": sorted(load_stopwords()),
            },
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        batch = assignment.item.batch
        if self.qualification_needed(batch=batch, worker=assignment.worker):
            raise SubmissionError("Pass this batch's qualification test before submitting.")
        literal = payload.get("literal_use", False)
        if not isinstance(literal, bool):
            raise SubmissionError("The literal-use box could not be read; reload the page.")
        texts = {}
        for field in FIELDS:
            value = payload.get(field, "")
            if not isinstance(value, str):
                raise SubmissionError(f"Write the {field} sentence as text.", field=field)
            if len(value) > MAX_CHARACTERS:
                raise SubmissionError(f"The {field} sentence is far too long.", field=field)
            texts[field] = value.strip()
        if literal:
            return {"literal_use": True, "plausible": "", "implausible": ""}
        problems = continuation_check(
            meaning=_narrative(assignment).meaning,
            rules=batch_rules(assignment.item.batch.settings),
            **texts,
        )
        if problems:
            raise SubmissionError(
                " ".join(problem["message"] for problem in problems),
                field=problems[0]["field"],
                details={"violations": problems},
            )
        return {"literal_use": False, **texts}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        Continuation.objects.create(
            narrative=_narrative(assignment), assignment=assignment, **cleaned
        )

    def result(self, *, assignment: Assignment) -> dict:
        continuation = assignment.continuation
        return {
            "continuation": continuation.pk,
            "plausible": continuation.plausible,
            "implausible": continuation.implausible,
            "literal_use": continuation.literal_use,
        }

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        continuation = Continuation.objects.select_related("narrative").get(assignment=assignment)
        if not approved:
            # A rejection after an approval withdraws what the approval made: the pair
            # (answers already given to it stay on record) and a literal-use confirmation.
            ContinuationPair.objects.filter(continuation=continuation).update(withdrawn=True)
            if continuation.literal_use:
                confirmed_by_others = Continuation.objects.filter(
                    narrative=continuation.narrative,
                    literal_use=True,
                    assignment__status=Assignment.Status.APPROVED,
                ).exists()
                literal_use_set(narrative=continuation.narrative, confirmed=confirmed_by_others)
            return
        if continuation.literal_use:
            literal_use_set(narrative=continuation.narrative, confirmed=True)
            return
        continuation_pair_from(continuation=continuation)

    def agreement(self, *, batch: Batch) -> dict:
        return continuation_report(batch=batch)

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Per submission: narrative, expression, meaning, both sentences, the literal flag."""
        continuations = Continuation.objects.filter(assignment__item__batch=batch).select_related(
            "narrative"
        )
        return {
            continuation.assignment_id: {
                "narrative": continuation.narrative_id,
                "expression": continuation.narrative.expression,
                "meaning": continuation.narrative.meaning,
                "plausible": continuation.plausible,
                "implausible": continuation.implausible,
                "literal_use": continuation.literal_use,
            }
            for continuation in continuations
        }


def continuation_report(*, batch: Batch) -> dict:
    """Continuations written, literal-use flags and those confirmed, pairs made, and the
    qualification test's attempts and passes."""
    continuations = counted(Continuation, batch)
    flagged = continuations.filter(literal_use=True)
    attempts = QualificationAttempt.objects.filter(batch=batch)
    return {
        "qualification_attempts": attempts.count(),
        "qualification_passed": attempts.filter(passed=True).count(),
        "submissions": continuations.count(),
        "written": continuations.filter(literal_use=False).count(),
        "literal_flags": flagged.count(),
        "literal_confirmed": flagged.filter(narrative__literal_use_confirmed=True).count(),
        "option_pairs": continuations.filter(option_pair__isnull=False).count(),
    }


@transaction.atomic
def continuation_pair_from(*, continuation: Continuation) -> ContinuationPair:
    """The option pair of an approved continuation; the plausible one's slot is random."""
    plausible_first = random.Random(f"continuation:{continuation.pk}").random() < 0.5
    first, second = (
        (continuation.plausible, continuation.implausible)
        if plausible_first
        else (continuation.implausible, continuation.plausible)
    )
    pair, _ = continuation_pair_create(
        narrative=continuation.narrative,
        option1=first,
        option2=second,
        correct=1 if plausible_first else 2,
        source=ContinuationPair.Source.CROWD,
        continuation=continuation,
    )
    if pair.withdrawn:
        pair.withdrawn = False
        pair.save(update_fields=["withdrawn"])
    return pair


LITERAL_USE_REASON = "the expression is used literally here (confirmed in review)"


@transaction.atomic
def literal_use_set(*, narrative: FigurativeNarrative, confirmed: bool) -> None:
    """Confirm (or withdraw the confirmation) that the narrative uses its expression
    literally: its items to write continuations and to choose between crowd ones are
    withdrawn (or put back); the benchmark's imported pairs stay in service."""
    FigurativeNarrative.objects.filter(pk=narrative.pk).update(literal_use_confirmed=confirmed)
    concerned = BatchItem.objects.filter(
        Q(figurative_narrative=narrative)
        | Q(
            continuation_pair__narrative=narrative,
            continuation_pair__source=ContinuationPair.Source.CROWD,
        )
    )
    if confirmed:
        concerned.filter(withdrawn_at__isnull=True).update(
            withdrawn_at=timezone.now(), withdrawn_reason=LITERAL_USE_REASON
        )
    else:
        concerned.filter(withdrawn_reason=LITERAL_USE_REASON).update(
            withdrawn_at=None, withdrawn_reason=""
        )


def _narrative(assignment: Assignment) -> FigurativeNarrative:
    narrative = assignment.item.figurative_narrative
    if narrative is None:
        raise SubmissionError("This task has no narrative; ask the researcher for another link.")
    return narrative


task_type = ContinuationTask()
