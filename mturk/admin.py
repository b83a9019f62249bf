"""MTurk in the admin: a batch's settings, and one page per batch with its HITs,
assignments, flags and every review action. Viewing needs the view-batch permission; review
actions the review-batch one; publishing, syncing and changing HITs the change-batch one.
Worker text reaches the pages only through Django's autoescaping."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from annotation.intake.uploads import UploadTooLarge, upload_read
from crowd import task_types
from crowd.admin.read_only import AdminPages, ReadOnlyAdmin
from crowd.batches import batch_publish
from crowd.models import Assignment, Batch, Worker
from crowd.money import cents_from_amount, money_text
from crowd.providers import ProviderError
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_bonus,
    assignment_reject,
    worker_block,
    worker_unblock,
)
from mturk.hits import hit_assignments_add, hit_expire, hit_extend
from mturk.importing import mapping_help, mturk_results_import
from mturk.models import HIT, MTurkAssignment, Publication
from mturk.publishing import publication_set
from mturk.results import ResultsFileError
from mturk.review import batch_workers_notify
from mturk.selectors import auto_approval_due, batch_hits, unmatched_answers
from mturk.sync import batch_sync

PUBLICATION_FIELDS = (
    "title",
    "description",
    "keywords",
    "auto_approval_delay_seconds",
    "lifetime_seconds",
    "locales",
    "min_approval_rate",
    "min_approved_hits",
    "test_xml",
    "answer_key_xml",
    "test_min_score",
)

# The batch page's actions: those that need the review-batch permission, and the others,
# which need the change-batch one.
REVIEW_ACTIONS = ("approve", "reject", "bonus", "block", "unblock")
CHANGE_ACTIONS = ("publish", "sync", "expire", "extend", "add", "notify")
# The calls a review decides go to MTurk once it is saved (crowd.outbox).
TOLD = "MTurk is told now (Crowd work › Provider calls shows when it has answered)."


class MinutesField(forms.IntegerField):
    """A duration kept in seconds, shown and typed in minutes."""

    def prepare_value(self, value):
        return value // 60 if isinstance(value, int) else value

    def to_python(self, value):
        minutes = super().to_python(value)
        return None if minutes is None else minutes * 60


class PublicationForm(forms.ModelForm):
    auto_approval_delay_seconds = MinutesField(
        label="Auto-approval delay (minutes)",
        min_value=0,
        max_value=30 * 24 * 3600,
        initial=3 * 24 * 3600,
        help_text="MTurk approves submitted work on its own after this (at most 30 days).",
    )
    lifetime_seconds = MinutesField(
        label="HIT lifetime (minutes)",
        min_value=60,
        max_value=365 * 24 * 3600,
        initial=7 * 24 * 3600,
        help_text="How long the HITs stay available to workers.",
    )

    class Meta:
        model = Publication
        fields = ("batch", *PUBLICATION_FIELDS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "batch" in self.fields:  # absent when the settings are shown read only
            self.fields["batch"].queryset = Batch.objects.filter(status=Batch.Status.DRAFT)
            self.fields["batch"].help_text = "A draft batch; it becomes an MTurk batch."


class ResultsImportForm(forms.Form):
    file = forms.FileField(help_text="The batch results CSV from MTurk's requester site.")
    batch_type = forms.ChoiceField(choices=[])
    mapping = forms.CharField(widget=forms.TextInput(attrs={"size": 90}))
    batch_name = forms.CharField(required=False, help_text="Default: from the file name.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["batch_type"].choices = [
            (key, task_types.get(key).label) for key in task_types.keys_importable()
        ]
        self.fields["mapping"].help_text = mapping_help()


class DurationsInMinutes:
    """Read only (a published batch's settings, a HIT), the durations kept in seconds show
    in minutes, as the settings form takes them."""

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fields
        shown = {
            "auto_approval_delay_seconds": "auto_approval_delay",
            "lifetime_seconds": "lifetime",
        }
        return [shown.get(name, name) for name in fields]

    @admin.display(description="Auto-approval delay (minutes)")
    def auto_approval_delay(self, record):
        return record.auto_approval_delay_seconds // 60

    @admin.display(description="HIT lifetime (minutes)")
    def lifetime(self, publication):
        return publication.lifetime_seconds // 60


@admin.register(Publication)
class PublicationAdmin(AdminPages, DurationsInMinutes, admin.ModelAdmin):
    """A batch's MTurk settings; its MTurk page is where everything else happens."""

    form = PublicationForm
    list_display = ("batch", "title", "hit_type_id", "batch_page")
    readonly_fields = ("hit_type_id", "exclusion_qualification_id", "test_qualification_id")
    pages = (
        ("batch/<int:batch_id>/", "batch_view", "mturk_batch"),
        ("import-results/", "import_view", "mturk_import_results"),
    )

    def has_change_permission(self, request, obj=None):
        # Once published, a batch's HIT type is fixed on MTurk: the settings are read only.
        if obj is not None and obj.batch.status != Batch.Status.DRAFT:
            return False
        return super().has_change_permission(request, obj)

    @admin.display(description="MTurk page")
    def batch_page(self, publication):
        url = reverse("admin:mturk_batch", args=[publication.batch_id])
        return format_html('<a href="{}">Open</a>', url)

    def save_model(self, request, obj, form, change):
        fields = {name: form.cleaned_data.get(name) for name in PUBLICATION_FIELDS}
        saved = publication_set(batch=form.cleaned_data.get("batch", obj.batch), **fields)
        obj.pk = saved.pk

    def response_post_save_add(self, request, obj):
        return redirect("admin:mturk_batch", batch_id=obj.batch_id)

    def import_view(self, request):
        """Upload a batch results CSV (add-batch permission): the same service as the command."""
        if not request.user.has_perm("crowd.add_batch"):
            raise PermissionDenied
        form = ResultsImportForm(request.POST or None, request.FILES or None)
        report = None
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                report = mturk_results_import(
                    content=upload_read(upload),
                    batch_type=form.cleaned_data["batch_type"],
                    mapping=form.cleaned_data["mapping"],
                    batch_name=form.cleaned_data["batch_name"] or f"MTurk results: {upload.name}",
                    created_by=request.user,
                )
            except UploadTooLarge as error:
                form.add_error(None, str(error))
            except ResultsFileError as error:
                form.add_error(None, f"Nothing was imported: {error}")
        context = self._context(
            request, title="Import MTurk batch results", form=form, report=report
        )
        return TemplateResponse(request, "admin/mturk/import.html", context)

    def batch_view(self, request, batch_id: int):
        """HITs with their assignments, flags, warnings; POST runs one action."""
        batch = get_object_or_404(Batch, pk=batch_id, provider="mturk")
        if not request.user.has_perm("crowd.view_batch"):
            raise PermissionDenied
        if request.method == "POST":
            self._act(request, batch)
            return redirect("admin:mturk_batch", batch_id=batch.pk)
        now = timezone.now()
        context = self._context(
            request,
            title=f"MTurk: {batch.name}",
            batch=batch,
            hits=batch_hits(batch=batch),
            unmatched=unmatched_answers(batch=batch),
            # An answer MTurk has not vouched for can be rejected here before sync does.
            reviewable=(Assignment.Status.SUBMITTED, Assignment.Status.UNCONFIRMED),
            due=auto_approval_due(batch=batch, now=now),
            now=now,
            can_review=request.user.has_perm("crowd.review_batch"),
            can_change=request.user.has_perm("crowd.change_batch"),
        )
        return TemplateResponse(request, "admin/mturk/batch.html", context)

    def _act(self, request, batch: Batch) -> None:
        """Run the posted action through its handler, _do_<action>."""
        action = request.POST.get("action", "")
        needed = "crowd.review_batch" if action in REVIEW_ACTIONS else "crowd.change_batch"
        if not request.user.has_perm(needed):
            raise PermissionDenied
        if action not in REVIEW_ACTIONS + CHANGE_ACTIONS:
            self.message_user(request, "Unknown action.", messages.ERROR)
            return
        try:
            self.message_user(request, getattr(self, f"_do_{action}")(request, batch))
        except (ValueError, ReviewError, ProviderError) as error:
            self.message_user(request, str(error), messages.ERROR)

    @staticmethod
    def _answer(request, batch) -> Assignment:
        return get_object_or_404(Assignment, pk=request.POST.get("answer"), item__batch=batch)

    @staticmethod
    def _hit(request, batch) -> HIT:
        return get_object_or_404(HIT, pk=request.POST.get("hit"), batch=batch)

    @staticmethod
    def _worker(request) -> Worker:
        return get_object_or_404(Worker, pk=request.POST.get("worker"), provider="mturk")

    def _do_publish(self, request, batch):
        return f"“{batch_publish(batch=batch).name}” published on MTurk."

    def _do_sync(self, request, batch):
        return f"Synced: {batch_sync(batch=batch)} assignment(s) new or changed."

    def _do_approve(self, request, batch):
        answer = assignment_approve(
            assignment=self._answer(request, batch), message=request.POST.get("feedback", "")
        )
        return f"Assignment {answer.pk} approved; {TOLD}"

    def _do_reject(self, request, batch):
        answer = assignment_reject(
            assignment=self._answer(request, batch), message=request.POST.get("feedback", "")
        )
        return f"Assignment {answer.pk} rejected; its slot reopened; {TOLD}"

    def _do_bonus(self, request, batch):
        answer = assignment_bonus(
            assignment=self._answer(request, batch),
            cents=cents_from_amount(request.POST.get("amount", "")),
            reason=request.POST.get("reason", ""),
        )
        return (
            "Bonus recorded, to be paid on MTurk once (its state: the payments report); "
            f"assignment {answer.pk} has {money_text(answer.bonus_cents, 'USD')} in bonuses."
        )

    def _do_block(self, request, batch):
        worker = worker_block(worker=self._worker(request), reason=request.POST.get("reason", ""))
        return f"Worker {worker.external_id} blocked; {TOLD}"

    def _do_unblock(self, request, batch):
        worker = worker_unblock(worker=self._worker(request))
        return f"Worker {worker.external_id} unblocked; {TOLD}"

    def _do_expire(self, request, batch):
        return f"HIT {hit_expire(hit=self._hit(request, batch)).hit_id} expired."

    def _do_extend(self, request, batch):
        hours = _whole_number(request, "hours", "The number of hours")
        hit = hit_extend(hit=self._hit(request, batch), seconds=hours * 3600)
        return f"HIT {hit.hit_id} open until {hit.expires_at:%Y-%m-%d %H:%M} UTC."

    def _do_add(self, request, batch):
        hit = hit_assignments_add(
            hit=self._hit(request, batch),
            count=_whole_number(request, "count", "The number of assignments"),
        )
        return f"HIT {hit.hit_id} now takes {hit.max_assignments} assignments."

    def _do_notify(self, request, batch):
        sent = batch_workers_notify(
            batch=batch,
            subject=request.POST.get("subject", ""),
            message=request.POST.get("message", ""),
        )
        return f"Message queued for {sent} worker(s), one call each; {TOLD}"


def _whole_number(request, name: str, label: str) -> int:
    """A posted whole number; ValueError naming the field otherwise."""
    value = request.POST.get(name, "").strip()
    if not value.lstrip("-").isdigit() or len(value) > 12:
        raise ValueError(f"{label} must be a whole number.")
    return int(value)


@admin.register(HIT)
class HITAdmin(DurationsInMinutes, ReadOnlyAdmin):
    list_display = ("hit_id", "batch", "item", "status", "max_assignments", "expires_at")
    list_filter = ("status", "batch")


@admin.register(MTurkAssignment)
class MTurkAssignmentAdmin(ReadOnlyAdmin):
    list_display = (
        "assignment_id",
        "hit",
        "worker_id",
        "status",
        "submitted_at",
        "auto_approval_at",
        "answer",
    )
    list_filter = ("status", "hit__batch")
