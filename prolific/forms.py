"""The admin's Prolific forms: a draft batch's study settings, and adding places."""

from __future__ import annotations

from django import forms

from crowd.models import Batch
from prolific.client import ProlificClient, ProlificError

DEVICES = [("desktop", "Desktop"), ("tablet", "Tablet"), ("mobile", "Mobile")]


def _filter_choices(filter_id: str) -> list[tuple[str, str]]:
    """Choices of one of Prolific's eligibility filters (GET /filters/); none if unreachable."""
    try:
        filters = ProlificClient().filters()
    except ProlificError:
        return []
    for entry in filters:
        if entry.get("filter_id") == filter_id:
            return sorted(
                ((str(key), str(label)) for key, label in (entry.get("choices") or {}).items()),
                key=lambda choice: choice[1],
            )
    return []


class StudyForm(forms.Form):
    batch = forms.ModelChoiceField(
        queryset=Batch.objects.filter(status=Batch.Status.DRAFT, prolific_study__isnull=True),
        help_text="A draft batch (create it under Crowd › Batches first); it becomes a study.",
    )
    items_per_session = forms.IntegerField(
        min_value=1,
        max_value=100,
        initial=3,
        help_text="Items one participant does in their session; places follow from this.",
    )
    estimated_minutes = forms.IntegerField(min_value=1, max_value=600, initial=10)
    description = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown on Prolific; the batch's instructions when left empty.",
    )
    countries = forms.MultipleChoiceField(required=False, help_text="Current country of residence.")
    first_languages = forms.MultipleChoiceField(required=False)
    min_approval_rate = forms.IntegerField(
        required=False, min_value=0, max_value=100, help_text="Lowest approval rate, in percent."
    )
    device_compatibility = forms.MultipleChoiceField(
        choices=DEVICES, initial=["desktop"], widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["countries"].choices = _filter_choices("current-country-of-residence")
        self.fields["first_languages"].choices = _filter_choices("first-language")

    def study_fields(self) -> dict:
        return dict(self.cleaned_data)


class PlacesForm(forms.Form):
    places = forms.IntegerField(
        min_value=1, max_value=10_000, help_text="Places to add (to refill rejected work)."
    )


class BonusForm(forms.Form):
    cents = forms.IntegerField(min_value=1, max_value=100_000, help_text="Bonus in cents.")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}), help_text="Kept with the payment."
    )


class BlockForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Kept with the worker; they join the blocklist group every study excludes.",
    )


class MessageForm(forms.Form):
    subject = forms.CharField(max_length=200)
    message = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 60}))
