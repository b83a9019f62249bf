"""Settings read from the environment: database connections in production, debug pages
on the embedded default."""

import json
import os
import secrets

from tests.processes import python_run


def production_database(**env) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CONN_")}
    environment.update(
        env,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY=secrets.token_urlsafe(50),
    )
    environment.pop("PARABLE_DEBUG", None)
    script = (
        "import json, django; django.setup(); from django.conf import settings; "
        "db = settings.DATABASES['default']; "
        "print(json.dumps({k: db[k] for k in ('CONN_MAX_AGE', 'CONN_HEALTH_CHECKS')}))"
    )
    result = python_run(script, env=environment)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_keeps_connections_open_with_health_checks_by_default():
    assert production_database() == {"CONN_MAX_AGE": 600, "CONN_HEALTH_CHECKS": True}


def test_production_connection_settings_come_from_the_environment():
    assert production_database(CONN_MAX_AGE="0", CONN_HEALTH_CHECKS="false") == {
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
    }


def local_debug(tmp_path, **env) -> bool:
    """DEBUG under the embedded default's settings (`make run`), in a fresh process."""
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PARABLE_DEBUG", "DATABASE_URL", "CELERY_BROKER_URL")
    }
    environment.update(
        env, DJANGO_SETTINGS_MODULE="config.settings.local", PARABLE_VAR_DIR=str(tmp_path)
    )
    script = (
        "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    )
    result = python_run(script, env=environment)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().lower())


def test_embedded_default_runs_without_debug_pages(tmp_path):
    assert local_debug(tmp_path) is False


def test_parable_debug_turns_debug_pages_on_for_a_developer(tmp_path):
    assert local_debug(tmp_path, PARABLE_DEBUG="1") is True
