"""The gloss task: a worker says in a few words what a story means. Glosses are rows of the
type's own table; the type gives the dataset each story's approved glosses (an export
column), the analysis its state and the methods section a sentence; agreement is how often
two glosses of one story start with the same word."""

from __future__ import annotations

from django.db.models import Count, Max

from annotation.quality.agreement import pairwise_label_agreement
from annotation.quality.reports import counted
from crowd.models import Assignment, Batch
from crowd.task_types import NarrativePart, SubmissionError, TaskType

MAX_WORDS = 8
GLOSSES = NarrativePart(
    name="glosses",
    definition="Approved glosses of the story: text, annotator (hashed like worker).",
    fields=(("text", "string"), ("annotator", "string")),
    pseudonymized=("annotator",),
)


def _glosses():
    from tests.crowd.sample_task_type.models import Gloss

    return Gloss.objects


class GlossTask(TaskType):
    key = "gloss"
    label = "Gloss a story"
    template = "task_types/gloss/page.html"
    agreement_template = "task_types/gloss/agreement.html"
    produces = "glosses"
    narrative_parts = (GLOSSES,)

    def default_instructions(self) -> str:
        return f"Say in at most {MAX_WORDS} words what the story means."

    def page_context(self, *, assignment: Assignment) -> dict:
        stored = assignment.status in Assignment.STORED
        return {
            "narrative": assignment.item.narrative,
            "gloss": self.result(assignment=assignment)["gloss"] if stored else "",
            "task_config": {"max_words": MAX_WORDS},
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        gloss = payload.get("gloss")
        if not isinstance(gloss, str) or not 1 <= len(gloss.split()) <= MAX_WORDS:
            raise SubmissionError(f"A gloss is 1 to {MAX_WORDS} words.", field="gloss")
        return {"gloss": gloss.strip()}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        _glosses().create(
            narrative=assignment.item.narrative, assignment=assignment, text=cleaned["gloss"]
        )

    def result(self, *, assignment: Assignment) -> dict:
        return {"gloss": _glosses().get(assignment=assignment).text}

    def agreement(self, *, batch: Batch) -> dict:
        rows = counted(_glosses().model, batch).values_list(
            "assignment__item_id", "assignment__worker_id", "text"
        )
        first_words = [(item, worker, text.split()[0].lower()) for item, worker, text in rows]
        return {
            "glosses": len(first_words),
            "first_word_agreement": pairwise_label_agreement(first_words),
        }

    def narrative_parts_of(self, *, narrative_ids: list[int]) -> dict[str, dict[int, list]]:
        approved = _glosses().filter(narrative_id__in=narrative_ids, assignment__status="approved")
        rows = approved.order_by("id").values_list(
            "narrative_id",
            "text",
            "assignment__worker__provider",
            "assignment__worker__external_id",
        )
        by_narrative: dict[int, list] = {}
        for narrative_id, text, provider, worker_id in rows:
            annotator = f"{provider}:{worker_id}"
            by_narrative.setdefault(narrative_id, []).append({"text": text, "annotator": annotator})
        return {GLOSSES.name: by_narrative}

    def dataset_state(self) -> list:
        return [_glosses().aggregate(n=Count("id"), last=Max("id"))]

    def methods_sentences(self, *, batch: Batch | None = None, imported=None) -> list[str]:
        if batch is None:
            return []
        stored = _glosses().filter(assignment__item__batch=batch).count()
        return [f"Workers wrote {stored} gloss(es) of stories, at most {MAX_WORDS} words each."]


task_type = GlossTask()
