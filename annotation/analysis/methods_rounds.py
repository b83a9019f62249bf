"""The methods statement's rounds part: how the model-in-the-loop rounds were run (opponent,
mode, bonus, validation, checks) and what they found, from the scope's analysis, so the
statement says what the dashboard shows."""

from __future__ import annotations

from collections import defaultdict

from annotation.analysis.cards import Table, format_value
from annotation.analysis.methods import Methods, MethodsScope
from annotation.analysis.methods_collection import NO_CURRENCY
from annotation.opponents.backend import OpponentUnavailable, opponent_describe
from annotation.opponents.batch_settings import batch_round
from common.prose import paper_number, plural, series, share_text
from crowd.money import money_text
from crowd.providers import batch_currency

SOURCE = "Dashboard → Model-in-the-loop rounds (rounds.by_round)"
EVALUATION_SOURCE = "Dashboard → Model-in-the-loop rounds (rounds.evaluation)"
MODES = {
    "inform": "writers were told whether the model found the proverb",
    "require": "a story was taken only once the model did not find its proverb",
    "bonus": "a story that fooled the model earned a bonus of {bonus} once approved",
}


def _opponent_text(run_id: int) -> str:
    try:
        model = opponent_describe(run_id)
    except OpponentUnavailable:
        return f"run {run_id} (no longer available)"
    narratives = plural(model.snapshot_narratives, "narrative")
    trained = (
        f"trained on dataset snapshot {model.snapshot} ({narratives}), {model.setting} split"
        if model.trains
        else "off the shelf, trained on nothing"
    )
    return f"run {run_id}, the {model.task} baseline with {model.model_name}, {trained}"


def _design(scope: MethodsScope) -> dict[int, list[str]]:
    """Each round's design in words, from its batches' settings in scope."""
    designs: dict[int, list[str]] = defaultdict(list)
    for batch in scope.batches:
        rounds = batch_round(batch.settings or {})  # only writing batches have rounds
        if rounds is None:
            continue
        opponent = rounds.opponent
        if opponent is None:
            text = f"batch “{batch.name}” had no opponent"
        else:
            bonus = money_text(opponent.bonus_cents, batch_currency(batch) or NO_CURRENCY)
            mode = MODES[opponent.mode].format(bonus=bonus)
            if opponent.validate:
                mode += (
                    ", and a fooling story counted once the workers of a choose batch chose "
                    "its proverb"
                )
            guesses = (
                "the model's first three proverbs with their scores"
                if opponent.show_guesses
                else "whether it ranked the proverb first"
            )
            text = (
                f"batch “{batch.name}” played against {_opponent_text(opponent.run)}: once a "
                "story passed the writing rules, its writer could ask the model, up to "
                f"{plural(opponent.max_checks, 'time')} per task, and saw {guesses}; {mode}"
            )
        designs[rounds.round].append(text)
    return designs


def rounds_part(doc: Methods, scope: MethodsScope) -> None:
    """The rounds' design and figures; nothing when no story in scope was written in one."""
    rounds = (scope.analysis.get("rounds") or {}).get("by_round") or []
    if not rounds:
        return
    doc.heading("Model-in-the-loop rounds")
    doc.paragraph(
        f"Stories were collected in {plural(len(rounds), 'round')}, after Dynabench (Kiela "
        "et al., 2021) and ANLI (Nie et al., 2020): a round's writers could ask a finished "
        "proverb-identification model, the round's opponent, whether it ranked their "
        "story's proverb first among the curated proverbs (and the story's own). The "
        "writing rules and the integrity controls applied to every story whatever the "
        "model said. A story fooled the model when it did not rank the story's proverb "
        "first, for the story as submitted."
    )
    designs = _design(scope)
    for figures in rounds:
        number = figures["round"]
        where = f"round {number}"
        stories = doc.figure(figures["stories"], f"{where}: stories", SOURCE)
        sentence = f"Round {number}: {stories} approved stories"
        if designs.get(number):
            sentence += "; " + "; ".join(designs[number])
        if figures["answered"]:
            fooled = _share(doc, figures, f"{where}: share that fooled the model", "fooled_share")
            sentence += (
                f". Of the {paper_number(figures['answered'])} stories the model ranked, "
                f"{fooled} fooled it ({paper_number(figures['fooled'])})"
            )
            if figures["unmatched"] or figures["confirmed"]:
                label = f"{where}: validated share that fooled the model"
                validated = _share(doc, figures, label, "validated_fooled_share")
                sentence += (
                    f"; validation confirmed {paper_number(figures['confirmed'])} and left "
                    f"{paper_number(figures['unmatched'])} out of the round, for a validated "
                    f"share of {validated}"
                )
            if figures["awaiting_validation"]:
                sentence += (
                    f" ({paper_number(figures['awaiting_validation'])} still awaiting validation)"
                )
            checks = doc.figure(figures["checks_mean"], f"{where}: checks per story", SOURCE)
            sentence += f"; writers asked the model {checks} times per story on average"
            if figures["bonuses_paid"]:
                sentence += f"; {plural(figures['bonuses_paid'], 'bonus', 'bonuses')} paid"
        elif figures["opponents"]:
            sentence += ". The model has not answered on any of them yet"
        doc.paragraph(sentence + ".")
    _evaluation(doc, scope.analysis["rounds"].get("evaluation") or {})


def _share(doc: Methods, figures: dict, label: str, key: str) -> str:
    """A round's share, as a paper writes it, noted with its label and source."""
    return doc.figure(figures[key], label, SOURCE, text=share_text(figures[key]))


def _evaluation(doc: Methods, evaluation: dict) -> None:
    models = evaluation.get("models") or []
    if not models:
        return
    numbers = evaluation.get("rounds") or []
    rows = []
    for model, row in zip(models, evaluation.get("cells") or [], strict=True):
        opposed = series([str(number) for number in model["rounds_opposed"]])
        cells = []
        for number, cell in zip(numbers, row, strict=True):
            if cell is None:
                cells.append("—")
                continue
            label = f"run {model['run']} on round {number}'s test stories: accuracy"
            accuracy = doc.figure(
                cell["accuracy"], label, EVALUATION_SOURCE, text=share_text(cell["accuracy"])
            )
            cells.append(f"{accuracy} (n = {paper_number(cell['n'])})")
        rows.append([f"run {model['run']} (opponent of round {opposed})", *cells])
    doc.paragraph(
        "Each round's opponent was evaluated on every round's test stories (the approved "
        "stories that count in the round, in the test part of the model's split, none it "
        "trained on): the share whose proverb it ranked first among the curated proverbs "
        "and the story's own."
    )
    doc.table(Table(["Model", *(f"Round {number} test" for number in numbers)], rows))
    for run, error in (evaluation.get("errors") or {}).items():
        doc.paragraph(f"Run {run} could not be evaluated: {format_value(error)}.")
