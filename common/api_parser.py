"""The API's JSON parser: DRF's, reading through json_loads_checked (see
common/request_input.py)."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from common.checked_input import InputError, json_loads_checked


class CheckedJSONParser(JSONParser):
    """DRF's JSON parser, reading through json_loads_checked (ParseError: 400)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return json_loads_checked(
                stream.read() if stream is not None else b"", what="The request body"
            )
        except InputError as error:
            raise ParseError(str(error)) from error
