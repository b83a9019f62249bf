"""The Content-Security-Policy on every page, and a view's own policy left as it set it."""

import pytest
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory


@pytest.mark.django_db
def test_every_page_gets_a_policy_with_scripts_from_self_only(client, researcher):
    client.force_login(researcher)
    for path in ("/admin/", "/admin/crowd/worker/", "/tasks/"):
        policy = client.get(path)["Content-Security-Policy"]
        directives = dict(part.split(" ", 1) for part in policy.split("; "))
        assert directives["script-src"] == "'self'"
        assert "frame-ancestors 'none'" in policy


def test_a_views_own_policy_is_left_alone(settings):
    own = "frame-ancestors https://workersandbox.mturk.com https://www.mturk.com"

    def view(request):
        response = HttpResponse("task page")
        response["Content-Security-Policy"] = own
        return response

    response = CSPMiddleware(view)(RequestFactory().get("/mturk/task/"))
    assert response["Content-Security-Policy"] == own
