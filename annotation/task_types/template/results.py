"""A template batch's results: records, agreement per categorical field, JSONL, the dataset
card, and MTurk's Batch results CSV (the requester site's "Download results" columns and
times, what Parable does not know left empty), which a researcher's scripts and
mturk.importing read unchanged. Worker ids are salted hashes, as in every export.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import UTC
from typing import TextIO

from annotation.quality.agreement import alpha_note, krippendorff_alpha
from annotation.quality.integrity import telemetry_summary
from annotation.quality.reports import counted
from annotation.task_types.template.models import HitTemplate, TemplateAnswer
from annotation.task_types.template.parsing import CATEGORICAL, FREE_TEXT
from common.csv_cells import SafeCsvWriter
from common.prose import figure_text
from common.pseudonyms import WorkerPseudonyms, export_salt
from crowd.models import Assignment, Batch
from crowd.money import money_text

HIT_COLUMNS = (
    "HITId", "HITTypeId", "Title", "Description", "Keywords", "Reward", "CreationTime",
    "MaxAssignments", "RequesterAnnotation", "AssignmentDurationInSeconds",
    "AutoApprovalDelayInSeconds", "Expiration", "NumberOfSimilarHITs", "LifetimeInSeconds",
    "AssignmentId", "WorkerId", "AssignmentStatus", "AcceptTime", "SubmitTime",
    "AutoApprovalTime", "ApprovalTime", "RejectionTime", "RequesterFeedback",
    "WorkTimeInSeconds", "LifetimeApprovalRate", "Last30DaysApprovalRate",
    "Last7DaysApprovalRate",
)  # fmt: skip
STATUSES = {"submitted": "Submitted", "approved": "Approved", "rejected": "Rejected"}


def mturk_time(moment) -> str:
    return moment.astimezone(UTC).strftime("%a %b %d %H:%M:%S UTC %Y") if moment else ""


def batch_template(batch: Batch) -> HitTemplate | None:
    template = batch.settings.get("template")
    return HitTemplate.objects.filter(pk=template).first() if template else None


def exported(batch: Batch):
    """The batch's answers an export holds: submitted, approved and rejected (approved and
    excluded work is kept out of exports; an unconfirmed claim counts for nothing)."""
    return (
        TemplateAnswer.objects.filter(
            assignment__item__batch=batch, assignment__status__in=list(STATUSES)
        )
        .select_related("row", "assignment__worker", "assignment__item")
        .order_by("assignment__item__position", "assignment_id")
    )


def work_seconds(assignment: Assignment) -> int | None:
    if assignment.submitted_at is None:
        return None
    return int((assignment.submitted_at - assignment.started_at).total_seconds())


def _record(answer: TemplateAnswer) -> dict:
    writing = {
        name: telemetry_summary(record, text_length=len(answer.answers.get(name, "")))
        for name, record in answer.writing.items()
    }
    return {
        "hit": answer.assignment.item_id,
        "row": answer.row.position,
        "inputs": answer.row.values,
        "answers": answer.answers,
        "work_seconds": work_seconds(answer.assignment),
        "writing": writing,
        "away": answer.away,
        "canary_fields": answer.canary or [],
    }


def result_records(*, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
    wanted = {assignment.pk for assignment in assignments}
    answers = TemplateAnswer.objects.filter(assignment_id__in=wanted).select_related(
        "row", "assignment"
    )
    return {answer.assignment_id: _record(answer) for answer in answers}


def answer_columns(template: HitTemplate | None, answers: list[TemplateAnswer]) -> list[str]:
    """The form's fields in its order, then any other name the answers carry."""
    names = dict.fromkeys(template.field_names() if template else [])
    for answer in answers:
        names.update(dict.fromkeys(answer.answers))
    return list(names)


