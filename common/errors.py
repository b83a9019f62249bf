"""Error pages: under /api/ every error is JSON (`{"detail": ...}`), as the schema says;
elsewhere Django's own pages."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults

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


def server_error(request):
    if _api(request):
        return JsonResponse({"detail": _DETAILS[500]}, status=500)
    return defaults.server_error(request)
