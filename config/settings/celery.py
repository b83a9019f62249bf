"""Celery: with no broker configured, tasks run in-process when queued (common.task_queue);
the queues are lanes of work (docs/deploying.md), and beat's schedule."""

from config.settings.env import env
from config.settings.modeling import PARABLE_MODELING_QUEUE, PARABLE_OPPONENT_QUEUE
from config.settings.providers import MTURK_SYNC_SECONDS, PROLIFIC_SYNC_SECONDS

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=CELERY_BROKER_URL)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A task whose worker process dies (kill -9, out of memory) goes back to the queue.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis hands an unacknowledged task to another worker after this many seconds (a
# worker killed as a whole); it must exceed the longest task's run time.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=1800),
    "socket_connect_timeout": 5,
}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = env.str("TIME_ZONE", default="UTC")  # Django's TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Queues are lanes (docs/deploying.md): short interactive work (a submit's checks, model
# checks, provider calls, beat's tasks) on the default queue; long jobs (imports and their
# checks, keywords of many stories, analyses) on "bulk"; runs on their own. The beat task
# that watches runs stays on the default one, so a worker busy with a run never holds it up.
PARABLE_BULK_QUEUE = "bulk"
CELERY_TASK_ROUTES = {
    "modeling.runs_watch": {"queue": "celery"},
    "modeling.*": {"queue": PARABLE_MODELING_QUEUE},
    "annotation.opponent_check_answer": {"queue": PARABLE_OPPONENT_QUEUE},
    **{
        f"annotation.{name}": {"queue": PARABLE_BULK_QUEUE}
        for name in [
            "import_job_run",
            "imported_similarity_check",
            "figurative_similarity_check",
            "narratives_keywords_fill",
            "dataset_analysis_compute",
            "variant_groups_refresh",
        ]
    },
}

CELERY_BEAT_SCHEDULE = {
    "expire-reservations": {"task": "crowd.assignments_expire", "schedule": 60.0},
    "send-provider-calls": {"task": "crowd.provider_actions_requeue", "schedule": 60.0},
    "requeue-keywords": {"task": "annotation.keywords_requeue", "schedule": 60.0},
    "requeue-import-jobs": {"task": "annotation.import_jobs_requeue", "schedule": 60.0},
    "requeue-similarity": {"task": "annotation.similarity_requeue", "schedule": 60.0},
    "requeue-analyses": {"task": "annotation.analyses_requeue", "schedule": 60.0},
    "requeue-opponents": {"task": "annotation.opponents_requeue", "schedule": 60.0},
    "watch-modeling-runs": {"task": "modeling.runs_watch", "schedule": 60.0},
    "prolific-sync": {"task": "prolific.studies_sync", "schedule": float(PROLIFIC_SYNC_SECONDS)},
    "mturk-sync": {"task": "mturk.hits_sync", "schedule": float(MTURK_SYNC_SECONDS)},
}
