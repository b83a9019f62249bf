"""The Prolific admin: prepare a batch, see the cost, confirm and publish, manage and sync."""

import pytest
from django.urls import reverse

from crowd.batches import batch_create
from crowd.models import Batch
from crowd.money import money_text
from prolific.models import Study
from tests.factories import proverb_create, provider_calls_send
from tests.prolific.helpers import (
    enter_unchecked,
    finish_on_prolific,
    submit_all,
    take_part,
    write_study,
)

pytestmark = pytest.mark.django_db


def draft_batch():
    return batch_create(
        name="Stories on Prolific",
        task_type="write",
        reward_cents=40,
        target_per_item=3,
        items=[{"proverb": proverb_create()} for _ in range(2)],
    )


@pytest.mark.django_db(transaction=True)
def test_researcher_prepares_sees_the_cost_then_publishes(client, researcher, standin, reachable):
    batch = draft_batch()
    client.force_login(researcher)
    form = client.get(reverse("admin:prolific_study_add"))
    assert ("1", "United Kingdom") in form.context["form"].fields["countries"].choices
    response = client.post(
        reverse("admin:prolific_study_add"),
        {
            "batch": batch.pk,
            "items_per_session": 2,
            "estimated_minutes": 8,
            "countries": ["1"],
            "min_approval_rate": 95,
            "device_compatibility": ["desktop"],
        },
    )
    study = Study.objects.get(batch=batch)
    assert response.url == reverse("admin:prolific_study_manage", args=[study.pk])
    page = client.get(response.url)
    assert page.context["cost"]["total_available_places"] == 3  # 2 items x 3 / 2 per session
    assert standin.state.studies == {}  # nothing on Prolific before confirming
    total = page.context["cost"]["total_cost"]
    assert f'data-testid="total-cost">{money_text(total)}<' in page.content.decode()
    client.post(response.url, {"confirm_publish": "1", "cost_cents": str(round(total))})
    batch.refresh_from_db()
    assert batch.status == Batch.Status.PUBLISHED
    remote = standin.state.studies[Study.objects.get(batch=batch).study_id]
    assert remote["status"] == "PUBLISHING" and remote["reward"] == 80


def test_reviewer_cannot_prepare_or_publish(client, reviewer, standin):
    batch = draft_batch()
    client.force_login(reviewer)
    assert client.get(reverse("admin:prolific_study_add")).status_code == 403
    study = write_study(publish=False).prolific_study
    manage = reverse("admin:prolific_study_manage", args=[study.pk])
    assert client.get(manage).status_code == 200
    assert client.post(manage, {"confirm_publish": "1", "cost_cents": "1"}).status_code == 403
    assert batch.status == Batch.Status.DRAFT


def test_study_list_shows_status_counts_and_balance(client, researcher, standin):
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    client.force_login(researcher)
    manage = reverse("admin:prolific_study_manage", args=[batch.prolific_study.pk])
    client.post(manage, {"sync": "1"})
    listing = client.get(reverse("admin:prolific_study_changelist"))
    row = listing.context["cl"].result_list[0]
    assert (row.session_count, row.awaiting_count, row.unvouched_count) == (1, 1, 0)
    shown = [str(message) for message in listing.context["messages"]]
    # The workspace's funds, less the 6.30 GBP the published study locked.
    assert "Prolific workspace standin-workspace: 4993.70 GBP available to spend" in shown


def test_manage_page_pauses_and_adds_places(client, researcher, standin):
    study = write_study().prolific_study
    client.force_login(researcher)
    manage = reverse("admin:prolific_study_manage", args=[study.pk])
    client.post(manage, {"pause": "1"})
    assert standin.state.studies[study.study_id]["status"] == "PAUSED"
    client.post(manage, {"places": "2"})
    assert standin.state.studies[study.study_id]["total_available_places"] == 5


def test_flagged_sessions_are_listed_apart(client, reviewer, standin):
    batch = write_study()
    enter_unchecked(standin, batch)
    client.force_login(reviewer)
    listing = client.get(reverse("admin:prolific_participantsession_changelist"), {"vouched": "no"})
    assert [s.worker.external_id for s in listing.context["cl"].result_list] == ["forged"]
    assert "None: flagged" in listing.content.decode()


def test_block_and_unblock_actions_use_the_blocklist_group(client, reviewer, standin):
    batch = write_study()
    session, _ = take_part(standin, batch, "p1")
    client.force_login(reviewer)
    changelist = reverse("admin:prolific_participantsession_changelist")
    form = client.post(changelist, {"action": "block_selected", "_selected_action": [session.pk]})
    assert form.status_code == 200 and "reason" in form.context["form"].fields
    client.post(
        changelist,
        {"action": "block_selected", "_selected_action": [session.pk], "reason": "Copied text"},
    )
    provider_calls_send()  # as once the review has committed
    group = standin.state.groups[batch.prolific_study.blocklist_group_id]
    assert group["participants"] == ["p1"]
    session.worker.refresh_from_db()
    assert session.worker.blocked_reason == "Copied text"
    client.post(changelist, {"action": "unblock_selected", "_selected_action": [session.pk]})
    provider_calls_send()
    assert group["participants"] == []


