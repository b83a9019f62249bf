"""A model admin that lists and shows rows but never adds, changes or deletes them: for
records a provider owns (Prolific submissions, MTurk HITs), mirrored into Parable."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
