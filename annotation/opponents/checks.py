"""The opponent's checks: a writer asks the page "does the model find the proverb?", and
each story is answered again as submitted.

`opponent_check_ask` holds the assignment's row briefly: the story must pass the batch's
writing rules, one check waits at a time, at most `max_checks` per task (a text asked again is
answered by its first check). A Celery task ranks and stores the answer; the page polls. The
worker is the task page's session's: the view finds only that worker's own assignment. At
submit, `narrative_round_record` keeps a page check's answer on the exact text, else checks.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from annotation.models import Narrative, NarrativeRound, OpponentCheck, Proverb
from annotation.opponents.backend import opponent_describe, opponent_rank
from annotation.opponents.batch_settings import RoundSettings, batch_round
from annotation.opponents.outcomes import story_answered
from annotation.opponents.selectors import round_proverbs
from annotation.text import OverlapRules, check_overlap
from common.task_queue import queue_on_commit, waiting_past_grace
from crowd.models import Assignment
from crowd.money import money_text
from crowd.providers import batch_currency
from crowd.task_types import SubmissionError

# A page check still unanswered after this is taken as lost (no worker took it): it is
# marked failed, is not counted, and the writer may ask again.
CHECK_LOST_AFTER = timedelta(seconds=120)
GUESSES = 3


class CheckRefused(ValueError):
    """A check the page may not ask now; the message says why, for the writer."""


def text_digest(text: str) -> str:
    """The digest a check keeps of its story (the text as submitted: stripped)."""
    return hashlib.sha256(text.strip().encode()).hexdigest()


def proverbs_ranked(*, proverb_id: int) -> list[tuple[int, str]]:
    """The proverbs a story is ranked among: round_proverbs, and the story's own (which an
    imported or retired proverb may not be), by id."""
    ranked = dict(round_proverbs())
    if proverb_id not in ranked:
        ranked[proverb_id] = Proverb.objects.values_list("text", flat=True).get(pk=proverb_id)
    return sorted(ranked.items())


def assignment_round(assignment: Assignment) -> RoundSettings | None:
    return batch_round(assignment.item.batch.settings or {})


def _counted(assignment: Assignment):
    return OpponentCheck.objects.filter(
        assignment=assignment, kind=OpponentCheck.Kind.PAGE
    ).exclude(status=OpponentCheck.Status.FAILED)


@transaction.atomic
def opponent_check_ask(*, assignment: Assignment, text: str, rules: OverlapRules) -> OpponentCheck:
    """A check of the story by the batch's opponent, queued for its task (the same text's
    earlier check when there is one). CheckRefused when the task is not open, the story
    breaks the writing rules, a check is still waiting, or the checks are used up;
    LookupError when the batch has no opponent."""
    rounds = assignment_round(assignment)
    if rounds is None or rounds.opponent is None:
        raise LookupError("This batch has no opponent.")
    locked = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("item__proverb")
        .get(pk=assignment.pk)
    )
    if locked.status != Assignment.Status.RESERVED or locked.expires_at <= timezone.now():
        raise CheckRefused("This task is no longer open: the model cannot be asked.")
    text = text.strip() if isinstance(text, str) else ""
    verdict = check_overlap(locked.item.proverb.text, text, rules)
    if not text or not verdict["ok"]:
        raise CheckRefused(
            "Your story must follow the writing rules before the model is asked: "
            + " ".join(violation["message"] for violation in verdict["violations"])
        )
    digest = text_digest(text)
    checks = _counted(locked).order_by("-id")
    same = checks.filter(text_digest=digest, run_id=rounds.opponent.run).first()
    if same is not None:
        return same
    waiting = checks.filter(status=OpponentCheck.Status.PENDING).first()
    now = timezone.now()
    if waiting is not None:
        if now - waiting.requested_at < CHECK_LOST_AFTER:
            raise CheckRefused("The model is still answering your last check; wait for it.")
        waiting.status, waiting.text = OpponentCheck.Status.FAILED, ""
        waiting.error = "No answer came from the model."
        waiting.save(update_fields=["status", "text", "error"])
    if checks.count() >= rounds.opponent.max_checks:
        raise CheckRefused(
            f"You have used your {rounds.opponent.max_checks} checks for this task; you "
            "can still submit your story."
            if rounds.opponent.mode != "require"
            else f"You have used your {rounds.opponent.max_checks} checks for this task."
        )
    check = OpponentCheck.objects.create(
        assignment=locked,
        run_id=rounds.opponent.run,
        text=text,
        text_digest=digest,
        requested_at=now,
    )
    queue_on_commit("annotation.opponent_check_answer", check.pk)
    return check


def checks_used(assignment: Assignment) -> int:
    """The page checks that count against the task's limit (failed ones do not)."""
    return _counted(assignment).count()


