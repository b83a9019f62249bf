"""Reading imports with a size limit: refused from the declared size or as soon as it is passed."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.intake.uploads import UploadTooLarge, upload_read


class _Unreadable(io.BytesIO):
    size = 10_000

    def read(self, *args):
        raise AssertionError("a file over the limit by its declared size is not read")

    def chunks(self, *args):
        raise AssertionError("a file over the limit by its declared size is not read")


def test_small_file_is_read_whole():
    assert upload_read(io.BytesIO(b"Time is money\n"), max_bytes=100) == b"Time is money\n"


def test_declared_size_over_the_limit_is_refused_unread():
    with pytest.raises(UploadTooLarge, match="larger than 1,000 bytes"):
        upload_read(_Unreadable(), name="big.txt", max_bytes=1000)


def test_stream_over_the_limit_is_refused_once_passed():
    stream = io.BytesIO(b"x" * 5000)
    with pytest.raises(UploadTooLarge, match="PARABLE_IMPORT_MAX_BYTES"):
        upload_read(stream, max_bytes=4999)


def test_limit_defaults_to_the_setting(settings):
    settings.PARABLE_IMPORT_MAX_BYTES = 10
    with pytest.raises(UploadTooLarge):
        upload_read(SimpleUploadedFile("p.txt", b"A stitch in time saves nine"))
