"""The dataset check with the shipped all-MiniLM-L6-v2: near-duplicates of another story,
a worker's homogeneous stories, and the nearest-neighbour distribution."""

import json
import threading
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.utils import timezone

from annotation.models import Narrative, NarrativeIntegrity
from annotation.quality.flags import narrative_flags
from annotation.quality.integrity import IntegritySettings, similarity_flags
from annotation.quality.similarity import (
    CHECK_BATCH,
    embeddings_of,
    narrative_similarity_check,
    narratives_embed,
    narratives_similarity_check_waiting,
    narratives_similarity_pending,
)
from annotation.quality.similarity_scan import imported_similarity_check, similarity_scan
from annotation.tasks import similarity_requeue_task
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    crowd_narrative_create,
    narrative_create,
    proverb_create,
    worker_create,
    write_batch_create,
    writing_record,
)

pytestmark = pytest.mark.django_db

OTHER_STORY = (
    "The old fisherman lent his only boat to a stranger during the storm, and years later "
    "that stranger's son rebuilt the harbour where the fisherman's grandchildren now work."
)
NEAR_COPY = BIRDS_STORY.replace("spicy noodles", "hot noodles").replace("a month", "weeks")


def crowd_story(*, proverb, text, worker=None, batch=None):
    narrative = crowd_narrative_create(proverb=proverb, text=text, worker=worker, batch=batch)
    NarrativeIntegrity.objects.create(narrative=narrative, telemetry=writing_record())
    return narrative


def test_near_copy_of_another_workers_story_is_flagged_with_that_story():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    proverb = batch.items.get().proverb
    original = crowd_story(proverb=proverb, text=BIRDS_STORY, batch=batch)
    crowd_story(proverb=proverb, text=OTHER_STORY, batch=batch)
    copy = crowd_story(proverb=proverb, text=NEAR_COPY, batch=batch)

    integrity = narrative_similarity_check(narrative_id=copy.pk)
    assert integrity.similarity["proverb"]["narrative"] == original.pk
    assert integrity.similarity["proverb"]["similarity"] > 0.9
    flags = narrative_flags(Narrative.objects.get(pk=copy.pk))
    assert [flag["code"] for flag in flags] == ["near_duplicate"]
    assert flags[0]["details"]["text"] == BIRDS_STORY
    assert flags[0]["details"]["proverb"] == BIRDS
    assert f"another story #{original.pk}" in flags[0]["explanation"]


RENAMED_COPY = (
    "Omar and Chen met at a chess club and soon discovered they both loved old jazz records, "
    "spicy noodles and long walks before dawn. Within a month they were inseparable."
)


def test_copy_with_its_people_renamed_is_flagged_as_a_copy_of_that_story():
    proverb = proverb_create(BIRDS)
    original = crowd_story(proverb=proverb, text=BIRDS_STORY)
    crowd_story(proverb=proverb, text=OTHER_STORY)
    copy = crowd_story(proverb=proverb, text=RENAMED_COPY)
    integrity = narrative_similarity_check(narrative_id=copy.pk)
    copied = integrity.similarity["copy"]
    assert (copied["narrative"], copied["own"]) == (original.pk, False)
    assert copied["overlap"] > 0.9  # all but the trigrams of the sentence-opening name
    [flag] = narrative_flags(Narrative.objects.get(pk=copy.pk))
    assert flag["code"] == "near_duplicate"
    assert f"a copy of another story #{original.pk} with its people renamed" in flag["explanation"]
    assert flag["details"]["text"] == BIRDS_STORY


def test_different_stories_of_a_proverb_are_not_flagged():
    proverb = proverb_create(BIRDS)
    crowd_story(proverb=proverb, text=BIRDS_STORY)
    other = crowd_story(proverb=proverb, text=OTHER_STORY)
    integrity = narrative_similarity_check(narrative_id=other.pk)
    assert integrity.similarity["copy"]["overlap"] < 0.1
    assert narrative_flags(Narrative.objects.get(pk=other.pk)) == []


def test_worker_reusing_a_story_for_another_proverb_is_flagged_as_the_same_workers():
    worker = worker_create()
    earlier = crowd_story(proverb=proverb_create(BIRDS), text=BIRDS_STORY, worker=worker)
    later = crowd_story(proverb=proverb_create("Time is money"), text=NEAR_COPY, worker=worker)
    narrative_similarity_check(narrative_id=later.pk)
    flags = narrative_flags(Narrative.objects.get(pk=later.pk))
    assert [flag["code"] for flag in flags] == ["near_duplicate"]
    assert f"the same worker's story #{earlier.pk}" in flags[0]["explanation"]


