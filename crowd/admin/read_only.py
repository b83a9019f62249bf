"""A model admin that lists and shows rows but never adds, changes or deletes them: for
records a provider owns (Prolific submissions, MTurk HITs), mirrored into Parable; and the
context of an admin's own pages."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AdminPages:
    """Mixed into a model admin with pages of its own: their template context."""

    def _context(self, request, **extra):
        return {**self.admin_site.each_context(request), "opts": self.model._meta, **extra}
