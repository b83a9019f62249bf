"""The researcher's batch form: the settings every batch has. A task type's `batch_form`
subclasses it with its items and settings; the admin shows it as "New <label> batch"."""

from __future__ import annotations

from django import forms

from crowd.models import Batch
from crowd.money import MAX_HOURLY, AmountField
from crowd.pledges import DEFAULT_PLEDGE
from crowd.providers import batch_currency


class BatchForm(forms.Form):
    """Common fields; subclasses implement `batch_settings()` and `batch_items()`."""

    name = forms.CharField(max_length=200)
    target_per_item = forms.IntegerField(
        min_value=1,
        label="Wanted per item",
        help_text="Approved results wanted per item, each from a different worker.",
    )
    per_worker_cap = forms.IntegerField(
        min_value=1,
        required=False,
        initial=20,
        label="Per-worker cap",
        help_text="Most items one worker may do in this batch (empty: no limit), "
        "so no one worker dominates the dataset.",
    )
    reward = AmountField(
        zero=True,
        initial=50,
        label="Reward per task",
        help_text="Paid for each approved task (a Prolific session pays it for each item).",
    )
    target_hourly_rate = AmountField(
        required=False,
        maximum=MAX_HOURLY,
        label="Target pay per hour",
        help_text="The hourly pay this batch aims at, reward plus bonuses. Payments → the "
        "batch's realised pay compares each worker with it and offers to top up whoever is "
        "below. Empty: no target.",
    )
    time_allowed_minutes = forms.IntegerField(
        min_value=1,
        initial=30,
        label="Time allowed (minutes)",
        help_text="A reservation expires after this and its slot returns to the pool.",
    )
    instructions = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "cols": 80}),
        required=False,
        help_text="Shown above the task; empty: the task type's default text.",
    )
    ask_pledge = forms.BooleanField(
        required=False,
        label="Ask for a pledge",
        help_text="Before a worker's first task of the batch, the page shows the pledge "
        "below and the worker agrees to it; the agreement is recorded per worker and shown "
        "in review and exports.",
    )
    pledge = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5, "cols": 80}),
        required=False,
        initial=DEFAULT_PLEDGE,
        label="Pledge",
        help_text="Your text; the default asks not to use AI tools and says why.",
    )
    publish = forms.BooleanField(
        required=False, initial=True, help_text="Open the batch to workers at once."
    )

    def batch_settings(self) -> dict:
        """The task-type settings (Batch.settings) from the cleaned data."""
        return {}

    def batch_items(self) -> list[dict]:
        """BatchItem field dicts, e.g. [{"proverb": proverb}, ...]."""
        return []

    def created_message(self) -> str:
        """What the researcher should know once the batch is made ("" when nothing)."""
        return ""

    def create(self, *, task_type: str, created_by) -> Batch:
        """Make the batch (a type whose batch holds more, such as uploads, overrides it)."""
        from crowd.batches import batch_create

        return batch_create(task_type=task_type, created_by=created_by, **self.batch_fields())

    def batch_fields(self) -> dict:
        """Keyword arguments for crowd.batches.batch_create (all but task_type and user)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "target_per_item": data["target_per_item"],
            "per_worker_cap": data["per_worker_cap"],
            "reward_cents": data["reward"],
            "target_hourly_cents": data["target_hourly_rate"],
            "time_allowed_seconds": data["time_allowed_minutes"] * 60,
            "instructions": data["instructions"],
            "pledge": (data["pledge"] or DEFAULT_PLEDGE) if data["ask_pledge"] else "",
            "settings": self.batch_settings(),
            "items": self.batch_items(),
        }


class BatchAdminForm(forms.ModelForm):
    """Editing a batch in the admin: settings checked by its task type, time in minutes and
    amounts in the batch's currency, as when it was created."""

    # The batch form's own fields (each form works on its own copy).
    time_allowed_minutes = BatchForm.base_fields["time_allowed_minutes"]
    reward = BatchForm.base_fields["reward"]
    target_hourly_rate = BatchForm.base_fields["target_hourly_rate"]

    class Meta:
        model = Batch
        fields = [
            "name",
            "instructions",
            "pledge",
            "target_per_item",
            "per_worker_cap",
            "settings",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        seconds = self.instance.time_allowed_seconds or 1800
        self.fields["time_allowed_minutes"].initial = max(1, round(seconds / 60))
        currency = batch_currency(self.instance) if self.instance.pk else ""
        for name, cents in (
            ("reward", self.instance.reward_cents),
            ("target_hourly_rate", self.instance.target_hourly_cents),
        ):
            self.fields[name].initial = cents
            self.fields[name].show_currency(currency)

    def save(self, commit=True):
        data = self.cleaned_data
        self.instance.time_allowed_seconds = data["time_allowed_minutes"] * 60
        self.instance.reward_cents = data["reward"]
        self.instance.target_hourly_cents = data["target_hourly_rate"]
        return super().save(commit=commit)

    def clean_settings(self):
        from crowd import task_types

        settings = self.cleaned_data.get("settings") or {}
        task_type = self.cleaned_data.get("task_type") or self.instance.task_type
        try:
            return task_types.get(task_type).checked_settings(settings)
        except (LookupError, ValueError) as error:
            raise forms.ValidationError(str(error)) from error
