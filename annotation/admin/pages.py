"""What the admin's own pages (agreement, dashboard, a model admin's extra pages) share: a
permission check, their URLs inside the admin site, and rendering inside its frame."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import URLPattern, path


def require_permission(request, permission: str) -> None:
    """403 unless the signed-in user holds ``permission`` ("app.codename")."""
    if not request.user.has_perm(permission):
        raise PermissionDenied


def admin_page(request, template: str, title: str, **context) -> TemplateResponse:
    """``template`` rendered with the admin site's context (sidebar, user links) and a title."""
    context = {**admin.site.each_context(request), "title": title, **context}
    return TemplateResponse(request, template, context)


def page_urls(*pages: tuple[str, Callable, str]) -> list[URLPattern]:
    """The URL patterns of pages served inside the admin site (its login, staff only), each
    given as (route, view, name)."""
    return [path(route, admin.site.admin_view(view), name=name) for route, view, name in pages]
