"""Reads of the rounds: the proverbs a round ranks, and for the pages that show a story the
export's fields and the review's lines."""

from __future__ import annotations

from annotation.models import NarrativeRound, OpponentCheck, Proverb
from common.id_ranges import of_ids
from crowd.money import money_text
from crowd.providers import batch_currency

# The export's fields of a story written in a round (None elsewhere: unknown, never 0).
ROUND_FIELDS = (
    "round",
    "opponent_run",
    "model_rank",
    "model_fooled",
    "human_validated",
    "model_checks",
)
_VALIDATED = {
    NarrativeRound.Validation.CONFIRMED: True,
    NarrativeRound.Validation.UNMATCHED: False,
}


def round_proverbs() -> list[tuple[int, str]]:
    """The study's curated proverbs, (id, text) by id: those a round ranks stories among."""
    return sorted(Proverb.objects.filter(status=Proverb.Status.CURATED).values_list("id", "text"))


def round_fields_of(narrative_ids: list[int]) -> dict[int, dict]:
    """ROUND_FIELDS of the narratives written in a round, by narrative id (ascending
    ids: the export's chunks)."""
    wanted = set(narrative_ids)
    rows = of_ids(NarrativeRound.objects, "narrative_id", narrative_ids).values_list(
        "narrative_id",
        "round",
        "opponent_run",
        "submit_check__proverb_rank",
        "fooled",
        "validation",
        "checks",
    )
    return {
        narrative_id: {
            "round": number,
            "opponent_run": run,
            "model_rank": rank,
            "model_fooled": fooled,
            "human_validated": _VALIDATED.get(validation),
            "model_checks": checks if run is not None else None,
        }
        for narrative_id, number, run, rank, fooled, validation, checks in rows
        if narrative_id in wanted
    }


def round_review_lines(*, narrative_id: int) -> list[str]:
    """A story's round as the review queue lists it ([] for a story in no round)."""
    record = (
        NarrativeRound.objects.filter(narrative_id=narrative_id)
        .select_related("submit_check", "narrative__assignment__item__batch")
        .first()
    )
    if record is None:
        return []
    if record.opponent_run is None:
        return [f"Round {record.round}, no opponent."]
    lines = [f"Round {record.round}, opponent {record.opponent_label or record.opponent_run}."]
    check = record.submit_check
    if check is None or check.status == OpponentCheck.Status.PENDING:
        lines.append("The model has not answered on the story as submitted yet.")
    elif check.status == OpponentCheck.Status.FAILED:
        lines.append(f"The model could not answer on the story as submitted: {check.error}")
    else:
        verdict = "fooled the model" if check.fooled else "the model found its proverb"
        lines.append(
            f"The model ranked its proverb {check.proverb_rank} of {check.candidates}: {verdict}."
        )
    lines.append(f"Checks asked on the page before submitting: {record.checks}.")
    if record.validation:
        lines.append(f"Validation: {record.get_validation_display().lower()}.")
    elif record.validate and record.fooled:
        lines.append("Validation: waiting for a choose batch's answers.")
    if record.mode == "bonus":
        lines.append(_bonus_line(record))
    return lines


def _bonus_line(record: NarrativeRound) -> str:
    amount = money_text(record.bonus_cents, batch_currency(record.narrative.assignment.item.batch))
    if record.bonus_paid_at is not None:
        return f"Bonus for fooling the model: {amount} paid."
    if record.bonus_error:
        return f"Bonus for fooling the model: not paid ({record.bonus_error})."
    if record.bonus_due_since is not None:
        return f"Bonus for fooling the model: {amount} owed, being paid."
    if record.fooled is False:
        return "Bonus for fooling the model: none, the model found its proverb."
    when = "approved and confirmed by a choose batch" if record.validate else "approved"
    return f"Bonus for fooling the model: {amount} once the story is {when}."
