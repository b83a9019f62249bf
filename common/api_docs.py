"""The API's documentation, loaded only by the requests that ask for it: its generator imports
Django's and DRF's test clients (5 MiB and 0.05 s of a web worker's start). `extend_schema`
and `extend_schema_view` record a view's annotations until a schema is first generated
(drf-spectacular's own decorators read the schema class when applied).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable

from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular import utils as spectacular
from rest_framework.viewsets import _check_attr_name, _is_extra_action

_pending: list[tuple[Callable, object]] = []
_attaching = threading.Lock()


def _recorded(decorator: Callable) -> Callable:
    def record(target):
        _pending.append((decorator, target))
        return target

    return record


def extend_schema(**annotations) -> Callable:
    """drf-spectacular's `extend_schema`, attached when the schema is generated."""
    return _recorded(spectacular.extend_schema(**annotations))


def extend_schema_view(**methods) -> Callable:
    """drf-spectacular's `extend_schema_view`, attached when the schema is generated."""
    return _recorded(spectacular.extend_schema_view(**methods))


def schema_annotations_attach() -> None:
    """Attach the annotations recorded so far, each once, in the order they were made."""
    with _attaching:
        while _pending:
            decorator, target = _pending.pop(0)
            decorator(target)


class ViewSetActions:
    """A viewset whose extra actions (`@action`) are found without reading its other
    attributes: DRF's lookup reads them all, `schema` among them."""

    @classmethod
    def get_extra_actions(cls):
        return [
            _check_attr_name(method, name)
            for name, method in inspect.getmembers_static(cls, _is_extra_action)
        ]


def view_on_first_request(view_class: str, **initkwargs) -> Callable:
    """A view that imports `view_class` (a dotted path) on its first request."""
    made = []

    @csrf_exempt  # as the API's views are: DRF checks the session's CSRF token itself
    def view(request, *args, **kwargs):
        if not made:
            made.append(import_string(view_class).as_view(**initkwargs))
        return made[0](request, *args, **kwargs)

    return view
