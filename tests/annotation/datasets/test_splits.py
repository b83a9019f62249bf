"""Seen and unseen splits: the 6:4 rule, determinism from a seed, split files."""

import pytest

from annotation.datasets.splits import (
    SplitFileError,
    narrative_splits_apply,
    narrative_splits_assign,
    parse_split_files,
    seen_parts,
    split_file_part,
    train_count,
    unseen_parts,
)
from annotation.models import Narrative
from tests.factories import crowd_narrative_create, narrative_create, proverb_create


@pytest.mark.parametrize(
    ("n", "train"), [(10, 6), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (7, 4), (250, 150)]
)
def test_train_count_is_six_tenths_rounded_half_up(n, train):
    assert train_count(n) == train


def test_seen_parts_divide_each_proverb_six_to_four():
    by_proverb = {1: list(range(1, 11)), 2: list(range(11, 21))}
    parts = seen_parts(by_proverb, seed=0)
    for ids in by_proverb.values():
        assert sorted(parts[i] for i in ids) == ["test"] * 4 + ["train"] * 6


def test_seen_parts_are_the_same_for_the_same_seed_whatever_the_input_order():
    forward = seen_parts({1: list(range(1, 11))}, seed=7)
    backward = seen_parts({1: list(range(10, 0, -1))}, seed=7)
    assert forward == backward


def test_seen_parts_change_with_the_seed():
    by_proverb = {proverb: list(range(proverb * 10, proverb * 10 + 10)) for proverb in range(5)}
    assert seen_parts(by_proverb, seed=0) != seen_parts(by_proverb, seed=1)


def test_unseen_parts_divide_250_proverbs_150_to_100():
    parts = unseen_parts(range(1, 251), seed=0)
    assert list(parts.values()).count("train") == 150
    assert list(parts.values()).count("test") == 100


@pytest.mark.parametrize(
    ("name", "part"),
    [
        ("epic_seen_train_pks.json", ("seen", "train")),
        ("proverb_unseen_test_ids.json", ("unseen", "test")),
        ("seen_test.json", ("seen", "test")),
        ("epic_unseen_train.json", ("unseen", "train")),
        ("dataset.json", None),
        ("epic_seen_train_pks.txt", None),
    ],
)
def test_split_file_part_reads_setting_and_part_from_the_name(name, part):
    assert split_file_part(name) == part


def test_parse_split_files_maps_pks_to_parts_per_setting():
    parts = parse_split_files(
        {
            "a_seen_train_b.json": b'["Q1N1", "Q1N2"]',
            "a_seen_test_b.json": b'["Q1N3"]',
            "a_unseen_train_b.json": b'["Q1N3"]',
            "a_unseen_test_b.json": b'["Q1N1", "Q1N2"]',
        }
    )
    assert parts == {
        "seen": {"Q1N1": "train", "Q1N2": "train", "Q1N3": "test"},
        "unseen": {"Q1N1": "test", "Q1N2": "test", "Q1N3": "train"},
    }


def test_parse_split_files_lists_every_problem():
    with pytest.raises(SplitFileError) as caught:
        parse_split_files(
            {
                "notes.json": b"[]",
                "x_seen_train_y.json": b"{not json",
                "x_unseen_test_y.json": b'{"pks": []}',
            }
        )
    messages = caught.value.messages
    assert len(messages) == 5
    assert messages[0].startswith("notes.json: a split file is named")
    assert messages[1].startswith("x_seen_train_y.json: not a JSON file")
    assert messages[2].startswith("x_unseen_test_y.json: a split file is a JSON array")
    assert messages[3].startswith("The split files lack x_seen_test_y.json (each of seen")
    assert messages[4].startswith("The split files lack x_unseen_train_y.json (each of seen")


@pytest.mark.django_db
def test_assign_splits_per_proverb_and_by_proverb():
    proverbs = [proverb_create() for _ in range(5)]
    for proverb in proverbs:
        for k in range(10):
            narrative_create(proverb=proverb, text=f"Story {k}.", status="approved")
    result = narrative_splits_assign(seed=3)
    assert result.counts == {"seen": {"train": 30, "test": 20}, "unseen": {"train": 30, "test": 20}}
    for proverb in proverbs:
        narratives = Narrative.objects.filter(proverb=proverb)
        assert narratives.filter(split_seen="train").count() == 6
        assert len(set(narratives.values_list("split_unseen", flat=True))) == 1


@pytest.mark.django_db
def test_assign_splits_leaves_unapproved_and_model_narratives_without_split():
    proverb = proverb_create()
    approved = crowd_narrative_create(proverb=proverb, status="approved")
    rejected = crowd_narrative_create(proverb=proverb, status="rejected", split_seen="train")
    generated = narrative_create(proverb=proverb, source="model", status="approved")
    narrative_splits_assign(seed=0)
    approved.refresh_from_db()
    rejected.refresh_from_db()
    generated.refresh_from_db()
    assert approved.split_seen == "train"
    assert (rejected.split_seen, generated.split_seen, generated.split_unseen) == ("", "", "")


@pytest.mark.django_db
def test_assign_splits_twice_with_one_seed_gives_the_same_splits():
    proverb = proverb_create()
    for k in range(10):
        narrative_create(proverb=proverb, text=f"Story {k}.", status="approved")
    narrative_splits_assign(seed=11)
    first = list(Narrative.objects.values_list("id", "split_seen"))
    narrative_splits_assign(seed=11)
    assert list(Narrative.objects.values_list("id", "split_seen")) == first


@pytest.mark.django_db
def test_apply_split_files_sets_named_narratives_and_reports_unknown_pks():
    proverb = proverb_create()
    named = narrative_create(proverb=proverb, external_id="Q1N1", status="approved")
    unnamed = narrative_create(proverb=proverb, external_id="Q1N2", split_seen="test")
    result = narrative_splits_apply(parts={"seen": {"Q1N1": "train", "Q7N7": "test"}})
    named.refresh_from_db()
    unnamed.refresh_from_db()
    assert (named.split_seen, named.split_unseen) == ("train", "")
    assert unnamed.split_seen == "test"
    assert result.counts == {"seen": {"train": 1, "test": 0}}
    assert result.unknown == ["Q7N7"]
