"""The admin index: a study's work first, in the order of a study, the plumbing under one
heading last."""

import re

import pytest

pytestmark = pytest.mark.django_db


def headings(page: str) -> list[str]:
    return re.findall(r'<a href="[^"]*" class="section"[^>]*>([^<]+)</a>', page)


def section(page: str, heading: str) -> str:
    return page.split(f'class="section" title="Models in the {heading} application">')[1].split(
        "</table>"
    )[0]


def test_the_index_leads_with_the_study_and_groups_the_plumbing(client, admin_user):
    client.force_login(admin_user)
    page = client.get("/admin/").content.decode()
    assert headings(page) == [
        "Proverbs",
        "Batches",
        "Review",
        "Dataset",
        "Runs",
        "Settings and records",
    ]
    assert "Variant groups" in section(page, "Proverbs")
    assert "Worker" in section(page, "Batches")
    review = section(page, "Review")
    assert "Narratives" in review and "Span pairs" in review and "Bonuses" in review
    assert "Import jobs" in section(page, "Dataset") and "Proverbs" not in section(page, "Dataset")
    plumbing = section(page, "Settings and records")
    for name in ("Access attempts", "Tokens", "Groups", "Users", "MTurk settings", "Studies"):
        assert name in plumbing, name
    assert "Access attempts" not in page.split(">Settings and records</a>")[0]
    assert 'href="#settings-and-records"' in page


def test_an_apps_own_page_lists_its_models_as_django_does(client, admin_user):
    client.force_login(admin_user)
    page = client.get("/admin/axes/").content.decode()
    assert "Access attempts" in page and "Access logs" in page and "Variant groups" not in page
