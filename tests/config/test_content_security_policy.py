"""The Content-Security-Policy on every page."""

import pytest


@pytest.mark.django_db
def test_every_page_gets_a_policy_with_scripts_from_self_only(client, researcher):
    client.force_login(researcher)
    for path in ("/admin/", "/admin/crowd/worker/", "/tasks/"):
        policy = client.get(path)["Content-Security-Policy"]
        directives = dict(part.split(" ", 1) for part in policy.split("; "))
        assert directives["script-src"] == "'self'"
        assert "frame-ancestors 'none'" in policy
