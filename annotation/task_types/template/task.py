"""The template task: a researcher's own MTurk HIT (HTML template and input CSV) run as a
batch, one item per CSV row, on any provider, in a sandboxed frame (frames.py). What comes
back is the form as MTurk records it (a name's values joined with "|"), each free-text
field's writing record and the time away from the page.
"""

from __future__ import annotations

from django.db.models import Max

from annotation.quality.canary import canary_found
from annotation.quality.integrity import TelemetryError, away_clean, process_flags
from annotation.task_parts.sources import settings_object
from annotation.task_parts.writing_record import (
    batch_integrity,
    canary_context,
    integrity_schema,
    writing_record_clean,
)
from annotation.task_types.template import results
from annotation.task_types.template.creation import TemplateBatchForm
from annotation.task_types.template.frames import SANDBOX, frame_url
from annotation.task_types.template.models import HitTemplate, TemplateAnswer, TemplateRow
from annotation.task_types.template.parsing import FREE_TEXT
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch, BatchItem
from crowd.task_types import SubmissionError, TaskType

DEFAULT_INSTRUCTIONS = (
    "Do the task below as its own instructions say, then press its Submit button. Your "
    "answers are kept in this browser as a draft until you submit."
)
MAX_FIELDS = 1_000
MAX_CHARACTERS = 1_000_000  # all of a form's names and values together
UNREADABLE = "The form's answers could not be read; reload the page and submit again."


def away_text(away: dict | None) -> str:
    """How often and how long the worker left the page, in words ("unknown" without one)."""
    if away is None:
        return "Time away from the page: unknown (no record)."
    seconds = round((away["hidden_ms"] + away["blurred_ms"]) / 1000)
    return (
        f"Left the page {away['tab_switches']} time(s) for another tab and lost its focus "
        f"{away['blurs']} time(s); away {seconds} s in all."
    )


