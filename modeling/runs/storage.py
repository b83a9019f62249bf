"""Where trained models go: a folder, copied to S3 (boto3) when a bucket is set."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings


def s3_client():
    """A boto3 S3 client; PARABLE_MODELING_S3_ENDPOINT_URL points it at another S3 service."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3",
        endpoint_url=settings.PARABLE_MODELING_S3_ENDPOINT_URL or None,
        # Path-style addresses and plain bodies also suit S3-compatible services (MinIO).
        config=Config(
            s3={"addressing_style": "path"},
            request_checksum_calculation="when_required",
            connect_timeout=10,
            read_timeout=60,
            retries={"max_attempts": 3},
        ),
    )


def artifact_upload(*, folder: Path, name: str) -> str:
    """Copy the folder's files to s3://bucket/<name>/ and return that address; without
    PARABLE_MODELING_S3_BUCKET nothing is copied and the folder is the address."""
    bucket = settings.PARABLE_MODELING_S3_BUCKET
    if not bucket:
        return str(folder)
    client = s3_client()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            client.upload_file(str(path), bucket, f"{name}/{path.relative_to(folder).as_posix()}")
    return f"s3://{bucket}/{name}/"
