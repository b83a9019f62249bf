"""Money as Parable writes and reads it: one format for every page, message and report.

Amounts are stored in cents (hundredths of the study's currency). They are written with two
decimals, followed by the currency's code where Parable knows it (Prolific says it; the
local lab's currency is the lab's own, so none is written): "0.25", "63.91 GBP". Amounts
typed by a researcher are read with `cents_from_amount`, which refuses what no
PositiveIntegerField holds instead of failing on save.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

# The largest hourly rate or bonus typed in: far above any real study, and far below what
# a cents column holds (common.request_input.MAX_INT).
MAX_AMOUNT = Decimal("100000.00")


def money_text(cents: int | float | None, currency: str = "") -> str:
    """Cents as an amount with two decimals and the currency code when known ("—": none)."""
    if cents is None:
        return "—"
    amount = f"{Decimal(str(cents)) / 100:.2f}"
    return f"{amount} {currency}" if currency else amount


def cents_from_amount(text: str) -> int:
    """The cents of an amount typed as "12.50" (at most two decimals, above 0, at most
    MAX_AMOUNT); raises ValueError with a sentence that says what is wrong."""
    try:
        amount = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{text.strip()!r} is not an amount (write it like 12.50).") from None
    if not amount.is_finite() or amount <= 0:
        raise ValueError("An amount is above 0.")
    if amount > MAX_AMOUNT:
        raise ValueError(f"An amount is at most {money_text(int(MAX_AMOUNT * 100))}.")
    if amount != amount.quantize(Decimal("0.01")):
        raise ValueError("An amount has at most two decimals (cents).")
    return int(amount * 100)
