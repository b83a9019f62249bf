"""/healthz: the database always, the broker when one is configured, and this deployment's
identity."""

import pytest


@pytest.mark.django_db
def test_healthz_reports_database_and_in_process_broker(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    report = response.json()
    assert report == {
        "status": "ok",
        "database": "ok",
        "broker": "in-process",
        "deployment": report["deployment"],
    }


@pytest.mark.django_db
def test_healthz_is_503_when_broker_unreachable(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"].startswith("error")


@pytest.mark.django_db
def test_the_deployment_is_named_by_its_secret_key_without_revealing_it(client, settings):
    named = client.get("/healthz").json()["deployment"]
    assert len(named) == 16 and named not in settings.SECRET_KEY
    assert client.get("/healthz").json()["deployment"] == named  # the same in every answer
    settings.SECRET_KEY = "another deployment's secret key, at least fifty characters long"
    assert client.get("/healthz").json()["deployment"] != named
