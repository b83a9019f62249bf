"""Requester API for batches: create, list, progress, publish, close, local invite links."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count
from drf_spectacular.utils import inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api_docs import ViewSetActions, extend_schema
from common.api_parser import StrictInput
from common.request_input import MAX_INT
from crowd import task_types
from crowd.batches import batch_close, batch_create, batch_progress, batch_publish
from crowd.models import Batch, BatchItem, Provider
from crowd.providers import ProviderError
from crowd.workers import invite_url, local_workers_create


def _subject_field(name: str) -> serializers.PrimaryKeyRelatedField:
    model = BatchItem._meta.get_field(name).related_model
    return serializers.PrimaryKeyRelatedField(queryset=model.objects.all(), required=False)


class BatchItemInputSerializer(StrictInput, serializers.Serializer):
    """One item: the id of its subject (a proverb for write batches)."""

    proverb = _subject_field("proverb")
    narrative = _subject_field("narrative")
    source_assignment = _subject_field("source_assignment")
    choice_question = _subject_field("choice_question")
    schema_rules = {"minProperties": 1}  # a subject, as `validate` requires

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError('An item needs a subject, e.g. {"proverb": 12}.')
        return attrs


class BatchCreateSerializer(StrictInput, serializers.Serializer):
    """A new batch of any task type: its items, or, for a type whose items are drawn, a
    source batch and the settings' draws (or imported pairs) to take them from."""

    name = serializers.CharField(max_length=200)
    task_type = serializers.ChoiceField(choices=[])
    source_batch = serializers.PrimaryKeyRelatedField(
        queryset=Batch.objects.all(), required=False, allow_null=True
    )
    provider = serializers.ChoiceField(choices=Provider.choices, default=Provider.LOCAL)
    # Left out: the task type's own (TaskType.target_per_item).
    target_per_item = serializers.IntegerField(min_value=1, max_value=MAX_INT, required=False)
    per_worker_cap = serializers.IntegerField(
        min_value=1, max_value=MAX_INT, required=False, allow_null=True
    )
    reward_cents = serializers.IntegerField(min_value=0, max_value=MAX_INT, default=0)
    time_allowed_seconds = serializers.IntegerField(min_value=60, max_value=MAX_INT, default=1800)
    instructions = serializers.CharField(required=False, allow_blank=True, default="")
    settings = serializers.DictField(required=False, default=dict)
    items = BatchItemInputSerializer(many=True, required=False, default=list)
    publish = serializers.BooleanField(default=False)

    @staticmethod
    def _drawing() -> list[dict]:
        """Schemas of a body whose items come in: items, a source batch, draws or imports."""
        return [
            {"required": ["items"], "properties": {"items": {"minItems": 1}}},
            {"required": ["source_batch"], "properties": {"source_batch": {"type": "integer"}}},
            {
                "required": ["settings"],
                "properties": {
                    "settings": {
                        "anyOf": [
                            {
                                "required": ["draw"],
                                "properties": {"draw": {"type": "array", "minItems": 1}},
                            },
                            {
                                "required": ["imported"],
                                "properties": {"imported": {"type": "object", "minProperties": 1}},
                            },
                        ]
                    }
                },
            },
        ]

    @property
    def schema_rules(self) -> dict:
        """What `validate` and batch_publish hold a body to, in two rules (more than a
        generator of bodies can combine): its items come in, unless it is a draft of a type
        whose items are given; and each type's settings are its own, a source batch only
        for a drawn type."""
        drawn = task_types.keys_drawn()
        placed = [key for key in sorted(task_types.registered()) if key not in drawn]
        # (enums in allOf: drf-spectacular would make each enum a component of its own)
        draft = {
            "publish": {"allOf": [{"enum": [False]}]},
            "task_type": {"allOf": [{"enum": placed}]},
        }
        way_in = {"anyOf": [{"properties": draft}, *self._drawing()]}
        settings = []  # each type's settings as it takes them
        for key in sorted(task_types.registered()):
            rule = {
                "task_type": {"allOf": [{"enum": [key]}]},
                "settings": task_types.get(key).settings_schema(),
            }
            if key not in drawn:
                rule["source_batch"] = {"allOf": [{"enum": [None]}]}
            settings.append({"properties": rule})
        return {"allOf": [way_in, {"anyOf": settings}]}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_type"].choices = sorted(task_types.registered())

    def validate(self, attrs):
        task_type = task_types.get(attrs["task_type"])
        settings = attrs["settings"]
        sourced = attrs.get("source_batch") is not None
        if sourced and not task_type.drawn_items:
            raise serializers.ValidationError(
                {"source_batch": f"{task_type.label} batches take items, not a source batch."}
            )
        if (
            task_type.drawn_items
            and not attrs["items"]
            and not (sourced or settings.get("draw") or settings.get("imported"))
        ):
            raise serializers.ValidationError(
                'Give a source_batch, or narratives to draw in settings ("draw": [...]) or '
                'imported option pairs ("imported": {"kind": "idiom"}), or items.'
            )
        return attrs


