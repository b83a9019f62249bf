"""/healthz: the database always, the broker when one is configured."""

import pytest


@pytest.mark.django_db
def test_healthz_reports_database_and_in_process_broker(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "in-process"}


@pytest.mark.django_db
def test_healthz_is_503_when_broker_unreachable(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"].startswith("error")
