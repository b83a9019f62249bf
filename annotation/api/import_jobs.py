"""Requester API for background import jobs: their status, progress and report."""

from drf_spectacular.utils import inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from annotation.intake.import_jobs import IMPORT_PERMISSIONS, import_job_progress
from annotation.models import ImportJob
from common.api_docs import ViewSetActions, extend_schema


class ImportJobPermission(BasePermission):
    """Staff only (401 anonymous, 403 otherwise); a job is readable with the permission
    its import needs: add_proverb for a proverb list, add_narrative for an ePiC file."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff)

    def has_object_permission(self, request, view, job: ImportJob) -> bool:
        return request.user.has_perm(IMPORT_PERMISSIONS[job.kind])


ImportJobStatusSerializer = inline_serializer(
    "ImportJobStatus",
    fields={
        "id": serializers.IntegerField(),
        "kind": serializers.ChoiceField(choices=ImportJob.Kind.choices),
        "filename": serializers.CharField(),
        "status": serializers.ChoiceField(choices=ImportJob.Status.choices),
        "progress": inline_serializer(
            "ImportJobProgress",
            fields={
                "done": serializers.IntegerField(),
                "total": serializers.IntegerField(),
                "stage": serializers.CharField(),
            },
        ),
        "report": serializers.JSONField(
            allow_null=True, help_text="The import report once the job succeeded."
        ),
        "error": serializers.CharField(help_text="Why nothing was imported, when it failed."),
        "created_at": serializers.DateTimeField(),
        "started_at": serializers.DateTimeField(allow_null=True),
        "finished_at": serializers.DateTimeField(allow_null=True),
    },
)


class ImportJobViewSet(ViewSetActions, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """A background import job: status (queued, running, succeeded, failed), progress,
    and the report or the error."""

    queryset = ImportJob.objects.all()
    permission_classes = [ImportJobPermission]

    @extend_schema(responses={200: ImportJobStatusSerializer})
    def retrieve(self, request, pk=None):
        """The job's status and progress; its report once it succeeded."""
        return Response(import_job_progress(self.get_object()))
