"""The API's JSON parser (DRF's, through json_loads_checked) and the strict reading of
request serializers."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, ParseError
from rest_framework.parsers import JSONParser

from common.checked_input import InputError, json_loads_checked

# What the JSON parser refuses in any text (json_loads_checked): NUL. (Lone surrogates too,
# but a pattern naming them is no regular expression for Rust-based validators, which then
# ignore it: JSON text a client encodes from valid Unicode never has them.)
CLEAN_TEXT = "^[^\\x00]*$"
# A text that is not blank: DRF's CharField strips what str.isspace() calls white space
# and refuses what is left empty. The characters are named one by one, as Python's \s
# and ECMA-262's \s differ (\x1c-\x1f, \x85, \ufeff), so that every validator reads
# the same rule as the server.
PYTHON_SPACE = (
    "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
)
# The white space before the first other character, then that character: no backtracking.
NON_BLANK_TEXT = f"^[{PYTHON_SPACE}]*[^\\x00{PYTHON_SPACE}][^\\x00]*$"


class CheckedJSONParser(JSONParser):
    """DRF's JSON parser, reading through json_loads_checked (ParseError: 400)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return json_loads_checked(
                stream.read() if stream is not None else b"", what="The request body"
            )
        except InputError as error:
            raise ParseError(str(error)) from error


class StrictInput:
    # A request serializer that takes what its schema says and nothing else: no field it
    # does not write, and in a JSON body only true/false for a boolean, a string within
    # maxLength (white space included) for a text, a whole number for a number or id.
    # Mixed in before the DRF class. `schema_rules`: JSON Schema keywords for its rules
    # across fields. (Comments: the schema would show a docstring as each serializer's.)
    schema_rules: dict = {}

    def is_valid(self, *, raise_exception=False):
        """As DRF's, but 404 when every error is an id that names nothing, as for a path's
        id: no schema can know which ids exist."""
        valid = super().is_valid()
        if not valid and raise_exception:
            codes = _leaf_codes(self.errors)
            if codes and codes <= {"does_not_exist"}:
                raise NotFound(self.errors)
            raise serializers.ValidationError(self.errors)
        return valid

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            writable = {name: field for name, field in self.fields.items() if not field.read_only}
            errors = {
                name: ["This operation has no such field."] for name in data if name not in writable
            }
            json = type(data) is dict  # form data (a QueryDict) is text by nature
            for name, field in writable.items():
                problem = _field_problem(field, data.get(name), json=json)
                if problem:
                    errors[name] = [problem]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


_WHOLE_NUMBERS = (serializers.IntegerField, serializers.PrimaryKeyRelatedField)


def _field_problem(field, value, *, json: bool) -> str | None:
    """Why a value sent for a field is refused before DRF reads it, or None."""
    text = isinstance(field, serializers.CharField)
    if value is None:
        return None
    if json and isinstance(field, serializers.BooleanField) and not isinstance(value, bool):
        return "Must be true or false."
    if json and text and not isinstance(value, str):
        return "Must be a string."
    whole = isinstance(value, int) and not isinstance(value, bool)
    if json and isinstance(field, _WHOLE_NUMBERS) and not whole:
        return "Must be a whole number."
    # The schema's maxLength is the text as sent; DRF counts it after stripping white space.
    limit = field.max_length if text else None
    if limit is not None and isinstance(value, str) and len(value) > limit:
        return field.error_messages["max_length"].format(max_length=limit)  # DRF's own words
    return None


def _leaf_codes(errors) -> set[str]:
    """The codes of every error in DRF's nested errors (dicts and lists of ErrorDetail)."""
    if isinstance(errors, dict):
        return set().union(*(_leaf_codes(value) for value in errors.values()))
    if isinstance(errors, list):
        return set().union(*(_leaf_codes(value) for value in errors))
    return {getattr(errors, "code", "")}


class Conflict(APIException):
    """409: the request is well formed, but clashes with what is stored (a duplicate)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
