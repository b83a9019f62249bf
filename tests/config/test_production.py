"""Production settings: weak keys refused, `check --deploy` clean, HTTPS, HSTS and CSP sent."""

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.integration.processes import gunicorn_server

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "Xk2v9Qm4Lr8Tz1Wc6Bn3Hy7Pd5Fs0Gj-uAeRiOtNoMlKb_qZxCvE"


def _import_production(**env):
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "PARABLE_DEBUG")}
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
    result = _import_production(SECRET_KEY=STRONG_KEY, PARABLE_DEBUG="true")
    assert result.returncode != 0
    assert "PARABLE_DEBUG must be off" in result.stderr


def test_production_starts_with_secret_and_no_debug():
    result = _import_production(SECRET_KEY=STRONG_KEY)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    "key",
    [
        "short-key",
        "change-me-to-a-long-random-string",
        "django-insecure-" + "k3y" * 20,
        "ab" * 30,
    ],
)
def test_production_refuses_a_short_or_default_key(key):
    result = _import_production(SECRET_KEY=key)
    assert result.returncode != 0
    assert "SECRET_KEY is too weak" in result.stderr


def test_check_deploy_warns_only_about_the_hsts_choices_left_to_the_site():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": STRONG_KEY,
            "ALLOWED_HOSTS": "parable.example.org",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    warnings = set(re.findall(r"security\.W\d+", result.stdout + result.stderr))
    # Subdomains and the preload list are the site's to decide (docs/settings.md).
    assert warnings <= {"security.W005", "security.W021"}


@pytest.mark.django_db(transaction=True)
def test_production_redirects_to_https_and_sends_hsts_and_csp():
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.production", "SECRET_KEY": STRONG_KEY}
    with gunicorn_server(env=env) as (url, _):
        plain = urllib.request.Request(f"{url}/api/proverbs/", headers={"Host": "127.0.0.1"})
        opener = urllib.request.build_opener(_NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as redirected:
            opener.open(plain, timeout=30)
        assert redirected.value.code == 301
        assert redirected.value.headers["Location"] == "https://127.0.0.1/api/proverbs/"
        secure = urllib.request.Request(f"{url}/healthz", headers={"X-Forwarded-Proto": "https"})
        with urllib.request.urlopen(secure, timeout=30) as response:
            headers = response.headers
    assert headers["Strict-Transport-Security"] == "max-age=31536000"
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
