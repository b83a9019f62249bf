"""What the methods statement says of the data itself: its scope, the items and task design
of the batches collected here, their workers, pay and review, and the files imported (parts
of annotation.analysis.methods, registered by methods_findings.dataset_parts_register)."""

from __future__ import annotations

import re
import statistics
from collections import Counter

from django.db.models import Count

from annotation.analysis.cards import Table
from annotation.analysis.methods import Methods, MethodsScope
from annotation.models import VariantGroup
from common.prose import UNKNOWN, noun_for, paper_number, plural, series
from crowd import task_types
from crowd.models import Assignment, BatchItem
from crowd.money import money_text
from crowd.providers import batch_currency

NO_CURRENCY = "(currency not recorded)"

# How many distinct rejection messages are listed (the rest are counted together).
TOP_REASONS = 5


def scope_part(doc: Methods, scope: MethodsScope) -> None:
    doc.heading("Data")
    total = scope.collected + sum(source.narratives for source in scope.imported)
    statuses = (
        "approved narratives only"
        if scope.approved_only
        else "narratives of every status (submitted, approved and rejected)"
    )
    if not total:
        doc.paragraph(f"The scope ({statuses}) holds no narrative.")
        return
    parts = []
    if scope.collected:
        names = series([f"#{batch.pk} “{batch.name}”" for batch in scope.batches])
        batches = "batch" if len(scope.batches) == 1 else "batches"
        parts.append(f"{plural(scope.collected, 'narrative')} collected here in {batches} {names}")
    for source in scope.imported:
        parts.append(
            f"{plural(source.narratives, 'narrative')} imported as “{source.label}”"
            + (f" from {source.file.filename}" if source.file and source.file.filename else "")
        )
    doc.paragraph(f"This statement covers {statuses}: {series(parts)}.")


def items_part(doc: Methods, scope: MethodsScope) -> None:
    if not scope.collected:
        return
    proverb_ids = set(
        BatchItem.objects.filter(batch__in=scope.batches, proverb__isnull=False).values_list(
            "proverb_id", flat=True
        )
    )
    if not proverb_ids:
        return
    merged = VariantGroup.objects.filter(
        status=VariantGroup.Status.MERGED, canonical__in=proverb_ids
    ).count()
    doc.heading("Items")
    asked = doc.figure(
        len(proverb_ids), "proverbs the batches asked about", "Admin → Batches → progress"
    )
    proverbs = noun_for(proverb_ids, "proverb")
    text = f"The batches collected here asked about {asked} curated {proverbs}"
    if merged:
        groups = doc.figure(merged, "variant groups merged", "Admin → Variant groups (merged)")
        text += (
            f"; {groups} {noun_for(merged, 'group')} of lexical variants (same normalised text or "
            "embedding similarity) had been merged into one proverb each before any task was "
            "published"
        )
    doc.paragraph(text + ".")


def design_part(doc: Methods, scope: MethodsScope) -> None:
    if not scope.collected:
        return
    doc.heading("Task design and providers")
    for batch in scope.batches:
        task_type = task_types.get(batch.task_type)
        items = batch.items.count()
        gold = batch.items.filter(is_gold=True).count()
        cap = (
            f", at most {plural(batch.per_worker_cap, 'task')} per worker"
            if batch.per_worker_cap
            else ""
        )
        reward = money_text(batch.reward_cents, batch_currency(batch) or NO_CURRENCY)
        text = (
            f"Batch #{batch.pk} (“{batch.name}”, {task_type.label.lower()}) "
            f"offered {plural(items, 'item')} to crowd workers through "
            f"{batch.get_provider_display()}, each item to be done by "
            f"{plural(batch.target_per_item, 'distinct worker')}{cap}, for a reward of "
            f"{reward} per task with "
            f"{plural(batch.time_allowed_seconds // 60, 'minute')} allowed."
        )
        if gold:
            text += (
                f" {plural(gold, 'gold item')} with known answers checked workers during the work."
            )
        text += "".join(f" {sentence}" for sentence in task_type.methods_sentences(batch=batch))
        doc.paragraph(text)
        doc.paragraph(f"Instructions of batch #{batch.pk}, as workers read them:")
        doc.quote(batch.instructions)


