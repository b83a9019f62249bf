"""Run one baseline in this process on the approved data, with a progress bar on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from modeling.models import Run
from modeling.runs.pipeline import pipeline_create
from modeling.runs.selectors import SPAN_TASKS, run_record
from modeling.runs.services import run_create, run_execute
from modeling.training.hyperparameters import (
    GENERATION_FIELDS,
    SCHEDULES,
    TASKS,
    TRAINING_FIELDS,
    Hyperparameters,
)
from modeling.training.metrics import SPAN_MEASURES


class ProgressBar:
    """A tqdm bar over the run's training steps (or scoring scopes)."""

    def __init__(self, stream):
        self.stream = stream
        self.bar = None
        self.key = None

    def __call__(self, fields: dict) -> None:
        from tqdm import tqdm

        steps = fields.get("steps")
        key = (fields.get("stage", "").split(" ")[0], fields.get("epoch"), steps)
        if steps and key != self.key:
            self.close()
            epoch = f" epoch {fields['epoch']}/{fields['epochs']}" if fields.get("epoch") else ""
            self.bar = tqdm(total=steps, desc=f"{fields['stage']}{epoch}", file=self.stream)
            self.key = key
        if self.bar is not None and steps:
            self.bar.n = fields.get("step", 0)
            if fields.get("loss") is not None:
                self.bar.set_postfix(loss=f"{fields['loss']:.4f}", refresh=False)
            self.bar.refresh()
        elif not steps:
            self.close()
            self.stream.write(f"{fields.get('stage', '')}\n")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Command(BaseCommand):
    help = (
        "Train or score a baseline on the approved narratives (a frozen snapshot) and store "
        f"the run. Tasks: {', '.join(TASKS)}."
    )

    def add_arguments(self, parser):
        parser.add_argument("task", choices=list(TASKS))
        parser.add_argument("--model", help="folder, PyPI-shipped model or hub name")
        parser.add_argument("--split", choices=["seen", "unseen"], default="seen")
        parser.add_argument("--epochs", type=int, default=5)
        parser.add_argument("--batch-size", type=int, default=16)
        defaults = Hyperparameters()
        parser.add_argument(
            "--learning-rate", type=float, default=defaults.learning_rate, help="the checkpoint's"
        )
        parser.add_argument(
            "--head-learning-rate",
            type=float,
            default=defaults.head_learning_rate,
            help="new parameters: a head, a warm-started decoder's cross-attention",
        )
        parser.add_argument("--warmup-ratio", type=float, default=defaults.warmup_ratio)
        parser.add_argument("--schedule", choices=SCHEDULES, default=defaults.schedule)
        parser.add_argument(
            "--scale", type=float, default=defaults.scale, help="proverb tasks: logit scale"
        )
        parser.add_argument("--max-length", type=int, default=256)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--span-max-tokens", type=int, default=64, help="alignment: longest span, in tokens"
        )
        parser.add_argument("--proverb-run", type=int, help="pipeline: the proverb run's id")
        parser.add_argument("--alignment-run", type=int, help="pipeline: the alignment run's id")
        for name in GENERATION_FIELDS:
            parser.add_argument(
                f"--{name.replace('_', '-')}",
                type=int,
                default=getattr(defaults, name),
                help="generation only (num-beams 1: greedy)",
            )
        parser.add_argument("--json", dest="json_out", help="write the run here ('-': stdout)")

    def handle(self, *args, **options):
        try:
            run = self.create(options)
        except ValueError as error:
            raise CommandError(str(error)) from None
        bar = ProgressBar(sys.stderr)
        try:
            run = run_execute(run_id=run.pk, echo=bar)
        finally:
            bar.close()
        record = run_record(run)
        if options["json_out"] == "-":
            self.stdout.write(json.dumps(record, indent=1))
        elif options["json_out"]:
            Path(options["json_out"]).write_text(json.dumps(record, indent=1))
        test = run.metrics.get("test") or {}
        if run.status != Run.Status.SUCCEEDED:
            raise CommandError(f"Run {run.pk} {run.status}: {run.error}")
        if run.task in SPAN_TASKS:
            figures = ", ".join(f"{name} {test.get(name)}" for name in SPAN_MEASURES)
            summary = f"Run {run.pk}: test span {figures}"
        elif run.task == "generation":
            summary = (
                f"Run {run.pk}: test BLEU {test['bleu']:.2f}, ROUGE-L {test['rouge_l']:.4f}, "
                f"keyword recall {test['keyword_recall']} (surface), "
                f"{test.get('keyword_recall_lemmas')} (lemmas)"
            )
        else:
            summary = f"Run {run.pk}: test accuracy {test.get('accuracy')}, MRR {test.get('mrr')}"
            dev = run.metrics.get("dev") or {}
            if dev.get("total"):
                summary += (
                    f"; epoch {run.selected_epoch} chosen on dev accuracy {dev['accuracy']} "
                    f"({dev['total']} narratives, {dev['candidates']} proverbs)"
                )
        self.stderr.write(summary)

    def create(self, options) -> Run:
        if options["task"] == "pipeline":
            if not (options["proverb_run"] and options["alignment_run"]):
                raise ValueError("A pipeline run needs --proverb-run and --alignment-run.")
            runs = Run.objects.select_related("snapshot").in_bulk(
                [options["proverb_run"], options["alignment_run"]]
            )
            for key in ("proverb_run", "alignment_run"):
                if options[key] not in runs:
                    raise ValueError(f"There is no run {options[key]}.")
            return pipeline_create(
                proverb_run=runs[options["proverb_run"]],
                alignment_run=runs[options["alignment_run"]],
                queue=False,
            )
        return run_create(
            task=options["task"],
            setting=options["split"],
            model_name=options["model"],
            hyperparameters={
                "epochs": options["epochs"],
                "batch_size": options["batch_size"],
                "learning_rate": options["learning_rate"],
                **{name: options[name] for name in TRAINING_FIELDS},
                "max_length": options["max_length"],
                "span_max_tokens": options["span_max_tokens"],
                **{name: options[name] for name in GENERATION_FIELDS},
            },
            seed=options["seed"],
            queue=False,
        )
