"""The OpenAPI schema documents the error answers and the invite list as it is returned."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(researcher_api):
    return researcher_api.get("/api/schema/", {"format": "json"}).json()


def test_every_operation_documents_its_error_answers(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"400", "401", "403"} <= codes, (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
            if method in ("post", "put", "patch"):
                assert {"409", "415"} <= codes, (method, path)


def test_invites_are_documented_as_the_plain_list_returned(schema, researcher_api):
    from tests.factories import proverb_create, write_batch_create

    response = schema["paths"]["/api/batches/{id}/invites/"]["post"]["responses"]["201"]
    documented = response["content"]["application/json"]["schema"]
    assert documented["type"] == "array"
    batch = write_batch_create(proverbs=[proverb_create()])
    body = researcher_api.post(f"/api/batches/{batch.pk}/invites/", {"count": 2}, format="json")
    assert isinstance(body.json(), list) and len(body.json()) == 2


def test_chained_batch_results_are_documented_as_the_list_returned(schema):
    results = schema["paths"]["/api/chained-batches/{id}/results/"]["get"]["responses"]["200"]
    assert results["content"]["application/json"]["schema"]["type"] == "array"
