"""The template type's review list: one row per answer, its fields as an escaped table; an
answer's page shows it in the template's layout, a sandboxed read-only frame."""

import pytest

from annotation.task_types.template.models import TemplateAnswer
from crowd.batches import batch_publish
from crowd.models import Assignment
from tests.annotation.task_types.template.helpers import answered, template_batch

pytestmark = pytest.mark.django_db

HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.fixture
def answer():
    batch = batch_publish(batch=template_batch())
    answered(batch, [(1, "w1", [["sentiment", "positive"], ["explanation", HOSTILE]])])
    return TemplateAnswer.objects.get()


def test_the_list_shows_the_answers_fields_escaped(client, reviewer, answer):
    client.force_login(reviewer)
    url = f"/admin/annotation/templateanswer/?batch={answer.assignment.item.batch_id}"
    page = client.get(url).content.decode()
    assert "<tr><th>sentiment</th><td>positive</td></tr>" in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page and HOSTILE not in page
    assert "Time away from the page: unknown (no record)." in page


def test_an_answers_page_shows_it_in_the_templates_layout(client, reviewer, answer):
    client.force_login(reviewer)
    page = client.get(f"/admin/annotation/templateanswer/{answer.pk}/change/").content.decode()
    assert '<iframe sandbox="allow-scripts" src="/tasks/frame/' in page


def test_approving_from_the_list_pays_through_the_review_service(client, researcher, answer):
    client.force_login(researcher)
    client.post(
        "/admin/annotation/templateanswer/",
        {"action": "approve_selected", "_selected_action": [answer.pk]},
    )
    answer.assignment.refresh_from_db()
    assert answer.assignment.status == Assignment.Status.APPROVED
