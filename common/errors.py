"""Error pages: under /api/ every error is JSON (`{"detail": ...}`), as the schema says;
elsewhere Django's own pages. A request that fails because the database cannot be reached
(a restart, a failover) is answered 503 with Retry-After and a plain message instead of
500: nothing was stored, and the same request a moment later works."""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults

RETRY_AFTER_SECONDS = 10
_DETAILS = {
    400: "Bad request.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    500: "Server error.",
    503: "The server cannot reach its database for a moment, so nothing was done or stored. "
    f"Try again in {RETRY_AFTER_SECONDS} seconds.",
}


def _api(request) -> bool:
    return request.path.startswith("/api/")


def _json_under_api(page, status: int):
    """The handler of `status`: JSON under /api/ (a bad request says why), else `page`."""

    def handler(request, exception):
        if _api(request):
            detail = str(exception) if status == 400 else ""
            return JsonResponse({"detail": detail or _DETAILS[status]}, status=status)
        return page(request, exception)

    return handler


bad_request = _json_under_api(defaults.bad_request, 400)
permission_denied = _json_under_api(defaults.permission_denied, 403)
page_not_found = _json_under_api(defaults.page_not_found, 404)


def server_error(request):
    # The database out of reach (not a query's fault: SQLite says "no such table" with the
    # same class): a 503 that says when to try again.
    error = sys.exc_info()[1]
    if isinstance(error, InterfaceError | OperationalError) and "no such" not in str(error):
        message = _DETAILS[503]
        page = HttpResponse(loader.render_to_string("503.html", {"message": message}), status=503)
        response = JsonResponse({"detail": message}, status=503) if _api(request) else page
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if _api(request):
        return JsonResponse({"detail": _DETAILS[500]}, status=500)
    return defaults.server_error(request)
