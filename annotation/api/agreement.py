"""Requester API for the batches with an agreement report: agreement and aggregation,
batches chained to a source batch or drawn from the dataset, gold items, results. Staff
only: reads need view_batch, creating add_batch, refreshing and adding gold change_batch.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from annotation.models import Narrative
from annotation.quality.gold import (
    CRITERION_KEY,
    SCALE,
    GoldConflict,
    NoGoldItems,
    gold_items_add,
    gold_ranges_by_criterion,
)
from annotation.quality.reports import batch_agreement
from common.api_docs import ViewSetActions, extend_schema
from common.api_parser import StrictInput
from crowd import task_types
from crowd.api import BatchCreateSerializer, BatchSerializer, batch_create_response
from crowd.chaining import batch_items_refresh
from crowd.models import Batch


class AgreementViewSet(ViewSetActions, viewsets.ReadOnlyModelViewSet):
    """Align, rate and choose batches (?task_type=); one batch's full agreement report."""

    serializer_class = BatchSerializer
    queryset = Batch.objects.all()

    def get_queryset(self):
        queryset = super().get_queryset().filter(task_type__in=task_types.keys_with_agreement())
        wanted = self.request.query_params.get("task_type")
        return queryset.filter(task_type=wanted) if wanted else queryset

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def retrieve(self, request, *args, **kwargs):
        """Agreement, aggregated answers and per-worker gold accuracy of one batch.

        Keys: batch, name, task_type, source_batch, items, counted_statuses, quality
        (gold_items, gold_min_accuracy, gold_min_answers, flagged_workers, workers), and
        one of align (alignments, pairs_per_alignment, proverb and narrative span
        agreement: precision, recall, f1, pairs, items), rate (per criterion: items,
        ratings, mean, pairwise_agreement at >= 3, ordinal alpha; by_source means) or
        choose (human_accuracy, pairwise_agreement, nominal alpha, majority-vote and
        Dawid-Skene accuracy, aggregated answers per question), continue (submissions,
        written, literal_flags, literal_confirmed, option_pairs), continue_choice
        (human_accuracy, pairwise_agreement, majority_vote_accuracy, by_kind) or cloze
        (condition, match_rate of main-verb lemmas, agreement as 1 - normalised entropy,
        by_item).
        """
        return Response(batch_agreement(batch=self.get_object()))


class GoldRangeSerializer(StrictInput, serializers.Serializer):
    """One criterion's range in a rate batch's gold answer: a rating inside it is right."""

    schema_rules = {"anyOf": [{"required": ["min"]}, {"required": ["max"]}]}
    criterion = serializers.RegexField(
        CRITERION_KEY.pattern, help_text="A criterion key of the batch, e.g. relatedness."
    )
    min = serializers.IntegerField(min_value=SCALE[0], max_value=SCALE[-1], required=False)
    max = serializers.IntegerField(min_value=SCALE[0], max_value=SCALE[-1], required=False)

    def validate(self, attrs):
        if "min" not in attrs and "max" not in attrs:
            raise serializers.ValidationError('Give "min" and/or "max".')
        if attrs.get("min", SCALE[0]) > attrs.get("max", SCALE[-1]):
            raise serializers.ValidationError("min must not be above max.")
        return attrs


class GoldSerializer(StrictInput, serializers.Serializer):
    narratives = serializers.PrimaryKeyRelatedField(
        queryset=Narrative.objects.select_related("proverb"), many=True
    )
    # A list field around one range serializer: with many=True DRF would pass allow_null
    # on to each range, and take [null].
    answer = serializers.ListField(
        child=GoldRangeSerializer(),
        required=False,
        allow_null=True,
        default=None,
        help_text="Rate batches: a range per criterion, e.g. "
        '[{"criterion": "relatedness", "max": 2}]; multiple choice: none (the '
        "narrative's own proverb is the answer).",
    )

    def validate_answer(self, ranges):
        """The ranges as the gold service takes them: {criterion: {"min", "max"}}; none
        for an empty list (a rate batch then answers that it needs them)."""
        if not ranges:
            return None
        try:
            return gold_ranges_by_criterion(ranges)
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None


AddedSerializer = inline_serializer(
    "ItemsAdded", fields={"added": serializers.IntegerField(), "items": serializers.IntegerField()}
)


class ChainedBatchViewSet(ViewSetActions, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Batches whose items are drawn (align, rate, choose, continue_choice, cloze): create
    (the body of POST /api/batches/), refresh, gold items, results."""

    serializer_class = BatchSerializer
    queryset = Batch.objects.all()

    def get_queryset(self):
        return super().get_queryset().filter(task_type__in=task_types.keys_drawn())

    @extend_schema(request=BatchCreateSerializer, responses={201: BatchSerializer})
    def create(self, request, *args, **kwargs):
        """Create a batch as POST /api/batches/ does (the same body), here for the batches
        that draw their items: its first items are taken now, later approvals of the source
        add more.

        settings: {"sample": 250, "seed": 1, "draw": [{"source": "imported",
        "source_label": "...", "sample": 200}], plus the task type's own (align:
        min_pairs, max_pairs; rate: target narratives|alignments, criteria,
        gold_min_accuracy, gold_min_answers; choose: distractors lexical|random,
        options, gold_min_accuracy, gold_min_answers; continue_choice: no draws but
        imported {"kind": "idiom"|"simile", "split": "any"|"train"|"dev"|"test"}, sample,
        seed; cloze: condition full|arguments|subject_verb, blank random|middle|last)}.
        """
        return batch_create_response(request)

    def _require_change(self, request) -> None:
        if not request.user.has_perm("crowd.change_batch"):
            self.permission_denied(request, message="This needs the change-batch permission.")

    @extend_schema(request=None, responses={200: AddedSerializer})
    @action(detail=True, methods=["post"])
    def refresh(self, request, pk=None):
        """Take what the source batch and the draws offer now (approvals do this by themselves)."""
        self._require_change(request)
        batch = self.get_object()
        try:
            added = batch_items_refresh(batch=batch)
        except ValueError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response({"added": added, "items": batch.items.count()})

    @extend_schema(request=GoldSerializer, responses={201: AddedSerializer})
    @action(detail=True, methods=["post"])
    def gold(self, request, pk=None):
        """Add gold items on narratives with a known answer (rate: {"answer": [{"criterion":
        key, "min": a, "max": b}, ...]}; choose: the narrative's own proverb)."""
        self._require_change(request)
        batch = self.get_object()
        form = GoldSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            added = gold_items_add(
                batch=batch,
                narratives=form.validated_data["narratives"],
                answer=form.validated_data["answer"],
            )
        except (NoGoldItems, GoldConflict, task_types.SettingConflict) as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        except ValueError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"added": added, "items": batch.items.count()}, status=status.HTTP_201_CREATED
        )

    @extend_schema(responses={200: {"type": "array", "items": {"type": "object"}}})
    @action(detail=True, methods=["get"], pagination_class=None)  # a plain list of records
    def results(self, request, pk=None):
        """The batch's submissions, one record each (alignments, rating forms or answers)."""
        batch = self.get_object()
        return Response(task_types.get(batch.task_type).batch_results(batch=batch))
