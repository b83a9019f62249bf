"""Admin pages for the dataset: the analysis dashboard, ePiC import upload, export download.

Mounted under /admin/dataset/ (config/urls.py) inside the admin site: anonymous
users and non-staff users are sent to the admin login; staff without the model
permission a page needs get 403.
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from django import forms
from django.contrib import admin, messages
from django.http import FileResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from annotation.admin.pages import admin_page, require_permission
from annotation.analysis.cards import analysis_sections
from annotation.analysis.jobs import analysis_progress, analysis_request, analysis_scope
from annotation.datasets.epic import dataset_import_epic
from annotation.datasets.epic_files import EpicFileError
from annotation.datasets.exports import FORMATS, dataset_export
from annotation.datasets.splits import SplitFileError, split_files_select
from annotation.intake.import_jobs import import_job_create, import_runs_in_background
from annotation.intake.uploads import UploadTooLarge, upload_read
from annotation.models import DatasetAnalysis, Narrative
from crowd.models import Batch


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else [data] if data else []
        return [super(MultipleFileField, self).clean(file, initial) for file in files]


class ScopeForm(forms.Form):
    batch = forms.ModelMultipleChoiceField(
        queryset=Batch.objects.all(),
        required=False,
        help_text="Only narratives written in these crowd batches; none selected: everything.",
    )
    source = forms.MultipleChoiceField(
        choices=Narrative.Source.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Only narratives of these sources; none ticked: crowd and imported "
        "(model output is left out unless ticked).",
    )
    approved_only = forms.BooleanField(required=False, label="Approved narratives only")
    seed = forms.IntegerField(
        initial=0, required=False, help_text="Seed of the random baseline and samples."
    )

    def scope(self) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        return analysis_scope(
            batches=[batch.pk for batch in data.get("batch") or []],
            sources=data.get("source") or [],
            approved_only=bool(data.get("approved_only")),
            seed=data.get("seed") or 0,
        )


class EpicImportForm(forms.Form):
    file = forms.FileField(help_text="ePiC release format: a JSON array of records.")
    splits = MultipleFileField(
        required=False,
        help_text="Optional split files named *_{seen,unseen}_{train,test}_*.json.",
    )
    source_label = forms.CharField(initial="ePiC", max_length=200)


class ExportForm(ScopeForm):
    """The export's scope and format; the raw ids box only for a user granted
    annotation.export_raw_worker_ids."""

    format = forms.ChoiceField(choices=[(name, name) for name in FORMATS])
    raw_worker_ids = forms.BooleanField(
        required=False,
        help_text=(
            "Keep the providers' worker ids instead of salted hashes: they identify people. "
            "The export is logged and its card says the ids are raw."
        ),
    )
    statistics = forms.BooleanField(
        required=False,
        initial=True,
        help_text="Put the full analysis in the dataset card (slow on large datasets).",
    )

    def __init__(self, *args, may_export_raw_ids: bool, **kwargs):
        super().__init__(*args, **kwargs)
        if not may_export_raw_ids:
            del self.fields["raw_worker_ids"]


def dashboard_view(request):
    """The last analysis of the scope at once, every table and plot with its definition;
    a fresh one is computed in the background when the data changed. Needs view_narrative."""
    require_permission(request, "annotation.view_narrative")
    form = ScopeForm(request.GET or None)
    analysis = analysis_request(scope=form.scope())
    analysis.refresh_from_db()  # with tasks run in-process the job has finished by now
    sections = []
    if analysis.result is not None:
        sections = [
            (section, [analysis.plots.get(name, "") for name in section.plots])
            for section in analysis_sections(analysis.result)
        ]
    return admin_page(
        request,
        "admin/annotation/dashboard/dashboard.html",
        "Dataset dashboard",
        form=form,
        sections=sections,
        analysis=analysis,
        progress=analysis_progress(analysis),
        query=request.GET.urlencode(),
    )


@require_POST
def refresh_view(request):
    """Recompute the scope's analysis now, even if the data did not change."""
    require_permission(request, "annotation.view_narrative")
    form = ScopeForm(request.GET or None)
    analysis_request(scope=form.scope(), force=True)
    messages.info(request, "A fresh analysis is being computed; its progress shows below.")
    query = request.GET.urlencode()
    return redirect(reverse("dataset:dashboard") + (f"?{query}" if query else ""))


