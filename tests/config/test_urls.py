"""The API documentation page: Swagger UI from our own static files, for staff only."""

import re

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_api_docs_load_swagger_ui_from_local_static_files(client, researcher):
    client.force_login(researcher)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assets = re.findall(r'(?:src|href)="/static/([^"]+)"', page)
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in assets
    assert all(finders.find(asset) for asset in assets)
    assert "cdn.jsdelivr" not in page
    assert "<script>" not in page  # the start-up script is a file of its own (CSP)
    script = client.get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in script.content.decode()


def test_api_docs_are_for_staff(client, worker_user):
    assert client.get("/api/docs/").status_code in (302, 401, 403)
    client.force_login(worker_user)
    assert client.get("/api/docs/").status_code == 403
