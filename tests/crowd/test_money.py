"""crowd.money: every amount is written, read and typed one way: as an amount in the study's
currency ("0.25"), never in cents, within a sane range."""

import pytest
from django import forms

from crowd.money import MAX_HOURLY, AmountField, cents_from_amount, money_text


def test_amounts_are_written_with_two_decimals_and_their_currency_when_known():
    assert money_text(25, "GBP") == "0.25 GBP"
    assert money_text(6300.0, "EUR") == "63.00 EUR"
    assert money_text(25) == "0.25"
    assert money_text(None, "GBP") == "—"


@pytest.mark.parametrize(
    ("typed", "cents"), [("0.25", 25), (" 12.5 ", 1250), ("20", 2000), ("0.01", 1)]
)
def test_an_amount_typed_is_read_in_cents(typed, cents):
    assert cents_from_amount(typed) == cents


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("25", "at most 20.00. Amounts are typed in the currency, not in cents: 25 cents"),
        ("0", "An amount is above 0."),
        ("-1", "An amount is above 0."),
        ("NaN", "An amount is above 0."),
        ("0.255", "at most two decimals"),
        ("25p", "'25p' is not an amount (write it like 0.25)."),
    ],
)
def test_an_amount_out_of_range_or_in_cents_is_refused_saying_why(typed, said):
    with pytest.raises(ValueError) as refused:
        cents_from_amount(typed)
    assert said in str(refused.value)


def test_a_reward_may_be_zero_and_an_hourly_rate_higher_than_one_task():
    assert cents_from_amount("0", zero=True) == 0
    assert cents_from_amount("120.00", maximum=MAX_HOURLY) == 12000
    with pytest.raises(ValueError, match=r"at most 200\.00"):
        cents_from_amount("250", maximum=MAX_HOURLY)


class RewardForm(forms.Form):
    reward = AmountField(label="Reward per task", zero=True)
    bonus = AmountField(label="Bonus", required=False)


def test_the_money_input_shows_cents_as_an_amount_with_the_currency_and_cleans_to_cents():
    form = RewardForm(initial={"reward": 50})
    form.fields["reward"].show_currency("GBP")
    html = str(form["reward"])
    assert 'value="0.50"' in html and 'step="0.01"' in html and 'max="20.00"' in html
    assert form.fields["reward"].label == "Reward per task (GBP)"
    assert "An amount in the study's currency, like 0.50 (not cents)" in (
        form.fields["reward"].help_text
    )
    typed = RewardForm(data={"reward": "0.75", "bonus": ""})
    assert typed.is_valid() and typed.cleaned_data == {"reward": 75, "bonus": None}
    in_cents = RewardForm(data={"reward": "75"})
    assert not in_cents.is_valid()
    assert "75 cents would be 0.75" in in_cents.errors["reward"][0]
    assert in_cents["reward"].value() == "75"  # shown back as typed
