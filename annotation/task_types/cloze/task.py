"""The narrative cloze task: a drawn story with one sentence left out, the others shown as
the batch's condition says (parsing.py); the worker writes one full sentence (a root verb
with a subject), which the page's live check and the server's parse both ask for.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from statistics import mean

from django import forms
from django.db import transaction

from annotation.models import Narrative
from annotation.quality.reports import counted
from annotation.task_parts.sources import (
    DRAW_DEFAULTS,
    DRAW_SETTINGS_SCHEMA,
    DrawnBatchForm,
    DrawnTaskType,
    clean_draw_settings,
    narrative_selections,
    settings_object,
)
from annotation.task_types.cloze.models import ClozeItem, ClozeResponse
from annotation.task_types.cloze.parsing import (
    CONDITIONS,
    pipeline_warm,
    sentence_check,
    sentence_count,
    story_shown,
)
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionError

MIN_SENTENCES = 3
BLANKS = ("random", "middle", "last")

INSTRUCTIONS = """One sentence of this story is left out. Write a full sentence that you \
think was at that place: who or what does something, and what they do. Phrases and \
fragments are not accepted; the page tells you as you type."""


def blank_position(*, narrative_id: int, count: int, blank: str, seed: int) -> int:
    """Which sentence (0-based) is left out: never the first, so the story has a start."""
    if blank == "last":
        return count - 1
    if blank == "middle":
        return count // 2
    return random.Random(f"cloze:{seed}:{narrative_id}").randrange(1, count)


def story_fits(text: str) -> bool:
    """Whether a cloze item can be made of the story: MIN_SENTENCES sentences or more."""
    return sentence_count(text) >= MIN_SENTENCES


def stories_fitting(*, source_batch: Batch | None, settings: dict) -> tuple[int, int]:
    """(stories with MIN_SENTENCES sentences or more, stories) among what the selections
    offer now: the source batch's approved output and the draws."""
    ids: set[int] = set()
    for narratives, _ in narrative_selections(
        source_batch_id=source_batch.pk if source_batch else None, settings=settings
    ):
        ids.update(narratives.values_list("pk", flat=True))
    texts = Narrative.objects.filter(pk__in=ids).values_list("text", flat=True)
    return sum(1 for text in texts if story_fits(text)), len(ids)


def _with_fitting_count(batch: Batch) -> str:
    """A write batch as the cloze form offers it: with how many of its stories qualify."""
    fitting, stories = stories_fitting(source_batch=batch, settings={})
    return (
        f"{batch.name}: {stories} approved stories, {fitting} with {MIN_SENTENCES} "
        "sentences or more"
    )


@transaction.atomic
def cloze_item_for(*, narrative: Narrative, condition: str, blank: str, seed: int):
    """The story's cloze item in the condition (made once), or None for a story too short."""
    sentences, _, _ = story_shown(narrative.text, blank=0, condition="full")
    if len(sentences) < MIN_SENTENCES:
        return None
    position = blank_position(
        narrative_id=narrative.pk, count=len(sentences), blank=blank, seed=seed
    )
    existing = ClozeItem.objects.filter(
        narrative=narrative, condition=condition, blank_index=position
    ).first()
    if existing is not None:
        return existing
    sentences, shown, lemma = story_shown(narrative.text, blank=position, condition=condition)
    return ClozeItem.objects.create(
        narrative=narrative,
        condition=condition,
        blank_index=position,
        sentences=sentences,
        shown=shown,
        original_lemma=lemma,
    )


