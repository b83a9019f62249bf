"""The API's token endpoint: wrong credentials are 401, and a user name that keeps failing is
throttled (django-axes), the right password included, while other user names are not."""

import pytest

TOKEN_URL = "/api/auth/token/"


def _try(api_client, username: str, password: str):
    return api_client.post(TOKEN_URL, {"username": username, "password": password}, format="json")


@pytest.mark.django_db
def test_a_user_name_that_keeps_failing_is_refused_even_with_the_right_password(
    api_client, researcher, reviewer, settings
):
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _try(api_client, "researcher", f"wrong {attempt}").status_code == 401
    locked = _try(api_client, "researcher", "wrong again")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    refused = _try(api_client, "researcher", "researcher-pass")
    assert refused.status_code == 429 and "token" not in refused.json()
    assert _try(api_client, "reviewer", "reviewer-pass").status_code == 200


@pytest.mark.django_db
def test_a_right_password_before_the_limit_clears_the_failures(api_client, researcher, settings):
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _try(api_client, "researcher", f"wrong {attempt}").status_code == 401
    assert _try(api_client, "researcher", "researcher-pass").status_code == 200
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _try(api_client, "researcher", f"wrong {attempt}").status_code == 401
    assert _try(api_client, "researcher", "researcher-pass").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["\x85", " \t "])
def test_a_user_name_of_white_space_is_wrong_credentials_as_its_schema_allows(api_client, username):
    """The schema allows any text without NUL; a name of white space alone is a name no
    one has (401), not a blank field (400)."""
    response = api_client.post(TOKEN_URL, {"username": username, "password": "x"})
    assert response.status_code == 401
