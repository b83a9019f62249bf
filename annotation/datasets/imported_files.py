"""The files a dataset import read: their names, fields and layouts (ImportedFile), written
by the imports and read by the exports, which give an imported file back byte for byte,
and by the methods section, which says which file brought what."""

from __future__ import annotations

from django.utils import timezone

from annotation.models import ImportedFile


def epic_file_key(*, source_label: str) -> str:
    return f"epic:{source_label}"


def epic_split_file_key(*, setting: str, part: str) -> str:
    return f"epic_split:{setting}:{part}"


def figurative_file_key(*, kind: str, split: str) -> str:
    return f"figurative:{kind}:{split}"


def imported_file_record(
    *,
    kind: str,
    key: str,
    filename: str,
    fields: list[str],
    records: int,
    layout: dict | None,
) -> ImportedFile:
    """Keep what an import read from a file (the last file imported under `key` wins)."""
    imported, _ = ImportedFile.objects.update_or_create(
        key=key,
        defaults={
            "kind": kind,
            "filename": filename,
            "fields": fields,
            "records": records,
            "layout": layout,
            "imported_at": timezone.now(),
        },
    )
    return imported


def imported_file_layout(key: str) -> dict | None:
    """The layout of the file imported under `key` (None: none imported, or none found)."""
    return ImportedFile.objects.filter(key=key).values_list("layout", flat=True).first()
