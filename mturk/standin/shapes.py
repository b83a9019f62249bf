"""The request and response shapes of MTurk's Requester API (2017-01-17) for the stand-in:
its errors, ids, times as epoch seconds, and HITs and assignments as the API returns them."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import urlencode, urlsplit

TARGET_PREFIX = "MTurkRequesterServiceV20170117."
PAGE_LIMIT = 100
EXTERNAL_URL = re.compile(r"<ExternalURL>\s*(.*?)\s*</ExternalURL>", re.DOTALL)


class RequestError(Exception):
    def __init__(self, message: str, *, kind: str = "RequestError", status: int = 400):
        super().__init__(message)
        self.kind = kind
        self.status = status


def utc_now() -> datetime:
    return datetime.now(UTC)


def epoch(moment: datetime | None):
    return moment.timestamp() if moment else None


def new_id() -> str:
    return uuid.uuid4().hex[:30].upper()


SYSTEM_QUALIFICATIONS = {
    "00000000000000000071",
    "000000000000000000L0",
    "00000000000000000040",
    "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH",
    "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6",
}


def required(params: dict, field: str):
    value = params.get(field)
    if value in (None, "", []):
        raise RequestError(f"Value null at '{field}' failed to satisfy constraint: required.")
    return value


def money(value) -> Decimal:
    try:
        return Decimal(str(value))
    except ArithmeticError:
        raise RequestError(f"{value!r} is not an amount in US dollars.") from None


def with_params(url: str, **params) -> str:
    return f"{url}{'&' if urlsplit(url).query else '?'}{urlencode(params)}"


def answer_xml(answers: dict[str, str]) -> str:
    fields = "".join(
        f"<Answer><QuestionIdentifier>{html.escape(k)}</QuestionIdentifier>"
        f"<FreeText>{html.escape(v)}</FreeText></Answer>"
        for k, v in answers.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><QuestionFormAnswers xmlns="http://'
        "mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/"
        f'QuestionFormAnswers.xsd">{fields}</QuestionFormAnswers>'
    )


def hit_out(hit: dict) -> dict:
    out = {k: v for k, v in hit.items() if k != "ExternalURL"}
    out["CreationTime"] = epoch(hit["CreationTime"])
    out["Expiration"] = epoch(hit["Expiration"])
    return out


def assignment_out(assignment: dict) -> dict:
    out = dict(assignment)
    for field in (
        "AcceptTime",
        "Deadline",
        "AutoApprovalTime",
        "SubmitTime",
        "ApprovalTime",
        "RejectionTime",
    ):
        out[field] = epoch(out[field])
    return {k: v for k, v in out.items() if v is not None and v != ""}
