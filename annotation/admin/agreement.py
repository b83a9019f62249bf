"""Admin pages for batches of the task types with an agreement report: agreement, aggregation
and quality control, each type's section its own template and context
(`TaskType.agreement_template`, `agreement_display`). Under /admin/agreement/: reading needs
view_batch, refreshing items and adding gold change_batch.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse

from annotation.admin.pages import admin_page, page_urls, require_permission
from annotation.models import Narrative
from annotation.quality.gold import gold_items_add, gold_ranges_by_criterion
from annotation.quality.reports import batch_agreement
from common.prose import figure_text
from crowd import task_types
from crowd.chaining import batch_items_refresh
from crowd.models import Assignment, Batch


class GoldItemsForm(forms.Form):
    narratives = forms.CharField(
        label="Gold narratives",
        help_text="Ids of narratives with a known answer, separated by commas or spaces.",
    )
    answer = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))

    def __init__(self, *args, task_type: task_types.TaskType, **kwargs):
        super().__init__(*args, **kwargs)
        if task_type.gold_answer_help:
            self.fields["answer"].help_text = task_type.gold_answer_help
        else:
            # The gold item's subject is its answer (multiple choice: the narrative's proverb).
            del self.fields["answer"]

    def clean_answer(self):
        raw = self.cleaned_data["answer"].strip()
        if not raw:
            return None
        try:
            answer = json.loads(raw)
        except json.JSONDecodeError as error:
            raise forms.ValidationError(f"The answer is not valid JSON: {error}.") from None
        if not isinstance(answer, list):
            return answer  # the map form, {criterion: {"min": a, "max": b}}
        try:
            return gold_ranges_by_criterion(answer)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean_narratives(self):
        raw = self.cleaned_data["narratives"].replace(",", " ").split()
        try:
            ids = [int(value) for value in raw]
        except ValueError:
            raise forms.ValidationError("Give narrative ids: whole numbers.") from None
        narratives = list(Narrative.objects.filter(pk__in=ids).select_related("proverb"))
        missing = sorted(set(ids) - {n.pk for n in narratives})
        if missing:
            raise forms.ValidationError(f"No narrative {', '.join(map(str, missing))}.")
        return narratives


def _batch(batch_id: int) -> Batch:
    return get_object_or_404(Batch, pk=batch_id, task_type__in=task_types.keys_with_agreement())


def index_view(request):
    """Every batch with an agreement report, its submissions and links. Needs view_batch."""
    require_permission(request, "crowd.view_batch")
    batches = (
        Batch.objects.filter(task_type__in=task_types.keys_with_agreement())
        .select_related("source_batch")
        .annotate(
            item_count=Count("items", distinct=True),
            submitted_count=Count(
                "items__assignments",
                filter=Q(items__assignments__status__in=Assignment.STORED),
            ),
        )
        .order_by("-id")
    )
    rows = [
        {
            "batch": batch,
            "report_url": reverse("agreement:report", args=[batch.pk]),
            "review_url": task_types.get(batch.task_type).review_url(batch=batch),
        }
        for batch in batches
    ]
    return admin_page(
        request, "admin/annotation/agreement/index.html", "Agreement and quality", rows=rows
    )


def report_view(request, batch_id: int):
    """One batch's agreement, aggregated answers and workers' gold accuracy. Needs view_batch."""
    require_permission(request, "crowd.view_batch")
    batch = _batch(batch_id)
    report = batch_agreement(batch=batch)
    task_type = task_types.get(batch.task_type)
    context = {
        "batch": batch,
        "report": report,
        "review_url": task_type.review_url(batch=batch),
        "progress_url": reverse("admin:crowd_batch_progress", args=[batch.pk]),
        "can_change": request.user.has_perm("crowd.change_batch"),
        "gold_form": GoldItemsForm(task_type=task_type) if task_type.has_gold else None,
        "workers": [
            {**row, **{key: figure_text(row[key]) for key in ("approval_rate", "gold_accuracy")}}
            for row in report["quality"]["workers"]
        ],
        "agreement_template": task_type.agreement_template,
        **task_type.agreement_display(report=report.get(batch.task_type, {})),
    }
    return admin_page(
        request,
        "admin/annotation/agreement/report.html",
        f"Agreement and quality: {batch.name}",
        **context,
    )


def refresh_view(request, batch_id: int):
    """POST: take what the batch's source batch and draws offer now. Needs change_batch."""
    require_permission(request, "crowd.change_batch")
    batch = _batch(batch_id)
    if request.method == "POST":
        try:
            added = batch_items_refresh(batch=batch)
        except ValueError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, f"{added} item(s) added.")
    return redirect("agreement:report", batch_id=batch.pk)


def gold_view(request, batch_id: int):
    """POST: add gold items built on the given narratives. Needs change_batch."""
    require_permission(request, "crowd.change_batch")
    batch = _batch(batch_id)
    form = GoldItemsForm(request.POST or None, task_type=task_types.get(batch.task_type))
    if request.method == "POST":
        if form.is_valid():
            try:
                added = gold_items_add(
                    batch=batch,
                    narratives=form.cleaned_data["narratives"],
                    answer=form.cleaned_data.get("answer"),
                )
            except ValueError as error:
                messages.error(request, f"No gold item added: {error}")
            else:
                named = "; ".join(str(narrative) for narrative in form.cleaned_data["narratives"])
                messages.success(request, f"{added} gold item(s) added: {named}.")
        else:
            errors = "; ".join(str(e) for errs in form.errors.values() for e in errs)
            messages.error(request, f"No gold item added: {errors}")
    return redirect("agreement:report", batch_id=batch.pk)


def results_view(request, batch_id: int):
    """The batch's submissions as JSON records (a download). Needs view_batch."""
    require_permission(request, "crowd.view_batch")
    batch = _batch(batch_id)
    records = task_types.get(batch.task_type).batch_results(batch=batch)
    response = HttpResponse(
        json.dumps(records, indent=1, default=str), content_type="application/json"
    )
    response["Content-Disposition"] = f'attachment; filename="batch-{batch.pk}-results.json"'
    return response


urls = (
    page_urls(
        ("", index_view, "index"),
        ("<int:batch_id>/", report_view, "report"),
        ("<int:batch_id>/refresh/", refresh_view, "refresh"),
        ("<int:batch_id>/gold/", gold_view, "gold"),
        ("<int:batch_id>/results/", results_view, "results"),
    ),
    "agreement",
)
