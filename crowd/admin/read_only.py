"""A model admin that lists and shows rows but never adds, changes or deletes them: for
records a provider owns (Prolific submissions, MTurk HITs), mirrored into Parable; and the
pages of an admin's own."""

from django.contrib import admin
from django.template.response import TemplateResponse
from django.urls import path


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AdminPages:
    """Mixed into a model admin with pages of its own: `pages` lists each page's route,
    view method and URL name, served before the model's own URLs."""

    pages: tuple[tuple[str, str, str], ...] = ()

    def get_urls(self):
        own = [
            path(route, self.admin_site.admin_view(getattr(self, view)), name=name)
            for route, view, name in self.pages
        ]
        return [*own, *super().get_urls()]

    def _context(self, request, **extra):
        return {**self.admin_site.each_context(request), "opts": self.model._meta, **extra}

    def _page(self, request, template: str, **extra) -> TemplateResponse:
        return TemplateResponse(request, template, self._context(request, **extra))