def progress_view(request, analysis_id: int):
    """JSON: the analysis job's status and progress, which the dashboard polls."""
    require_permission(request, "annotation.view_narrative")
    analysis = get_object_or_404(DatasetAnalysis, pk=analysis_id)
    return JsonResponse(analysis_progress(analysis))


def import_view(request):
    """Upload an ePiC file and its split files. Needs add_narrative (researchers). A large
    file (PARABLE_IMPORT_BACKGROUND_LINES/_BYTES) becomes an import job: the page
    redirects to the job's progress page."""
    require_permission(request, "annotation.add_narrative")
    form = EpicImportForm(request.POST or None, request.FILES or None)
    report = None
    if request.method == "POST" and form.is_valid():
        source_label = form.cleaned_data["source_label"]
        try:
            uploads = {upload.name: upload_read(upload) for upload in form.cleaned_data["splits"]}
            try:
                splits, set_aside = split_files_select(uploads)
            except SplitFileError:
                splits, set_aside = uploads, []  # the import reports the problem, writing nothing
            if set_aside:
                messages.info(request, f"Not split files, left aside: {', '.join(set_aside)}.")
            upload = form.cleaned_data["file"]
            content = upload_read(upload)
            if import_runs_in_background(content=content):
                job = import_job_create(
                    kind="epic",
                    content=content,
                    filename=upload.name,
                    options={"source_label": source_label},
                    splits=splits,
                    created_by=request.user,
                )
                messages.info(request, "The file is large: it is imported in the background.")
                return redirect("admin:annotation_importjob_progress", job.pk)
            report = dataset_import_epic(
                content=content, splits=splits or None, source_label=source_label
            )
        except UploadTooLarge as error:
            messages.error(request, str(error))
            return admin_page(
                request, "admin/annotation/dashboard/import.html", "Import a dataset", form=form
            )
        except EpicFileError as error:
            messages.error(request, "Nothing was imported: the file is malformed (see below).")
            return admin_page(
                request,
                "admin/annotation/dashboard/import.html",
                "Import a dataset",
                form=form,
                problems=error.errors,
            )
        messages.success(
            request,
            f"{report.narratives_created} narrative(s) created, {report.narratives_updated} "
            f"updated, {report.narratives_unchanged} unchanged.",
        )
    return admin_page(
        request,
        "admin/annotation/dashboard/import.html",
        "Import a dataset",
        form=form,
        report=report,
    )


def export_view(request):
    """Download the dataset in a format, with its card, as a zip. Needs view_narrative;
    raw worker ids need export_raw_worker_ids too (the box is not offered otherwise)."""
    require_permission(request, "annotation.view_narrative")
    form = ExportForm(
        request.POST or None,
        initial={"statistics": True},
        may_export_raw_ids=request.user.has_perm("annotation.export_raw_worker_ids"),
    )
    if request.method != "POST" or not form.is_valid():
        return admin_page(
            request, "admin/annotation/dashboard/export.html", "Export the dataset", form=form
        )
    scope = form.scope()
    archive = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it, which deletes it)
    with tempfile.TemporaryDirectory() as directory:
        result = dataset_export(
            format=form.cleaned_data["format"],
            directory=Path(directory),
            batches=scope["batches"],
            approved_only=scope["approved_only"],
            sources=scope["sources"] or None,
            raw_worker_ids=form.cleaned_data.get("raw_worker_ids", False),
            requested_by=f"user {request.user.get_username()}",
            statistics=form.cleaned_data["statistics"],
            seed=scope["seed"],
        )
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for file in [*result.files, result.card]:
                zipped.write(file, arcname=file.name)
    archive.seek(0)
    name = f"parable-{result.format}.zip"
    return FileResponse(archive, as_attachment=True, filename=name)


urls = (
    [
        path("", admin.site.admin_view(dashboard_view), name="dashboard"),
        path("refresh/", admin.site.admin_view(refresh_view), name="refresh"),
        path(
            "analysis/<int:analysis_id>/",
            admin.site.admin_view(progress_view),
            name="progress",
        ),
        path("import/", admin.site.admin_view(import_view), name="import"),
        path("export/", admin.site.admin_view(export_view), name="export"),
    ],
    "dataset",
)
