"""Admin of workers: the list, local workers with their invite links, per-worker statistics."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from common.request_input import query_int
from crowd.admin.read_only import AdminPages
from crowd.models import Batch, Worker
from crowd.workers import invite_url, local_workers_create, worker_stats


class LocalWorkersForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=200, initial=3, label="How many")
    name_prefix = forms.CharField(
        max_length=150,
        initial="Worker",
        help_text='Names are numbered: "Worker 1", "Worker 2", ... (seen in review only).',
    )
    batch = forms.ModelChoiceField(
        queryset=Batch.objects.filter(provider="local").exclude(status=Batch.Status.CLOSED),
        required=False,
        help_text="Links open this batch's next task; empty: the worker's list of open batches.",
    )


@admin.register(Worker)
class WorkerAdmin(AdminPages, admin.ModelAdmin):
    list_display = ("__str__", "provider", "external_id", "blocked", "created_at")
    list_filter = ("provider", "blocked")
    search_fields = ("external_id", "display_name")
    actions = ("show_invite_links",)
    change_list_template = "admin/crowd/worker/change_list.html"
    pages = (
        ("add-local/", "add_local_view", "crowd_worker_add_local"),
        ("stats/", "stats_view", "crowd_worker_stats"),
    )

    def _links_page(self, request, *, title: str, rows: list, form=None):
        return self._page(
            request, "admin/crowd/worker/invites.html", title=title, form=form, rows=rows
        )

    def add_local_view(self, request):
        """Create local workers and show their invite links (add-worker permission)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        initial = {"batch": request.GET.get("batch")} if request.GET.get("batch") else None
        form = LocalWorkersForm(request.POST or None, initial=initial)
        rows = []
        if request.method == "POST" and form.is_valid():
            batch = form.cleaned_data["batch"]
            workers = local_workers_create(
                count=form.cleaned_data["count"], name_prefix=form.cleaned_data["name_prefix"]
            )
            rows = [
                {
                    "worker": worker,
                    "links": [(batch, invite_url(request, worker=worker, batch=batch))],
                }
                for worker in workers
            ]
            messages.success(
                request,
                f"Created {len(rows)} local worker(s). Give each their own link: it signs them in.",
            )
        return self._links_page(request, title="Add local workers", rows=rows, form=form)

    @admin.action(description="Show invite links of selected local workers", permissions=["add"])
    def show_invite_links(self, request, queryset):
        """Signed links sign a browser in as the worker, so they need the add-worker
        permission (researchers), never only view (reviewers). Blocked workers get none."""
        open_batches = Batch.objects.filter(status=Batch.Status.PUBLISHED, provider="local")
        batches = list(open_batches.order_by("id"))
        rows = [
            {
                "worker": worker,
                "links": [(None, invite_url(request, worker=worker))]
                + [(batch, invite_url(request, worker=worker, batch=batch)) for batch in batches],
            }
            for worker in queryset.filter(provider="local", blocked=False)
        ]
        return self._links_page(request, title="Invite links", rows=rows)

    def stats_view(self, request):
        """Per-worker review figures, over all batches or one (?batch=id)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        batch_id = query_int(request, "batch")
        batch = None if batch_id is None else get_object_or_404(Batch, pk=batch_id)
        return self._page(
            request,
            "admin/crowd/worker/stats.html",
            title=f"Worker statistics: {batch}" if batch else "Worker statistics",
            batch=batch,
            batches=Batch.objects.order_by("-id"),
            rows=worker_stats(batch=batch),
        )
