"""Login throttling (django-axes, wired in config.settings.base): the admin's login form
refuses a user name that keeps failing, on PostgreSQL and on the embedded default's SQLite,
where the token endpoint does too."""

import json

import pytest
from django.test import Client

from tests.processes import embedded_environment, python_run


@pytest.mark.django_db
def test_admin_login_refuses_a_user_name_after_repeated_wrong_passwords(researcher, settings):
    client = Client()
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        wrong = client.post(
            "/admin/login/", {"username": "researcher", "password": f"wrong {attempt}"}
        )
        assert wrong.status_code == 200 and "Please enter the correct" in wrong.content.decode()
    assert (
        client.post("/admin/login/", {"username": "researcher", "password": "x"}).status_code == 429
    )
    right = client.post("/admin/login/", {"username": "researcher", "password": "researcher-pass"})
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


SQLITE_ATTEMPTS = """
import json
import django
django.setup()
from django.contrib.auth.models import User
from django.test import Client

User.objects.create_superuser("admin", "admin@example.org", "admin-pass")
client = Client(HTTP_HOST="127.0.0.1")
codes = {"admin": [], "token": []}
for attempt in range(60):
    codes["admin"].append(
        client.post("/admin/login/", {"username": "admin", "password": f"no {attempt}"}).status_code
    )
codes["admin_right"] = client.post(
    "/admin/login/", {"username": "admin", "password": "admin-pass"}
).status_code
User.objects.create_user("api", password="api-pass", is_staff=True)
for attempt in range(60):
    codes["token"].append(client.post(
        "/api/auth/token/", {"username": "api", "password": f"no {attempt}"},
        content_type="application/json",
    ).status_code)
print(json.dumps(codes))
"""


def test_wrong_passwords_on_the_embedded_default_are_throttled(tmp_path):
    env, _ = embedded_environment(tmp_path, ("migrate", "--no-input"), LOG_LEVEL="ERROR")
    result = python_run(SQLITE_ATTEMPTS, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    codes = json.loads(result.stdout.strip().splitlines()[-1])
    assert codes["admin"] == [200] * 9 + [429] * 51  # the default limit: 10 failures
    assert codes["admin_right"] == 429
    assert codes["token"] == [401] * 9 + [429] * 51
