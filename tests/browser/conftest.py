"""Browser tests run Celery tasks in-process (eager), so a submitted story's similarity
check runs inside the submit request: the embedding model is loaded once for the session
before any page is opened, as a worker process has it loaded before its first task."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def sentence_model_loaded():
    from annotation.quality.embeddings import embedding_model_path, sentence_model

    sentence_model(embedding_model_path())
