"""The import_proverbs command: its --json report on a realistic 300-line file."""

import json
import random
from io import StringIO
from itertools import combinations
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Proverb, VariantGroup

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _duplicate_of(text: str, index: int) -> str:
    """An exact duplicate after normalization: case, punctuation, spacing, quote style."""
    changes = [
        lambda t: t.upper(),
        lambda t: t.lower() + "!",
        lambda t: "  " + t.replace(" ", "   ") + " ",
        lambda t: t.replace("'", "\u2019") + ".",
        lambda t: t.title() + "?",
    ]
    return changes[index % len(changes)](text)


def _build_300_line_file(tmp_path):
    base = (FIXTURES / "base_proverbs.txt").read_text().splitlines()
    variants = [
        line.split("\t") for line in (FIXTURES / "proverb_variants.tsv").read_text().splitlines()
    ]
    assert (len(base), len(variants)) == (265, 20)
    lines = [line.encode() for line in base]
    lines += [variant.encode() for variant, _ in variants]
    lines += [_duplicate_of(text, i).encode() for i, text in enumerate(base[:10])]
    malformed = [
        ("A proverb that goes on " + "and on " * 60).encode(),
        ("x" * 301).encode(),
        ("Patience " * 40).encode(),
        b"Caf\xe9 proverbs are \xff broken",
        b"\xc3\x28 invalid continuation byte",
    ]
    lines += malformed
    random.Random(20221).shuffle(lines)
    path = tmp_path / "proverbs.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    bad_lines = sorted(lines.index(line) + 1 for line in malformed)
    return path, base, variants, bad_lines


def test_import_300_lines_reports_duplicates_bad_lines_and_variant_groups(tmp_path):
    path, base, variants, bad_lines = _build_300_line_file(tmp_path)
    out = StringIO()
    call_command("import_proverbs", str(path), "--json", stdout=out)
    report = json.loads(out.getvalue())

    assert report["duplicates"] == 10
    assert [error["line"] for error in report["errors"]] == bad_lines
    assert all(error["message"] for error in report["errors"])
    assert report["created"] == 285 == Proverb.objects.count()
    assert report["variant_groups"] == VariantGroup.objects.count()

    groups = [
        set(group.proverbs.values_list("text", flat=True)) for group in VariantGroup.objects.all()
    ]
    for variant, original in variants:
        assert any({variant, original} <= group for group in groups), (variant, original)

    family = {text: text for text in base}
    family.update(dict(variants))
    unrelated = [
        group for group in groups if any(family[a] != family[b] for a, b in combinations(group, 2))
    ]
    assert len(unrelated) <= 5, unrelated


def test_json_report_for_an_unreadable_file_and_nonzero_exit(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    out = StringIO()
    with pytest.raises(CommandError, match="empty"):
        call_command("import_proverbs", str(path), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["created"] == 0
    assert "empty" in report["errors"][0]["message"]


def test_source_option_is_recorded(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("Time is money\n")
    call_command("import_proverbs", str(path), "--source", "phrasefinder", stdout=StringIO())
    assert Proverb.objects.get().source == "phrasefinder"


@pytest.mark.django_db
def test_command_refuses_a_file_over_the_size_limit(tmp_path, settings):
    settings.PARABLE_IMPORT_MAX_BYTES = 100
    path = tmp_path / "big.txt"
    path.write_bytes(b"Time is money\n" * 50)
    with pytest.raises(CommandError, match="larger than 100 bytes"):
        call_command("import_proverbs", str(path), stdout=StringIO())
    assert not Proverb.objects.exists()