def test_check_is_idempotent_and_stores_compact_embeddings():
    proverb = proverb_create(BIRDS)
    first = crowd_story(proverb=proverb, text=BIRDS_STORY)
    second = crowd_story(proverb=proverb, text=OTHER_STORY)
    once = narrative_similarity_check(narrative_id=second.pk).similarity
    assert narrative_similarity_check(narrative_id=second.pk).similarity == once
    stored = NarrativeIntegrity.objects.get(narrative=first)
    assert len(bytes(stored.embedding)) == 384 * 2
    vector = embeddings_of([first.pk])[first.pk]
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-2)


def test_nearest_neighbour_distribution_covers_every_story_of_a_shared_proverb():
    proverb = proverb_create(BIRDS)
    stories = [
        narrative_create(proverb=proverb, text=text)
        for text in (BIRDS_STORY, OTHER_STORY, NEAR_COPY)
    ]
    lonely = narrative_create(proverb=proverb_create("Time is money"), text="He billed hours.")
    ids = [story.pk for story in stories] + [lonely.pk]
    assert narratives_embed(ids) == 4
    assert narratives_embed(ids) == 0
    scan = similarity_scan(ids)
    assert len(scan.nearest_proverb) == 3
    assert sorted(scan.nearest_proverb)[-1] > 0.9 > sorted(scan.nearest_proverb)[0]
    assert scan.nearest_worker == []
    # The copy and its source are one pair, the earlier story the source.
    [pair] = scan.pairs
    assert (pair["source"], pair["copy"]) == (stories[0].pk, stories[2].pk)
    assert pair["checks"]["near_duplicate"] > 0.9
    assert scan.similarity[lonely.pk] == {"proverb": None, "own": None, "copy": None}


def test_scan_gives_each_story_what_the_per_story_check_stores():
    worker = worker_create()
    batch = write_batch_create(proverbs=[proverb_create(BIRDS), proverb_create("Time is money")])
    birds, time = (item.proverb for item in batch.items.order_by("id"))
    original = crowd_story(proverb=birds, text=BIRDS_STORY, batch=batch)
    crowd_story(proverb=birds, text=OTHER_STORY, batch=batch, worker=worker)
    copy = crowd_story(proverb=birds, text=NEAR_COPY, batch=batch)
    own = crowd_story(proverb=time, text=OTHER_STORY + " Again.", batch=batch, worker=worker)
    ids = list(Narrative.objects.values_list("pk", flat=True))
    scan = similarity_scan(ids)
    for narrative_id in (copy.pk, own.pk):
        checked = narrative_similarity_check(narrative_id=narrative_id).similarity
        assert scan.similarity[narrative_id]["proverb"] == checked["proverb"]
        assert scan.similarity[narrative_id]["own"] == checked["own"]
        assert scan.similarity[narrative_id]["copy"]["narrative"] == checked["copy"]["narrative"]
    assert scan.similarity[copy.pk]["proverb"]["narrative"] == original.pk
    checks = {(pair["source"], pair["copy"]): pair["checks"] for pair in scan.pairs}
    assert "homogeneous" in checks[(Narrative.objects.get(text=OTHER_STORY).pk, own.pk)]


def test_imported_stories_get_the_dataset_checks_flags():
    proverb = proverb_create(BIRDS)
    original = narrative_create(proverb=proverb, text=BIRDS_STORY, source_label="ePiC")
    copy = narrative_create(proverb=proverb, text=NEAR_COPY, source_label="ePiC")
    narrative_create(proverb=proverb, text=OTHER_STORY, source_label="ePiC")
    assert imported_similarity_check(narrative_ids=[original.pk, copy.pk]) == 2
    flags = narrative_flags(Narrative.objects.get(pk=copy.pk))
    assert [flag["code"] for flag in flags] == ["near_duplicate"]
    assert flags[0]["details"]["narrative"] == original.pk
    assert NarrativeIntegrity.objects.get(narrative=copy).checked_at is not None


def test_stories_left_unchecked_past_the_grace_period_are_checked_by_the_requeue_task(settings):
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 300
    proverb = proverb_create(BIRDS)
    old = crowd_story(proverb=proverb, text=BIRDS_STORY)
    fresh = crowd_story(proverb=proverb, text=NEAR_COPY)
    Narrative.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert narratives_similarity_pending() == [old.pk]

    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    assert narratives_similarity_pending() == [old.pk, fresh.pk]
    assert similarity_requeue_task.delay().get() == 2
    checked = NarrativeIntegrity.objects.get(narrative=fresh)
    assert checked.checked_at is not None
    assert checked.similarity["proverb"]["narrative"] == old.pk
    assert narratives_similarity_pending() == []
    assert similarity_requeue_task.delay().get() == 0


SUBMISSIONS = Path(__file__).resolve().parents[2] / "fixtures/integrity/submissions.jsonl"


