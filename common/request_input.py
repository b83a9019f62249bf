"""Bad input stopped at the edges of the site, with a 400 that says why: query strings
holding NUL or a lone surrogate (`RequestInputMiddleware`), JSON bodies of plain views
(`request_json`, as the API's parser in common/api_parser.py, kept apart so that the admin
does not import DRF), integer query parameters (`query_int`).
"""

from __future__ import annotations

from django.core.exceptions import BadRequest
from django.http import HttpResponseBadRequest, JsonResponse

from common.checked_input import json_loads_checked, text_problem

MAX_ID = 2**63 - 1  # PostgreSQL bigint: every primary key fits
MAX_INT = 2**31 - 1  # PostgreSQL integer: counts, cents and seconds


class RequestInputMiddleware:
    """400 for a query string whose names or values PostgreSQL or UTF-8 cannot take."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for name, values in request.GET.lists():
            for text in (name, *values):
                problem = text_problem(text)
                if problem:
                    message = f"The query parameter {name!r} {problem}."
                    if request.path.startswith("/api/"):
                        return JsonResponse({"detail": message}, status=400)
                    return HttpResponseBadRequest(message, content_type="text/plain")
        return self.get_response(request)


def request_json(request):
    """The request body parsed by json_loads_checked; raises InputError."""
    return json_loads_checked(request.body, what="The request body")


def query_int(request, name: str) -> int | None:
    """The integer query parameter `name` (an id: 1 to 2**63-1), None when absent or empty;
    raises BadRequest (answered with 400) when it is anything else."""
    value = request.GET.get(name, "")
    if value == "":
        return None
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= MAX_ID:
        raise BadRequest(f"The query parameter {name!r} must be a positive integer id.")
    return int(value)
