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
OUTAGE = (
    "The server cannot reach its database for a moment, so nothing was done or stored. "
    f"Try again in {RETRY_AFTER_SECONDS} seconds."
)

_DETAILS = {
    400: "Bad request.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    500: "Server error.",
}


def _api(request) -> bool:
    return request.path.startswith("/api/")


def bad_request(request, exception):
    if _api(request):
        return JsonResponse({"detail": str(exception) or _DETAILS[400]}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception):
    if _api(request):
        return JsonResponse({"detail": _DETAILS[403]}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception):
    if _api(request):
        return JsonResponse({"detail": _DETAILS[404]}, status=404)
    return defaults.page_not_found(request, exception)


def _database_unreachable() -> bool:
    """Whether the error being handled is the database out of reach (not a query's fault:
    SQLite says "no such table" with the same class)."""
    error = sys.exc_info()[1]
    return isinstance(error, InterfaceError | OperationalError) and "no such" not in str(error)


def server_error(request):
    if _database_unreachable():
        response = (
            JsonResponse({"detail": OUTAGE}, status=503)
            if _api(request)
            else HttpResponse(loader.render_to_string("503.html", {"message": OUTAGE}), status=503)
        )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if _api(request):
        return JsonResponse({"detail": _DETAILS[500]}, status=500)
    return defaults.server_error(request)