def test_message_action_sends_through_prolific(
    client, reviewer, standin, django_capture_on_commit_callbacks
):
    batch = write_study()
    session, _ = take_part(standin, batch, "p1")
    client.force_login(reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:prolific_participantsession_changelist"),
            {
                "action": "message_selected",
                "_selected_action": [session.pk],
                "subject": "Thank you",
                "message": "Your stories were lovely.",
            },
            follow=True,
        )
    assert "Message queued for 1 participant(s)." in response.content.decode()
    assert standin.state.messages[0]["recipient_id"] == "p1"
    assert standin.state.messages[0]["study_id"] == batch.prolific_study.study_id


def test_filters_are_found_by_what_they_are_and_a_missing_one_is_said(client, researcher, standin):
    draft_batch()
    first_language = standin.state.filters[1]
    first_language["filter_id"] = "first-language-2026"  # an id Parable does not know
    standin.state.filters.pop(0)  # the account has no country filter
    client.force_login(researcher)
    form = client.get(reverse("admin:prolific_study_add")).context["form"]
    assert ("19", "English") in form.fields["first_languages"].choices
    assert form.filter_ids == {"first_languages": "first-language-2026"}
    countries = form.fields["countries"]
    assert countries.disabled
    assert "has no “Current country of residence” filter" in countries.help_text


def study_total(page: str) -> int:
    """The total cost in cents that the page asks to confirm (its hidden field)."""
    return int(page.split('name="cost_cents" value="')[1].split('"')[0])


def test_cost_page_shows_the_currency_and_the_hourly_rate_against_prolifics_minimum(
    client, researcher, standin
):
    batch = draft_batch()  # 40 cents an item
    client.force_login(researcher)
    client.post(
        reverse("admin:prolific_study_add"),
        {
            "batch": batch.pk,
            "items_per_session": 2,
            "estimated_minutes": 10,
            "device_compatibility": ["desktop"],
        },
    )
    study = Study.objects.get(batch=batch)
    page = client.get(reverse("admin:prolific_study_manage", args=[study.pk])).content.decode()
    # Every amount of the cost in one format, with the account's currency.
    shown = page.split('data-testid="cost"')[1].split("<form")[0]
    assert "× 0.80 GBP reward" in shown and "cents" not in shown
    assert f'data-testid="total-cost">{money_text(study_total(page))}</span> GBP' in page
    # 0.80 for 10 minutes is 4.80 an hour, under the stand-in's GBP minimum of 9.00.
    assert "<strong>4.80 GBP an hour</strong>" in page
    assert "Prolific's minimum is 9.00" in page
    assert "raise the reward or lower the estimated time" in page


def test_the_manage_page_shows_the_preflight_and_refuses_a_publish_that_would_fail(
    client, researcher, standin
):
    standin.state.workspaces[standin.workspace_id]["available_balance"] = 100
    study = write_study(publish=False).prolific_study
    client.force_login(researcher)
    manage = reverse("admin:prolific_study_manage", args=[study.pk])
    page = client.get(manage)
    checks = {check.name: check for check in page.context["checks"]}
    assert not checks["Balance"].ok and checks["Token"].ok and checks["Project"].ok
    html = page.content.decode()
    assert "1.00 GBP available in the workspace, and this study costs 6.30 GBP" in html
    assert (
        'name="confirm_publish" value="Confirm cost and publish" class="default" disabled' in html
    )
    refused = client.post(manage, {"confirm_publish": "1", "cost_cents": "630"}, follow=True)
    assert "Publishing is refused until this is fixed: Balance:" in refused.content.decode()
    assert standin.state.studies == {}
    assert Batch.objects.get(pk=study.batch_id).status == Batch.Status.DRAFT


def test_a_study_prolific_paused_on_its_own_is_said_on_its_page(client, researcher, standin):
    study = write_study().prolific_study
    Study.objects.filter(pk=study.pk).update(status="PAUSED")  # as a sync read it
    client.force_login(researcher)
    page = client.get(reverse("admin:prolific_study_manage", args=[study.pk])).content.decode()
    assert 'data-testid="paused-on-prolific"' in page
    Study.objects.filter(pk=study.pk).update(pause_requested_at=study.created_at)
    page = client.get(reverse("admin:prolific_study_manage", args=[study.pk])).content.decode()
    assert 'data-testid="paused-on-prolific"' not in page


def test_a_prepared_batch_not_on_prolific_yet_can_be_prepared_again(client, researcher, standin):
    prepared = write_study(publish=False)
    published = batch_create(
        name="Published elsewhere", task_type="write", items=[{"proverb": proverb_create()}]
    )
    Batch.objects.filter(pk=published.pk).update(status=Batch.Status.PUBLISHED)
    client.force_login(researcher)
    form = client.get(reverse("admin:prolific_study_add")).context["form"]
    offered = set(form.fields["batch"].queryset)
    assert prepared in offered and published not in offered