def results_csv(*, batch: Batch, stream: TextIO) -> int:
    """Write MTurk's Batch results CSV of the batch; returns how many answers it holds."""
    template = batch_template(batch)
    answers = list(exported(batch))
    inputs = list(template.columns) if template else []
    fields = answer_columns(template, answers)
    pseudonym = WorkerPseudonyms(export_salt())
    writer = SafeCsvWriter(stream, lineterminator="\r\n", quoting=1)  # QUOTE_ALL, as MTurk
    header = [*HIT_COLUMNS, *(f"Input.{n}" for n in inputs), *(f"Answer.{n}" for n in fields)]
    writer.writerow([*header, "Approve", "Reject"])
    for answer in answers:
        assignment, worker = answer.assignment, answer.assignment.worker
        status = assignment.status
        reviewed = mturk_time(assignment.reviewed_at)
        hit = [
            assignment.item_id, batch.pk, batch.name, "", "", money_text(batch.reward_cents),
            mturk_time(batch.created_at), batch.target_per_item, "",
            batch.time_allowed_seconds, "", "", "", "", assignment.pk,
            pseudonym(f"{worker.provider}:{worker.external_id}"), STATUSES[status],
            mturk_time(assignment.started_at), mturk_time(assignment.submitted_at), "",
            reviewed if status == "approved" else "", reviewed if status == "rejected" else "",
            assignment.review_message, work_seconds(assignment), "", "", "",
        ]  # fmt: skip
        values = [answer.row.values.get(n, "") for n in inputs]
        writer.writerow([*hit, *values, *(answer.answers.get(n, "") for n in fields), "", ""])
    return len(answers)


def results_jsonl(*, batch: Batch, stream: TextIO) -> int:
    """One JSON record per answer: MTurk's ids, the row's inputs, the answers, the time on
    task, each free-text field's writing record (shares and times) and the time away."""
    pseudonym = WorkerPseudonyms(export_salt())
    answers = list(exported(batch))
    for answer in answers:
        worker = answer.assignment.worker
        record = {
            "assignment": answer.assignment_id,
            "worker": pseudonym(f"{worker.provider}:{worker.external_id}"),
            "status": answer.assignment.status,
            **_record(answer),
        }
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(answers)


def agreement_report(*, batch: Batch) -> dict:
    """Per categorical field (radio, select, checkbox) of the template: Krippendorff's alpha
    (nominal) over the items' answers, and per item its majority answer (ties named)."""
    template = batch_template(batch)
    kinds = (
        {f["name"]: f["kind"] for f in template.fields if f["kind"] in CATEGORICAL}
        if template
        else {}
    )
    rows = list(
        counted(TemplateAnswer, batch).values_list(
            "assignment__item_id", "assignment__worker_id", "answers", "row__position"
        )
    )
    by_item = {}
    for item, _, _, position in rows:
        by_item.setdefault(item, {"item": item, "row": position, "answers": 0, "majority": {}})
        by_item[item]["answers"] += 1
    fields = []
    for name, kind in kinds.items():
        # An unticked checkbox group is an answer (none); an unanswered radio is missing.
        triples = [(i, w, a.get(name, "" if kind == "checkbox" else None)) for i, w, a, _ in rows]
        alpha = krippendorff_alpha(triples, level="nominal")
        votes: dict[int, Counter] = defaultdict(Counter)
        for item, _, value in triples:
            if value is not None:
                votes[item][value] += 1
        fields.append(
            {
                "field": name,
                "kind": kind,
                "alpha": alpha,
                "items_with_two": sum(1 for counts in votes.values() if counts.total() >= 2),
                "note": alpha_note(triples, alpha=alpha),
            }
        )
        for item, counts in votes.items():
            top = max(counts.values())
            tied = sorted(value for value, count in counts.items() if count == top)
            by_item[item]["majority"][name] = {
                "answer": tied[0] if len(tied) == 1 else None,
                "tied": tied if len(tied) > 1 else [],
            }
    return {
        "template": template.name if template else None,
        "answers": len(rows),
        "items_answered": len(by_item),
        "fields": fields,
        "by_item": list(by_item.values()),
    }


