"""Curation services: import with duplicates and variant groups, merge, dismiss."""

import pytest

from annotation.curation.services import (
    ProverbFileError,
    curation_progress,
    proverbs_import,
    proverbs_set_status,
    variant_group_dismiss,
    variant_group_merge,
)
from annotation.models import Proverb, VariantGroup
from tests.factories import proverb_create

pytestmark = pytest.mark.django_db

LIST = """Birds of a feather flock together
Don't count your chickens before they hatch
Birds of a feather
Don’t count your chickens before they are hatched
Time is money
TIME IS MONEY!
Haste makes waste
"""


def test_import_creates_skips_duplicates_and_proposes_groups():
    report = proverbs_import(content=LIST.encode(), source="test")
    assert report.created == 6
    assert report.duplicates == 1
    groups = {
        frozenset(group.proverbs.values_list("text", flat=True))
        for group in VariantGroup.objects.all()
    }
    assert frozenset({"Birds of a feather flock together", "Birds of a feather"}) in groups
    assert (
        frozenset(
            {
                "Don't count your chickens before they hatch",
                "Don’t count your chickens before they are hatched",
            }
        )
        in groups
    )
    assert report.variant_groups == len(groups)
    assert all(proverb.source == "test" for proverb in Proverb.objects.all())


def test_duplicate_of_existing_proverb_is_counted_not_created():
    proverb_create("A penny saved is a penny earned")
    report = proverbs_import(content=b"a penny saved is a penny earned.\n")
    assert (report.created, report.duplicates) == (0, 1)
    assert Proverb.objects.count() == 1


def test_reimport_proposes_no_group_twice():
    proverbs_import(content=LIST.encode())
    before = VariantGroup.objects.count()
    report = proverbs_import(content=LIST.encode())
    assert (report.created, report.variant_groups) == (0, 0)
    assert VariantGroup.objects.count() == before


def test_bad_lines_reported_good_lines_kept():
    content = b"Time is money\n" + b"x" * 301 + b"\nHaste makes waste\n\xff\xfe broken\n"
    report = proverbs_import(content=content)
    assert report.created == 2
    assert [error.line for error in report.errors] == [2, 4]


def test_unreadable_file_writes_nothing():
    with pytest.raises(ProverbFileError):
        proverbs_import(content=b"text_missing,source\nTime is money,x\n", filename="a.csv")
    assert Proverb.objects.count() == 0


def test_merge_keeps_canonical_curated_and_records_variants():
    proverbs_import(content=LIST.encode())
    group = VariantGroup.objects.get(proverbs__text="Birds of a feather")
    canonical = Proverb.objects.get(text="Birds of a feather flock together")
    variant_group_merge(group=group, canonical=canonical)
    canonical.refresh_from_db()
    variant = Proverb.objects.get(text="Birds of a feather")
    assert canonical.status == Proverb.Status.CURATED
    assert (variant.status, variant.variant_of) == (Proverb.Status.REJECTED, canonical)
    group.refresh_from_db()
    assert (group.status, group.canonical) == (VariantGroup.Status.MERGED, canonical)


def test_curating_in_bulk_leaves_a_merged_variant_rejected_and_names_it():
    proverbs_import(content=LIST.encode())
    group = VariantGroup.objects.get(proverbs__text="Birds of a feather")
    canonical = Proverb.objects.get(text="Birds of a feather flock together")
    variant_group_merge(group=group, canonical=canonical)
    variant = Proverb.objects.get(text="Birds of a feather")
    haste = Proverb.objects.get(text="Haste makes waste")
    change = proverbs_set_status(proverb_ids=[variant.pk, haste.pk], status="curated")
    assert change.changed == 1 and change.merged_variants == (variant,)
    assert "'Birds of a feather' (a variant of 'Birds of a feather flock together')" in (
        change.refusal()
    )
    variant.refresh_from_db()
    haste.refresh_from_db()
    assert (variant.status, haste.status) == (Proverb.Status.REJECTED, Proverb.Status.CURATED)
    # Other statuses are still set on a variant.
    assert proverbs_set_status(proverb_ids=[variant.pk], status="candidate").changed == 1


def test_merge_refuses_a_canonical_outside_the_group():
    proverbs_import(content=LIST.encode())
    group = VariantGroup.objects.get(proverbs__text="Birds of a feather")
    with pytest.raises(ValueError, match="member"):
        variant_group_merge(group=group, canonical=Proverb.objects.get(text="Time is money"))


def test_dismiss_leaves_proverbs_unchanged_and_cannot_be_merged_after():
    proverbs_import(content=LIST.encode())
    group = VariantGroup.objects.get(proverbs__text="Birds of a feather")
    statuses = dict(group.proverbs.values_list("id", "status"))
    variant_group_dismiss(group=group)
    group.refresh_from_db()
    assert group.status == VariantGroup.Status.DISMISSED
    assert dict(group.proverbs.values_list("id", "status")) == statuses
    with pytest.raises(ValueError, match="dismissed"):
        variant_group_merge(group=group, canonical=group.proverbs.first())


def test_progress_counts_curated_against_target():
    proverb_create(status="curated")
    proverb_create(status="candidate")
    progress = curation_progress()
    assert (progress["curated"], progress["candidate"], progress["target"]) == (1, 1, 250)
