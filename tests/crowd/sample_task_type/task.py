"""The gloss task: a worker says in a few words what a proverb means. A gloss is kept as a
narrative of its proverb, reviewed and exported as the dataset's narratives are; agreement
is how often two glosses of one proverb start with the same word."""

from __future__ import annotations

from annotation.models import Narrative
from annotation.quality.agreement import pairwise_label_agreement
from annotation.quality.reports import counted
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionError, TaskType

MAX_WORDS = 8


class GlossTask(TaskType):
    key = "gloss"
    label = "Gloss a proverb"
    template = "task_types/gloss/page.html"
    agreement_template = "task_types/gloss/agreement.html"

    def default_instructions(self) -> str:
        return f"Say in at most {MAX_WORDS} words what the proverb means."

    def page_context(self, *, assignment: Assignment) -> dict:
        stored = assignment.status in Assignment.STORED
        return {
            "proverb": assignment.item.proverb,
            "gloss": self.result(assignment=assignment)["gloss"] if stored else "",
            "task_config": {"max_words": MAX_WORDS},
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        gloss = payload.get("gloss")
        if not isinstance(gloss, str) or not 1 <= len(gloss.split()) <= MAX_WORDS:
            raise SubmissionError(f"A gloss is 1 to {MAX_WORDS} words.", field="gloss")
        return {"gloss": gloss.strip()}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        Narrative.objects.create(
            proverb=assignment.item.proverb,
            text=cleaned["gloss"],
            source_label=assignment.item.batch.name,
            assignment=assignment,
            worker=assignment.worker,
            word_count=len(cleaned["gloss"].split()),
        )

    def result(self, *, assignment: Assignment) -> dict:
        return {"gloss": assignment.narrative.text}

    def on_reviewed(self, *, assignment: Assignment, approved: bool) -> None:
        status = Narrative.Status.APPROVED if approved else Narrative.Status.REJECTED
        Narrative.objects.filter(assignment=assignment).update(status=status)

    def agreement(self, *, batch: Batch) -> dict:
        rows = counted(Narrative, batch).values_list(
            "assignment__item_id", "assignment__worker_id", "text"
        )
        first_words = [(item, worker, text.split()[0].lower()) for item, worker, text in rows]
        return {
            "glosses": len(first_words),
            "first_word_agreement": pairwise_label_agreement(first_words),
        }


task_type = GlossTask()