def opponent_check_answer(*, check_id: int) -> OpponentCheck | None:
    """Rank the study's proverbs for the check's story with its opponent and store the
    answer; idempotent (an answered or failed check is left as it is). The model runs
    outside any transaction; a failure is stored as the check's error."""
    check = (
        OpponentCheck.objects.filter(pk=check_id, status=OpponentCheck.Status.PENDING)
        .select_related("assignment__item")
        .first()
    )
    if check is None:
        return None
    proverb_id = check.assignment.item.proverb_id
    proverbs = proverbs_ranked(proverb_id=proverb_id)
    try:
        (ranked,) = opponent_rank(run_id=check.run_id, proverbs=proverbs, texts=[check.text])
    except Exception as error:  # stored and shown: the writer may ask again
        fields = {"error": f"The model could not answer ({type(error).__name__}: {error})."}
        fields["status"] = OpponentCheck.Status.FAILED
    else:
        rank = 1 + next(place for place, (pk, _) in enumerate(ranked) if pk == proverb_id)
        fields = {
            "status": OpponentCheck.Status.ANSWERED,
            "candidates": len(ranked),
            "proverb_rank": rank,
            "proverb_score": ranked[rank - 1][1],
            "top_proverb_id": ranked[0][0],
            "top_score": ranked[0][1],
            "guesses": [[pk, round(score, 4)] for pk, score in ranked[:GUESSES]],
        }
    with transaction.atomic():
        stored = OpponentCheck.objects.filter(
            pk=check.pk, status=OpponentCheck.Status.PENDING
        ).update(text="", answered_at=timezone.now(), **fields)
        check.refresh_from_db()
        if stored and check.kind == OpponentCheck.Kind.SUBMIT:
            story_answered(check=check)
    return check


def submit_checks_waiting(*, now=None, limit: int = 100) -> list[int]:
    """Checks of submitted stories still waiting after the grace period: their task was
    lost (a broker outage), so beat queues them again."""
    waiting = OpponentCheck.objects.filter(
        status=OpponentCheck.Status.PENDING, kind=OpponentCheck.Kind.SUBMIT
    )
    return waiting_past_grace(waiting, since="requested_at", limit=limit, now=now)


def _checks(assignment: Assignment, max_checks: int) -> dict:
    used = checks_used(assignment)
    return {"checks_used": used, "checks_left": max(0, max_checks - used)}


def check_state(check: OpponentCheck, *, show_guesses: bool, max_checks: int) -> dict:
    """A check as the page shows it (JSON-ready); guesses only where the batch shows them."""
    state = {"check": check.pk, "status": check.status, **_checks(check.assignment, max_checks)}
    if check.status == OpponentCheck.Status.FAILED:
        state["message"] = check.error or "The model could not answer; ask again."
    if check.status == OpponentCheck.Status.ANSWERED:
        state.update(
            found=check.proverb_rank == 1,
            rank=check.proverb_rank,
            candidates=check.candidates,
        )
        if show_guesses:
            texts = Proverb.objects.in_bulk([pk for pk, _ in check.guesses])
            state["guesses"] = [
                {"proverb": texts[pk].text, "score": score}
                for pk, score in check.guesses
                if pk in texts
            ]
    return state


def opponent_page_context(*, assignment: Assignment) -> dict | None:
    """What a write page with an opponent shows and its script reads (None without one):
    round, mode, whether guesses are shown, the bonus, and the checks used and allowed."""
    rounds = assignment_round(assignment)
    if rounds is None or rounds.opponent is None:
        return None
    opponent = rounds.opponent
    return {
        "round": rounds.round,
        "mode": opponent.mode,
        "show_guesses": opponent.show_guesses,
        "bonus": money_text(opponent.bonus_cents, batch_currency(assignment.item.batch))
        if opponent.mode == "bonus"
        else "",
        "validate": opponent.validate,
        "max_checks": opponent.max_checks,
        "checks_used": checks_used(assignment),
    }


