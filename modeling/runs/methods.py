"""The baselines' paragraph of the methods statement: every finished series of runs with its
model, settings, seeds and figures as mean ± sd (registered from modeling's ready())."""

from __future__ import annotations

from collections import defaultdict

from modeling.models import Run
from modeling.runs.selectors import MEASURE_SCALES, run_configuration
from modeling.training.figures import health_failures, mean_sd, mean_sd_text
from modeling.training.registry import baseline_for

SOURCE = "Admin → Modeling → Runs → Results side by side"


def settings_text(run: Run, trains: bool) -> str:
    """The settings a paper states: epochs, batch, learning rates, decoding."""
    if not trains:
        return "no training"
    hp = run.hyperparameters
    text = (
        f"{hp.get('epochs')} epochs, batch {hp.get('batch_size')}, learning rate "
        f"{hp.get('learning_rate')} (new parameters {hp.get('head_learning_rate')}), "
        f"warm-up {hp.get('warmup_ratio')} then {hp.get('schedule')}"
    )
    if baseline_for(run.task).results == "generation":
        decoding = (run.metrics.get("test") or {}).get("decoding", "the model alone")
        beams = hp.get("num_beams", 1)
        text += f", {'greedy' if beams == 1 else f'beam search ({beams} beams)'}, {decoding}"
    return text


def baselines_methods(doc, scope) -> None:
    """Write the baselines' section of a methods document (annotation.analysis.methods);
    runs are on snapshots of their own, so the section does not depend on `scope`."""
    runs = list(
        Run.objects.filter(status=Run.Status.SUCCEEDED)
        .select_related("snapshot")
        .defer("predictions", "candidates", "snapshot__examples")
        .order_by("id")
    )
    doc.heading("Baselines")
    if not runs:
        doc.paragraph("No baseline run has finished on this data yet.")
        return
    series: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        series[(run.task, run.setting, *run_configuration(run))].append(run)
    for group in series.values():
        first = group[0]
        baseline = baseline_for(first.task)
        tests = [(run.metrics or {}).get("test") or {} for run in group]
        seeds = ", ".join(str(run.seed) for run in group)
        figures = []
        for measure in baseline.measures:
            summary = mean_sd([test.get(measure) for test in tests])
            if summary["n"]:
                text = mean_sd_text(summary, **MEASURE_SCALES.get(measure, {}))
                label = f"{first.task} {first.setting} {measure} (runs {seeds})"
                figures.append(
                    f"{measure.replace('_', ' ')} {doc.figure(None, label, SOURCE, text=text)}"
                )
        spread = (
            f"mean ± sd over {len(group)} seeds ({seeds})"
            if len(group) > 1
            else f"one seed ({seeds}), so no spread"
        )
        sentence = (
            f"{baseline.label}: {first.model_name} on dataset snapshot "
            f"{first.snapshot.content_hash[:10]} ({first.snapshot.narratives} narratives), "
            f"{first.setting} split, {settings_text(first, baseline.trains)}; test "
            f"{'; '.join(figures)} ({spread})."
        )
        degenerate = sum(bool(test.get("degenerate")) for test in tests)
        if degenerate:
            sentence += (
                f" In {degenerate} of these runs under half of the generated texts were "
                "distinct: the model wrote nearly the same text whatever its input, and "
                "those scores are not those of a working generator."
            )
        unlike = {run.pk: health_failures(test) for run, test in zip(group, tests, strict=True)}
        unlike = {pk: failures for pk, failures in unlike.items() if failures}
        if unlike:
            failed = "; ".join(f"run {pk}: {', '.join(fails)}" for pk, fails in unlike.items())
            sentence += (
                f" In {len(unlike)} of these runs the generated texts were not like the "
                f"references (the health check failed, {failed}), and those scores are not "
                "those of a generator that writes such stories."
            )
        doc.paragraph(sentence)
