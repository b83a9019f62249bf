"""Admin review actions shared by every task type's review list (a ModelAdmin of a model
with an `assignment` key mixes in ReviewActions): approve, reject, block, pay a bonus,
approve and exclude; each needs the `review_batch` permission.
"""

from __future__ import annotations

from functools import partial

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse

from crowd.models import Assignment, Batch, SavedReviewMessage, Worker
from crowd.money import AmountField
from crowd.providers import ProviderError, batch_currency
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_approve_exclude,
    assignment_bonus,
    assignment_reject,
    worker_block,
)
from crowd.withdrawals import withdrawal_impact

REVIEW_PERMISSION = "crowd.review_batch"


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown to the worker.",
    )


class BonusForm(forms.Form):
    amount = AmountField(label="Bonus", help_text="Paid on each one selected.")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Shown to the worker. The same reason and amount is paid once per submission.",
    )

    def __init__(self, *args, batches=(), **kwargs):
        super().__init__(*args, **kwargs)
        currencies = {batch_currency(batch) for batch in batches}
        self.fields["amount"].show_currency(currencies.pop() if len(currencies) == 1 else "")


class ExclusionForm(forms.Form):
    exclusion = forms.CharField(
        label="Reason",
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Kept with the work, not shown to the worker, who is paid as for approved work.",
    )


def action_form_step(
    model_admin, request, queryset, *, form_class, action, title, form_options=None, **extra
):
    """An admin action's intermediate form (a reason, a bonus, a message), for every app's
    review actions: returns (cleaned data, None) once the form is sent and valid, else
    (None, the page that asks for it)."""
    submitted = any(name in request.POST for name in form_class.base_fields)
    form = form_class(request.POST if submitted else None, **(form_options or {}))
    if form.is_valid():
        return form.cleaned_data, None
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": title,
        "form": form,
        "queryset": queryset,
        "action": action,
        "action_checkbox_name": ACTION_CHECKBOX_NAME,
        **extra,
    }
    return None, TemplateResponse(request, "admin/crowd/review_reason.html", context)


def apply_each(model_admin, request, rows, apply, done: str) -> None:
    """A review service on each row, an assignment or a worker (passed by that name): a row
    refused is said as a warning, then how many were `done` ("3 submission(s) approved")."""
    count = 0
    for row in rows:
        try:
            apply(**{"worker" if isinstance(row, Worker) else "assignment": row})
            count += 1
        except (ReviewError, ProviderError) as error:
            model_admin.message_user(request, str(error), messages.WARNING)
    model_admin.message_user(request, f"{count} {done}.")


def withdrawal_summary(impact) -> str:
    """What rejecting approved work does downstream, in a sentence for the reviewer."""
    return (
        f"Rejecting approved work withdraws {impact.items} item(s) built on it in chained "
        f"batches: {impact.reservations} open reservation(s) are released and "
        f"{impact.answers} finished answer(s) are kept but left out of agreement and analysis."
    )


# The actions ReviewActions defines, for a review list's `actions`.
REVIEW_ACTIONS = (
    "approve_selected",
    "reject_selected",
    "block_workers",
    "bonus_selected",
    "exclude_selected",
)


class ReviewActions:
    """Mixin for ModelAdmins whose rows point at a crowd assignment (`assignment`)."""

    assignment_field = "assignment"

    def has_review_permission(self, request) -> bool:
        return request.user.has_perm(REVIEW_PERMISSION)

    def _assignments(self, queryset):
        ids = queryset.values_list(f"{self.assignment_field}_id", flat=True)
        return Assignment.objects.filter(pk__in=[pk for pk in ids if pk is not None])

    @admin.action(description="Approve selected", permissions=["review"])
    def approve_selected(self, request, queryset):
        rows = self._assignments(queryset)
        apply_each(self, request, rows, assignment_approve, "submission(s) approved")

    def _form_action(self, request, queryset, *, form_class, apply, form_options=None, **page):
        """The action's form (`page`: its action, title and more), then `apply(cleaned
        data)` once it is sent and valid; returns the form's page until then."""
        data, response = action_form_step(
            self, request, queryset, form_class=form_class, form_options=form_options, **page
        )
        if data is not None:
            apply(data)
        return response

    @admin.action(description="Reject selected (with a message)…", permissions=["review"])
    def reject_selected(self, request, queryset):
        assignments = self._assignments(queryset).select_related("item__batch")
        impact = withdrawal_impact(assignments=assignments)
        return self._form_action(
            request,
            queryset,
            form_class=ReasonForm,
            action="reject_selected",
            title="Reject submissions",
            apply=lambda data: self._reject(request, queryset, data["reason"]),
            impact=withdrawal_summary(impact) if impact.items else "",
        )

    @admin.action(
        description="Block the workers of selected (with a reason)…", permissions=["review"]
    )
    def block_workers(self, request, queryset):
        workers = Worker.objects.filter(
            pk__in=self._assignments(queryset).values("worker_id")
        ).exclude(blocked=True)
        return self._form_action(
            request,
            queryset,
            form_class=ReasonForm,
            action="block_workers",
            title="Block workers",
            apply=lambda data: apply_each(
                self,
                request,
                workers,
                partial(worker_block, reason=data["reason"]),
                "worker(s) blocked",
            ),
        )

    @admin.action(description="Pay a bonus on selected approved work…", permissions=["review"])
    def bonus_selected(self, request, queryset):
        assignments = self._assignments(queryset)
        batches = Batch.objects.filter(items__assignments__in=assignments).distinct()
        return self._form_action(
            request,
            queryset,
            form_class=BonusForm,
            action="bonus_selected",
            title="Bonus",
            form_options={"batches": batches},
            apply=lambda data: apply_each(
                self,
                request,
                assignments,
                partial(assignment_bonus, cents=data["amount"], reason=data["reason"]),
                "submission(s) given the bonus (Payments shows its state at the provider: "
                "paid, or recorded for the lab to pay)",
            ),
        )

    @admin.action(
        description="Approve and exclude selected (paid, kept out of the dataset)…",
        permissions=["review"],
    )
    def exclude_selected(self, request, queryset):
        return self._form_action(
            request,
            queryset,
            form_class=ExclusionForm,
            action="exclude_selected",
            title="Approve and exclude",
            apply=lambda data: apply_each(
                self,
                request,
                self._assignments(queryset),
                partial(assignment_approve_exclude, reason=data["exclusion"]),
                "submission(s) approved and excluded; their slots reopened",
            ),
        )

    def _reject(self, request, queryset, reason: str) -> None:
        assignments = list(self._assignments(queryset).select_related("item__batch"))
        impact = withdrawal_impact(assignments=assignments)
        done = "submission(s) rejected; their slots reopened"
        apply_each(self, request, assignments, partial(assignment_reject, message=reason), done)
        if impact.items:
            self.message_user(request, withdrawal_summary(impact), messages.WARNING)


@admin.register(SavedReviewMessage)
class SavedReviewMessageAdmin(admin.ModelAdmin):
    """Rejection messages offered in the review queue (keys 1-9, in this order)."""

    list_display = ("text", "position")
    list_editable = ("position",)
