"""/healthz and the production safety checks."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "Xk2v9Qm4Lr8Tz1Wc6Bn3Hy7Pd5Fs0Gj-uAeRiOtNoMlKb_qZxCvE"


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


def _import_production(**env):
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    environment.update(env, DJANGO_SETTINGS_MODULE="config.settings.production")
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_secret_key():
    result = _import_production()
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_refuses_debug():
    result = _import_production(SECRET_KEY=STRONG_KEY, DEBUG="true")
    assert result.returncode != 0
    assert "DEBUG must be off" in result.stderr


def test_production_starts_with_secret_and_no_debug():
    result = _import_production(SECRET_KEY=STRONG_KEY)
    assert result.returncode == 0, result.stderr
