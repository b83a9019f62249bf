"""Celery tasks of the dataset app: thin wrappers that take ids and call one service.

Every task of the app is defined here, and nowhere else; a service that queues one names
it (`queue_on_commit("annotation.import_job_run", job.pk)`), so that this module imports
the services and none of them imports it back. Beat's re-queues take what is still
pending after the grace period and has no message waiting (common.task_queue).
"""

from celery import shared_task

from annotation.analysis.jobs import analyses_waiting, analysis_compute
from annotation.analysis.keywords import (
    narrative_keywords_extract,
    narratives_keywords_fill,
    narratives_keywords_pending,
)
from annotation.curation.services import variant_groups_propose
from annotation.intake.import_jobs import import_job_run, import_jobs_waiting
from annotation.opponents.checks import opponent_check_answer, submit_checks_waiting
from annotation.opponents.outcomes import bonuses_waiting, opponent_bonus_pay
from annotation.quality.similarity_scan import (
    figurative_similarity_check,
    figurative_similarity_requeue,
    imported_similarity_check,
)
from common.task_queue import tasks_requeue_lost


@shared_task(bind=True, name="annotation.narrative_similarity_check", max_retries=5)
def narrative_similarity_check_task(self, narrative_id: int) -> int:
    """Check a submitted story against its proverb's and its worker's other stories, with
    the other stories waiting for their check (annotation.quality.similarity); returns how
    many were checked. Idempotent: a story checked already is left as it is. A story
    another pass holds is tried again a few seconds later (beat's re-queue after that).
    Queued by the writing record (annotation.task_parts) in the submit's transaction; the
    embedding model is imported only where the check runs."""
    from annotation.quality.similarity import narratives_similarity_check_waiting

    checked = narratives_similarity_check_waiting(narrative_id=narrative_id)
    if checked is None:
        raise self.retry(countdown=5)
    return len(checked)


@shared_task(name="annotation.imported_similarity_check")
def imported_similarity_check_task(narrative_ids: list[int]) -> int:
    """Give imported stories the dataset check at once (embedding them and comparing
    every story of their proverbs by matrix operations); idempotent. A lost task is made
    good story by story by beat's `annotation.similarity_requeue`."""
    return imported_similarity_check(narrative_ids=narrative_ids)


@shared_task(name="annotation.figurative_similarity_check")
def figurative_similarity_check_task(narrative_ids: list[int]) -> int:
    """The dataset check of imported idiom and simile narratives; idempotent."""
    return figurative_similarity_check(narrative_ids=narrative_ids)


@shared_task(name="annotation.opponent_bonus_pay")
def opponent_bonus_pay_task(narrative_id: int) -> int:
    """Pay a story's bonus for fooling the model, once; idempotent."""
    opponent_bonus_pay(narrative_id=narrative_id)
    return narrative_id


@shared_task(name="annotation.opponent_check_answer")
def opponent_check_answer_task(check_id: int) -> int:
    """Answer a check with its opponent (routed to PARABLE_OPPONENT_QUEUE); idempotent."""
    opponent_check_answer(check_id=check_id)
    return check_id


@shared_task(name="annotation.narrative_keywords_extract")
def narrative_keywords_extract_task(narrative_id: int) -> int:
    """Extract and store an approved narrative's verbs and named entities; idempotent."""
    narrative_keywords_extract(narrative_id=narrative_id)
    return narrative_id


@shared_task(name="annotation.narratives_keywords_fill")
def narratives_keywords_fill_task(narrative_ids: list[int]) -> int:
    """Extract the keywords of many narratives (an import, a backfill); idempotent."""
    return narratives_keywords_fill(narrative_ids=narrative_ids)


@shared_task(name="annotation.dataset_analysis_compute")
def dataset_analysis_compute_task(analysis_id: int) -> int:
    """Compute a queued dataset analysis; idempotent (a finished job is not run again)."""
    analysis_compute(analysis_id=analysis_id)
    return analysis_id


@shared_task(name="annotation.import_job_run")
def import_job_run_task(job_id: int) -> int:
    """Run a queued import job; idempotent (a running or finished job is left alone)."""
    import_job_run(job_id=job_id)
    return job_id


@shared_task(name="annotation.variant_groups_refresh")
def variant_groups_refresh() -> int:
    """Propose variant groups over all live proverbs; idempotent (known groups are skipped)."""
    return variant_groups_propose()


@shared_task(name="annotation.keywords_requeue")
def keywords_requeue_task() -> int:
    """Queue keyword extraction again for narratives still pending after the grace period
    whose message is lost (beat, every minute); returns how many were queued."""
    return tasks_requeue_lost(narrative_keywords_extract_task, narratives_keywords_pending())


@shared_task(name="annotation.similarity_requeue")
def similarity_requeue_task() -> int:
    """Queue the dataset check again for stories, and for imported idiom and simile
    narratives, not checked after the grace period whose message is lost (beat, every
    minute); returns how many were queued."""
    from annotation.quality.similarity import narratives_similarity_pending

    stories = tasks_requeue_lost(narrative_similarity_check_task, narratives_similarity_pending())
    return stories + figurative_similarity_requeue()


@shared_task(name="annotation.analyses_requeue")
def analyses_requeue_task() -> int:
    """Queue dataset analyses again that are still queued after the grace period and whose
    message is lost (beat, every minute); returns how many were queued."""
    return tasks_requeue_lost(dataset_analysis_compute_task, analyses_waiting())


@shared_task(name="annotation.import_jobs_requeue")
def import_jobs_requeue_task() -> int:
    """Queue import jobs again that are still queued after the grace period and whose
    message is lost (beat, every minute); returns how many were queued. A job runs once
    however often it is queued."""
    return tasks_requeue_lost(import_job_run_task, import_jobs_waiting())


@shared_task(name="annotation.opponents_requeue")
def opponents_requeue_task() -> int:
    """Queue again the opponent's checks of submitted stories and the fooled-model bonuses
    still waiting after the grace period whose message is lost (beat, every minute);
    returns how many were queued."""
    checks = tasks_requeue_lost(opponent_check_answer_task, submit_checks_waiting())
    return checks + tasks_requeue_lost(opponent_bonus_pay_task, bonuses_waiting())
