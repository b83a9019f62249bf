"""Requester API for narratives: list with filters, and the review actions on crowd work."""

from __future__ import annotations

from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from annotation.models import Narrative
from common.api_docs import ViewSetActions, extend_schema, extend_schema_view
from common.api_parser import StrictInput
from common.request_input import MAX_ID
from crowd.providers import ProviderError
from crowd.review import ReviewError, assignment_approve, assignment_reject, worker_block

REVIEW_PERMISSION = "annotation.review_narrative"


class CanReviewNarratives(BasePermission):
    """Staff with the review-narrative permission (researchers and reviewers)."""

    message = "Reviewing needs the review-narrative permission."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff) and user.has_perm(
            REVIEW_PERMISSION
        )


class NarrativeSerializer(serializers.ModelSerializer):
    proverb_text = serializers.CharField(source="proverb.text", read_only=True)
    batch = serializers.IntegerField(
        source="assignment.item.batch_id", read_only=True, default=None
    )
    seconds_taken = serializers.SerializerMethodField()

    class Meta:
        model = Narrative
        fields = [
            "id",
            "proverb",
            "proverb_text",
            "text",
            "source",
            "source_label",
            "status",
            "worker",
            "assignment",
            "batch",
            "external_id",
            "word_count",
            "overlap",
            "keywords",
            "seconds_taken",
            "split_seen",
            "split_unseen",
            "created_at",
            "reviewed_at",
            "review_message",
        ]
        read_only_fields = fields

    def get_seconds_taken(self, narrative) -> float | None:
        assignment = narrative.assignment
        if assignment is None or assignment.submitted_at is None:
            return None
        return round((assignment.submitted_at - assignment.started_at).total_seconds(), 1)


class RejectSerializer(StrictInput, serializers.Serializer):
    message = serializers.CharField(help_text="Shown to the worker.")


class BlockSerializer(StrictInput, serializers.Serializer):
    reason = serializers.CharField(help_text="Recorded, and sent to the provider.")


def _id_filter() -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class NarrativeFilterSerializer(serializers.Serializer):
    """The list's query parameters; anything else than these values is a 400."""

    status = serializers.ChoiceField(choices=Narrative.Status.choices, required=False)
    source = serializers.ChoiceField(choices=Narrative.Source.choices, required=False)
    proverb = _id_filter()
    worker = _id_filter()
    batch = _id_filter()


FILTERS = {
    "status": "status",
    "source": "source",
    "proverb": "proverb_id",
    "worker": "worker_id",
    "batch": "assignment__item__batch_id",
}


@extend_schema_view(list=extend_schema(parameters=[NarrativeFilterSerializer]))
class NarrativeViewSet(ViewSetActions, viewsets.ReadOnlyModelViewSet):
    """Narratives (?status=, ?source=, ?proverb=, ?worker=, ?batch=); approve, reject, block."""

    serializer_class = NarrativeSerializer
    queryset = Narrative.objects.select_related("proverb", "assignment__item").order_by("id")

    def get_permissions(self):
        if self.action in ("approve", "reject", "block_worker"):
            return [CanReviewNarratives()]
        return super().get_permissions()

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action != "list":
            return queryset
        given = self.request.query_params
        form = NarrativeFilterSerializer(
            data={name: given[name] for name in FILTERS if name in given}
        )
        form.is_valid(raise_exception=True)
        return queryset.filter(
            **{FILTERS[name]: value for name, value in form.validated_data.items()}
        )

    def _review(self, review):
        narrative = self.get_object()
        if narrative.assignment_id is None:
            return Response(
                {"detail": "Only crowd narratives are reviewed; this one has no assignment."},
                status=status.HTTP_409_CONFLICT,
            )
        try:
            review(narrative)
        except (ReviewError, ProviderError) as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        narrative.refresh_from_db()
        return Response(NarrativeSerializer(narrative).data)

    @extend_schema(request=None, responses={200: NarrativeSerializer})
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        """Approve the narrative: it joins the dataset and its keywords are extracted."""
        return self._review(lambda narrative: assignment_approve(assignment=narrative.assignment))

    @extend_schema(request=RejectSerializer, responses={200: NarrativeSerializer})
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        """Reject with a message to the worker; the proverb's slot reopens for another worker."""
        form = RejectSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        message = form.validated_data["message"]
        return self._review(
            lambda narrative: assignment_reject(assignment=narrative.assignment, message=message)
        )

    @extend_schema(request=BlockSerializer, responses={200: NarrativeSerializer})
    @action(detail=True, methods=["post"], url_path="block-worker")
    def block_worker(self, request, pk=None):
        """Block the narrative's worker: no new tasks, no further submissions."""
        form = BlockSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        reason = form.validated_data["reason"]
        return self._review(lambda narrative: worker_block(worker=narrative.worker, reason=reason))