def agreement_display(report: dict) -> dict:
    names = [field["field"] for field in report["fields"]]
    return {
        "figures": {key: figure_text(report[key]) for key in ("answers", "items_answered")},
        "fields": [{**field, "alpha": figure_text(field["alpha"])} for field in report["fields"]],
        "columns": names,
        "rows": [
            {
                "item": row["item"],
                "row": row["row"],
                "answers": row["answers"],
                "majority": [_majority_text(row["majority"].get(name)) for name in names],
            }
            for row in report["by_item"]
        ],
    }


def _majority_text(majority: dict | None) -> str:
    if majority is None:
        return "—"
    if majority["tied"]:
        return "tie: " + " / ".join(value or "(none)" for value in majority["tied"])
    return majority["answer"] or "(none)"


def methods_sentences(*, batch: Batch, agreement: dict) -> list[str]:
    """What the methods section says of the batch's template beyond any batch's design:
    the template, its fields, what the page recorded, agreement per categorical field
    (unknown is said as unknown)."""
    template = batch_template(batch)
    fields = template.fields if template else []
    free = [found["name"] for found in fields if found["kind"] in FREE_TEXT]
    shape = template.get_shape_display().lower() if template else "unknown"
    listed = ", ".join(f"{found['name']} ({found['kind']})" for found in fields)
    sentences = [
        f"The requester's own Amazon Mechanical Turk HIT template "
        f"“{template.name if template else 'unknown'}” ({shape}) ran on Parable, one item "
        f"per row of its input CSV; the form's fields: {listed or 'unknown'}.",
        (
            f"The page recorded how each free-text field ({', '.join(free)}) was written "
            "(characters typed, pasted and deleted, and time) and how often and how long "
            "each worker left the page."
            if free
            else "The page recorded how often and how long each worker left it."
        ),
    ]
    for field in agreement["fields"]:
        sentences.append(
            f"Agreement on {field['field']} ({field['kind']}): Krippendorff's alpha (nominal) "
            f"{figure_text(field['alpha']) if field['alpha'] is not None else 'undefined'} "
            f"over {field['items_with_two']} items answered at least twice. {field['note']}"
        )
    return sentences


def methods_paragraphs(*, batch: Batch, agreement: dict) -> list[str]:
    """The methods section's paragraphs on the batch, from what Parable holds (unknown is
    said as unknown); the dataset card carries them."""
    statuses = Counter(exported(batch).values_list("assignment__status", flat=True))
    workers = exported(batch).values("assignment__worker").distinct().count()
    template, recorded, *agreements = methods_sentences(batch=batch, agreement=agreement)
    return [
        f"{template} Through {batch.get_provider_display()}, each of the "
        f"{batch.items.count():,} items was to be answered by {batch.target_per_item} "
        f"different workers (at most {batch.per_worker_cap or 'any number of'} items per "
        f"worker), for a reward of {money_text(batch.reward_cents)} per answer, with "
        f"{batch.time_allowed_seconds // 60} minutes allowed.",
        f"{sum(statuses.values()):,} answers from {workers:,} workers were submitted: "
        f"{statuses['approved']:,} approved, {statuses['rejected']:,} rejected and "
        f"{statuses['submitted']:,} awaiting review. {recorded}"
        + (" Workers agreed to a pledge before their first task." if batch.pledge else ""),
        *agreements,
    ]


def results_card(*, batch: Batch) -> str:
    """The dataset card (Markdown) of the batch's export, its methods section included."""
    agreement = agreement_report(batch=batch)
    lines = [f"# {batch.name}", "", "## Methods", ""]
    lines += [text.strip() + "\n" for text in methods_paragraphs(batch=batch, agreement=agreement)]
    lines += [
        "## Files",
        "",
        "- `results.csv`: MTurk's Batch results CSV, one answer a row (Input.*, Answer.*).",
        "- `results.jsonl`: one answer a line, with each free-text field's writing record.",
        "",
        "Worker ids are salted hashes (not reversible without the salt). A field's several "
        "values are joined with “|”, as MTurk records them; leading and trailing spaces "
        "are trimmed. Rows the researcher approved and excluded are left out.",
    ]
    return "\n".join(lines) + "\n"