class TemplateTask(TaskType):
    key = "template"
    label = "MTurk HIT template"
    template = "task_types/template/page.html"
    target_per_item = 3
    batch_form = TemplateBatchForm
    review_changelist = "admin:annotation_templateanswer_changelist"
    agreement_template = "task_types/template/agreement.html"
    import_fields = ("input.<column>", "answer.<field>")
    urls = "annotation.task_types.template.urls"
    produces = "template answers"

    def default_settings(self) -> dict:
        return {"template": None, "integrity": batch_integrity({}).to_dict()}

    def default_instructions(self) -> str:
        return DEFAULT_INSTRUCTIONS

    def settings_schema(self) -> dict:
        template = {"type": "integer", "minimum": 1, "nullable": True}
        return settings_object({"template": template, "integrity": integrity_schema()})

    def clean_settings(self, settings: dict) -> dict:
        """{"template": the HitTemplate's id (none: an import's, made with its first row),
        "integrity": the writing-integrity settings (canary, refuse paste)}."""
        template = settings.get("template")
        if template is not None and not HitTemplate.objects.filter(pk=template).exists():
            raise ValueError(f"No HIT template {template}: upload the template and CSV.")
        return {"template": template, "integrity": batch_integrity(settings).to_dict()}

    def items_refresh(self, *, batch: Batch) -> int:
        """A new batch on an uploaded template takes its rows as items."""
        template = batch.settings.get("template")
        if template is None or batch.items.exists():
            return 0
        rows = TemplateRow.objects.filter(template_id=template).only("pk").order_by("position")
        return batch_items_add(batch=batch, items=[{"template_row": row} for row in rows])

    def page_context(self, *, assignment: Assignment) -> dict:
        settings = assignment.item.batch.settings
        template = HitTemplate.objects.only("fields").get(pk=settings["template"])
        return {
            "frame_url": frame_url(mode="work", item=assignment.item, assignment=assignment),
            "sandbox": " ".join(SANDBOX),
            "free_text": template.field_names(FREE_TEXT),
            "refuse_paste": batch_integrity(settings).refuse_paste,
            "canary": canary_context(settings),
            "approved": assignment.status in Assignment.PAID,
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        pairs = payload.get("fields")
        if not isinstance(pairs, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair)
            for pair in pairs
        ):
            raise SubmissionError(UNREADABLE, field="fields")
        if len(pairs) > MAX_FIELDS or sum(len(n) + len(v) for n, v in pairs) > MAX_CHARACTERS:
            raise SubmissionError("The form's answers are too long to store.", field="fields")
        answers: dict[str, str] = {}
        for name, value in pairs:  # several values of one name, as MTurk records them
            answers[name] = f"{answers[name]}|{value.strip()}" if name in answers else value.strip()
        template = HitTemplate.objects.only("fields").get(
            pk=assignment.item.batch.settings["template"]
        )
        records = payload.get("writing") or {}
        if not isinstance(records, dict):
            raise SubmissionError(UNREADABLE, field="writing")
        integrity = batch_integrity(assignment.item.batch.settings)
        writing, canary = {}, []
        for name in template.field_names(FREE_TEXT):
            record = records.get(name)
            record = writing_record_clean(payload={"telemetry": record}, integrity=integrity)
            if record is not None:
                writing[name] = record
            if canary_found(answers.get(name, ""), settings=integrity):
                canary.append(name)
        try:
            away = away_clean(payload.get("away"))
        except TelemetryError as error:
            raise SubmissionError(str(error), field="away") from error
        return {"answers": answers, "writing": writing, "away": away, "canary": canary or None}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        TemplateAnswer.objects.create(
            assignment=assignment, row_id=assignment.item.template_row_id, **cleaned
        )

    def result(self, *, assignment: Assignment) -> dict:
        answer = assignment.template_answer
        return {"answer": answer.pk, "answers": answer.answers}

    def review_display(self, *, assignment: Assignment) -> dict:
        """The answer in the template's own layout (a read-only frame), its fields as a
        table, and what the writing records and the time away say."""
        answer = TemplateAnswer.objects.select_related("row__template").get(assignment=assignment)
        integrity = batch_integrity(assignment.item.batch.settings)
        notes = [away_text(answer.away)]
        for name in answer.row.template.field_names(FREE_TEXT):
            length = len(answer.answers.get(name, ""))
            flags = process_flags(answer.writing.get(name), text_length=length, settings=integrity)
            notes += [f"{name}: {flag.explanation}" for flag in flags]
        notes += [f"{name}: uses the hidden canary word." for name in answer.canary or []]
        return {
            "kind": "frame",
            "frame_url": frame_url(mode="review", item=assignment.item, assignment=assignment)
            if answer.row.template.segments
            else "",
            "sandbox": "allow-scripts",
            "fields": [list(pair) for pair in answer.pairs()],
            "notes": notes,
        }

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        return results.result_records(batch=batch, assignments=assignments)

    def agreement(self, *, batch: Batch) -> dict:
        return results.agreement_report(batch=batch)

    def methods_sentences(self, *, batch: Batch | None = None, imported=None) -> list[str]:
        if batch is None:
            return []
        return results.methods_sentences(batch=batch, agreement=self.agreement(batch=batch))

    def agreement_display(self, *, report: dict) -> dict:
        return results.agreement_display(report)

    def import_settings(self) -> dict:
        return {"template": None}

    def import_subject(self, *, batch: Batch, fields: dict[str, str]) -> dict:
        """The row of the import's template with these Input.* values (made at first)."""
        values = {name[6:]: value for name, value in fields.items() if name.startswith("input.")}
        template_id = batch.settings.get("template")
        if template_id is None:
            template = HitTemplate.objects.create(
                name=batch.name, shape=HitTemplate.Shape.IMPORTED, columns=list(values)
            )
            Batch.objects.filter(pk=batch.pk).update(
                settings={**batch.settings, "template": template.pk}
            )
            batch.settings = {**batch.settings, "template": template.pk}
            template_id = template.pk
        row = TemplateRow.objects.filter(template_id=template_id, values=values).first()
        if row is None:
            last = TemplateRow.objects.filter(template_id=template_id).aggregate(Max("position"))
            row = TemplateRow.objects.create(
                template_id=template_id, position=(last["position__max"] or 0) + 1, values=values
            )
        return {"template_row": row}

    def import_payload(self, *, item: BatchItem, fields: dict[str, str]) -> dict:
        pairs = [[name[7:], value] for name, value in fields.items() if name.startswith("answer.")]
        return {"fields": pairs}


task_type = TemplateTask()
