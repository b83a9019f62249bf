"""Run one baseline in this process on the approved data, with a progress bar on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from common.progress import progress_bar_open
from modeling.models import Run
from modeling.runs.selectors import run_record, runs_compare
from modeling.runs.services import run_execute, runs_create, runs_dead_end
from modeling.training.hyperparameters import CHOICES, OFFERED, Hyperparameters
from modeling.training.registry import BASELINES, baseline_for

# Generation on a subset: --train N and --test N, as bench/modeling/generation.py takes them.
SIZE_FLAGS = {"train_size": ("--train",), "test_size": ("--test",)}


class ProgressBar:
    """A tqdm bar over the run's training steps (or scoring scopes), with the stages between
    them; nothing under --json - or without a terminal (common.progress)."""

    def __init__(self, stream, *, quiet: bool = False):
        self.stream = stream
        self.quiet = quiet or not stream.isatty()
        self.bar = None
        self.key = None

    def __call__(self, fields: dict) -> None:
        steps = fields.get("steps")
        key = (fields.get("stage", "").split(" ")[0], fields.get("epoch"), steps)
        if steps and key != self.key:
            self.close()
            epoch = f" epoch {fields['epoch']}/{fields['epochs']}" if fields.get("epoch") else ""
            stage, stream = f"{fields['stage']}{epoch}", self.stream
            self.bar = progress_bar_open(total=steps, stage=stage, stream=stream, quiet=self.quiet)
            self.key = key
        if self.bar is not None and steps:
            self.bar.n = fields.get("step", 0)
            if fields.get("loss") is not None:
                self.bar.set_postfix(loss=f"{fields['loss']:.4f}", refresh=False)
            self.bar.refresh()
        elif not steps and not self.quiet:
            self.close()
            self.stream.write(f"{fields.get('stage', '')}\n")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Command(BaseCommand):
    help = (
        "Train or score a baseline on the approved narratives (a frozen snapshot) and store "
        f"the run, once per seed. Tasks: {', '.join(BASELINES)}."
    )

    def add_arguments(self, parser):
        parser.add_argument("task", choices=list(BASELINES))
        parser.add_argument("--model", help="folder, PyPI-shipped model or hub name")
        parser.add_argument("--split", choices=["seen", "unseen"], default="seen")
        parser.add_argument(
            "--seed",
            type=int,
            nargs="+",
            default=[1],
            help="one run per seed (e.g. --seed 1 2 3), one after the other",
        )
        for name, help_text in OFFERED.items():
            default = getattr(Hyperparameters(), name)
            parser.add_argument(
                f"--{name.replace('_', '-')}",
                *SIZE_FLAGS.get(name, ()),
                type=type(default),
                choices=CHOICES.get(name),
                default=default,
                help=help_text or None,
            )
        parser.add_argument("--proverb-run", type=int, help="pipeline: the proverb run's id")
        parser.add_argument("--alignment-run", type=int, help="pipeline: the alignment run's id")
        parser.add_argument(
            "--compare-with",
            type=int,
            metavar="RUN",
            help="compare each run with this finished run (paired bootstrap and permutation)",
        )
        parser.add_argument("--json", dest="json_out", help="write the run(s) here ('-': stdout)")

    def handle(self, *args, **options):
        runs_dead_end()  # runs whose process died (a command killed by a timeout) say so
        other = None
        if options["compare_with"]:
            other = (
                Run.objects.select_related("snapshot").filter(pk=options["compare_with"]).first()
            )
            if other is None:
                raise CommandError(f"There is no run {options['compare_with']} to compare with.")
        try:
            created = self.create(options)
        except ValueError as error:
            raise CommandError(str(error)) from None
        records, failures = [], []
        for run in created:
            bar = ProgressBar(sys.stderr, quiet=options["json_out"] == "-")
            try:
                run = run_execute(run_id=run.pk, echo=bar)
            finally:
                bar.close()
            record = run_record(run)
            if run.status != Run.Status.SUCCEEDED:
                failures.append(f"Run {run.pk} {run.status}: {run.error}")
            else:
                summary = baseline_for(run.task).summary(
                    metrics=run.metrics, selected_epoch=run.selected_epoch
                )
                self.stderr.write(f"Run {run.pk} (seed {run.seed}): {summary}")
                if other is not None:
                    try:
                        record["comparison"] = runs_compare(first=run, second=other)
                    except ValueError as error:
                        record["comparison"] = {"error": str(error)}
                    self.stderr.write(comparison_line(record["comparison"]))
            records.append(record)
        document = records[0] if len(records) == 1 else {"runs": records}
        if options["json_out"] == "-":
            self.stdout.write(json.dumps(document, indent=1))
        elif options["json_out"]:
            Path(options["json_out"]).write_text(json.dumps(document, indent=1))
        if failures:
            raise CommandError("; ".join(failures))

    def create(self, options) -> list[Run]:
        baseline = baseline_for(options["task"])
        sources = {name: options[name] for name in baseline.source_runs}
        if not all(sources.values()):
            flags = " and ".join(f"--{name.replace('_', '-')}" for name in sources)
            raise ValueError(f"A {options['task']} run needs {flags}.")
        return runs_create(
            seeds=options["seed"],
            task=options["task"],
            setting=options["split"],
            model_name=options["model"],
            hyperparameters={**{name: options[name] for name in OFFERED}, **sources},
            queue=False,
        )


def comparison_line(comparison: dict) -> str:
    """One line per compared figure: difference, interval, p-value."""
    if "error" in comparison:
        return f"  not compared: {comparison['error']}"
    return "\n".join(
        f"  {measure}: run {comparison['first']} {figures['first']:.4f} vs run "
        f"{comparison['second']} {figures['second']:.4f}, difference {figures['difference']:+.4f} "
        f"(95% CI {figures['low']:+.4f} to {figures['high']:+.4f}, p {figures['p_value']:.4f}, "
        f"{figures['items']} items)"
        for measure, figures in comparison["measures"].items()
    )
