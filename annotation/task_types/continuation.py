"""The "write continuations" task: a plausible and an implausible continuation of a narrative
with an idiom or a simile (Chakrabarty, Choi & Shwartz 2022).

The worker sees the narrative with the expression highlighted and its meaning (or the
simile's property) and writes one plausible and one implausible next sentence that depend
on the expression's right reading without giving its meaning away: the live meter
(frontend/static/frontend/overlap.js) and this module's server check run the same rules
(annotation/text.py check_overlap) against the meaning text. The two must differ. Instead,
the worker can flag that the expression is used literally; approving such a flag confirms
it, and the narrative gets no more work. An approved continuation becomes an option pair
(the benchmark's option1/option2/correctanswer) that choose-the-continuation batches take.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from django import forms
from django.db import transaction

from annotation.datasets.figurative import continuation_pair_create
from annotation.models import Continuation, ContinuationPair, FigurativeNarrative
from annotation.text import OverlapRules, check_overlap, load_stopwords, overlap_tokens
from crowd import task_types
from crowd.forms import BatchForm
from crowd.task_types import SubmissionError

if TYPE_CHECKING:
    from crowd.models import Assignment, Batch

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


def batch_rules(settings: dict) -> OverlapRules:
    return OverlapRules.from_dict(settings.get("rules"))


def segments(narrative: FigurativeNarrative) -> list[dict]:
    """The narrative as text pieces, the expression's piece marked (rendered escaped)."""
    if narrative.expression_start is None:
        return [{"text": narrative.text, "mark": False}]
    start, end = narrative.expression_start, narrative.expression_end
    pieces = [
        {"text": narrative.text[:start], "mark": False},
        {"text": narrative.text[start:end], "mark": True},
        {"text": narrative.text[end:], "mark": False},
    ]
    return [piece for piece in pieces if piece["text"]]


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
            problems.append(
                {
                    "field": field,
                    "rule": "empty",
                    "message": f"Write the {field} sentence.",
                    "words": [],
                }
            )
            continue
        check = check_overlap(meaning, text, rules)
        problems.extend(
            {**violation, "field": field, "message": _violation_message(violation, field)}
            for violation in check["violations"]
        )
    if plausible.strip() and [t.norm for t in overlap_tokens(plausible)] == [
        t.norm for t in overlap_tokens(implausible)
    ]:
        problems.append(
            {
                "field": "implausible",
                "rule": "same",
                "message": "The two sentences are the same: make the implausible one different.",
                "words": [],
            }
        )
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructions"].initial = INSTRUCTIONS
        low, high = WORKERS_PER_NARRATIVE
        self.fields["target_per_item"] = forms.IntegerField(
            min_value=low,
            max_value=high,
            initial=low,
            label="Workers per narrative",
            help_text=f"{low} to {high}, each a different worker.",
        )

    def clean(self):
        data = super().clean()
        try:
            OverlapRules.from_dict(self._rules(data))
        except (TypeError, ValueError) as error:
            raise forms.ValidationError(str(error)) from error
        if not self.errors and not self._narratives(data):
            raise forms.ValidationError("No imported narratives of that kind and split.")
        return data

    @staticmethod
    def _rules(data: dict) -> dict:
        return {name: data.get(name) for name in OverlapRules().to_dict()}

    @staticmethod
    def _narratives(data: dict) -> list[FigurativeNarrative]:
        narratives = FigurativeNarrative.objects.filter(
            kind=data["kind"], literal_use_confirmed=False
        )
        if data.get("split"):
            narratives = narratives.filter(split=data["split"])
        ordered = list(narratives.order_by("id"))
        if data.get("sample"):
            random.Random(data.get("seed") or 1).shuffle(ordered)
            ordered = sorted(ordered[: data["sample"]], key=lambda narrative: narrative.pk)
        return ordered

    def batch_settings(self) -> dict:
        return {"rules": self._rules(self.cleaned_data)}

    def batch_items(self) -> list[dict]:
        return [
            {"figurative_narrative": narrative} for narrative in self._narratives(self.cleaned_data)
        ]


class ContinuationTask(task_types.TaskType):
    key = "continue"
    label = "Write continuations"
    template = "frontend/tasks/continue.html"
    batch_form = ContinuationBatchForm
    review_changelist = "admin:annotation_continuation_changelist"

    def default_settings(self) -> dict:
        return {"rules": DEFAULT_RULES.to_dict()}

    def default_instructions(self) -> str:
        return INSTRUCTIONS

    def clean_settings(self, settings: dict) -> dict:
        """{"rules": {max_shared_ngram, max_shared_content_words, min_words, max_words}}."""
        if not isinstance(settings, dict):
            raise ValueError("Settings of a continuation batch must be an object.")
        unknown = sorted(set(settings) - {"rules"})
        if unknown:
            raise ValueError(f"Unknown setting(s) of a continuation batch: {', '.join(unknown)}.")
        rules = {**DEFAULT_RULES.to_dict(), **(settings.get("rules") or {})}
        return {"rules": OverlapRules.from_dict(rules).to_dict()}

    def page_context(self, *, assignment: Assignment) -> dict:
        narrative = _narrative(assignment)
        rules = batch_rules(assignment.item.batch.settings)
        return {
            "figurative": narrative,
            "segments": segments(narrative),
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
            # A rejection after an approval takes the pair out of the dataset again.
            ContinuationPair.objects.filter(continuation=continuation).delete()
            return
        if continuation.literal_use:
            FigurativeNarrative.objects.filter(pk=continuation.narrative_id).update(
                literal_use_confirmed=True
            )
            return
        continuation_pair_from(continuation=continuation)

    def batch_results(self, *, batch: Batch) -> list[dict]:
        """One record per submission: narrative, expression, meaning, both sentences, flag."""
        continuations = (
            Continuation.objects.filter(assignment__item__batch=batch)
            .select_related("narrative", "assignment")
            .order_by("id")
        )
        return [
            {
                "assignment": continuation.assignment_id,
                "worker": continuation.assignment.worker_id,
                "status": continuation.assignment.status,
                "narrative": continuation.narrative_id,
                "expression": continuation.narrative.expression,
                "meaning": continuation.narrative.meaning,
                "plausible": continuation.plausible,
                "implausible": continuation.implausible,
                "literal_use": continuation.literal_use,
            }
            for continuation in continuations
        ]


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
    return pair


def _narrative(assignment: Assignment) -> FigurativeNarrative:
    narrative = assignment.item.figurative_narrative
    if narrative is None:
        raise SubmissionError("This task has no narrative; ask the researcher for another link.")
    return narrative


task_types.register(ContinuationTask())
