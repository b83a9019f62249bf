"""The modeling admin's forms: launching runs, building a batch from a run, comparing two."""

from __future__ import annotations

from django import forms

from modeling.models import Run
from modeling.runs.distractors import run_label
from modeling.runs.services import runs_create
from modeling.training.hyperparameters import KEYWORD_DECODING, SCHEDULES, Hyperparameters
from modeling.training.registry import BASELINES, baseline_for, baselines_where

DEFAULTS = Hyperparameters()
HYPERPARAMETERS = frozenset(Hyperparameters.__dataclass_fields__)

OPTIONAL = {"required": False}
GENERATION = {"required": False, "help_text": "Generation only."}


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
    """A run's task, split, model, seeds and hyperparameters (each field named as its
    Hyperparameters field starts at its default; an empty optional one keeps the default)."""

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
    epochs = forms.IntegerField(min_value=1, max_value=100)
    batch_size = forms.IntegerField(min_value=2, max_value=1024)
    learning_rate = forms.FloatField(
        min_value=1e-7, max_value=1.0, help_text="The checkpoint's own parameters."
    )
    head_learning_rate = forms.FloatField(
        min_value=1e-7,
        max_value=1.0,
        help_text="New parameters: the classifier's and span model's head, a warm-started "
        "decoder's cross-attention.",
        **OPTIONAL,
    )
    warmup_ratio = forms.FloatField(
        min_value=0.0,
        max_value=0.9,
        help_text="Share of the steps with a rising learning rate.",
        **OPTIONAL,
    )
    schedule = forms.ChoiceField(
        choices=[(name, name) for name in SCHEDULES],
        help_text="After the warm-up: linear decay to 0, or constant.",
        **OPTIONAL,
    )
    scale = forms.FloatField(
        min_value=0.1,
        max_value=1000.0,
        help_text="Proverb tasks: the scale of the cosine logits (1 / temperature).",
        **OPTIONAL,
    )
    max_length = forms.IntegerField(min_value=8, max_value=4096)
    span_max_tokens = forms.IntegerField(
        min_value=1,
        max_value=512,
        help_text="Alignment: the longest narrative span predicted, in tokens.",
        **OPTIONAL,
    )
    seeds = forms.CharField(
        initial="1",
        max_length=200,
        help_text="One run per seed, e.g. 1, 2, 3: the results table shows their mean ± sd.",
    )
    proverb_run = RunChoiceField(
        queryset=finished_runs(baselines_where(ranks_proverbs=True)),
        help_text="Pipeline: the finished proverb-prediction run.",
        **OPTIONAL,
    )
    alignment_run = RunChoiceField(
        queryset=finished_runs(["alignment"]),
        help_text="Pipeline: the finished alignment run (same snapshot and split).",
        **OPTIONAL,
    )
    target_max_length = forms.IntegerField(min_value=8, max_value=4096, **GENERATION)
    max_new_tokens = forms.IntegerField(min_value=1, max_value=4096, **GENERATION)
    num_beams = forms.IntegerField(
        min_value=1, max_value=32, required=False, help_text="Generation only; 1: greedy decoding."
    )
    no_repeat_ngram_size = forms.IntegerField(min_value=0, max_value=10, **GENERATION)
    train_size = forms.IntegerField(
        min_value=0,
        required=False,
        help_text="Generation only: the first N train (or test) narratives; 0: all.",
    )
    test_size = forms.IntegerField(min_value=0, required=False, help_text=train_size.help_text)
    keyword_decoding = forms.ChoiceField(
        choices=[(name, name) for name in KEYWORD_DECODING],
        help_text="Generation only: 'biased' raises each input keyword's tokens while "
        "decoding (lexically guided decoding, labelled as such; never the default figure).",
        **OPTIONAL,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.fields.keys() & HYPERPARAMETERS:
            self.fields[name].initial = getattr(DEFAULTS, name)

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
            name: data[name]
            for name in self.fields
            if name in HYPERPARAMETERS and data[name] is not None and data[name] != ""
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
