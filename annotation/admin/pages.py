"""What the admin's own pages (agreement, dashboard) share: a permission check and
rendering inside the admin site's frame."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse


def require_permission(request, permission: str) -> None:
    """403 unless the signed-in user holds ``permission`` ("app.codename")."""
    if not request.user.has_perm(permission):
        raise PermissionDenied


def admin_page(request, template: str, title: str, **context) -> TemplateResponse:
    """``template`` rendered with the admin site's context (sidebar, user links) and a title."""
    context = {**admin.site.each_context(request), "title": title, **context}
    return TemplateResponse(request, template, context)
