"""The `money` template filter: cents written as every page writes money (crowd.money)."""

from django import template

from crowd.money import money_text

register = template.Library()


@register.filter
def money(cents, currency: str = "") -> str:
    """{{ cents|money }} or {{ cents|money:"GBP" }}: "0.25", "63.91 GBP", "—" for none."""
    return money_text(cents, currency)
