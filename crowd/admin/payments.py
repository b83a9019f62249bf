"""Payments: the report (page and CSV) per worker and batch, and each batch's realised pay
with its target rate, the provider's reward recommendation and the one-action top-up.

Viewing needs view_bonus; setting the target rate change_batch; topping up (bonuses)
review_batch, after a confirmation listing whom it pays and how much. Amounts are written
by crowd.money; the CSV goes through common.csv_cells (formula cells neutralised).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect

from common.csv_cells import SafeCsvWriter
from crowd.admin.read_only import AdminPages, ReadOnlyAdmin
from crowd.admin.review import REVIEW_PERMISSION
from crowd.forms import BatchForm
from crowd.models import Batch, Bonus
from crowd.money import money_text
from crowd.pay import batch_realised_pay, batch_target_rate_set, batch_top_up, payments_report
from crowd.providers import ProviderError, batch_currency, get_provider

# worker: the name every page shows ("Lab 4"); worker_id: the provider's id for that worker.
CSV_FIELDS = (
    "batch",
    "worker",
    "worker_id",
    "provider",
    "paid_tasks",
    "rewards",
    "bonuses",
    "bonus_states",
)
SETTINGS_PERMISSION = "crowd.change_batch"


class TargetRateForm(forms.Form):
    """The target hourly rate as typed (an amount such as 12.50; empty: no target)."""

    target = BatchForm.base_fields["target_hourly_rate"]

    def __init__(self, *args, currency: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target"].show_currency(currency)


@admin.register(Bonus)
class PaymentsAdmin(AdminPages, ReadOnlyAdmin):
    """Crowd work › Bonuses is the payments report: rewards and bonuses per worker and batch."""

    pages = (("batch/<int:batch_id>/", "batch_view", "crowd_batch_pay"),)

    def changelist_view(self, request, extra_context=None):
        """The payments report, for one batch (?batch=) or all; ?format=csv downloads it."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        batch = None
        if request.GET.get("batch", "").isdigit():
            batch = get_object_or_404(Batch, pk=request.GET["batch"])
        rows = payments_report(batch=batch)
        if request.GET.get("format") == "csv":
            return _report_csv(rows)
        return self._page(
            request,
            "admin/crowd/payments/report.html",
            title="Payments" + (f": {batch.name}" if batch else ""),
            rows=rows,
            batch=batch,
            unknown=sum(row["unknown"] for row in rows),
        )

    def batch_view(self, request, batch_id: int):
        """Realised pay of one batch; POST sets the target rate or tops up to it."""
        batch = get_object_or_404(Batch, pk=batch_id)
        if not self.has_view_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            paying = "top_up" in request.POST or "top_up_confirmed" in request.POST
            if not request.user.has_perm(REVIEW_PERMISSION if paying else SETTINGS_PERMISSION):
                raise PermissionDenied
            if "top_up" in request.POST:
                return self._top_up_confirmation(request, batch)
            if paying:
                self._top_up(request, batch)
            else:
                self._target_set(request, batch)
            return redirect("admin:crowd_batch_pay", batch_id=batch.pk)
        recommendation, recommendation_error = None, ""
        try:
            recommendation = get_provider(batch.provider).reward_recommendation(batch=batch)
        except ProviderError as error:
            recommendation_error = str(error)
        pay, currency = batch_realised_pay(batch=batch), batch_currency(batch)
        return self._page(
            request,
            "admin/crowd/payments/batch.html",
            title=f"Realised pay: {batch.name}",
            batch=batch,
            pay=pay,
            currency=currency,
            target_form=TargetRateForm(initial={"target": pay["target"]}, currency=currency),
            median_minutes=pay["median_seconds"] / 60 if pay["median_seconds"] else None,
            recommendation=recommendation,
            recommendation_error=recommendation_error,
            can_pay=request.user.has_perm(REVIEW_PERMISSION),
            can_set_target=request.user.has_perm(SETTINGS_PERMISSION),
        )

    def _top_up_confirmation(self, request, batch: Batch):
        """What *Top up* would pay, worker by worker, with a button that pays it."""
        pay = batch_realised_pay(batch=batch)
        return self._page(
            request,
            "admin/crowd/payments/top_up.html",
            title=f"Top up to the target rate: {batch.name}",
            batch=batch,
            pay=pay,
            currency=batch_currency(batch),
            owed=[row for row in pay["workers"] if row["top_up"] > 0],
        )

    def _top_up(self, request, batch: Batch) -> None:
        try:
            outcome = batch_top_up(batch=batch)
        except ValueError as error:
            self.message_user(request, str(error), messages.ERROR)
            return
        self.message_user(
            request,
            f"Topped up {outcome['paid']} worker(s) with "
            f"{money_text(outcome['cents'], batch_currency(batch))} in "
            "bonuses to the target rate.",
        )
        for reason in outcome["refused"]:
            self.message_user(request, reason, messages.WARNING)

    def _target_set(self, request, batch: Batch) -> None:
        form = TargetRateForm(request.POST)
        if not form.is_valid():
            self.message_user(request, " ".join(form.errors["target"]), messages.ERROR)
            return
        batch_target_rate_set(batch=batch, target_hourly_cents=form.cleaned_data["target"])
        self.message_user(request, "Target hourly rate saved.")


def _report_csv(rows) -> HttpResponse:
    """The report as CSV: amounts as on the page, formula cells neutralised."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="payments.csv"'
    writer = SafeCsvWriter(response)
    writer.writerow(CSV_FIELDS)
    for row in rows:
        writer.writerow(
            [
                row["batch"].name,
                str(row["worker"]),
                row["worker"].external_id,
                row["worker"].provider,
                row["tasks"],
                money_text(row["rewards"], row["currency"]),
                money_text(row["bonus_cents"], row["currency"]),
                "; ".join(
                    f"{money_text(bonus.cents, row['currency'])} {state}"
                    for bonus, state in row["bonuses"]
                ),
            ]
        )
    return response
