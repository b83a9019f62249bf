"""The payments admin: the report (page and CSV) and a batch's realised pay with its
target rate and the one-action top-up."""

import csv
import io

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from crowd.models import Bonus
from crowd.review import assignment_bonus
from tests.crowd.test_pay import PROVERBS, worked
from tests.factories import proverb_create, worker_create, write_batch_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return write_batch_create(
        proverbs=[proverb_create(text) for text in PROVERBS], target_per_item=2, reward_cents=100
    )


def test_report_lists_rewards_and_bonuses_and_downloads_as_csv(client, researcher, batch):
    task = worked(batch, worker_create(external_id="lab-7", display_name="<b>Ana</b>"), 10)
    assignment_bonus(assignment=task, cents=30, reason="Careful <i>work</i>")
    client.force_login(researcher)
    page = client.get(reverse("admin:crowd_bonus_changelist")).content.decode()
    assert "Careful &lt;i&gt;work&lt;/i&gt;" in page and "<b>Ana</b>" not in page
    assert "recorded (paid by the lab)" in page
    download = client.get(reverse("admin:crowd_bonus_changelist"), {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert rows == [
        {
            "batch": batch.name,
            "worker": "lab-7",
            "provider": "local",
            "paid_tasks": "1",
            "rewards": "1.00",
            "bonuses": "0.30",
            "bonus_states": "0.30 recorded (paid by the lab)",
        }
    ]


def test_target_rate_and_top_up_from_the_batch_page(client, researcher, batch):
    worked(batch, worker_create(display_name="Slow"), 30)
    client.force_login(researcher)
    url = reverse("admin:crowd_batch_pay", args=[batch.pk])
    client.post(url, {"target": "10.00"})
    page = client.get(url).content.decode()
    assert 'data-testid="target-rate">10.00<' in page
    assert 'data-testid="top-up"' in page
    client.post(url, {"top_up": "1"})
    client.post(url, {"top_up": "1"})  # sent again: nothing more
    assert Bonus.objects.count() == 1
    assert 'data-testid="top-up"' not in client.get(url).content.decode()


def test_setting_a_target_or_topping_up_needs_the_review_permission(
    client, django_user_model, batch
):
    viewer = django_user_model.objects.create_user(username="viewer", is_staff=True)
    viewer.user_permissions.add(
        Permission.objects.get(codename="view_bonus", content_type__app_label="crowd")
    )
    client.force_login(viewer)
    url = reverse("admin:crowd_batch_pay", args=[batch.pk])
    assert client.get(url).status_code == 200
    assert client.post(url, {"target": "10"}).status_code == 403
