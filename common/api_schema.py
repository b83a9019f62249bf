"""The OpenAPI schema tells every answer an operation can give: `ParableAutoSchema` adds the
error answers (_ERRORS; 429 on a view naming it in `schema_extra_errors`) to
drf-spectacular's success responses, each a `detail` message or the invalid fields.
"""

from __future__ import annotations

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from common.api_docs import schema_annotations_attach
from common.api_parser import CLEAN_TEXT, NON_BLANK_TEXT, StrictInput


class ErrorSerializer(serializers.Serializer):
    """An error: `detail`, or each invalid field with its messages."""

    detail = serializers.CharField(required=False)


_ERRORS = {
    "400": "The input is invalid; the body says what and why.",
    "401": "No valid credentials (token or session).",
    "403": "The user lacks the permission this operation needs.",
    "404": "No such object (the path's id, or an id in the body).",
    "409": "The object's state forbids this change now (e.g. already reviewed).",
    "414": "The request line (path and query) is longer than the server reads (4 KB).",
    "415": "The request body's content type is not one this operation reads.",
    "429": "Too many failed logins for this user name; Retry-After says when to try again.",
}


def _non_blank(field) -> bool:
    """Whether a request field refuses a text of white space alone: a CharField that
    strips it and allows no blank (DRF's default)."""
    return (
        isinstance(field, serializers.CharField) and not field.allow_blank and field.trim_whitespace
    )


class ParableAutoSchema(AutoSchema):
    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        """A request serializer's schema with the rules its reading applies: no fields
        but its own (StrictInput), and texts without what the parser refuses."""
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction != "request":
            # A pattern is a rule input is held to, written for Python's re: an answer's
            # schema states none, as a validator with other regex semantics (ECMA-262's
            # ASCII-only \w) would read it otherwise and refuse stored text such as "ñ".
            for field in schema.get("properties", {}).values():
                field.pop("pattern", None)
            return schema
        if isinstance(serializer, StrictInput):
            schema["additionalProperties"] = False
            schema.update(getattr(serializer, "schema_rules", {}))
        fields = getattr(serializer, "fields", {})
        for name, field in schema.get("properties", {}).items():
            if field.get("type") == "string" and not ({"format", "enum", "pattern"} & set(field)):
                field["pattern"] = NON_BLANK_TEXT if _non_blank(fields.get(name)) else CLEAN_TEXT
        return schema

    def _error_codes(self) -> list[str]:
        # 414 comes from gunicorn, before the application reads the request.
        codes = ["400", "401", "403", "414"]
        writes = self.method in ("POST", "PUT", "PATCH")
        if "{" in self.path or writes:  # a body's id, too, may name nothing
            codes.append("404")
        if writes:
            codes += ["409", "415"]
        return codes + list(getattr(self.view, "schema_extra_errors", ()))

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            if code == "414":  # gunicorn's own HTML page: no body the API defines
                responses[code] = {"description": _ERRORS[code]}
            elif code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                responses[code] = {**response, "description": _ERRORS[code]}
        return responses


class ParableSchemaGenerator(SchemaGenerator):
    """drf-spectacular's generator, with the views' schema annotations attached first
    (common.api_docs): the URL map, and with it every API module, is loaded by then."""

    def create_view(self, callback, method, request=None):
        schema_annotations_attach()
        return super().create_view(callback, method, request)
