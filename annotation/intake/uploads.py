"""Reading an uploaded or named file with a size limit, refused before it is read whole:
every import reads its file through `upload_read`, which refuses one over
PARABLE_IMPORT_MAX_BYTES by its declared size, else as soon as the bytes read pass it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from django.conf import settings

CHUNK_BYTES = 1 << 20


class UploadTooLarge(ValueError):
    """A file over the import size limit; nothing was read past the limit."""


def _chunks(file) -> Iterator[bytes]:
    if hasattr(file, "chunks"):
        yield from file.chunks(CHUNK_BYTES)
    else:
        yield from iter(lambda: file.read(CHUNK_BYTES), b"")


def upload_read(file: BinaryIO, *, name: str = "", max_bytes: int | None = None) -> bytes:
    """The file's bytes, or UploadTooLarge when it holds more than `max_bytes` (default
    PARABLE_IMPORT_MAX_BYTES)."""
    limit = max_bytes if max_bytes is not None else settings.PARABLE_IMPORT_MAX_BYTES
    label = f"{name or getattr(file, 'name', '') or 'The file'}"
    message = (
        f"{label} is larger than {limit:,} bytes, the import limit "
        "(PARABLE_IMPORT_MAX_BYTES); nothing was imported. Split it into smaller files."
    )
    if (getattr(file, "size", None) or 0) > limit:
        raise UploadTooLarge(message)
    parts, total = [], 0
    for chunk in _chunks(file):
        total += len(chunk)
        if total > limit:
            raise UploadTooLarge(message)
        parts.append(chunk)
    return b"".join(parts)