def opponent_live_check(*, assignment: Assignment, payload: dict, rules: OverlapRules) -> dict:
    """The page's JSON exchange with the opponent: {"opponent": "check", "text": ...} asks,
    {"opponent": "poll", "check": id} reads a check of this task. LookupError (a 404)
    when the batch has no opponent or the check is not this task's."""
    rounds = assignment_round(assignment)
    if rounds is None or rounds.opponent is None:
        raise LookupError("This batch has no opponent.")
    shown = {"show_guesses": rounds.opponent.show_guesses, "max_checks": rounds.opponent.max_checks}
    action = payload.get("opponent")
    if action == "poll":
        number = payload.get("check")
        if isinstance(number, bool) or not isinstance(number, int):
            raise LookupError("No such check.")
        check = OpponentCheck.objects.filter(pk=number, assignment=assignment).first()
        if check is None:
            raise LookupError("No such check.")
        return check_state(check, **shown)
    if action != "check":
        raise LookupError("Ask {'opponent': 'check', 'text': ...} or poll a check.")
    try:
        check = opponent_check_ask(assignment=assignment, text=payload.get("text"), rules=rules)
    except CheckRefused as refusal:
        checks = _checks(assignment, rounds.opponent.max_checks)
        return {"status": "refused", "message": str(refusal), **checks}
    check.refresh_from_db()  # answered already where tasks run in the request
    return check_state(check, **shown)


def _answered(assignment: Assignment, *, text: str, run_id: int) -> OpponentCheck | None:
    """The latest page check the run answered on exactly this text."""
    return (
        _counted(assignment)
        .filter(text_digest=text_digest(text), run_id=run_id, status=OpponentCheck.Status.ANSWERED)
        .order_by("-id")
        .first()
    )


def opponent_submit_check(*, assignment: Assignment, text: str) -> None:
    """In require mode, refuse a story the model has not been shown, or that it found
    (SubmissionError); other modes take any story that follows the writing rules."""
    rounds = assignment_round(assignment)
    if rounds is None or rounds.opponent is None or rounds.opponent.mode != "require":
        return
    answered = _answered(assignment, text=text, run_id=rounds.opponent.run)
    if answered is None:
        raise SubmissionError(
            "This batch takes stories the model does not find: ask the model about this "
            "exact story before you submit it.",
            field="text",
        )
    if not answered.fooled:
        raise SubmissionError(
            "The model still finds the proverb in this story: change it until the model "
            "does not, then submit.",
            field="text",
        )


def narrative_round_record(*, assignment: Assignment, narrative: Narrative) -> None:
    """Record a submitted story's round (in the submit's transaction): its opponent and
    what the batch promised, and the model's answer on the exact story, from a page check
    or, when none answered for this text, a check made now and answered by its task."""
    rounds = assignment_round(assignment)
    if rounds is None:
        return
    opponent = rounds.opponent
    if opponent is None:
        NarrativeRound.objects.create(narrative=narrative, round=rounds.round)
        return
    answered = _answered(assignment, text=narrative.text, run_id=opponent.run)
    if answered is None:
        answered = OpponentCheck.objects.create(
            assignment=assignment,
            kind=OpponentCheck.Kind.SUBMIT,
            run_id=opponent.run,
            text=narrative.text,
            text_digest=text_digest(narrative.text),
            requested_at=timezone.now(),
        )
        queue_on_commit("annotation.opponent_check_answer", answered.pk)
    NarrativeRound.objects.create(
        narrative=narrative,
        round=rounds.round,
        opponent_run=opponent.run,
        opponent_label=opponent_label(opponent.run),
        mode=opponent.mode,
        bonus_cents=opponent.bonus_cents,
        validate=opponent.validate,
        checks=checks_used(assignment),
        submit_check=answered,
        fooled=answered.fooled,
    )


def opponent_label(run_id: int) -> str:
    """The run's label as rounds name it ("run 12: classifier seen, ..."), or its id."""
    try:
        return opponent_describe(run_id).label[:300]
    except LookupError:
        return f"run {run_id}"
