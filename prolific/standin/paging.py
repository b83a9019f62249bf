"""A list answered as Prolific pages it: `{results, _links: {self, next, previous}, meta:
{count}}`, by `page` and `page_size` ("Paginate by page_size and page":
https://docs.prolific.com/api-reference/submissions/get-submissions) or by `limit` and
`offset` ("pass `limit` and `offset` to page through":
https://docs.prolific.com/api-reference/workspaces/get-workspace-cost; Prolific's CLI asks
workspaces, projects, hooks, groups and submissions that way: prolific-oss/cli
client/client.go). `next` is null on the last page."""

from __future__ import annotations

from urllib.parse import urlencode

from prolific.standin.state import ApiError

PAGING = ("page", "page_size", "limit", "offset")


def _number(query: dict, name: str, default: int, low: int) -> int:
    raw = (query.get(name) or [str(default)])[0]
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, {name: ["A whole number is required."]}) from None
    if value < low:
        if name == "page":
            raise ApiError(404, "Invalid page.", title="Not found")
        raise ApiError(400, {name: [f"Ensure this value is greater than or equal to {low}."]})
    return value


def listing(rows: list, *, query: dict, url: str, page_size: int) -> dict:
    """One page of `rows`; the links keep the query's other parameters (a study filter)."""
    kept = {key: values[0] for key, values in query.items() if key not in PAGING}
    if "limit" in query or "offset" in query:
        limit = _number(query, "limit", page_size, 1)
        offset = _number(query, "offset", 0, 0)
        at = {"self": offset, "next": offset + limit, "previous": max(offset - limit, 0)}
        links = {key: {**kept, "limit": limit, "offset": value} for key, value in at.items()}
        first = offset
    else:
        limit = _number(query, "page_size", page_size, 1)
        page = _number(query, "page", 1, 1)
        at = {"self": page, "next": page + 1, "previous": page - 1}
        links = {key: {**kept, "page": value} for key, value in at.items()}
        first = (page - 1) * limit
    chunk = rows[first : first + limit]
    more, earlier = first + limit < len(rows), first > 0
    hrefs = {key: f"{url}?{urlencode(params)}" for key, params in links.items()}
    return {
        "results": chunk,
        "_links": {
            "self": {"href": hrefs["self"]},
            "next": {"href": hrefs["next"] if more else None},
            "previous": {"href": hrefs["previous"] if earlier else None},
        },
        "meta": {"count": len(rows)},
    }
