"""Tests for annotation.curation.variants: likely-lexical-variant proposals for curation."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from annotation.curation.variants import (
    DEFAULT_THRESHOLD,
    VariantGroupProposal,
    propose_variant_groups,
    proverbs_near,
    variant_similarity,
)
from annotation.text import normalize_text

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
DEMO_CSV = ROOT / "annotation" / "data" / "demo_proverbs.csv"

VARIANT_PAIRS = [
    ("Birds of a feather flock together", "Birds of a feather"),
    (
        "Don't count your chickens before they hatch",
        "Don't count your chickens before they are hatched",
    ),
    ("A stitch in time saves nine", "A stitch in time"),
    ("Too many cooks spoil the broth", "Too many cooks spoil the soup"),
    ("When in Rome, do as the Romans do", "When in Rome"),
    ("The early bird catches the worm", "It's the early bird that catches the worm"),
]

UNRELATED_PAIRS = [
    ("Time is money", "Time flies"),
    ("Actions speak louder than words", "Words cut deeper than swords"),
    ("Better late than never", "Better safe than sorry"),
    ("Easy does it", "Easy come, easy go"),
    ("Rome wasn't built in a day", "When in Rome"),
    ("Fine feathers make fine birds", "Birds of a feather"),
    ("Two wrongs don't make a right", "Might makes right"),
]


def base_proverbs() -> list[str]:
    return (FIXTURES / "base_proverbs.txt").read_text(encoding="utf-8").splitlines()


def variant_rows() -> list[tuple[str, str]]:
    lines = (FIXTURES / "proverb_variants.tsv").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines]


def fixture_pool() -> tuple[list[tuple[int, str]], dict[int, int]]:
    """The 285 valid import lines as (id, text), and each id's family (its original's id)."""
    base = base_proverbs()
    pool = list(enumerate(base, start=1))
    family = {proverb_id: proverb_id for proverb_id, _ in pool}
    base_ids = {text: proverb_id for proverb_id, text in pool}
    for offset, (variant, original) in enumerate(variant_rows(), start=len(base) + 1):
        pool.append((offset, variant))
        family[offset] = base_ids[original]
    return pool, family


def group_of(groups: list[VariantGroupProposal], proverb_id: int) -> tuple[int, ...] | None:
    return next((group.member_ids for group in groups if proverb_id in group.member_ids), None)


@pytest.mark.parametrize(("first", "second"), VARIANT_PAIRS)
def test_lexical_variants_score_at_or_above_the_default_threshold(first, second):
    assert variant_similarity(first, second) >= DEFAULT_THRESHOLD


@pytest.mark.parametrize(("first", "second"), UNRELATED_PAIRS)
def test_unrelated_proverbs_sharing_a_word_score_below_the_default_threshold(first, second):
    assert variant_similarity(first, second) < DEFAULT_THRESHOLD


@pytest.mark.parametrize(("first", "second"), VARIANT_PAIRS + UNRELATED_PAIRS)
def test_similarity_is_symmetric_and_between_zero_and_one(first, second):
    score = variant_similarity(first, second)
    assert 0.0 <= score <= 1.0
    assert variant_similarity(second, first) == score


def test_proverbs_without_a_shared_content_word_score_zero():
    assert variant_similarity("Where there's smoke, there's fire", "Where there's a will") == 0.0


def test_curly_quotes_and_case_do_not_change_the_score():
    plain = variant_similarity("Don't cry over spilt milk", "No use crying over spilt milk")
    curly = variant_similarity("DON\u2019T CRY OVER SPILT MILK", "No use crying over spilt milk")
    assert plain == curly >= DEFAULT_THRESHOLD


def test_examples_are_grouped_in_pairs_and_unrelated_ones_stay_apart():
    texts = [text for pair in VARIANT_PAIRS + UNRELATED_PAIRS for text in pair]
    pool = list(enumerate(dict.fromkeys(texts), start=1))
    ids = {text: proverb_id for proverb_id, text in pool}

    groups = propose_variant_groups(pool)

    expected = sorted(tuple(sorted((ids[first], ids[second]))) for first, second in VARIANT_PAIRS)
    assert [group.member_ids for group in groups] == expected


def test_every_fixture_variant_is_grouped_with_its_original():
    pool, family = fixture_pool()

    groups = propose_variant_groups(pool)

    for variant_id, original_id in family.items():
        if variant_id != original_id:
            members = group_of(groups, variant_id)
            assert members is not None and original_id in members, pool[variant_id - 1]


def test_fixture_yields_at_most_five_groups_joining_unrelated_proverbs():
    pool, family = fixture_pool()

    groups = propose_variant_groups(pool)

    false_groups = [
        group for group in groups if len({family[member] for member in group.member_ids}) > 1
    ]
    assert len(false_groups) <= 5, false_groups


def test_fixture_files_hold_distinct_proverbs_and_variants_of_real_lines():
    base = base_proverbs()
    variants = variant_rows()
    keys = {normalize_text(text) for text in base}
    assert len(base) == 265 and len(keys) == 265
    assert len(variants) == 20
    for variant, original in variants:
        assert original in base
        assert normalize_text(variant) not in keys


def test_output_does_not_depend_on_input_order():
    pool, _ = fixture_pool()
    expected = propose_variant_groups(pool)

    for seed in range(3):
        shuffled = pool[:]
        random.Random(seed).shuffle(shuffled)
        assert propose_variant_groups(shuffled) == expected


def test_groups_list_sorted_member_ids_and_their_strongest_pair_score():
    pool = [
        (30, "Every cloud has a silver lining"),
        (10, "Every dark cloud has a silver lining"),
        (20, "Every cloud has its silver lining"),
        (40, "Time is money"),
    ]

    groups = propose_variant_groups(pool)

    assert [group.member_ids for group in groups] == [(10, 20, 30)]
    texts = dict(pool)
    strongest = max(
        variant_similarity(texts[first], texts[second])
        for first, second in [(10, 20), (10, 30), (20, 30)]
    )
    assert groups[0].score == pytest.approx(strongest, abs=1e-4)


def test_chaining_guard_keeps_unrelated_fragments_of_one_proverb_apart():
    hub = "Early to bed and early to rise makes a man healthy, wealthy and wise"
    pool = [(1, hub), (2, "Early to bed and early to rise"), (3, "Healthy, wealthy and wise")]
    assert variant_similarity(pool[1][1], pool[2][1]) == 0.0

    guarded = propose_variant_groups(pool)
    unguarded = propose_variant_groups(pool, link_floor=0.0)

    assert len(guarded) == 1 and 1 in guarded[0].member_ids and len(guarded[0].member_ids) == 2
    assert [group.member_ids for group in unguarded] == [(1, 2, 3)]


def test_raising_the_threshold_drops_weaker_groups():
    pool = list(enumerate(dict.fromkeys(text for pair in VARIANT_PAIRS for text in pair)))

    assert len(propose_variant_groups(pool, threshold=0.9)) < len(propose_variant_groups(pool))


def test_duplicate_ids_are_rejected():
    with pytest.raises(ValueError):
        propose_variant_groups([(1, "Time is money"), (1, "Time flies")])


def test_demo_proverbs_are_distinct_with_eight_variants_to_curate():
    with DEMO_CSV.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == ["text", "source", "meaning"]
        rows = list(reader)

    assert len(rows) >= 130
    assert all(row["source"] == "demo" and row["meaning"].strip() for row in rows)
    assert len({normalize_text(row["text"]) for row in rows}) == len(rows)
    assert "When in Rome, do as the Romans do" in {row["text"] for row in rows}
    groups = propose_variant_groups([(index, row["text"]) for index, row in enumerate(rows)])
    assert len(groups) == 8
    assert all(len(group.member_ids) == 2 for group in groups)


def test_proverbs_near_uses_curations_measure_below_its_grouping_threshold():
    others = [(1, "Fortune favors the bold"), (2, "FORTUNE favours the brave!"), (3, "Time flies")]
    assert proverbs_near("Fortune favours the brave", others) == {1, 2}
    assert proverbs_near("Fortune favours the brave", others, threshold=DEFAULT_THRESHOLD) == {2}
