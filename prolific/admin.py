"""Admin of Prolific studies: prepare a draft batch as a study, see Prolific's cost and
confirm before publishing, follow status and counts, pause/resume/stop, add places, sync;
participants' sessions (unvouched ones flagged, approval, bonuses, messages, blocks),
submissions, webhooks. The calls to Prolific these decide are Crowd work › Provider calls.
"""

from __future__ import annotations

from functools import partial

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from crowd.admin.read_only import AdminPages, ReadOnlyAdmin
from crowd.admin.review import REVIEW_PERMISSION, BonusForm, action_form_step, apply_each
from crowd.batches import batch_close
from crowd.models import Batch
from crowd.providers import ProviderError
from crowd.review import ReviewError, worker_block, worker_unblock, workers_notify
from prolific.forms import BlockForm, MessageForm, PlacesForm, StudyForm
from prolific.models import ParticipantSession, Study, Submission, WebhookEvent, WebhookRefusal
from prolific.preflight import preflight, study_publish_confirmed
from prolific.review import sessions_approve, sessions_bonus
from prolific.selectors import (
    account_summary,
    polling,
    studies_with_counts,
    study_counts,
    study_rates,
    webhook_silence,
)
from prolific.studies import study_cost, study_places_add, study_prepare, study_transition
from prolific.submissions import study_sync

FAILURES = (ValueError, ProviderError)


def _count(name: str, title: str):
    """A list column showing one of `studies_with_counts`' counts."""
    return admin.display(description=title)(lambda _, study: getattr(study, f"{name}_count"))


