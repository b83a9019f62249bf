"""The requester API's upload of an MTurk HIT template and its input CSV as a new batch."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import OpenApiRequest, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.task_types.template.creation import template_batch_create, upload_text
from annotation.task_types.template.parsing import TemplateError
from common.api_docs import extend_schema
from common.request_input import MAX_INT
from crowd.api import BatchSerializer
from crowd.batches import batch_publish
from crowd.models import Provider
from crowd.providers import ProviderError


class TemplateBatchSerializer(serializers.Serializer):
    name = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="The batch's name; empty: the template file's name.",
    )
    template = serializers.FileField(help_text="The HIT template: HTML, UTF-8.")
    csv = serializers.FileField(help_text="The input CSV: UTF-8 (a BOM allowed) or Windows-1252.")
    provider = serializers.ChoiceField(choices=Provider.choices, default=Provider.LOCAL)
    target_per_item = serializers.IntegerField(min_value=1, max_value=MAX_INT, default=3)
    per_worker_cap = serializers.IntegerField(min_value=1, max_value=MAX_INT, required=False)
    reward_cents = serializers.IntegerField(min_value=0, max_value=MAX_INT, default=0)
    time_allowed_seconds = serializers.IntegerField(min_value=60, max_value=MAX_INT, default=1800)
    instructions = serializers.CharField(required=False, allow_blank=True, default="")
    pledge = serializers.CharField(required=False, allow_blank=True, default="")
    publish = serializers.BooleanField(default=False)


class TemplateBatchCreate(APIView):
    """POST a HIT template and its CSV (multipart): 201 with the batch and the upload
    report; 400 with the reason when Parable cannot run them (nothing is stored); 409 when
    the batch cannot be published now. Needs the add-batch permission."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(
        # Both parts are text: a binary file is refused.
        request=OpenApiRequest(
            TemplateBatchSerializer,
            encoding={"template": {"contentType": "text/html"}, "csv": {"contentType": "text/csv"}},
        ),
        responses={
            201: inline_serializer(
                "TemplateBatch",
                {"batch": BatchSerializer(), "report": serializers.JSONField()},
            )
        },
    )
    def post(self, request):
        if not (request.user.is_staff and request.user.has_perm("crowd.add_batch")):
            self.permission_denied(request, message="This needs the add-batch permission.")
        form = TemplateBatchSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        template, content, publish = (
            data.pop("template"),
            data.pop("csv").read(),
            data.pop("publish"),
        )
        data["name"] = data.get("name", "").strip() or template.name or "HIT template"
        try:
            with transaction.atomic():
                batch, report = template_batch_create(
                    source=upload_text(template),
                    content=content,
                    template_name=template.name,
                    created_by=request.user,
                    **data,
                )
        except (TemplateError, ValueError) as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        if publish:
            try:
                batch = batch_publish(batch=batch)
            except (ValueError, ProviderError) as error:
                return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        body = {"batch": BatchSerializer(batch).data, "report": report}
        return Response(body, status=status.HTTP_201_CREATED)
