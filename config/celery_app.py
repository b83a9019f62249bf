"""The Celery app: tasks run in-process unless CELERY_BROKER_URL names a broker."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("parable")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def models_preload(**kwargs) -> None:
    """Each worker process loads its models as it starts, before its first task."""
    from annotation.keywords import spacy_pipeline_preload
    from annotation.quality.embeddings import embedding_model_preload

    spacy_pipeline_preload(wait=True)
    embedding_model_preload(wait=True)
