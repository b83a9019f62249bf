"""The admin's Prolific forms: a draft batch's study settings, and adding places."""

from __future__ import annotations

from django import forms
from django.db.models import Q

from crowd.models import Batch
from prolific.client import ProlificClient, ProlificError
from prolific.studies import FILTERS, filter_find

DEVICES = [("desktop", "Desktop"), ("tablet", "Tablet"), ("mobile", "Mobile")]


def _choices(entry: dict) -> list[tuple[str, str]]:
    return sorted(
        ((str(key), str(label)) for key, label in (entry.get("choices") or {}).items()),
        key=lambda choice: choice[1],
    )


class StudyForm(forms.Form):
    batch = forms.ModelChoiceField(
        # A draft batch, or one prepared already and not on Prolific yet (prepared again).
        queryset=Batch.objects.filter(status=Batch.Status.DRAFT).filter(
            Q(prolific_study__isnull=True) | Q(prolific_study__study_id="")
        ),
        help_text="A draft batch (create it under Crowd work › Batches first); it becomes a study.",
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
        self.filter_ids: dict[str, str] = {}
        try:
            filters, unreachable = ProlificClient().filters(), ""
        except ProlificError as error:
            filters, unreachable = [], str(error)
        for name, (filter_id, title) in FILTERS.items():
            field = self.fields[name]
            entry = filter_find(filters, filter_id=filter_id, title=title)
            if entry is not None and entry.get("choices"):
                field.choices = _choices(entry)
                self.filter_ids[name] = str(entry["filter_id"])
                continue
            field.disabled = True
            field.help_text = (
                f"Prolific could not be reached to list its filters ({unreachable}): "
                "reload to try again, or leave it empty to publish without it."
                if unreachable
                else f"Prolific's filter list (GET /filters/) has no “{title}” filter for "
                "this account: studies are published without it."
            )

    def study_fields(self) -> dict:
        return {**self.cleaned_data, "filter_ids": self.filter_ids}


class PlacesForm(forms.Form):
    places = forms.IntegerField(
        min_value=1, max_value=10_000, help_text="Places to add (to refill rejected work)."
    )


class BlockForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Kept with the worker; they join the blocklist group every study excludes.",
    )


class MessageForm(forms.Form):
    subject = forms.CharField(max_length=200)
    message = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 60}))
