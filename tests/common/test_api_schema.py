"""The OpenAPI schema documents the error answers and the invite list as it is returned."""

import re

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(researcher_api):
    return researcher_api.get("/api/schema/", {"format": "json"}).json()


def test_every_operation_documents_its_error_answers(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"400", "401", "403", "414"} <= codes, (method, path)
            assert "content" not in operation["responses"]["414"]  # gunicorn's HTML page
            if "{" in path or method in ("post", "put", "patch"):
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


def test_request_bodies_take_only_their_fields_and_clean_text(schema):
    components = schema["components"]["schemas"]
    for name in ("ProverbRequest", "BatchCreateRequest", "RejectRequest", "InvitesRequest"):
        assert components[name]["additionalProperties"] is False, name
    meaning = components["ProverbRequest"]["properties"]["meaning"]
    assert "\x00" not in "".join(re.findall(meaning["pattern"], "a\x00b"))
    text = re.compile(components["ProverbRequest"]["properties"]["text"]["pattern"])
    assert text.match("Haste makes waste") and not text.match("?!") and not text.match("a\x00")
    assert "description" not in components["RejectRequest"]  # no mixin's comment as text
    way_in, by_type = components["BatchCreateRequest"]["allOf"]
    draft, given, source, drawn = way_in["anyOf"]
    assert draft["properties"]["publish"] == {"allOf": [{"enum": [False]}]}
    assert draft["properties"]["task_type"]["allOf"][0]["enum"] == ["continue", "template", "write"]
    assert given == {"required": ["items"], "properties": {"items": {"minItems": 1}}}
    assert components["BatchItemInputRequest"]["minProperties"] == 1
    assert source["required"] == ["source_batch"]
    write = next(
        rule
        for rule in by_type["anyOf"]
        if rule["properties"]["task_type"]["allOf"][0]["enum"] == ["write"]
    )
    assert write["properties"]["source_batch"] == {"allOf": [{"enum": [None]}]}
    draws = drawn["properties"]["settings"]["anyOf"][0]["properties"]["draw"]
    assert draws == {"type": "array", "minItems": 1}


def test_the_api_refuses_fields_and_types_its_schema_does_not_allow(researcher_api):
    from tests.factories import proverb_create

    response = researcher_api.post(
        "/api/proverbs/", {"text": "Haste makes waste", "colour": "red"}, format="json"
    )
    assert response.status_code == 400 and "colour" in response.json()
    response = researcher_api.post(
        "/api/proverbs/", {"text": "Haste makes waste", "meaning": 0}, format="json"
    )
    assert response.status_code == 400 and response.json()["meaning"] == ["Must be a string."]
    response = researcher_api.post(
        "/api/batches/",
        {"name": "B", "task_type": "write", "items": [], "publish": 0},
        format="json",
    )
    assert response.status_code == 400 and response.json()["publish"] == ["Must be true or false."]
    proverb_create("Haste makes waste")
    duplicate = researcher_api.post(
        "/api/proverbs/", {"text": "Haste  makes waste!"}, format="json"
    )
    assert duplicate.status_code == 409
    assert duplicate.json() == {"detail": "This proverb is already in the list."}


def test_wrong_credentials_for_a_token_are_unauthenticated(api_client, researcher):
    wrong = api_client.post(
        "/api/auth/token/", {"username": "researcher", "password": "nope"}, format="json"
    )
    assert wrong.status_code == 401
    right = api_client.post(
        "/api/auth/token/", {"username": "researcher", "password": "researcher-pass"}
    )
    assert right.status_code == 200 and right.json()["token"]


def test_a_reference_to_nothing_is_404_and_an_unpublishable_batch_409_keeping_nothing(
    researcher_api,
):
    from crowd.models import Batch

    batch = {"name": "B", "task_type": "write", "items": [{"proverb": 999_999}]}
    missing = researcher_api.post("/api/batches/", batch, format="json")
    assert missing.status_code == 404
    floated = {**batch, "items": [{"proverb": 2.5}], "target_per_item": "3"}
    refused = researcher_api.post("/api/batches/", floated, format="json").json()
    assert refused["target_per_item"] == ["Must be a whole number."]
    assert "999999" in str(missing.json()["items"])
    empty = researcher_api.post(
        "/api/batches/", {**batch, "items": [], "publish": True}, format="json"
    )
    assert empty.status_code == 409
    assert empty.json() == {"detail": "A batch needs at least one item before it is published."}
    drawn = {"name": "R", "task_type": "rate", "settings": {"draw": [{}]}, "publish": True}
    nothing_drawn = researcher_api.post("/api/chained-batches/", drawn, format="json")
    assert nothing_drawn.status_code == 409
    assert not Batch.objects.exists()


