"""What the HIT template browser tests share: the CDNs that MTurk templates link (jQuery,
Bootstrap, MTurk's own bucket) stood in for inside the browser's network layer, serving the
copies Django REST framework ships (Bootstrap 3.4.1, jQuery 3.7.1: byte for byte the CDNs'
files, their published SRI hashes match), and a worker opening their task's frame."""

from pathlib import Path

import rest_framework

VENDOR = Path(rest_framework.__file__).parent / "static" / "rest_framework"
FILES = {
    "https://code.jquery.com/jquery-3.7.1.min.js": VENDOR / "js" / "jquery-3.7.1.min.js",
    "https://maxcdn.bootstrapcdn.com/bootstrap/3.4.1/css/bootstrap.min.css": VENDOR
    / "css"
    / "bootstrap.min.css",
    "https://maxcdn.bootstrapcdn.com/bootstrap/3.4.1/js/bootstrap.min.js": VENDOR
    / "js"
    / "bootstrap.min.js",
    "https://s3.amazonaws.com/mturk-public/bs30/css/bootstrap.min.css": VENDOR
    / "css"
    / "bootstrap.min.css",
}
# MTurk's helper as its bucket serves it: it points the form at MTurk. Parable takes its
# script tag out, so a request for it is a failure of the test.
MTURK_HELPER = "https://s3.amazonaws.com/mturk-public/externalHIT_v1.js"


def cdn_standin(context) -> list[str]:
    """Serve the CDNs' files to every page of `context`; returns the URLs asked for."""
    asked = []

    def answer(route):
        url = route.request.url
        asked.append(url)
        if url == MTURK_HELPER or url not in FILES:
            route.fulfill(status=404, body="not here")
            return
        kind = "text/css" if url.endswith(".css") else "application/javascript"
        route.fulfill(
            status=200,
            body=FILES[url].read_bytes(),
            headers={"Content-Type": kind, "Access-Control-Allow-Origin": "*"},
        )

    for host in (
        "https://code.jquery.com",
        "https://maxcdn.bootstrapcdn.com",
        "https://s3.amazonaws.com",
    ):
        context.route(f"{host}/**", answer)
    return asked


def hit_frame(page):
    """The task's frame, once its runtime has the draft (the page's "restore" answered)."""
    page.wait_for_selector("body[data-ready=true]", state="attached")
    page.wait_for_selector("#hit-frame")
    return page.frame_locator("#hit-frame")
