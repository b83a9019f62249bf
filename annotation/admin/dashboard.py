"""Admin pages for the dataset: the analysis dashboard, ePiC import upload, splits, export.
Under /admin/dataset/: non-staff go to the admin login; staff without a page's permission get 403.
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from django import forms
from django.contrib import messages
from django.http import FileResponse, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.admin.pages import admin_page, page_urls, require_permission
from annotation.analysis.cards import analysis_sections
from annotation.analysis.jobs import analysis_progress, analysis_request, analysis_scope
from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import methods_latex, methods_markdown
from annotation.datasets.epic_files import EpicFileError
from annotation.datasets.splits import (
    SplitFileError,
    narrative_splits_apply,
    narrative_splits_assign,
    parse_split_files,
    split_counts,
    split_files_select,
)
from annotation.exports.dataset import FORMATS, dataset_export
from annotation.intake.import_jobs import upload_import
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


class SplitsForm(forms.Form):
    source = forms.ChoiceField(
        choices=[("seed", "Draw them from a seed"), ("files", "Take them from split files")],
        widget=forms.RadioSelect,
        initial="seed",
    )
    seed = forms.IntegerField(
        initial=0, required=False, help_text="For a draw: the same seed gives the same splits."
    )
    files = MultipleFileField(
        required=False,
        help_text="All four split files, named *_{seen,unseen}_{train,test}_*.json (JSON arrays "
        "of record pks); other files of a release folder are left aside.",
    )

    def clean(self):
        data = super().clean()
        if data.get("source") == "files" and not data.get("files"):
            self.add_error("files", "Choose the split files.")
        return data


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
        self.fields["approved_only"].initial = True
        self.fields["approved_only"].help_text = (
            "Ticked (the default): approved narratives only. Untick to export every status "
            "(submitted, rejected, ...); the dataset card says which."
        )
        if not may_export_raw_ids:
            del self.fields["raw_worker_ids"]


def _scope_analysis(request) -> tuple[ScopeForm, DatasetAnalysis]:
    """The query's scope and its analysis, requested now (needs view_narrative); where tasks
    run in-process the job has finished by now, else it runs after the response."""
    require_permission(request, "annotation.view_narrative")
    form = ScopeForm(request.GET or None)
    analysis = analysis_request(scope=form.scope())
    analysis.refresh_from_db()
    return form, analysis


def dashboard_view(request):
    """The last analysis of the scope at once, every table and plot with its definition;
    a fresh one is computed in the background when the data changed (its progress shown)."""
    form, analysis = _scope_analysis(request)
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


def methods_view(request):
    """The methods and data statement of the scope's stored analysis (?format=md or tex).
    Needs view_narrative; 409 while the analysis is still being computed."""
    form, analysis = _scope_analysis(request)
    if analysis.result is None:
        return HttpResponse(
            "The analysis of this scope is still being computed; try again shortly.",
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    latex = request.GET.get("format") == "tex"
    document = methods_document(analysis=analysis.result, batches=form.scope()["batches"])
    response = HttpResponse(
        (methods_latex if latex else methods_markdown)(document),
        content_type=f"text/{'x-tex' if latex else 'markdown'}; charset=utf-8",
    )
    name = "methods.tex" if latex else "methods.md"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


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
    """Upload an ePiC file and its split files (needs add_narrative); a large file becomes an
    import job, whose progress page the request is sent to."""
    require_permission(request, "annotation.add_narrative")
    form = EpicImportForm(request.POST or None, request.FILES or None)
    shown = {"form": form}
    if request.method == "POST" and form.is_valid():
        try:
            uploads = {upload.name: upload_read(upload) for upload in form.cleaned_data["splits"]}
            try:
                splits, set_aside = split_files_select(uploads)
            except SplitFileError:
                splits, set_aside = uploads, []  # the import reports the problem, writing nothing
            if set_aside:
                messages.info(request, f"Not split files, left aside: {', '.join(set_aside)}.")
            upload = form.cleaned_data["file"]
            started = upload_import(
                kind="epic",
                content=upload_read(upload),
                filename=upload.name,
                options={"source_label": form.cleaned_data["source_label"]},
                splits=splits,
                created_by=request.user,
            )
            if started.job is not None:
                messages.info(request, "The file is large: it is imported in the background.")
                return redirect("admin:annotation_importjob_progress", started.job.pk)
        except UploadTooLarge as error:
            messages.error(request, str(error))
        except EpicFileError as error:
            messages.error(request, "Nothing was imported: see the problems below.")
            shown["problems"] = error.errors
        else:
            report = shown["report"] = started.report
            messages.success(
                request,
                f"{report.narratives_created} narrative(s) created, {report.narratives_updated} "
                f"updated, {report.narratives_unchanged} unchanged.",
            )
    template = "admin/annotation/dashboard/import.html"
    return admin_page(request, template, "Import a dataset", **shown)


def splits_view(request):
    """Assign the seen and unseen splits (ePiC 5.1): drawn from a seed (every split replaced)
    or set from split files (the narratives they name). Needs add_narrative."""
    require_permission(request, "annotation.add_narrative")
    form = SplitsForm(request.POST or None, request.FILES or None)
    result, left_out = None, []
    if request.method == "POST" and form.is_valid():
        try:
            if form.cleaned_data["source"] == "seed":
                result = narrative_splits_assign(seed=form.cleaned_data["seed"] or 0)
            else:
                uploads = {
                    upload.name: upload_read(upload) for upload in form.cleaned_data["files"]
                }
                chosen, set_aside = split_files_select(uploads)
                if set_aside:
                    messages.info(request, f"Not split files, left aside: {', '.join(set_aside)}.")
                result = narrative_splits_apply(parts=parse_split_files(chosen), files=chosen)
        except (SplitFileError, UploadTooLarge) as error:
            messages.error(request, f"Nothing was changed: {error}")
        else:
            left_out = result.unknown
            if left_out:
                messages.warning(
                    request,
                    f"Partial: the split files name {len(left_out)} pk(s) not in the dataset, "
                    "left out (listed below); the rest was applied.",
                )
            else:
                messages.success(request, "Splits assigned.")
    return admin_page(
        request,
        "admin/annotation/dashboard/splits.html",
        "Assign splits",
        form=form,
        result=result,
        left_out=left_out,
        counts=split_counts(),
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
            for file in [*result.files, result.card, *result.methods]:
                zipped.write(file, arcname=file.name)
    archive.seek(0)
    name = f"parable-{result.format}.zip"
    return FileResponse(archive, as_attachment=True, filename=name)


urls = (
    page_urls(
        ("", dashboard_view, "dashboard"),
        ("refresh/", refresh_view, "refresh"),
        ("analysis/<int:analysis_id>/", progress_view, "progress"),
        ("import/", import_view, "import"),
        ("splits/", splits_view, "splits"),
        ("export/", export_view, "export"),
        ("methods/", methods_view, "methods"),
    ),
    "dataset",
)