class ClozeBatchForm(DrawnBatchForm):
    """A cloze batch: stories, the display condition and which sentence is left out."""

    instructions_initial = INSTRUCTIONS

    condition = forms.ChoiceField(choices=ClozeItem.Condition.choices, initial="full")
    blank = forms.ChoiceField(
        choices=[(value, value) for value in BLANKS],
        initial="random",
        label="Sentence left out",
        help_text="random (seeded, never the first), the middle one, or the last one.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        sample = self.fields["sample"]
        sample.help_text = (
            f"{sample.help_text} Stories with fewer than {MIN_SENTENCES} sentences are left "
            "out before sampling."
        )
        self.fields["source_batch"].label_from_instance = _with_fitting_count

    def type_settings(self) -> dict:
        return {"condition": self.cleaned_data["condition"], "blank": self.cleaned_data["blank"]}

    def clean(self):
        """Count the chosen stories a cloze item can be made of; refuse a choice of none."""
        data = super().clean()
        if self.errors:
            return data
        fitting, stories = stories_fitting(
            source_batch=data.get("source_batch"), settings=self.batch_settings()
        )
        self.stories_fitting = (fitting, stories)
        if stories and not fitting:
            raise forms.ValidationError(
                f"None of the {stories} stories chosen has {MIN_SENTENCES} sentences or more: "
                "a cloze item leaves one out and shows the rest."
            )
        return data

    def created_message(self) -> str:
        fitting, stories = self.stories_fitting
        return (
            f"{fitting} of the {stories} stories chosen have {MIN_SENTENCES} sentences or more "
            "and can become cloze items now; shorter ones are left out before sampling."
        )


class ClozeTask(DrawnTaskType):
    key = "cloze"
    instructions = INSTRUCTIONS
    produces = "cloze answers"
    label = "Narrative cloze"
    target_per_item = 5
    template = "task_types/cloze/page.html"
    batch_form = ClozeBatchForm
    review_changelist = "admin:annotation_clozeresponse_changelist"
    agreement_template = "task_types/cloze/agreement.html"

    def default_settings(self) -> dict:
        return {"condition": "full", "blank": "random", **DRAW_DEFAULTS}

    def settings_schema(self) -> dict:
        return settings_object(
            {
                "condition": {"enum": list(CONDITIONS)},
                "blank": {"enum": list(BLANKS)},
                **DRAW_SETTINGS_SCHEMA,
            }
        )

    def clean_settings(self, settings: dict) -> dict:
        cleaned = {**self.default_settings(), **settings}
        if cleaned["condition"] not in CONDITIONS:
            raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}.")
        if cleaned["blank"] not in BLANKS:
            raise ValueError(f"blank must be one of {', '.join(BLANKS)}.")
        return clean_draw_settings(cleaned)

    def page_context(self, *, assignment: Assignment) -> dict:
        item = assignment.item.cloze_item
        finished = assignment.status in Assignment.STORED
        if not finished:
            pipeline_warm()  # the page's first live check then finds the parser loaded
        return {
            "cloze": item,
            "shown": item.shown,
            "response": assignment.cloze_response if finished else None,
        }

    def live_check(self, *, assignment: Assignment, payload: dict) -> dict:
        text = payload.get("text", "")
        if not isinstance(text, str):
            return {"ok": False, "missing": ["text"], "message": "Write a sentence.", "lemma": ""}
        return sentence_check(text)

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        text = payload.get("text")
        if not isinstance(text, str) or not text.strip():
            raise SubmissionError("Write a sentence before submitting.", field="text")
        verdict = sentence_check(text)
        if not verdict["ok"]:
            raise SubmissionError(verdict["message"], field="text", details=verdict)
        return {"text": text.strip(), "lemma": verdict["lemma"]}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        item = assignment.item.cloze_item
        ClozeResponse.objects.create(
            item=item,
            assignment=assignment,
            text=cleaned["text"],
            lemma=cleaned["lemma"],
            matches=bool(item.original_lemma) and cleaned["lemma"] == item.original_lemma,
        )

    def result(self, *, assignment: Assignment) -> dict:
        response = assignment.cloze_response
        return {"response": response.pk, "text": response.text}

    def draw_filters(self, *, batch: Batch) -> dict:
        return {"text_fits": story_fits}

    def drawn_item(self, *, batch: Batch, narrative: Narrative) -> dict | None:
        settings = batch.settings
        item = cloze_item_for(
            narrative=narrative,
            condition=settings["condition"],
            blank=settings["blank"],
            seed=settings.get("seed", 1),
        )
        return {"narrative": narrative, "cloze_item": item} if item is not None else None

    def agreement(self, *, batch: Batch) -> dict:
        return cloze_report(batch=batch)

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Per sentence: its cloze item, the condition, the original sentence and lemma,
        the worker's sentence and lemma, and whether the lemmas match."""
        responses = ClozeResponse.objects.filter(assignment__item__batch=batch).select_related(
            "item"
        )
        return {
            response.assignment_id: {
                "cloze_item": response.item_id,
                "narrative": response.item.narrative_id,
                "condition": response.item.condition,
                "original": response.item.sentences[response.item.blank_index],
                "original_lemma": response.item.original_lemma,
                "text": response.text,
                "lemma": response.lemma,
                "matches": response.matches,
            }
            for response in responses
        }


def lemma_agreement(lemmas: Iterable[str]) -> float | None:
    """1 - H(lemmas) / log N: 1 when all N responses share a lemma, 0 when all differ; None
    for fewer than two responses."""
    counts = Counter(lemmas)
    total = sum(counts.values())
    if total < 2:
        return None
    entropy = -sum(n / total * math.log(n / total) for n in counts.values())
    return 1 - entropy / math.log(total)


def _mean_or_none(values: list[float]) -> float | None:
    return mean(values) if values else None


def cloze_report(*, batch: Batch) -> dict:
    """The narrative-cloze pilot's measures: the rate at which a response's main-verb lemma
    matches the left-out sentence's, and the mean of each item's `lemma_agreement`."""
    rows = list(
        counted(ClozeResponse, batch).values_list(
            "item_id", "lemma", "matches", "item__original_lemma", "item__condition"
        )
    )
    by_item: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    originals, condition = {}, batch.settings.get("condition", "")
    for item, lemma, matches, original, _ in rows:
        by_item[item].append((lemma, matches))
        originals[item] = original
    items = [
        {
            "item": item,
            "original_lemma": originals[item],
            "responses": len(responses),
            "lemmas": dict(Counter(lemma for lemma, _ in responses).most_common()),
            "match_rate": mean(matches for _, matches in responses),
            "agreement": lemma_agreement(lemma for lemma, _ in responses),
        }
        for item, responses in sorted(by_item.items())
    ]
    agreements = [row["agreement"] for row in items if row["agreement"] is not None]
    return {
        "condition": condition,
        "responses": len(rows),
        "items_answered": len(items),
        "match_rate": _mean_or_none([float(matches) for _, _, matches, _, _ in rows]),
        "agreement": _mean_or_none(agreements),
        "items_with_agreement": len(agreements),
        "by_item": items,
    }


task_type = ClozeTask()
