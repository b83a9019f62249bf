"""Crowd work › Provider calls: every call a review decision owed its provider (approve,
reject, bonus, block, unblock, message), where it stands and the provider's last word.
Read-only: the calls are written with their decisions and settled by crowd.outbox."""

from __future__ import annotations

from django.contrib import admin

from crowd.admin.read_only import ReadOnlyAdmin
from crowd.models import ProviderAction


@admin.register(ProviderAction)
class ProviderActionAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "provider",
        "kind",
        "subject",
        "status",
        "attempts",
        "sent_at",
        "finished_at",
        "note",
    )
    list_filter = ("status", "provider", "kind")
    search_fields = ("reference", "worker__external_id", "assignment__worker__external_id")
    list_select_related = ("assignment__worker", "worker")

    @admin.display(description="About")
    def subject(self, action: ProviderAction) -> str:
        if action.assignment_id is not None:
            return f"Assignment {action.assignment_id} of {action.assignment.worker}"
        return str(action.worker)
