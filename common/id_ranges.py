"""Rows of a chunk of ascending ids, read without a parameter per id where the ids are dense
(a dataset read in id order): Django prepares every value of an IN list one by one, about
10 µs each, which a range scan of the same rows does not pay."""

from __future__ import annotations

from django.db.models import QuerySet


def of_ids(queryset: QuerySet, field_name: str, ids: list[int]) -> QuerySet:
    """Rows whose `field_name` is one of `ids` (ascending): a range scan when the ids are
    dense, else an IN list. A range may hold rows of other ids: callers drop them."""
    if not ids:
        return queryset.none()
    if ids[-1] - ids[0] < 2 * len(ids):
        return queryset.filter(**{f"{field_name}__gte": ids[0], f"{field_name}__lte": ids[-1]})
    return queryset.filter(**{f"{field_name}__in": ids})
