"""Admin of batches, their items and assignments: a batch is created from its task type's
`batch_form` ("New <label> batch"), followed per item on its progress page.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from crowd import task_types
from crowd.admin.read_only import AdminPages
from crowd.batches import (
    ITEM_SUBJECTS,
    batch_close,
    batch_progress,
    batch_publish,
)
from crowd.forms import BatchAdminForm
from crowd.models import Assignment, Batch, BatchItem
from crowd.providers import ProviderError, batch_currency


class TaskTypeFilter(admin.SimpleListFilter):
    """Batches of one registered task type, by its label."""

    title = "task type"
    parameter_name = "task_type"

    def lookups(self, request, model_admin):
        return [(task_type.key, task_type.label) for task_type in task_types.in_order()]

    def queryset(self, request, queryset):
        return queryset.filter(task_type=self.value()) if self.value() else queryset


@admin.register(Batch)
class BatchAdmin(AdminPages, admin.ModelAdmin):
    form = BatchAdminForm
    list_display = (
        "name",
        "task_type_label",
        "provider",
        "status",
        "target_per_item",
        "approved_summary",
        "progress_link",
        "created_at",
    )
    list_filter = (TaskTypeFilter, "provider", "status")
    search_fields = ("name",)
    actions = ("publish_selected", "close_selected")
    pages = (
        ("new/<str:key>/", "new_view", "crowd_batch_new"),
        ("<int:batch_id>/progress/", "progress_view", "crowd_batch_progress"),
    )
    readonly_fields = (
        "task_type",
        "provider",
        "status",
        "source_batch",
        "provider_ids",
        "created_by",
        "created_at",
        "published_at",
        "closed_at",
    )

    @admin.display(description="task type", ordering="task_type")
    def task_type_label(self, batch: Batch) -> str:
        return (
            task_types.get(batch.task_type).label
            if batch.task_type in task_types.registered()
            else batch.task_type
        )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                item_count=Count("items", distinct=True),
                approved_count=Count(
                    "items__assignments",
                    filter=Q(items__assignments__status=Assignment.Status.APPROVED),
                ),
            )
        )

    @admin.display(description="Approved")
    def approved_summary(self, batch):
        return f"{batch.approved_count} of {batch.item_count * batch.target_per_item}"

    @admin.display(description="")
    def progress_link(self, batch):
        url = reverse("admin:crowd_batch_progress", args=[batch.pk])
        return format_html('<a href="{}">Progress</a>', url)

    def add_view(self, request, form_url="", extra_context=None):
        """Batches are made from their task type's form: choose the type first."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        offered = [
            (key, task_type.label)
            for key, task_type in sorted(task_types.registered().items())
            if task_type.batch_form is not None
        ]
        context = self._context(request, title="New batch", offered=offered)
        return TemplateResponse(request, "admin/crowd/batch/choose.html", context)

    def new_view(self, request, key: str):
        """Create a batch of one task type from its form (add-batch permission)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        try:
            task_type = task_types.get(key)
        except LookupError:
            raise Http404 from None
        form_class = task_type.batch_form
        if form_class is None:
            raise Http404
        form = form_class(
            request.POST or None,
            request.FILES or None,
            initial={"target_per_item": task_type.target_per_item},
        )
        if request.method == "POST" and form.is_valid():
            try:
                batch = form.create(task_type=key, created_by=request.user)
                if form.cleaned_data.get("publish"):
                    batch = batch_publish(batch=batch)
            except (ValueError, ProviderError) as error:
                form.add_error(None, str(error))
            else:
                messages.success(
                    request,
                    f"Batch “{batch.name}” created ({batch.get_status_display().lower()}). "
                    "Create worker links to start.",
                )
                for line in form.created_message().splitlines():  # a line a message
                    messages.info(request, line)
                return redirect("admin:crowd_batch_progress", batch_id=batch.pk)
        context = self._context(
            request, title=f"New batch: {task_type.label}", form=form, media=self.media + form.media
        )
        return TemplateResponse(request, "admin/crowd/batch/new.html", context)

    def progress_view(self, request, batch_id: int):
        """Per item: target, reserved, awaiting review, approved, rejected, open (view permission).

        POST publish / close needs the change-batch permission.
        """
        batch = get_object_or_404(Batch, pk=batch_id)
        if not self.has_view_permission(request, batch):
            raise PermissionDenied
        if request.method == "POST":
            if not self.has_change_permission(request, batch):
                raise PermissionDenied
            self._apply(request, batch, "close" if "close" in request.POST else "publish")
            return redirect("admin:crowd_batch_progress", batch_id=batch.pk)
        task_type = task_types.get(batch.task_type)
        context = self._context(
            request,
            title=f"Progress: {batch.name}",
            batch=batch,
            currency=batch_currency(batch),
            progress=batch_progress(batch=batch),
            review_url=task_type.review_url(batch=batch),
            settings_lines=task_type.settings_lines(batch=batch),
            can_change=self.has_change_permission(request, batch),
            can_add_workers=request.user.has_perm("crowd.add_worker"),
        )
        return TemplateResponse(request, "admin/crowd/batch/progress.html", context)

    def _apply(self, request, batch: Batch, action: str) -> None:
        try:
            if action == "close":
                batch_close(batch=batch)
                self.message_user(request, f"“{batch.name}” closed; open reservations returned.")
            else:
                batch_publish(batch=batch)
                self.message_user(request, f"“{batch.name}” published.")
        except (ValueError, ProviderError) as error:
            self.message_user(request, f"“{batch.name}”: {error}", messages.ERROR)

    @admin.action(description="Publish selected batches", permissions=["change"])
    def publish_selected(self, request, queryset):
        for batch in queryset:
            self._apply(request, batch, "publish")

    @admin.action(description="Close selected batches", permissions=["change"])
    def close_selected(self, request, queryset):
        for batch in queryset:
            self._apply(request, batch, "close")


@admin.register(BatchItem)
class BatchItemAdmin(admin.ModelAdmin):
    list_display = ("id", "batch", "proverb", "narrative", "is_gold")
    list_filter = ("batch", "is_gold")
    list_select_related = ("batch", *ITEM_SUBJECTS)
    raw_id_fields = ("proverb", "narrative", "source_assignment", "choice_question")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("id", "item", "worker", "status", "started_at", "submitted_at")
    list_filter = ("status", "item__batch")
    list_select_related = ("worker", *(f"item__{subject}" for subject in ITEM_SUBJECTS))
    raw_id_fields = ("item", "worker")
