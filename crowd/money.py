"""Money as Parable writes, reads and takes it: stored in cents, written with two decimals
and the currency's code where known ("0.25", "63.91 GBP"), typed by researchers as an
amount, never cents, within a sane range (`AmountField`, `cents_from_amount`)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import forms

# The most one task's reward or one bonus may be: far above any real study, low enough
# that cents typed as an amount ("25" for 0.25) are refused.
MAX_PER_TASK = Decimal("20.00")
MAX_HOURLY = Decimal("200.00")


def money_text(cents: int | float | None, currency: str = "") -> str:
    """Cents as an amount with two decimals and the currency code when known ("—": none)."""
    if cents is None:
        return "—"
    amount = f"{Decimal(str(cents)) / 100:.2f}"
    return f"{amount} {currency}" if currency else amount


def cents_from_amount(text: str, *, maximum: Decimal = MAX_PER_TASK, zero: bool = False) -> int:
    """The cents of an amount typed as "12.50" (two decimals at most, above 0 or with `zero`
    0 too, at most `maximum`); ValueError says what is wrong and how to write it."""
    try:
        amount = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{text.strip()!r} is not an amount (write it like 0.25).") from None
    if not amount.is_finite() or amount < 0 or (amount == 0 and not zero):
        raise ValueError(f"An amount is {'0 or more' if zero else 'above 0'}.")
    if amount > maximum:
        raise ValueError(
            f"An amount here is at most {maximum:.2f}. Amounts are typed in the currency, "
            f"not in cents: {amount} cents would be {amount / 100:.2f}."
        )
    if amount != amount.quantize(Decimal("0.01")):
        raise ValueError("An amount has at most two decimals (cents).")
    return int(amount * 100)


class AmountField(forms.CharField):
    """A money input: typed as an amount in the study's currency ("0.25"), shown the same
    way, cleaned to cents (None when left empty)."""

    def __init__(self, *, maximum=MAX_PER_TASK, zero=False, help_text="", **kwargs):
        self.maximum, self.zero, low = maximum, zero, "0" if zero else "0.01"
        help_text += (
            f" An amount in the study's currency, like 0.50 (not cents), {low} to {maximum}."
        )
        attrs = {"step": "0.01", "min": low, "max": f"{maximum}"}
        super().__init__(widget=forms.NumberInput(attrs), help_text=help_text.strip(), **kwargs)

    def show_currency(self, currency: str) -> None:  # "Reward per task (GBP)"
        self.label += f" ({currency})" if currency else ""

    def prepare_value(self, value):
        return money_text(value) if isinstance(value, int) else value

    def to_python(self, value) -> int | None:
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return cents_from_amount(text, maximum=self.maximum, zero=self.zero)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from error
