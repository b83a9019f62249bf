"""Admin for background import jobs: a read-only list and each job's progress page."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.html import format_html

from annotation.intake.import_jobs import IMPORT_PERMISSIONS
from annotation.models import ImportJob
from crowd.admin.read_only import AdminPages, ReadOnlyAdmin


@admin.register(ImportJob)
class ImportJobAdmin(AdminPages, ReadOnlyAdmin):
    """Read-only: jobs are started from the proverb and dataset import pages."""

    list_display = ("id", "kind", "filename", "status", "created_by", "created_at", "job_link")
    list_filter = ("kind", "status")
    search_fields = ("filename",)
    pages = (("<int:job_id>/progress/", "progress_view", "annotation_importjob_progress"),)

    def has_view_permission(self, request, obj=None) -> bool:
        kinds = [obj.kind] if obj is not None else list(IMPORT_PERMISSIONS)
        return any(request.user.has_perm(IMPORT_PERMISSIONS[kind]) for kind in kinds)

    @admin.display(description="")
    def job_link(self, job):
        url = reverse("admin:annotation_importjob_progress", args=[job.pk])
        return format_html('<a href="{}">Progress and report</a>', url)

    def progress_view(self, request, job_id: int):
        """The job's progress, refreshing itself until it finishes, then its report or
        error. Needs the permission the import needs (add_proverb or add_narrative)."""
        job = get_object_or_404(ImportJob, pk=job_id)
        if not self.has_view_permission(request, job):
            raise PermissionDenied
        return self._page(
            request,
            "admin/annotation/importjob/progress.html",
            title=f"Import job {job.pk}: {job.get_kind_display()} {job.filename}",
            job=job,
            busy=job.status in (ImportJob.Status.QUEUED, ImportJob.Status.RUNNING),
            report=job.report,
        )
