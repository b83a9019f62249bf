"""Requester API for proverbs and curation (staff with model permissions only)."""

from drf_spectacular.utils import (
    OpenApiRequest,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.reverse import reverse

from annotation.curation.proverb_files import LineError
from annotation.curation.services import (
    ImportReport,
    ProverbFileError,
    proverbs_set_status,
    variant_group_dismiss,
    variant_group_merge,
)
from annotation.intake.import_jobs import upload_import
from annotation.intake.uploads import UploadTooLarge, upload_read
from annotation.models import Proverb, VariantGroup
from annotation.text import normalize_text
from common.api_docs import ViewSetActions, extend_schema
from common.api_parser import CLEAN_TEXT, Conflict, StrictInput
from common.request_input import MAX_ID
from common.word_class import WORD_CLASS


class ProverbSerializer(StrictInput, serializers.ModelSerializer):
    # At least one word character (the duplicate key keeps those) and no NUL (the parser
    # refuses it): the rule is in the schema as the field's pattern, with Python's word
    # characters spelled out (common/word_class.py) so that every validator reads it alike.
    text = serializers.RegexField(
        f"^[^\\x00]*{WORD_CLASS}[^\\x00]*$",
        max_length=Proverb._meta.get_field("text").max_length,
        error_messages={"invalid": "A proverb needs at least one word."},
    )

    class Meta:
        model = Proverb
        fields = ["id", "text", "normalized_text", "source", "meaning", "status", "variant_of"]
        read_only_fields = ["normalized_text", "variant_of"]

    def validate_text(self, text: str) -> str:
        key = normalize_text(text)
        if not key:
            raise serializers.ValidationError("A proverb needs at least one word.")
        duplicate = Proverb.objects.filter(normalized_text=key)
        if self.instance is not None:
            duplicate = duplicate.exclude(pk=self.instance.pk)
        if duplicate.exists():
            raise Conflict("This proverb is already in the list.")
        return text.strip()

    def save(self, **kwargs):
        if "text" in self.validated_data:  # a partial update may leave the text as it is
            kwargs["normalized_text"] = normalize_text(self.validated_data["text"])
        return super().save(**kwargs)


SOURCE_MAX_LENGTH = Proverb._meta.get_field("source").max_length


@extend_schema_field({"pattern": CLEAN_TEXT, "maxLength": SOURCE_MAX_LENGTH})
class SourcePartField(serializers.CharField):
    """The import's `source` part: in multipart every part but the file is text whatever
    it spells ("true", "12"), so its schema names no JSON type; at most the column's
    length, without NUL."""


class ProverbImportSerializer(StrictInput, serializers.Serializer):
    file = serializers.FileField(
        help_text="UTF-8 text: one proverb a line, or a CSV with columns text, source, meaning."
    )
    source = SourcePartField(
        required=False, allow_blank=True, default="", max_length=SOURCE_MAX_LENGTH
    )


class ImportReportSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    duplicates = serializers.IntegerField()
    variant_groups = serializers.IntegerField()
    errors = inline_serializer(
        "ImportError",
        fields={"line": serializers.IntegerField(), "message": serializers.CharField()},
        many=True,
    )


class ImportJobStartedSerializer(serializers.Serializer):
    job = serializers.IntegerField(help_text="The import job's id.")
    status = serializers.CharField(help_text="queued")
    status_url = serializers.URLField(help_text="GET it for the job's progress and report.")


class CurateSerializer(StrictInput, serializers.Serializer):
    status = serializers.ChoiceField(choices=Proverb.Status.choices)


class StatusFilter:
    """A list narrowed by ?status=."""

    def get_queryset(self):
        queryset = super().get_queryset()
        wanted = self.request.query_params.get("status")
        return queryset.filter(status=wanted) if wanted else queryset


class ProverbViewSet(
    StatusFilter,
    ViewSetActions,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Proverbs: list (filter with ?status=), create, update, import a file, curate."""

    serializer_class = ProverbSerializer
    queryset = Proverb.objects.all()

    @extend_schema(
        # The file is text (one proverb a line, or CSV): a binary file is refused.
        request=OpenApiRequest(
            ProverbImportSerializer, encoding={"file": {"contentType": "text/plain, text/csv"}}
        ),
        responses={201: ImportReportSerializer, 202: ImportJobStartedSerializer},
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="import",
        parser_classes=[MultiPartParser],
    )
    def import_file(self, request):
        """Import a text or CSV proverb list; returns the import report (201).

        A file over PARABLE_IMPORT_BACKGROUND_LINES lines or PARABLE_IMPORT_BACKGROUND_BYTES
        bytes is imported by a background job instead: 202 with the job's id and the URL
        of its status (GET /api/import-jobs/{id}/), which holds the report when done.
        """
        if not request.user.has_perm("annotation.add_proverb"):
            self.permission_denied(request, message="Importing needs the add-proverb permission.")
        form = ProverbImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        try:
            started = upload_import(
                kind="proverbs",
                content=upload_read(upload),
                filename=upload.name,
                options={"source": form.validated_data["source"]},
                created_by=request.user,
            )
        except (ProverbFileError, UploadTooLarge) as error:
            refused = ImportReport(errors=[LineError(0, str(error))])
            return Response(refused.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        if started.job is not None:
            job = started.job
            status_url = reverse("import-job-detail", args=[job.pk], request=request)
            return Response(
                {"job": job.pk, "status": job.status, "status_url": status_url},
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": status_url},
            )
        return Response(started.report.as_dict(), status=status.HTTP_201_CREATED)

    @extend_schema(request=CurateSerializer, responses={200: ProverbSerializer})
    @action(detail=True, methods=["post"])
    def curate(self, request, pk=None):
        """Set a proverb's status: curated, candidate or rejected."""
        proverb = self.get_object()
        form = CurateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        change = proverbs_set_status(proverb_ids=[proverb.pk], status=form.validated_data["status"])
        if change.merged_variants:
            return Response({"status": [change.refusal()]}, status=status.HTTP_400_BAD_REQUEST)
        proverb.refresh_from_db()
        return Response(ProverbSerializer(proverb).data)


class VariantGroupSerializer(serializers.ModelSerializer):
    proverbs = ProverbSerializer(many=True, read_only=True)

    class Meta:
        model = VariantGroup
        fields = ["id", "proverbs", "score", "status", "canonical", "created_at", "decided_at"]


class MergeSerializer(StrictInput, serializers.Serializer):
    canonical = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="The id of one of the group's proverbs."
    )


class VariantGroupViewSet(StatusFilter, ViewSetActions, viewsets.ReadOnlyModelViewSet):
    """Proposed variant groups (filter with ?status=open), merged or dismissed by researchers."""

    serializer_class = VariantGroupSerializer
    queryset = VariantGroup.objects.prefetch_related("proverbs")

    def _decide(self, request, decide):
        if not request.user.has_perm("annotation.change_variantgroup"):
            self.permission_denied(
                request, message="Deciding needs the change-variant-group permission."
            )
        try:
            group = decide()
        except ValueError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        group.refresh_from_db()
        return Response(VariantGroupSerializer(group).data)

    @extend_schema(request=MergeSerializer, responses={200: VariantGroupSerializer})
    @action(detail=True, methods=["post"])
    def merge(self, request, pk=None):
        """Keep one proverb of the group as curated; the others become its variants."""
        group = self.get_object()
        form = MergeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        canonical = group.proverbs.filter(pk=form.validated_data["canonical"]).first()
        if canonical is None:
            return Response(
                {"detail": "The canonical proverb must be one of the group's proverbs."},
                status=status.HTTP_409_CONFLICT,
            )
        return self._decide(request, lambda: variant_group_merge(group=group, canonical=canonical))

    @extend_schema(request=None, responses={200: VariantGroupSerializer})
    @action(detail=True, methods=["post"])
    def dismiss(self, request, pk=None):
        """Record that the group's proverbs are distinct."""
        group = self.get_object()
        return self._decide(request, lambda: variant_group_dismiss(group=group))
