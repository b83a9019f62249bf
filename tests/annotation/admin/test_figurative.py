"""Admin of figurative narratives and the continuation, choose-the-continuation and cloze
batches: creation from the batch forms, import errors by line, export, review, reports."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.datasets.figurative import figurative_copy_groups, figurative_import
from annotation.datasets.figurative_files import parse_figurative_file
from annotation.models import ContinuationPair, FigurativeNarrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Batch
from tests.factories import (
    FIGURATIVE_FILES,
    FIGURATIVE_PUBLISHED,
    FIGURATIVE_RELEASE,
    FIGURATIVE_VERBATIM,
    continuation_batch_create,
    crowd_narrative_create,
    figurative_import_fixture,
    figurative_narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

COMMON = {"reward": "0.10", "time_allowed_minutes": 10, "publish": "on", "seed": 1}


def test_continuation_batch_is_created_from_its_form(client, researcher):
    figurative_import_fixture("idiom")
    client.force_login(researcher)
    assert client.get("/admin/crowd/batch/new/continue/").status_code == 200
    data = {
        **COMMON,
        "name": "Idiom continuations",
        "kind": "idiom",
        "target_per_item": 3,
        "min_words": 5,
        "max_words": 25,
        "max_shared_ngram": 1,
        "max_shared_content_words": 0,
    }
    response = client.post("/admin/crowd/batch/new/continue/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    batch = Batch.objects.get(task_type="continue")
    assert batch.items.count() == 2 and batch.status == "published"
    assert batch.settings["rules"]["min_words"] == 5


def test_choose_continuation_batch_takes_imported_pairs_from_its_form(client, researcher):
    figurative_import_fixture("idiom")
    client.force_login(researcher)
    data = {
        **COMMON,
        "name": "Which continuation?",
        "target_per_item": 3,
        "imported_kind": "idiom",
        "imported_split": "any",
    }
    response = client.post("/admin/crowd/batch/new/continue_choice/", data)
    assert response.status_code == 302
    assert Batch.objects.get(task_type="continue_choice").items.count() == 3


@pytest.mark.parametrize("condition", ["full", "arguments", "subject_verb"])
def test_cloze_batch_is_created_in_each_condition(client, researcher, condition):
    write = write_batch_create(proverbs=[proverb_create("Time is money")])
    crowd_narrative_create(
        proverb=write.items.get().proverb,
        batch=write,
        text="Anna lost her keys. She searched the house. Her brother found them.",
    )
    client.force_login(researcher)
    data = {
        **COMMON,
        "name": f"Cloze {condition}",
        "target_per_item": 5,
        "source_batch": write.pk,
        "condition": condition,
        "blank": "middle",
        "draw": "[]",
    }
    response = client.post("/admin/crowd/batch/new/cloze/", data)
    assert response.status_code == 302
    item = Batch.objects.get(task_type="cloze").items.get().cloze_item
    assert item.condition == condition and item.blank_index == 1


def test_import_upload_lists_every_bad_line_and_writes_nothing(client, researcher):
    client.force_login(researcher)
    content = FIGURATIVE_FILES["idiom"].read_bytes() + b"oops\n{}\n"
    upload = SimpleUploadedFile("idioms.jsonl", content)
    response = client.post(
        "/admin/annotation/figurativenarrative/import/", {"file": upload, "kind": "idiom"}
    )
    page = response.content.decode()
    assert "<td>4</td><td>not valid JSON" in page
    assert "<td>5</td><td>&quot;narrative&quot; is missing or not text</td>" in page
    assert not FigurativeNarrative.objects.exists()


def test_import_upload_over_the_import_limit_is_refused_whole(client, researcher, settings):
    content = FIGURATIVE_FILES["idiom"].read_bytes()
    settings.PARABLE_IMPORT_MAX_BYTES = len(content) - 1
    client.force_login(researcher)
    upload = SimpleUploadedFile("idioms.jsonl", content)
    response = client.post(
        "/admin/annotation/figurativenarrative/import/",
        {"file": upload, "kind": "idiom"},
        follow=True,
    )
    assert "the import limit (PARABLE_IMPORT_MAX_BYTES); nothing was imported" in (
        response.content.decode()
    )
    assert not FigurativeNarrative.objects.exists()


def test_reviewers_cannot_import(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/annotation/figurativenarrative/import/").status_code == 403


def test_export_link_gives_the_lines_back(client, reviewer):
    figurative_import_fixture("simile")
    client.force_login(reviewer)
    response = client.get("/admin/annotation/figurativenarrative/export/simile/")
    assert response.status_code == 200
    lines = response.content.decode().splitlines()
    original = FIGURATIVE_FILES["simile"].read_text().splitlines()
    assert [json.loads(line) for line in lines] == [json.loads(line) for line in original]
    assert len(parse_figurative_file(response.content, kind="simile")) == 2


def test_review_list_escapes_worker_text_and_report_counts_flags(client, researcher):
    batch = continuation_batch_create(narratives=[figurative_narrative_create()])
    first = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(
        assignment=first,
        payload={
            "plausible": "She slept <b>well</b> and finished everything next morning.",
            "implausible": "She stayed at her desk until sunrise typing all night.",
        },
    )
    second = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=second, payload={"literal_use": True})
    client.force_login(researcher)
    page = client.get(f"/admin/annotation/continuation/?batch={batch.pk}").content.decode()
    assert "She slept &lt;b&gt;well&lt;/b&gt;" in page
    assert "flagged literal: approve to confirm" in page
    flagged = client.get(f"/admin/annotation/continuation/?batch={batch.pk}&literal=flagged")
    assert "She slept" not in flagged.content.decode()
    report = client.get(f"/admin/agreement/{batch.pk}/").content.decode()
    assert '<td data-testid="literal-flags">1</td>' in report


def test_agreement_page_and_api_show_human_accuracy(client, researcher, researcher_api):
    figurative_import_fixture("simile")
    batch = task_batch_create(
        task_type="continue_choice", target_per_item=3, settings={"imported": {"kind": "simile"}}
    )
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    correct = assignment.item.continuation_pair.correct
    assignment_submit(assignment=assignment, payload={"chosen": correct})
    client.force_login(researcher)
    page = client.get(f"/admin/agreement/{batch.pk}/").content.decode()
    assert '<td data-testid="human-accuracy">1.000</td>' in page
    index = client.get("/admin/agreement/").content.decode()
    assert batch.name in index
    data = researcher_api.get(f"/api/agreement/{batch.pk}/").json()
    assert data["continue_choice"]["human_accuracy"] == 1


def test_import_upload_lists_each_irregular_line_and_can_withhold_labels(client, researcher):
    client.force_login(researcher)
    upload = SimpleUploadedFile(
        "similes.jsonl", (FIGURATIVE_RELEASE / "simile_train.jsonl").read_bytes()
    )
    response = client.post(
        "/admin/annotation/figurativenarrative/import/",
        {"file": upload, "kind": "simile", "split": "train", "labels": "withheld"},
    )
    page = response.content.decode()
    assert "Irregular lines imported with a note: 2" in page
    assert "<td>2</td><td>&quot;property&quot; is false: stored with no property</td>" in page
    assert "4 new, unlabelled" in page
    assert not ContinuationPair.objects.filter(correct__isnull=False).exists()


def test_narrative_list_shows_the_dataset_checks_flag_in_words(client, researcher):
    checked = figurative_narrative_create()
    copy = figurative_narrative_create(text=checked.text.replace("Maria", "Mia"))
    copy.similarity = {"proverb": {"narrative": checked.pk, "similarity": 0.97}, "own": None}
    copy.save()
    client.force_login(researcher)
    page = client.get("/admin/annotation/figurativenarrative/").content.decode()
    assert f"Nearly the same as another story #{checked.pk}" in page
    assert "not checked yet" in page


def test_near_copies_are_shown_as_groups_with_the_splits_they_span(client, reviewer):
    for name in ("idiom_train", "idiom_dev"):
        kind, split = name.split("_")
        content = (FIGURATIVE_PUBLISHED / f"{name}.jsonl").read_bytes()
        figurative_import(content=content, kind=kind, split=split)
    # Flagged as near-duplicates of each other by the dataset check, copy by copy.
    FigurativeNarrative.objects.update(
        similarity={"proverb": {"narrative": 1, "similarity": 0.99}, "own": None, "copy": None}
    )
    client.force_login(reviewer)
    listing = client.get("/admin/annotation/figurativenarrative/").content.decode()
    assert listing.count('data-testid="copy-group"') == 4  # two texts, two copies each
    assert "one text in 2 narrative(s) (train)" in listing  # "call it a day", train only
    assert "one text in 2 narrative(s) (train, dev) ⚑ spans splits" in listing
    assert listing.count("Nearly the same as another story") == 3  # the others keep the flag
    page = client.get("/admin/annotation/figurativenarrative/copies/").content.decode()
    assert page.count('data-testid="copy-group-row"') == 2
    assert "<strong>1</strong> group(s) span more than one split" in page
    assert "train, dev <strong>⚑ across splits</strong>" in page
    leaking = client.get("/admin/annotation/figurativenarrative/", {"copies": "across"})
    assert leaking.content.decode().count('data-testid="copy-group"') == 2


def test_stories_published_verbatim_in_train_and_dev_count_as_leaking_groups(client, reviewer):
    for split in ("train", "dev"):
        content = (FIGURATIVE_VERBATIM / f"idiom_{split}.jsonl").read_bytes()
        figurative_import(content=content, kind="idiom", split=split)
    # Two stories are one narrative each with pairs in train and dev, a third is two
    # narratives (its dev copy's punctuation differs); the story repeated in train stays
    # in train.
    groups = figurative_copy_groups()
    assert [(len(group.narrative_ids), group.splits) for group in groups] == [
        (2, ["train", "dev"]),
        (1, ["train", "dev"]),
        (1, ["train", "dev"]),
    ]
    assert {group.expressions[0] for group in groups} == {
        "bury the hatchet",
        "bite the bullet",
        "make the best of it",
    }
    client.force_login(reviewer)
    page = client.get("/admin/annotation/figurativenarrative/copies/").content.decode()
    assert "<strong>3</strong> group(s) span more than one split" in page
    listing = client.get("/admin/annotation/figurativenarrative/", {"copies": "across"})
    assert listing.content.decode().count("one text in 1 narrative(s) (train, dev) ⚑") == 2