def workers_part(doc: Methods, scope: MethodsScope) -> None:
    if not scope.collected:
        return
    stored = Assignment.objects.filter(item__batch__in=scope.batches, status__in=Assignment.STORED)
    per_worker = list(
        stored.values("worker_id").annotate(n=Count("id")).values_list("n", flat=True)
    )
    outcomes = Counter(
        dict(stored.order_by().values("status").annotate(n=Count("id")).values_list("status", "n"))
    )
    doc.heading("Workers, pay and review")
    if not per_worker:
        doc.paragraph("No work has been submitted in these batches.")
        return
    workers_page, queue = "Admin → Workers → statistics", "Review queue counts"
    workers = doc.figure(len(per_worker), "workers", workers_page)
    tasks = doc.figure(sum(per_worker), "tasks submitted", queue)
    median = doc.figure(statistics.median(per_worker), "tasks per worker, median", workers_page)
    most = doc.figure(max(per_worker), "tasks per worker, maximum", workers_page)
    reviewed = [
        (Assignment.Status.APPROVED, "approved {}"),
        (Assignment.Status.EXCLUDED, "approved and excluded {} (paid, kept out of the dataset)"),
        (Assignment.Status.REJECTED, "rejected {}"),
        (Assignment.Status.SUBMITTED, "left {} awaiting review"),
    ]
    said = [
        template.format(doc.figure(outcomes[status], f"tasks {status}", queue))
        for status, template in reviewed
        if outcomes[status] or status == Assignment.Status.APPROVED
    ]
    doc.paragraph(
        f"{workers} {noun_for(len(per_worker), 'worker')} submitted {tasks} "
        f"{noun_for(sum(per_worker), 'task')} (median {median}, at most {most} per worker). "
        f"Reviewers {series(said)}."
    )
    _rejections(doc, stored)
    _pay(doc, scope, stored)


def _rejections(doc: Methods, stored) -> None:
    reasons = Counter(
        message.strip() or "(no message)"
        for message in stored.filter(status=Assignment.Status.REJECTED).values_list(
            "review_message", flat=True
        )
    )
    if not reasons:
        return
    rows = [[reason, paper_number(n)] for reason, n in reasons.most_common(TOP_REASONS)]
    others = sum(reasons.values()) - sum(n for _, n in reasons.most_common(TOP_REASONS))
    if others:
        rows.append(
            [f"{plural(len(reasons) - TOP_REASONS, 'other message')}", paper_number(others)]
        )
    doc.table(Table(["Rejection message", "Tasks"], rows, caption="Rejections by message"))


def _pay(doc: Methods, scope: MethodsScope, stored) -> None:
    rows = []
    for batch in scope.batches:
        minutes = [
            (submitted - started).total_seconds() / 60
            for started, submitted in stored.filter(item__batch=batch).values_list(
                "started_at", "submitted_at"
            )
            if submitted is not None
        ]
        if not minutes:
            continue
        median = statistics.median(minutes)
        hourly = round(batch.reward_cents * 60 / median) if median > 0 else None
        currency = batch_currency(batch) or NO_CURRENCY
        rows.append(
            [
                f"#{batch.pk}",
                money_text(batch.reward_cents, currency),
                paper_number(round(median, 1)),
                money_text(hourly, currency) if hourly is not None else UNKNOWN,
            ]
        )
    doc.table(
        Table(
            ["Batch", "Reward per task", "Median minutes per task", "Pay per hour"],
            rows,
            caption="Pay: the reward over the median time from reservation to submission "
            "(bonuses not included)",
        )
    )


def imported_part(doc: Methods, scope: MethodsScope) -> None:
    if not scope.imported:
        return
    doc.heading("Imported data")
    for source in scope.imported:
        label = f"imported narratives, {source.label}"
        count = doc.figure(source.narratives, label, "Admin → Narratives (source imported)")
        file = source.file
        origin = f"from the file {file.filename}" if file and file.filename else "from a file"
        if file:
            origin += f" on {file.imported_at:%Y-%m-%d}"
        fields = _field_names(file.fields if file else [])
        were = "was" if source.narratives == 1 else "were"
        text = (
            f"{count} {noun_for(source.narratives, 'narrative')} of "
            f"{plural(source.proverbs, 'proverb')} {were} imported {origin} under the source "
            f"label “{source.label}”"
        )
        text += f", its records holding the fields {fields}." if fields else "."
        matched = source.proverbs - source.proverbs_created
        if source.proverbs_created:
            text += (
                f" The import created {plural(source.proverbs_created, 'proverb')} from the "
                "records' quotes (stored as curated, as they came)"
            )
            text += (
                f" and matched {paper_number(matched)} to proverbs already here."
                if matched
                else "."
            )
        else:
            text += " The import created no proverb: each record's quote matched one already here."
        text += "".join(f" {sentence}" for sentence in source.kept)
        placed = [
            f"{paper_number(parts['train'])} in train and {paper_number(parts['test'])} in test "
            f"in the {setting}-proverbs setting"
            for setting, parts in source.splits.items()
            if parts
        ]
        if placed:
            text += f" Their splits place {series(placed)}."
        text += (
            " The file names no worker and records no review, pay or writing process: who "
            "wrote these narratives, how many workers did and what they were paid are unknown."
        )
        doc.paragraph(text)


def _field_names(fields: list[str]) -> str:
    """The fields of a record, span slots run together (span_quote_1 to span_quote_5)."""
    slots: dict[str, list[int]] = {}
    named = []
    for name in fields:
        match = re.fullmatch(r"(.+)_(\d+)", name)
        if match:
            if match[1] not in slots:
                named.append(match[1])
            slots.setdefault(match[1], []).append(int(match[2]))
        else:
            named.append(name)
    return series(
        [
            f"{name}_{min(slots[name])} to {name}_{max(slots[name])}" if name in slots else name
            for name in named
        ]
    )
