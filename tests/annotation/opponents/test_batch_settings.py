"""A write batch's round and opponent: set from the admin's form or the API, checked
(a run that cannot oppose writers is a 404), and absent from a batch in no round."""

import re

import pytest

from annotation.task_types.write.task import WriteBatchForm
from crowd import task_types
from crowd.models import Batch
from tests.factories import (
    opponent_run_create,
    proverb_create,
    round_batch_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

WRITE = task_types.get("write")


def form_data(proverb, **fields) -> dict:
    return {
        "name": "Round 2",
        "proverbs": [proverb.pk],
        "target_per_item": 3,
        "per_worker_cap": 5,
        "reward": "0.50",
        "time_allowed_minutes": 20,
        "min_words": 20,
        "max_words": 200,
        "max_shared_ngram": 2,
        "max_shared_content_words": 2,
        **fields,
    }


def test_the_form_offers_finished_proverb_runs_and_sets_the_round(opponent, proverbs):
    proverb = next(iter(proverbs.values()))
    form = WriteBatchForm(
        data=form_data(
            proverb,
            round=2,
            opponent=opponent.pk,
            opponent_mode="bonus",
            bonus="0.25",
            show_guesses="on",
            max_checks=5,
            validate="on",
        )
    )
    assert (
        opponent.pk,
        f"run {opponent.pk}: retrieval seen, {opponent.model_name}: not measured on a round's "
        "task (relaunch the run to measure it)",
    ) in form.fields["opponent"].choices
    assert form.is_valid(), form.errors
    settings = form.batch_settings()
    assert settings["round"] == 2
    assert settings["opponent"] == {
        "run": opponent.pk,
        "mode": "bonus",
        "show_guesses": True,
        "bonus_cents": 25,
        "max_checks": 5,
        "validate": True,
    }
    assert WRITE.checked_settings(settings)["opponent"] == settings["opponent"]


def test_the_form_refuses_a_bonus_round_without_a_bonus_and_an_opponent_without_a_round(
    opponent, proverbs
):
    proverb = next(iter(proverbs.values()))
    form = WriteBatchForm(
        data=form_data(proverb, round=2, opponent=opponent.pk, opponent_mode="bonus")
    )
    assert not form.is_valid()
    assert "Bonus mode pays a bonus: give its amount." in str(form.errors["bonus"])
    form = WriteBatchForm(data=form_data(proverb, opponent=opponent.pk))
    assert not form.is_valid() and "belongs to a round" in str(form.errors["round"])


def test_a_first_round_has_no_opponent_and_a_batch_in_no_round_keeps_its_settings():
    proverb = proverb_create()
    form = WriteBatchForm(data=form_data(proverb, round=1))
    assert form.is_valid(), form.errors
    assert form.batch_settings()["round"] == 1 and form.batch_settings()["opponent"] is None
    plain = write_batch_create(proverbs=[proverb])
    assert set(plain.settings) == {"rules", "integrity"}


def test_the_api_creates_a_round_and_says_404_for_a_run_that_cannot_oppose(
    researcher_api, opponent, proverbs
):
    proverb = next(iter(proverbs.values()))
    payload = {"name": "Round 2", "task_type": "write", "items": [{"proverb": proverb.pk}]}
    created = researcher_api.post(
        "/api/batches/",
        {**payload, "settings": {"round": 2, "opponent": {"run": opponent.pk}}},
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert created.json()["settings"]["opponent"]["mode"] == "inform"
    missing = researcher_api.post(
        "/api/batches/",
        {**payload, "settings": {"round": 2, "opponent": {"run": opponent.pk + 1}}},
        format="json",
    )
    assert missing.status_code == 404
    assert f"No finished proverb run {opponent.pk + 1}" in missing.json()["detail"]
    unknown = researcher_api.post(
        "/api/batches/",
        {**payload, "settings": {"round": 2, "opponent": {"run": opponent.pk, "mood": "x"}}},
        format="json",
    )
    assert unknown.status_code == 400
    assert Batch.objects.count() == 1


def test_a_run_that_is_not_a_finished_proverb_run_cannot_oppose(opponent):
    opponent.status = "failed"
    opponent.save()
    with pytest.raises(ValueError, match=f"No finished proverb run {opponent.pk}"):
        WRITE.checked_settings({"round": 2, "opponent": {"run": opponent.pk}})


def test_the_schema_states_the_round_and_opponent_settings():
    properties = WRITE.settings_schema()["properties"]
    assert properties["round"]["minimum"] == 1
    assert properties["opponent"]["properties"]["mode"] == {"enum": ["inform", "require", "bonus"]}
    assert properties["opponent"]["required"] == ["run"]


def test_the_reward_and_the_fooling_bonus_are_typed_in_one_unit(opponent, proverbs):
    """Both amounts, never cents: 25 meant as cents is refused, not promised as 25.00."""
    proverb = next(iter(proverbs.values()))
    round_fields = {"round": 2, "opponent": opponent.pk, "opponent_mode": "bonus"}
    form = WriteBatchForm(data=form_data(proverb, **round_fields, bonus="25"))
    assert not form.is_valid()
    assert "not in cents: 25 cents would be 0.25" in str(form.errors["bonus"])
    labels = {name: str(form.fields[name].label) for name in ("reward", "bonus")}
    assert labels == {"reward": "Reward per task", "bonus": "Bonus for fooling the model"}
    for name in ("reward", "bonus"):
        assert "An amount in the study's currency, like 0.50 (not cents)" in (
            form.fields[name].help_text
        )
    form = WriteBatchForm(data=form_data(proverb, **round_fields, bonus="0.25", reward="0.75"))
    assert form.is_valid(), form.errors
    assert form.batch_fields()["reward_cents"] == 75
    assert form.batch_settings()["opponent"]["bonus_cents"] == 25


def round_task(**figures) -> dict:
    """A run's figures on a round's task as a finished run stores them (metrics)."""
    return {"round_task": {"stories": 40, "proverbs": 6, "chance_top1": 1 / 6, **figures}}


def test_the_form_shows_how_each_opponent_does_and_warns_of_a_weak_one(
    client, researcher, tiny_model, proverbs
):
    strong = opponent_run_create(
        model_name=tiny_model,
        task="classifier",
        metrics=round_task(
            top1=0.6, mean_rank=1.6, chance_mean_rank=3.5, trained_stories=60, trained_proverbs=6
        ),
    )
    weak = opponent_run_create(
        model_name=tiny_model,
        task="classifier",
        metrics=round_task(
            top1=0.2, mean_rank=3.1, chance_mean_rank=3.5, trained_stories=13, trained_proverbs=5
        ),
    )
    labels = dict(WriteBatchForm().fields["opponent"].choices)
    assert labels[strong.pk].endswith(
        "on its 40 held-out stories among 6 proverbs: first 60% (chance 16.7%), mean rank 1.6 "
        "(chance 3.5); trained on 60 stories of 6 proverbs"
    )
    assert labels[weak.pk].endswith(
        "trained on 13 stories of 5 proverbs ⚠ near chance ⚠ ranks among 6 curated proverbs, "
        "trained on 5"
    )
    proverb = next(iter(proverbs.values()))
    # The batch's progress page says its round, and its opponent's strength.
    batch = round_batch_create(
        proverbs=[proverb],
        opponent={"run": weak.pk, "mode": "bonus", "bonus_cents": 25, "validate": True},
    )
    client.force_login(researcher)
    page = client.get(f"/admin/crowd/batch/{batch.pk}/progress/").content.decode()
    lines = re.findall(r'data-testid="settings-line">([^<]*)</p>', page)
    assert lines == [
        f"Round 2 against run {weak.pk}: classifier seen, {tiny_model}. Bonus: an approved "
        "story that fooled the model earns the bonus (0.25); 10 checks per task; "
        "the model&#x27;s guesses not shown; fooling stories validated by a choose batch.",
        "The opponent on its 40 held-out stories among 6 proverbs: first 20% (chance 16.7%), "
        "mean rank 3.1 (chance 3.5); trained on 13 stories of 5 proverbs ⚠ near chance ⚠ "
        "ranks among 6 curated proverbs, trained on 5.",
    ]
