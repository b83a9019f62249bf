"""The one module that talks to MTurk's Requester API (2017-01-17) through boto3, at
`MTURK_ENDPOINT` (anything speaking the API, such as `mturk.standin`: AWS closed MTurk on 30
September 2026); unset, every call says the provider is off. Credentials come from the AWS
environment; throttling and faults are retried by botocore's standard retry mode."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings

from common.outside_transaction import ensure_outside_transaction
from crowd.providers import ProviderError

# MTurk's documented error messages for a UniqueRequestToken seen before.
_DUPLICATE = re.compile(r"already (exists|been processed)|unique request token", re.IGNORECASE)
_HIT_ID = re.compile(r"HITId[:=]?\s*([A-Z0-9]+)", re.IGNORECASE)


class MTurkError(ProviderError):
    """MTurk refused a call (RequestError) or failed after retries (ServiceFault)."""

    def __init__(self, message: str, *, code: str = ""):
        super().__init__(message)
        self.code = code

    @property
    def refused(self) -> bool:
        """MTurk answered no (a RequestError): the call did nothing. A ServiceFault, a
        throttled call or no answer at all may or may not have acted."""
        return self.code == "RequestError"

    @property
    def is_duplicate_request(self) -> bool:
        """True when MTurk says a UniqueRequestToken was used before: the call took effect."""
        return bool(_DUPLICATE.search(str(self)))

    @property
    def hit_id(self) -> str:
        match = _HIT_ID.search(str(self))
        return match.group(1) if match else ""


@dataclass(frozen=True)
class Endpoint:
    api_url: str
    origin: str  # the worker site: it frames task pages and receives externalSubmit


def endpoint() -> Endpoint:
    """The configured endpoint: its API URL and the origin of its worker site."""
    value = settings.MTURK_ENDPOINT.strip()
    if not value:
        raise ProviderError(
            "MTurk is off: MTURK_ENDPOINT is not set (AWS closed Mechanical Turk on "
            "30 September 2026). Set it to a compatible endpoint, such as the stand-in "
            "(manage.py mturk_standin), to publish; importing past results needs none."
        )
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProviderError(f"MTURK_ENDPOINT must be an http(s) URL, not {value!r}.")
    return Endpoint(value.rstrip("/"), f"{parts.scheme}://{parts.netloc}")


@lru_cache(maxsize=8)
def _client(api_url: str, region: str, max_attempts: int):
    # One boto3 client per endpoint and process (thread-safe, costly to build); boto3 is
    # imported with the first call, so the admin and commands never pay for it otherwise.
    import boto3
    from botocore.config import Config

    config = Config(
        retries={"mode": "standard", "max_attempts": max_attempts},
        connect_timeout=10,
        read_timeout=30,
    )
    return boto3.session.Session().client(
        "mturk", region_name=region, endpoint_url=api_url, config=config
    )


def call(operation: str, **params) -> dict:
    """Call one API operation (never inside a database transaction); errors become
    MTurkError with MTurk's message."""
    from botocore.exceptions import BotoCoreError, ClientError

    ensure_outside_transaction(f"MTurk {operation}")
    client = _client(endpoint().api_url, settings.MTURK_REGION, settings.MTURK_MAX_ATTEMPTS)
    try:
        return getattr(client, operation)(**params)
    except ClientError as error:
        details = error.response.get("Error", {})
        raise MTurkError(
            f"MTurk {operation}: {details.get('Message') or details.get('Code')}",
            code=details.get("Code", ""),
        ) from error
    except BotoCoreError as error:
        raise MTurkError(f"MTurk {operation} could not be reached: {error}") from error


def pages(operation: str, key: str, **params):
    """Every item of a paginated List* operation (NextToken), page after page."""
    token = None
    while True:
        response = call(operation, **params, **({"NextToken": token} if token else {}))
        yield from response.get(key, [])
        token = response.get("NextToken")
        if not token:
            return
