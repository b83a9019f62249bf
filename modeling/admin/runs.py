"""Admin of the modeling app: launch runs, watch and cancel them, compare results, and build
a choose or rate batch from a run. Every page sits inside the admin site (staff login):
reading needs view_run, launching add_run, cancelling change_run, a batch add_batch as well
(and add_narrative for a rate batch). Dataset text reaches pages only autoescaped.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from annotation.opponents.selectors import round_proverbs
from modeling.admin.display import (
    curves_of,
    motif_rows,
    prediction_rows,
    progress_line,
    span_prediction_rows,
)
from modeling.admin.forms import (
    CompareForm,
    DistractorBatchForm,
    GeneratedRateBatchForm,
    RunLaunchForm,
)
from modeling.models import Run, Snapshot
from modeling.opponents import opponent_model
from modeling.runs.distractors import choose_batch_from_run
from modeling.runs.generation_batch import generated_rows, rate_batch_from_run
from modeling.runs.selectors import result_rows, results_tables, run_record, runs_compare
from modeling.runs.services import run_cancel, run_relaunch, runs_dead_end
from modeling.training.figures import decimal, percent
from modeling.training.registry import baseline_for


def _require(request, *permissions: str) -> None:
    if not all(request.user.has_perm(permission) for permission in permissions):
        raise PermissionDenied


RATE_PERMISSIONS = ("crowd.add_batch", "annotation.add_narrative")


@admin.register(Snapshot)
class SnapshotAdmin(admin.ModelAdmin):
    list_display = ("id", "content_hash", "narratives", "proverbs", "splits", "created_at")
    exclude = ("examples",)
    readonly_fields = ("content_hash", "narratives", "proverbs", "splits", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "task",
        "setting",
        "model_name",
        "seed",
        "status",
        "progress_text",
        "test_accuracy",
        "test_mrr",
        "selected_epoch",
        "created_at",
    )
    list_filter = ("task", "setting", "status")
    change_list_template = "admin/modeling/run/change_list.html"

    def get_queryset(self, request):
        return super().get_queryset(request).defer("predictions", "candidates")

    def changelist_view(self, request, extra_context=None):
        """The runs; a run whose process died is ended here first, saying why."""
        runs_dead_end()
        return super().changelist_view(request, extra_context)

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("modeling.change_run") and obj is None

    @admin.display(description="progress")
    def progress_text(self, run: Run) -> str:
        return progress_line(run)

    @admin.display(description="test accuracy")
    def test_accuracy(self, run: Run) -> str:
        return percent((run.metrics.get("test") or {}).get("accuracy"))

    @admin.display(description="test MRR")
    def test_mrr(self, run: Run) -> str:
        return decimal((run.metrics.get("test") or {}).get("mrr"))

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("results/", wrap(self.results_view), name="modeling_run_results"),
            path("<int:run_id>/cancel/", wrap(self.cancel_view), name="modeling_run_cancel"),
            path("<int:run_id>/relaunch/", wrap(self.relaunch_view), name="modeling_run_relaunch"),
            path("<int:run_id>/json/", wrap(self.json_view), name="modeling_run_json"),
            path("<int:run_id>/rate/", wrap(self.rate_view), name="modeling_run_rate"),
            path(
                "<int:run_id>/distractors/",
                wrap(self.distractors_view),
                name="modeling_run_distractors",
            ),
            *super().get_urls(),
        ]

    def _page(self, request, template: str, title: str, **context) -> TemplateResponse:
        context = {**self.admin_site.each_context(request), "title": title, **context}
        return TemplateResponse(request, template, context)

    def add_view(self, request, form_url="", extra_context=None):
        """Launch a run on a snapshot of the approved data now. Needs add_run."""
        _require(request, "modeling.add_run")
        form = RunLaunchForm(
            request.POST or None,
            initial={"model_name": settings.PARABLE_MODELING_MODEL},
        )
        if request.method == "POST" and form.is_valid():
            try:
                runs = form.launch(request.user)
            except ValueError as error:
                form.add_error(None, str(error))
            else:
                numbers = ", ".join(str(run.pk) for run in runs)
                messages.success(
                    request, f"Run(s) {numbers} queued, one per seed: this page follows the first."
                )
                return redirect("admin:modeling_run_change", runs[0].pk)
        return self._page(request, "admin/modeling/run/launch.html", "Launch a run", form=form)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """A run: config, snapshot, live progress, figures, curves, predictions. view_run."""
        _require(request, "modeling.view_run")
        runs_dead_end()  # a run whose process died says so here, broker or not
        run = get_object_or_404(Run.objects.select_related("snapshot"), pk=object_id)
        finished = run.status == Run.Status.SUCCEEDED and bool(run.predictions)
        baseline = baseline_for(run.task)
        generation = baseline.results == "generation"
        spans = baseline.results in ("spans", "pipeline")
        rows_of = span_prediction_rows if spans else prediction_rows
        return self._page(
            request,
            "admin/modeling/run/detail.html",
            str(run),
            run=run,
            generation=generation,
            kind=baseline.results,
            progress=progress_line(run),
            rows=result_rows(run) if run.status == Run.Status.SUCCEEDED else [],
            curves=curves_of([run]),
            spans=spans,
            predictions=[] if generation else rows_of(run, limit=50),
            generated=generated_rows(run, limit=50) if generation else [],
            motifs=motif_rows(run),
            opponent=opponent_model(run).strength(curated=len(round_proverbs()))
            if baseline.ranks_proverbs and run.status == Run.Status.SUCCEEDED
            else "",
            can_cancel=not run.finished and request.user.has_perm("modeling.change_run"),
            can_relaunch=run.finished and request.user.has_perm("modeling.add_run"),
            distractor_form=DistractorBatchForm() if finished and baseline.ranks_proverbs else None,
            rate_form=GeneratedRateBatchForm() if finished and generation else None,
            can_rate=request.user.has_perms(RATE_PERMISSIONS),
            can_batch=finished and request.user.has_perm("crowd.add_batch"),
            # The settings this task reads: the stored record holds every default.
            hyperparameters=json.dumps(
                {
                    key: run.hyperparameters[key]
                    for key in baseline.hyperparameters_read(run.hyperparameters)
                },
                sort_keys=True,
            ),
            environment=json.dumps(run.environment, sort_keys=True),
            durations={key: f"{value:.1f} s" for key, value in run.durations.items()},
        )

    def results_view(self, request):
        """Finished runs side by side like the paper's tables, with learning curves. view_run."""
        _require(request, "modeling.view_run")
        runs_dead_end()
        tables = results_tables()
        for table in tables:
            table["curves"] = curves_of([run for run in table["runs"] if run.epochs][:10])
        compare = CompareForm(request.GET if "first" in request.GET else None)
        comparison = None
        if compare.is_bound and compare.is_valid():
            chosen = [compare.cleaned_data[key] for key in ("first", "second")]
            found = Run.objects.select_related("snapshot").in_bulk(chosen)
            try:
                missing = [str(pk) for pk in chosen if pk not in found]
                if missing:
                    raise ValueError(f"There is no run {', '.join(missing)}.")
                comparison = runs_compare(first=found[chosen[0]], second=found[chosen[1]])
            except ValueError as error:
                compare.add_error(None, str(error))
        return self._page(
            request,
            "admin/modeling/run/results.html",
            "Baseline results",
            tables=tables,
            compare=compare,
            comparison=comparison,
        )

    def cancel_view(self, request, run_id: int):
        """POST: cancel a queued or running run. Needs change_run."""
        _require(request, "modeling.change_run")
        run = get_object_or_404(Run, pk=run_id)
        if request.method == "POST":
            try:
                run_cancel(run=run)
            except ValueError as error:
                messages.error(request, str(error))
            else:
                messages.success(request, f"Run {run.pk} is being cancelled.")
        return redirect("admin:modeling_run_change", run.pk)

    def relaunch_view(self, request, run_id: int):
        """POST: a new run of a finished run's configuration and snapshot. Needs add_run."""
        _require(request, "modeling.add_run")
        run = get_object_or_404(Run, pk=run_id)
        if request.method != "POST":
            return redirect("admin:modeling_run_change", run.pk)
        try:
            new = run_relaunch(run=run, created_by=request.user)
        except ValueError as error:
            messages.error(request, str(error))
            return redirect("admin:modeling_run_change", run.pk)
        messages.success(request, f"Run {new.pk} relaunches run {run.pk}.")
        return redirect("admin:modeling_run_change", new.pk)

    def json_view(self, request, run_id: int):
        """The run as JSON, predictions included (a download). Needs view_run."""
        _require(request, "modeling.view_run")
        run = get_object_or_404(Run.objects.select_related("snapshot"), pk=run_id)
        body = json.dumps(run_record(run), indent=1)
        response = HttpResponse(body, content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.json"'
        return response

    def distractors_view(self, request, run_id: int):
        """POST: a draft choose batch with this run's distractors and answers. Needs add_batch."""
        return self._batch_view(
            request, run_id, DistractorBatchForm, choose_batch_from_run, ("crowd.add_batch",)
        )

    def rate_view(self, request, run_id: int):
        """POST: model narratives and a draft rate batch from a generation run. Needs
        add_batch and add_narrative."""
        return self._batch_view(
            request, run_id, GeneratedRateBatchForm, rate_batch_from_run, RATE_PERMISSIONS
        )

    def _batch_view(self, request, run_id: int, form_class, create, permissions):
        """A draft batch built from the run by `create`, then its page (a choose batch's
        agreement report, a rate batch's admin page); errors back on the run's page."""
        _require(request, "modeling.view_run", *permissions)
        run = get_object_or_404(Run.objects.select_related("snapshot"), pk=run_id)
        form = form_class(request.POST or None)
        if request.method != "POST" or not form.is_valid():
            messages.error(request, "No batch created: check the numbers.")
            return redirect("admin:modeling_run_change", run.pk)
        try:
            batch = create(run=run, created_by=request.user, **form.cleaned_data)
        except (ValueError, LookupError) as error:
            messages.error(request, f"No batch created: {error}")
            return redirect("admin:modeling_run_change", run.pk)
        kind = "Choose" if create is choose_batch_from_run else "Rate"
        messages.success(
            request, f"{kind} batch {batch.pk} created with {batch.items.count()} item(s)."
        )
        if create is choose_batch_from_run:
            return redirect(reverse("agreement:report", args=[batch.pk]))
        return redirect("admin:crowd_batch_change", batch.pk)
