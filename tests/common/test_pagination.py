"""API pagination: limit and offset inside their documented ranges, or a 400."""

import pytest

from tests.factories import proverb_create

pytestmark = pytest.mark.django_db


def test_limit_and_offset_page_through_the_list(researcher_api):
    for text in ("Time is money", "Haste makes waste", "Look before you leap"):
        proverb_create(text)
    page = researcher_api.get("/api/proverbs/", {"limit": 2, "offset": 1}).json()
    assert page["count"] == 3 and len(page["results"]) == 2


@pytest.mark.parametrize(
    "query",
    [
        {"limit": str(2**64)},
        {"limit": "-1"},
        {"limit": "0"},
        {"limit": ""},
        {"limit": "1001"},
        {"offset": "-5"},
        {"offset": "abc"},
        {"offset": str(2**63)},
    ],
)
def test_out_of_range_limit_or_offset_is_a_400_naming_it(researcher_api, query):
    response = researcher_api.get("/api/proverbs/", query)
    assert response.status_code == 400
    assert set(response.json()) == set(query)


def test_schema_states_the_ranges(researcher_api):
    schema = researcher_api.get("/api/schema/", {"format": "json"}).json()
    parameters = {
        p["name"]: p["schema"] for p in schema["paths"]["/api/proverbs/"]["get"]["parameters"]
    }
    assert (parameters["limit"]["minimum"], parameters["limit"]["maximum"]) == (1, 1000)
    assert parameters["offset"]["minimum"] == 0
