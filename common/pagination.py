"""Limit/offset pagination that refuses what it cannot honour instead of guessing (DRF's
falls back to the default for a bad `limit`, and passes one beyond bigint on): each is an
integer in the range the schema states, or 400.
"""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 2**62  # with any limit, offset + limit stays inside PostgreSQL's bigint


class CheckedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000

    def _bounded(self, request, name: str, *, minimum: int, maximum: int, default: int) -> int:
        if name not in request.query_params:
            return default
        value = request.query_params[name]
        if not (value.isascii() and value.isdigit()) or not minimum <= int(value) <= maximum:
            raise ValidationError({name: [f"Give an integer from {minimum} to {maximum}."]})
        return int(value)

    def get_limit(self, request):
        return self._bounded(
            request,
            self.limit_query_param,
            minimum=1,
            maximum=self.max_limit,
            default=self.default_limit,
        )

    def get_offset(self, request):
        return self._bounded(
            request, self.offset_query_param, minimum=0, maximum=MAX_OFFSET, default=0
        )

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        ranges = {
            self.limit_query_param: (1, self.max_limit),
            self.offset_query_param: (0, MAX_OFFSET),
        }
        for parameter in parameters:
            minimum, maximum = ranges[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": minimum, "maximum": maximum}
        return parameters