def test_each_task_types_settings_are_stated_in_the_create_bodies(schema):
    """The create body (of /api/batches/ and /api/chained-batches/ alike) takes, for each
    task type, the settings that type declares."""
    paths = schema["paths"]
    for url in ("/api/batches/", "/api/chained-batches/"):
        body = paths[url]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/BatchCreateRequest"}
    rules = schema["components"]["schemas"]["BatchCreateRequest"]["allOf"][-1]["anyOf"]
    by_type = {rule["properties"]["task_type"]["allOf"][0]["enum"][0]: rule for rule in rules}
    assert {"align", "choose", "cloze", "continue_choice", "rate", "write", "continue"} <= set(
        by_type
    )
    cloze = by_type["cloze"]["properties"]["settings"]
    assert cloze["additionalProperties"] is False
    assert cloze["properties"]["condition"]["enum"] == ["full", "arguments", "subject_verb"]
    draw = by_type["rate"]["properties"]["settings"]["properties"]["draw"]
    assert draw["items"]["properties"]["source"]["enum"][0] == "any"


def test_the_proverb_import_states_its_file_is_text(schema):
    body = schema["paths"]["/api/proverbs/import/"]["post"]["requestBody"]["content"]
    encoding = body["multipart/form-data"]["encoding"]["file"]
    assert encoding["contentType"] == "text/plain, text/csv"


def test_answers_state_no_pattern_only_request_bodies_do(schema):
    components = schema["components"]["schemas"]
    assert "pattern" not in components["Proverb"]["properties"]["text"]
    assert components["ProverbRequest"]["properties"]["text"]["pattern"]


def test_a_text_of_white_space_alone_is_schema_invalid_where_the_server_refuses_it(
    schema, researcher_api
):
    from tests.factories import proverb_create, write_batch_create

    components = schema["components"]["schemas"]
    name_prefix = components["InvitesRequest"]["properties"]["name_prefix"]["pattern"]
    assert not re.search(name_prefix, "\n\f\x1c\u3000")  # what str.strip() removes
    assert re.search(name_prefix, "\ufeff")  # which it keeps: ECMA-262's \s differs
    assert re.search(name_prefix, "  Lab ")
    # A field that may be blank keeps the plain rule.
    assert components["ProverbImportRequest"]["properties"]["source"]["pattern"] == "^[^\\x00]*$"
    batch = write_batch_create(proverbs=[proverb_create()])
    url = f"/api/batches/{batch.pk}/invites/"
    assert researcher_api.post(url, {"name_prefix": "\n"}, format="json").status_code == 400
    assert researcher_api.post(url, {"name_prefix": "\ufeff"}, format="json").status_code == 201


def test_a_text_longer_than_its_max_length_is_refused_white_space_included(researcher_api):
    from tests.factories import proverb_create, write_batch_create

    batch = write_batch_create(proverbs=[proverb_create()])
    url = f"/api/batches/{batch.pk}/invites/"
    padded = " " + "L" * 150  # 151 characters; 150 once DRF strips the space
    refused = researcher_api.post(url, {"name_prefix": padded}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"name_prefix": ["Ensure this field has no more than 150 characters."]}
    assert researcher_api.post(url, {"name_prefix": "L" * 150}, format="json").status_code == 201


def test_a_proverbs_word_rule_reads_alike_in_the_schema_for_every_validator_and_the_server(
    schema, researcher_api
):
    import jsonschema_rs

    text = schema["components"]["schemas"]["ProverbRequest"]["properties"]["text"]
    rust = jsonschema_rs.validator_for(text)  # ECMA-262 regular expressions, \w ASCII only
    for value, valid in [("ÜÃ", True), ("Ĳ 𝐀", True), ("_", True), ("«» !", False)]:
        assert rust.is_valid(value) == valid, value
        assert bool(re.search(text["pattern"], value)) == valid, value
        answer = researcher_api.post("/api/proverbs/", {"text": value}, format="json")
        assert answer.status_code == (201 if valid else 400), (value, answer.json())