class BatchSerializer(serializers.ModelSerializer):
    item_count = serializers.SerializerMethodField()

    class Meta:
        model = Batch
        fields = [
            "id",
            "name",
            "task_type",
            "provider",
            "status",
            "settings",
            "instructions",
            "target_per_item",
            "per_worker_cap",
            "reward_cents",
            "time_allowed_seconds",
            "source_batch",
            "item_count",
            "created_at",
            "published_at",
            "closed_at",
        ]

    def get_item_count(self, batch) -> int:
        annotated = getattr(batch, "items_total", None)  # set by the list's queryset
        return annotated if annotated is not None else batch.items.count()


_COUNTS = ("target", "reserved", "submitted", "approved", "rejected", "open")
ProgressSerializer = inline_serializer(
    "BatchProgress",
    fields={
        "batch": serializers.IntegerField(),
        "items": inline_serializer(
            "BatchItemProgress",
            fields={
                "item": serializers.IntegerField(),
                "label": serializers.CharField(),
                "is_gold": serializers.BooleanField(),
                **{name: serializers.IntegerField() for name in _COUNTS},
            },
            many=True,
        ),
        "totals": inline_serializer(
            "BatchProgressTotals",
            fields={
                "complete_items": serializers.IntegerField(),
                **{name: serializers.IntegerField() for name in _COUNTS},
            },
        ),
    },
)


class InvitesSerializer(StrictInput, serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=200, default=1)
    name_prefix = serializers.CharField(max_length=150, default="Worker")


InviteLinkSerializer = inline_serializer(
    "InviteLink",
    fields={
        "worker": serializers.IntegerField(),
        "name": serializers.CharField(),
        "url": serializers.URLField(),
    },
    many=True,
)


class _PublishRefused(Exception):
    pass


def batch_create_response(request) -> Response:
    """Create a batch from the request's body and publish it when asked: 201 with the batch,
    400 when it cannot be made as asked, 409 when it cannot be published now (as the
    publish action). Nothing is kept from a refused request."""
    form = BatchCreateSerializer(data=request.data)
    form.is_valid(raise_exception=True)
    data = dict(form.validated_data)
    publish = data.pop("publish")
    try:
        with transaction.atomic():
            batch = batch_create(created_by=request.user, **data)
            if publish:
                try:
                    batch = batch_publish(batch=batch)
                except (ValueError, ProviderError) as error:
                    raise _PublishRefused(str(error)) from error
    except (_PublishRefused, task_types.SettingConflict) as error:
        return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
    except task_types.SettingNotFound as error:
        return Response({"detail": str(error)}, status=status.HTTP_404_NOT_FOUND)
    except (ValueError, ProviderError) as error:
        return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
    return Response(BatchSerializer(batch).data, status=status.HTTP_201_CREATED)


class BatchViewSet(
    ViewSetActions,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Batches (?status=, ?task_type=): create with items, progress, publish, close, invites."""

    serializer_class = BatchSerializer
    queryset = Batch.objects.all()

    def get_queryset(self):
        queryset = super().get_queryset().annotate(items_total=Count("items"))
        for name in ("status", "task_type", "provider"):
            wanted = self.request.query_params.get(name)
            if wanted:
                queryset = queryset.filter(**{name: wanted})
        return queryset

    @extend_schema(request=BatchCreateSerializer, responses={201: BatchSerializer})
    def create(self, request, *args, **kwargs):
        """Create a batch with its items, or drawing them from a source batch or the dataset
        (settings: the task type's own); publish it with "publish": true."""
        return batch_create_response(request)

    @extend_schema(responses={200: ProgressSerializer})
    @action(detail=True, methods=["get"])
    def progress(self, request, pk=None):
        """Per item and in total: target, reserved, submitted (awaiting review), approved,
        rejected, open slots."""
        return Response(batch_progress(batch=self.get_object()))

    def _change(self, request, change):
        if not request.user.has_perm("crowd.change_batch"):
            self.permission_denied(request, message="This needs the change-batch permission.")
        try:
            batch = change(batch=self.get_object())
        except (ValueError, ProviderError) as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(BatchSerializer(batch).data)

    @extend_schema(request=None, responses={200: BatchSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request, pk=None):
        """Open a draft batch to workers through its provider."""
        return self._change(request, batch_publish)

    @extend_schema(request=None, responses={200: BatchSerializer})
    @action(detail=True, methods=["post"])
    def close(self, request, pk=None):
        """Close the batch; open reservations are returned."""
        return self._change(request, batch_close)

    @extend_schema(request=InvitesSerializer, responses={201: InviteLinkSerializer})
    @action(detail=True, methods=["post"], pagination_class=None)  # a plain list of links
    def invites(self, request, pk=None):
        """Create local workers and return their invite links into this batch."""
        if not request.user.has_perm("crowd.add_worker"):
            self.permission_denied(request, message="This needs the add-worker permission.")
        batch = self.get_object()
        if batch.provider != Provider.LOCAL:
            return Response(
                {
                    "detail": "Invite links are for local batches; this batch's workers come "
                    f"through {batch.get_provider_display()}."
                },
                status=status.HTTP_409_CONFLICT,
            )
        form = InvitesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        links = []
        for worker in local_workers_create(**form.validated_data):
            url = invite_url(request, worker=worker, batch=batch)
            links.append({"worker": worker.pk, "name": str(worker), "url": url})
        return Response(links, status=status.HTTP_201_CREATED)
