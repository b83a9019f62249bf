"""Bad input at the edges: query strings, JSON bodies and integer parameters get a 400."""

import pytest
from django.core.exceptions import BadRequest
from django.test import RequestFactory

from common.request_input import query_int

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/proverbs/", "/api/narratives/", "/api/batches/"])
def test_nul_in_an_api_query_is_a_json_400(researcher_api, path):
    response = researcher_api.get(path, {"status": "curated\x00", "source": "x"})
    assert response.status_code == 400
    assert "NUL character" in response.json()["detail"]


def test_nul_in_an_admin_query_is_a_400(client, researcher):
    client.force_login(researcher)
    response = client.get("/admin/annotation/narrative/", {"q": "a\x00b"})
    assert response.status_code == 400


def test_api_json_body_with_an_escaped_nul_is_a_400_naming_it(researcher_api):
    response = researcher_api.post(
        "/api/proverbs/", '{"text": "Time is\\u0000 money"}', content_type="application/json"
    )
    assert response.status_code == 400
    assert "NUL character" in response.json()["detail"]


def test_query_int_reads_ids_and_refuses_everything_else():
    factory = RequestFactory()
    assert query_int(factory.get("/", {"batch": "12"}), "batch") == 12
    assert query_int(factory.get("/"), "batch") is None
    assert query_int(factory.get("/", {"batch": ""}), "batch") is None
    for bad in ("abc", "-1", "0", "1.5", "٣", str(2**63)):
        with pytest.raises(BadRequest):
            query_int(factory.get("/", {"batch": bad}), "batch")
