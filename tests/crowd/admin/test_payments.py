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


def test_report_lists_rewards_and_bonuses_and_downloads_as_csv(client, researcher, batch, settings):
    settings.PARABLE_LAB_CURRENCY = "EUR"  # the lab's own: every amount names it
    task = worked(batch, worker_create(external_id="lab-7", display_name="<b>Ana</b>"), 10)
    assignment_bonus(assignment=task, cents=30, reason="Careful <i>work</i>")
    client.force_login(researcher)
    page = client.get(reverse("admin:crowd_bonus_changelist")).content.decode()
    assert "Careful &lt;i&gt;work&lt;/i&gt;" in page and "<b>Ana</b>" not in page
    assert "recorded for the lab to pay (Parable pays lab workers nothing)" in page
    assert "<td>1.00 EUR</td>" in page and "0.30 EUR · Careful" in page
    download = client.get(reverse("admin:crowd_bonus_changelist"), {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert rows == [
        {
            "batch": batch.name,
            "worker": "<b>Ana</b>",
            "worker_id": "lab-7",
            "provider": "local",
            "paid_tasks": "1",
            "rewards": "1.00 EUR",
            "bonuses": "0.30 EUR",
            "bonus_states": "0.30 EUR recorded for the lab to pay "
            "(Parable pays lab workers nothing)",
        }
    ]


def test_payments_csv_names_each_worker_as_the_pages_do_and_neutralises_formulas(
    client, researcher
):
    batch = write_batch_create(
        proverbs=[proverb_create(text) for text in PROVERBS],
        name='=HYPERLINK("http://x")',
        reward_cents=25,
    )
    worked(batch, worker_create(external_id="de4a8702", display_name="Lab 4"), 10)
    worked(batch, worker_create(external_id="@SUM(1)", display_name=""), 10)
    client.force_login(researcher)
    download = client.get(reverse("admin:crowd_bonus_changelist"), {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert [(row["worker"], row["worker_id"]) for row in rows] == [
        ("Lab 4", "de4a8702"),
        ("local:@SUM(1)", "'@SUM(1)"),
    ]
    assert {row["batch"] for row in rows} == {'\'=HYPERLINK("http://x")'}
    assert {row["rewards"] for row in rows} == {"0.25"}


def test_target_rate_and_top_up_from_the_batch_page(client, researcher, batch):
    worked(batch, worker_create(display_name="Slow"), 30)
    client.force_login(researcher)
    url = reverse("admin:crowd_batch_pay", args=[batch.pk])
    client.post(url, {"target": "10.00"})
    page = client.get(url).content.decode()
    assert 'data-testid="target-rate">10.00<' in page
    assert 'data-testid="top-up"' in page
    # 100 in 30 minutes is 2.00 an hour: 4.00 brings the worker to 10.00 an hour.
    assert 'data-testid="worker-rate">2.00<' in page and "¢" not in page
    confirmation = client.post(url, {"top_up": "1"}).content.decode()
    assert Bonus.objects.count() == 0  # the first press only shows what would be paid
    assert 'data-testid="top-up-confirm"' in confirmation
    assert "Slow" in confirmation and "<td>4.00</td>" in confirmation
    client.post(url, {"top_up_confirmed": "1"})
    client.post(url, {"top_up_confirmed": "1"})  # sent again: nothing more
    assert Bonus.objects.count() == 1
    assert 'data-testid="top-up"' not in client.get(url).content.decode()


@pytest.mark.parametrize(
    "typed, message",
    [
        ("99999999999999999999999", "at most 200.00"),
        ("1500", "not in cents: 1500 cents would be 15.00"),
        ("inf", "above 0"),
        ("-3", "above 0"),
        ("12.345", "two decimals"),
        ("ten", "not an amount"),
    ],
)
def test_a_target_rate_no_column_holds_is_refused_with_a_message(
    client, researcher, batch, typed, message
):
    client.force_login(researcher)
    url = reverse("admin:crowd_batch_pay", args=[batch.pk])
    response = client.post(url, {"target": typed}, follow=True)
    assert response.status_code == 200
    assert message in response.content.decode()
    batch.refresh_from_db()
    assert batch.target_hourly_cents is None


def test_setting_a_target_or_topping_up_needs_its_permission(client, django_user_model, batch):
    viewer = django_user_model.objects.create_user(username="viewer", is_staff=True)
    viewer.user_permissions.add(
        Permission.objects.get(codename="view_bonus", content_type__app_label="crowd")
    )
    client.force_login(viewer)
    url = reverse("admin:crowd_batch_pay", args=[batch.pk])
    assert client.get(url).status_code == 200
    assert client.post(url, {"target": "10"}).status_code == 403
    assert client.post(url, {"top_up": "1"}).status_code == 403


def test_a_reviewer_tops_up_but_cannot_set_the_target_rate(client, reviewer, batch):
    worked(batch, worker_create(display_name="Slow"), 30)
    client.force_login(reviewer)
    url = reverse("admin:crowd_batch_pay", args=[batch.pk])
    assert 'name="target"' not in client.get(url).content.decode()
    assert client.post(url, {"target": "10.00"}).status_code == 403
    batch.refresh_from_db()
    assert batch.target_hourly_cents is None
    batch.target_hourly_cents = 1000
    batch.save()
    assert client.post(url, {"top_up_confirmed": "1"}).status_code == 302
    assert Bonus.objects.count() == 1
