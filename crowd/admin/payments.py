"""Payments: the report (page and CSV) per worker and batch, and each batch's realised pay
with its target rate, the provider's reward recommendation and the one-action top-up.

Viewing needs the view-bonus permission; setting a target and topping up need
review_batch (researchers and reviewers), as every bonus does.
"""

from __future__ import annotations

import csv

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path

from crowd.admin.read_only import ReadOnlyAdmin
from crowd.admin.review import REVIEW_PERMISSION
from crowd.models import Batch, Bonus
from crowd.pay import batch_realised_pay, batch_target_rate_set, batch_top_up, payments_report
from crowd.providers import ProviderError, get_provider

CSV_FIELDS = ("batch", "worker", "provider", "paid_tasks", "rewards", "bonuses", "bonus_states")


def _money(cents) -> str:
    return "" if cents is None else f"{cents / 100:.2f}"


@admin.register(Bonus)
class PaymentsAdmin(ReadOnlyAdmin):
    """Crowd work › Bonuses is the payments report: rewards and bonuses per worker and batch."""

    def get_urls(self):
        return [
            path(
                "batch/<int:batch_id>/",
                self.admin_site.admin_view(self.batch_view),
                name="crowd_batch_pay",
            ),
            *super().get_urls(),
        ]

    def _context(self, request, **extra):
        return {**self.admin_site.each_context(request), "opts": self.model._meta, **extra}

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
        context = self._context(
            request,
            title="Payments" + (f": {batch.name}" if batch else ""),
            rows=rows,
            batch=batch,
            unknown=sum(row["unknown"] for row in rows),
        )
        return TemplateResponse(request, "admin/crowd/payments/report.html", context)

    def batch_view(self, request, batch_id: int):
        """Realised pay of one batch; POST sets the target rate or tops up to it."""
        batch = get_object_or_404(Batch, pk=batch_id)
        if not self.has_view_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            if not request.user.has_perm(REVIEW_PERMISSION):
                raise PermissionDenied
            self._act(request, batch)
            return redirect("admin:crowd_batch_pay", batch_id=batch.pk)
        recommendation, recommendation_error = None, ""
        try:
            recommendation = get_provider(batch.provider).reward_recommendation(batch=batch)
        except ProviderError as error:
            recommendation_error = str(error)
        pay = batch_realised_pay(batch=batch)
        context = self._context(
            request,
            title=f"Realised pay: {batch.name}",
            batch=batch,
            pay=pay,
            median_minutes=pay["median_seconds"] / 60 if pay["median_seconds"] else None,
            hourly=_money(pay["hourly"]),
            target=_money(pay["target"]),
            top_up=_money(pay["top_up"]),
            recommendation=recommendation,
            recommendation_error=recommendation_error,
            can_pay=request.user.has_perm(REVIEW_PERMISSION),
        )
        return TemplateResponse(request, "admin/crowd/payments/batch.html", context)

    def _act(self, request, batch: Batch) -> None:
        try:
            if "top_up" in request.POST:
                outcome = batch_top_up(batch=batch)
                self.message_user(
                    request,
                    f"Topped up {outcome['paid']} worker(s) with "
                    f"{outcome['cents'] / 100:.2f} in bonuses to the target rate.",
                )
                for reason in outcome["refused"]:
                    self.message_user(request, reason, messages.WARNING)
            else:
                raw = request.POST.get("target", "").strip()
                cents = round(float(raw) * 100) if raw else None
                batch_target_rate_set(batch=batch, target_hourly_cents=cents)
                self.message_user(request, "Target hourly rate saved.")
        except (ValueError, OverflowError) as error:
            self.message_user(request, str(error) or "Not an amount.", messages.ERROR)


def _report_csv(rows) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="payments.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_FIELDS)
    for row in rows:
        writer.writerow(
            [
                row["batch"].name,
                row["worker"].external_id,
                row["worker"].provider,
                row["tasks"],
                _money(row["rewards"]),
                _money(row["bonus_cents"]),
                "; ".join(f"{bonus.amount} {state}" for bonus, state in row["bonuses"]),
            ]
        )
    return response