def submitted_stories() -> list[int]:
    """The fixture's submissions (a pilot's stories, a few planted copies among them) as
    crowd stories waiting for their check, in the file's order: blank lines skipped, a
    submission sent twice stored once."""
    records, seen = [], set()
    for line in SUBMISSIONS.read_text().splitlines():
        record = json.loads(line) if line.strip() else None
        if record and (record["proverb"], record["worker"]) not in seen:
            seen.add((record["proverb"], record["worker"]))
            records.append(record)
    texts = list(dict.fromkeys(record["proverb"] for record in records))
    batch = write_batch_create(proverbs=[proverb_create(text) for text in texts])
    proverbs = {item.proverb.text: item.proverb for item in batch.items.all()}
    workers = {name: worker_create(external_id=name) for name in {r["worker"] for r in records}}
    return [
        crowd_story(
            proverb=proverbs[record["proverb"]],
            text=record["text"],
            worker=workers[record["worker"]],
            batch=batch,
        ).pk
        for record in records
    ]


def flags_by_story(ids: list[int]) -> dict[int, list[tuple[str, int]]]:
    settings = IntegritySettings()
    stored = dict(
        NarrativeIntegrity.objects.filter(narrative_id__in=ids).values_list(
            "narrative_id", "similarity"
        )
    )
    return {
        pk: [
            (flag.code, flag.details["narrative"])
            for flag in similarity_flags(stored[pk], settings=settings)
        ]
        for pk in ids
    }


def test_checks_that_arrive_together_flag_what_one_story_at_a_time_flags():
    ids = submitted_stories()
    for pk in ids:  # one story a pass, as each submit's task once ran
        narrative_similarity_check(narrative_id=pk)
    alone = dict(NarrativeIntegrity.objects.values_list("narrative_id", "similarity"))
    flagged_alone = flags_by_story(ids)
    NarrativeIntegrity.objects.update(
        similarity={}, checked_at=None, embedding=None, embedding_model=""
    )

    passes = [narratives_similarity_check_waiting(narrative_id=pk) for pk in ids]

    checked = [pk for one_pass in passes for pk in one_pass]
    assert sorted(checked) == sorted(ids)  # every story once, by the pass that took it
    assert 1 < len(passes[0]) <= CHECK_BATCH
    assert flags_by_story(ids) == flagged_alone
    assert sum(bool(flags) for flags in flagged_alone.values()) >= 5  # the planted copies
    together = dict(NarrativeIntegrity.objects.values_list("narrative_id", "similarity"))
    for pk in ids:
        for kind in ("proverb", "own"):
            if alone[pk][kind] is None:
                assert together[pk][kind] is None
                continue
            assert together[pk][kind]["narrative"] == alone[pk][kind]["narrative"]
            assert together[pk][kind]["similarity"] == pytest.approx(
                alone[pk][kind]["similarity"], abs=2e-3
            )
        assert together[pk]["copy"] == alone[pk]["copy"]


def test_a_pass_takes_its_storys_whole_proverb_and_later_tasks_find_their_stories_checked():
    ids = submitted_stories()
    proverb_of = dict(Narrative.objects.values_list("pk", "proverb_id"))
    last = ids[-1]
    first_pass = narratives_similarity_check_waiting(narrative_id=last)
    mates = [pk for pk in ids if proverb_of[pk] == proverb_of[last]]
    assert set(mates) <= set(first_pass) and len(first_pass) <= CHECK_BATCH
    assert narratives_similarity_check_waiting(narrative_id=last) == []
    assert all(narratives_similarity_check_waiting(narrative_id=pk) == [] for pk in first_pass)
    stored = NarrativeIntegrity.objects.filter(narrative_id__in=first_pass)
    assert all(row.checked_at and row.embedding for row in stored)


@pytest.mark.django_db(transaction=True)
def test_a_story_another_pass_holds_is_left_to_it_and_tried_again():
    """Two worker processes: the second finds the story's row held (PostgreSQL's SKIP
    LOCKED), returns None at once instead of waiting, and checks it once it is free."""
    proverb = proverb_create(BIRDS)
    crowd_story(proverb=proverb, text=BIRDS_STORY)
    copy = crowd_story(proverb=proverb, text=NEAR_COPY)
    held, release = threading.Event(), threading.Event()

    def other_pass():
        from django.db import connection, transaction

        with transaction.atomic():
            NarrativeIntegrity.objects.select_for_update().get(narrative=copy)
            held.set()
            release.wait(timeout=60)
        connection.close()

    thread = threading.Thread(target=other_pass)
    thread.start()
    try:
        assert held.wait(timeout=60)
        assert narratives_similarity_check_waiting(narrative_id=copy.pk) is None
    finally:
        release.set()
        thread.join(timeout=60)
    checked = narratives_similarity_check_waiting(narrative_id=copy.pk)
    assert copy.pk in checked
    assert NarrativeIntegrity.objects.get(narrative=copy).similarity["proverb"]["similarity"] > 0.9
