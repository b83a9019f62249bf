"""The modeling admin's forms: launching runs, building a batch from a run, comparing two."""

from __future__ import annotations

from django import forms

from modeling.models import Run
from modeling.runs.distractors import run_label
from modeling.runs.services import runs_create
from modeling.training.hyperparameters import CHOICES, OFFERED, Hyperparameters
from modeling.training.registry import BASELINES, baseline_for, baselines_where

DEFAULTS = Hyperparameters()
# Each offered hyperparameter's bounds on the form; an empty optional one keeps its default.
REQUIRED = ("epochs", "batch_size", "learning_rate", "max_length")
BOUNDS = {
    "epochs": (1, 100),
    "batch_size": (2, 1024),
    "learning_rate": (1e-7, 1.0),
    "max_length": (8, 4096),
    "head_learning_rate": (1e-7, 1.0),
    "warmup_ratio": (0.0, 0.9),
    "scale": (0.1, 1000.0),
    "span_max_tokens": (1, 512),
    "target_max_length": (8, 4096),
    "max_new_tokens": (1, 4096),
    "num_beams": (1, 32),
    "no_repeat_ngram_size": (0, 10),
    "train_size": (0, None),
    "test_size": (0, None),
}


def hyperparameter_field(name: str) -> forms.Field:
    """The launch form's field of an offered hyperparameter, starting at its default."""
    default = getattr(DEFAULTS, name)
    options = {"initial": default, "required": name in REQUIRED, "help_text": OFFERED[name]}
    if name in CHOICES:
        return forms.ChoiceField(choices=[(value, value) for value in CHOICES[name]], **options)
    low, high = BOUNDS[name]
    field = forms.FloatField if isinstance(default, float) else forms.IntegerField
    return field(min_value=low, max_value=high, **options)


class RunChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, run: Run) -> str:
        return run_label(run)


def finished_runs(tasks) -> object:
    return (
        Run.objects.filter(status=Run.Status.SUCCEEDED, task__in=tasks)
        .defer("predictions", "candidates")
        .order_by("-id")
    )


class RunLaunchForm(forms.Form):
    """A run's task, split, model, seeds, the finished runs a pipeline combines, and the
    offered hyperparameters (hyperparameter_field)."""

    task = forms.ChoiceField(choices=[(name, b.label) for name, b in BASELINES.items()])
    setting = forms.ChoiceField(
        choices=[("seen", "seen"), ("unseen", "unseen")],
        help_text="Which split of the approved narratives (retrieval scores every scope).",
    )
    model_name = forms.CharField(
        max_length=500,
        required=False,
        help_text="A folder, a model shipped in a PyPI package, or a hub name; empty: the "
        "task's default (generation: PARABLE_GENERATION_MODEL).",
    )
    seeds = forms.CharField(
        initial="1",
        max_length=200,
        help_text="One run per seed, e.g. 1, 2, 3: the results table shows their mean ± sd.",
    )
    proverb_run = RunChoiceField(
        queryset=finished_runs(baselines_where(ranks_proverbs=True)),
        help_text="Pipeline: the finished proverb-prediction run.",
        required=False,
    )
    alignment_run = RunChoiceField(
        queryset=finished_runs(["alignment"]),
        help_text="Pipeline: the finished alignment run (same snapshot and split).",
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update((name, hyperparameter_field(name)) for name in OFFERED)

    def clean_seeds(self) -> list[int]:
        try:
            seeds = [int(part) for part in self.cleaned_data["seeds"].replace(",", " ").split()]
        except ValueError:
            raise forms.ValidationError("Seeds are whole numbers, e.g. 1, 2, 3.") from None
        if not 1 <= len(seeds) <= 10 or len(set(seeds)) != len(seeds):
            raise forms.ValidationError("Give 1 to 10 seeds, each once.")
        return seeds

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("task") in BASELINES:
            for name in baseline_for(cleaned["task"]).source_runs:
                if not cleaned.get(name):
                    self.add_error(name, "This task combines finished runs: pick this one.")
        return cleaned

    def hyperparameters(self) -> dict:
        data = self.cleaned_data
        values = {
            name: data[name] for name in OFFERED if data[name] is not None and data[name] != ""
        }
        for name in baseline_for(data["task"]).source_runs:
            values[name] = data[name].pk
        return values

    def launch(self, user) -> list[Run]:
        """The runs the valid form asks for: one per seed."""
        data = self.cleaned_data
        return runs_create(
            seeds=data["seeds"],
            task=data["task"],
            setting=data["setting"],
            model_name=data["model_name"].strip(),
            hyperparameters=self.hyperparameters(),
            created_by=user,
        )


class BatchFromRunForm(forms.Form):
    """A draft batch built from a run: its name, sample, answers per item and seed."""

    name = forms.CharField(max_length=200, required=False)
    sample = forms.IntegerField(min_value=1, max_value=10_000, initial=100)
    target_per_item = forms.IntegerField(min_value=1, max_value=100, initial=3)
    seed = forms.IntegerField(initial=1)


class DistractorBatchForm(BatchFromRunForm):
    field_order = ["name", "sample", "options"]
    options = forms.IntegerField(min_value=2, max_value=10, initial=5)


class GeneratedRateBatchForm(BatchFromRunForm):
    field_order = ["name", "sample", "with_human"]
    with_human = forms.BooleanField(
        required=False,
        initial=True,
        label="With the human narratives",
        help_text="Also rate the narratives they were generated for, on the same criteria.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["sample"].help_text = "Generated test narratives to rate."


class CompareForm(forms.Form):
    first = forms.IntegerField(min_value=1, label="Run")
    second = forms.IntegerField(min_value=1, label="against run")