@admin.register(Study)
class StudyAdmin(AdminPages, admin.ModelAdmin):
    list_display = (
        "batch",
        "study_id",
        "status",
        "items_per_session",
        "total_available_places",
        "sessions",
        "awaiting",
        "approved",
        "returned",
        "unvouched",
        "manage_link",
    )
    list_filter = ("status",)
    search_fields = ("batch__name", "study_id")
    actions = ("sync_selected",)
    pages = (("<int:study_pk>/manage/", "manage_view", "prolific_study_manage"),)

    def get_queryset(self, request):
        return studies_with_counts()

    def has_change_permission(self, request, obj=None):
        return False  # settings are set when preparing; the manage page acts on a study

    sessions = _count("session", "Sessions")
    awaiting = _count("awaiting", "Awaiting review")
    approved = _count("approved", "Approved")
    returned = _count("returned", "Returned / timed out")
    unvouched = _count("unvouched", "No Prolific submission")

    @admin.display(description="")
    def manage_link(self, study):
        url = reverse("admin:prolific_study_manage", args=[study.pk])
        return format_html('<a href="{}">Cost, publish and manage</a>', url)

    def changelist_view(self, request, extra_context=None):
        self.message_user(request, account_summary(), messages.INFO)
        _, syncing = polling()
        self.message_user(request, f"{syncing[:1].upper()}{syncing[1:]}.", messages.INFO)
        silence = webhook_silence()
        if silence:
            self.message_user(request, silence, messages.WARNING)
        for study in Study.objects.filter(status="ACTIVE", high_return_rate_at__isnull=False):
            self.message_user(
                request,
                f"Prolific reports a high return rate on “{study.batch.name}”: check its "
                "instructions and time estimate, and pause it from its manage page if needed.",
                messages.WARNING,
            )
        return super().changelist_view(request, extra_context)

    def add_view(self, request, form_url="", extra_context=None):
        """Make a draft batch a Prolific study (add-study permission); nothing goes to
        Prolific until the cost is confirmed on the manage page."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = StudyForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                study = study_prepare(**form.study_fields())
            except FAILURES as error:
                form.add_error(None, str(error))
            else:
                return redirect("admin:prolific_study_manage", study_pk=study.pk)
        context = self._context(request, title="Run a batch on Prolific", form=form)
        return TemplateResponse(request, "admin/prolific/study/prepare.html", context)

    def manage_view(self, request, study_pk: int):
        """Cost before publishing, status and counts; POST actions need change-batch."""
        study = get_object_or_404(Study.objects.select_related("batch"), pk=study_pk)
        if not self.has_view_permission(request, study):
            raise PermissionDenied
        places_form = PlacesForm()
        if request.method == "POST":
            if not request.user.has_perm("crowd.change_batch"):
                raise PermissionDenied
            places_form = PlacesForm(request.POST if "places" in request.POST else None)
            if self._act(request, study, places_form):
                return redirect("admin:prolific_study_manage", study_pk=study.pk)
        cost, cost_error, rates, checks = None, "", None, []
        if not study.study_id or study.status in ("", "UNPUBLISHED"):
            checks = preflight(study=study)
            try:
                cost = study_cost(study=study)
                rates = study_rates(study=study)
            except FAILURES as error:
                cost_error = str(error)
        study.refresh_from_db()
        context = self._context(
            request,
            title=f"Prolific study: {study.batch.name}",
            study=study,
            batch=study.batch,
            counts=study_counts(study=study),
            cost=cost,
            cost_error=cost_error,
            rates=rates,
            checks=checks,
            publish_refused=any(check.blocking and not check.ok for check in checks),
            places_form=places_form,
            can_change=request.user.has_perm("crowd.change_batch"),
        )
        return TemplateResponse(request, "admin/prolific/study/manage.html", context)

    def _act(self, request, study: Study, places_form: PlacesForm) -> bool:
        post = request.POST
        try:
            if "confirm_publish" in post:
                study_publish_confirmed(study=study, cost_cents=int(post.get("cost_cents", "-1")))
                self.message_user(request, f"“{study.batch.name}” is published on Prolific.")
            elif "places" in post:
                if not places_form.is_valid():
                    return False
                added = study_places_add(study=study, places=places_form.cleaned_data["places"])
                self.message_user(
                    request, f"Places added on Prolific; the study is {added.status}."
                )
            elif "stop" in post:
                batch_close(batch=study.batch)
                self.message_user(request, "The study is stopped and the batch closed.")
            elif "sync" in post:
                seen = study_sync(study=study)
                self.message_user(request, f"{seen} submission(s) read from Prolific.")
            else:
                action = "pause" if "pause" in post else "resume"
                study_transition(study=study, action=action)
                self.message_user(request, f"Study {action}d on Prolific.")
        except FAILURES as error:
            self.message_user(request, str(error), messages.ERROR)
        return True

    @admin.action(description="Sync selected studies from Prolific")
    def sync_selected(self, request, queryset):
        for study in queryset:
            try:
                seen = study_sync(study=study)
            except FAILURES as error:
                self.message_user(request, f"{study}: {error}", messages.ERROR)
            else:
                self.message_user(request, f"{study}: {seen} submission(s) read.")


class VouchedFilter(admin.SimpleListFilter):
    title = "Prolific submission"
    parameter_name = "vouched"

    def lookups(self, request, model_admin):
        return [("yes", "Vouched for by Prolific"), ("no", "None: not counted or paid")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(submission__isnull=self.value() == "no")
        return queryset


@admin.register(ParticipantSession)
class ParticipantSessionAdmin(admin.ModelAdmin):
    list_display = (
        "session_id",
        "participant",
        "study",
        "status",
        "prolific_submission",
        "started_at",
        "finished_at",
    )
    list_filter = (VouchedFilter, "status", "study")
    search_fields = ("session_id", "worker__external_id")
    list_select_related = ("worker", "study__batch", "submission")
    actions = (
        "approve_selected",
        "bonus_selected",
        "message_selected",
        "block_selected",
        "unblock_selected",
    )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Pay a bonus to selected participants…", permissions=["review"])
    def bonus_selected(self, request, queryset):
        data, response = action_form_step(
            self,
            request,
            queryset,
            form_class=BonusForm,
            action="bonus_selected",
            title="Pay a bonus",
            form_options={
                "batches": Batch.objects.filter(prolific_study__sessions__in=queryset).distinct()
            },
        )
        if response is not None:
            return response
        outcome = sessions_bonus(
            sessions=list(queryset), cents=data["amount"], reason=data["reason"]
        )
        self.message_user(request, f"Bonus recorded for {outcome['paid']} participant(s).")
        for reason in outcome["refused"]:
            self.message_user(request, reason, messages.WARNING)
        return None

    @admin.action(description="Message selected participants on Prolific…", permissions=["review"])
    def message_selected(self, request, queryset):
        data, response = action_form_step(
            self, request, queryset, form_class=MessageForm, action="message_selected", title="Send"
        )
        if response is not None:
            return response
        workers = _workers(queryset)
        try:
            workers_notify(workers=workers, **data)
        except ReviewError as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.message_user(request, f"Message queued for {len(workers)} participant(s).")
        return None

    @admin.action(description="Block selected participants…", permissions=["review"])
    def block_selected(self, request, queryset):
        data, response = action_form_step(
            self, request, queryset, form_class=BlockForm, action="block_selected", title="Block"
        )
        if response is not None:
            return response
        block = partial(worker_block, **data)
        apply_each(self, request, _workers(queryset), block, "participant(s) blocked")
        return None

    @admin.action(description="Unblock selected participants", permissions=["review"])
    def unblock_selected(self, request, queryset):
        apply_each(self, request, _workers(queryset), worker_unblock, "participant(s) unblocked")

    def has_review_permission(self, request) -> bool:
        return request.user.has_perm(REVIEW_PERMISSION)

    @admin.display(description="Participant")
    def participant(self, session):
        return session.worker.external_id

    @admin.display(description="Prolific submission")
    def prolific_submission(self, session):
        if session.submission is None:
            return format_html('<strong class="unvouched">{}</strong>', "None: flagged")
        return session.submission.status_shown

    @admin.action(
        description="Approve selected sessions (each submission on Prolific too, once)",
        permissions=["review"],
    )
    def approve_selected(self, request, queryset):
        try:
            outcome = sessions_approve(sessions=list(queryset))
        except FAILURES as error:
            self.message_user(request, str(error), messages.ERROR)
            return
        self.message_user(request, f"{outcome['approved']} item(s) approved.")
        if outcome["unvouched"]:
            self.message_user(
                request,
                f"{outcome['unvouched']} session(s) skipped: Prolific has no submission for them.",
                messages.WARNING,
            )
        for reason in outcome["refused"]:
            self.message_user(request, reason, messages.WARNING)


def _workers(sessions) -> list:
    return [session.worker for session in sessions.select_related("worker")]


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = (
        "submission_id",
        "participant_id",
        "study",
        "prolific_status",
        "study_code",
        "completed_at",
        "seen_at",
    )
    list_filter = ("status", "study")
    search_fields = ("submission_id", "participant_id")

    @admin.display(description="Status", ordering="status")
    def prolific_status(self, submission):
        return submission.status_shown


@admin.register(WebhookRefusal)
class WebhookRefusalAdmin(ReadOnlyAdmin):
    """Deliveries refused (bad signature, timestamp out of the window): Prolific disables a
    subscription whose deliveries keep failing, so these say what to fix."""

    list_display = ("received_at", "reason", "event_id", "timestamp")
    search_fields = ("event_id", "reason")


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyAdmin):
    list_display = ("event_type", "resource_id", "event_id", "received_at")
