"""Celery tasks of the dataset app: thin wrappers that call services."""

from celery import shared_task

from annotation.analysis.jobs import analyses_waiting, dataset_analysis_compute_task
from annotation.curation.services import variant_groups_propose
from annotation.intake.import_jobs import import_job_run_task, import_jobs_waiting
from annotation.keywords import (  # noqa: F401 (defined where they are queued)
    narrative_keywords_extract_task,
    narratives_keywords_fill_task,
)
from annotation.opponents.checks import opponent_check_answer_task, submit_checks_waiting
from annotation.opponents.outcomes import bonuses_waiting, opponent_bonus_pay_task
from annotation.quality.similarity_scan import (  # noqa: F401 (registered with Celery)
    figurative_similarity_check_task,
    figurative_similarity_requeue,
    imported_similarity_check_task,
    narrative_similarity_check_task,
)
from common.task_queue import tasks_requeue_lost


@shared_task(name="annotation.variant_groups_refresh")
def variant_groups_refresh() -> int:
    """Propose variant groups over all live proverbs; idempotent (known groups are skipped)."""
    return variant_groups_propose()


@shared_task(name="annotation.keywords_requeue")
def keywords_requeue_task() -> int:
    """Queue keyword extraction again for narratives still pending after the grace period
    whose message is lost (beat, every minute); returns how many were queued."""
    from annotation.keywords import narratives_keywords_pending

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
