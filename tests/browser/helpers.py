"""Steps shared by the browser tests: an admin login, the page's CSP violations, and the
pictures of the user's guide (docs/images/)."""

import io
import os
import tempfile
from pathlib import Path

GUIDE_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
PICTURE_MAX_HEIGHT = 720  # a laptop screen's height, the default viewport's


def admin_login(page, live_server, user) -> None:
    """Log `user` (password "<username>-pass", as the fixtures set it) into the admin."""
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", f"{user.username}-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")


def csp_violations(page) -> list[str]:
    """Console reports of Content-Security-Policy violations, as the page goes on."""
    found = []
    page.on(
        "console",
        lambda message: (
            found.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return found


def page_troubles(page) -> list[str]:
    """Uncaught script errors and requests that got no response (refused, reset, timed out),
    as the page goes on: a task page whose module fails to load or throws never becomes ready,
    and this says why. A request cut off because the page moved on (net::ERR_ABORTED: a
    page's fetch still running when the test goes to the next page) is no trouble."""
    found = []

    def failed(request):
        if request.failure != "net::ERR_ABORTED":
            found.append(f"{page.url}: {request.url} failed: {request.failure}")

    page.on("pageerror", lambda error: found.append(f"{page.url}: uncaught {error}"))
    page.on("requestfailed", failed)
    return found


def guide_picture(page, name: str, *, element=None) -> Path:
    """Save what `page` shows now (its viewport, or `element`, a locator, cut at a screen's
    height) as docs/images/<name>.png, a picture the user's guide embeds, so the guide shows
    the pages as they are. Each name is taken by one test (tests/config/test_guide.py checks
    it), and pytest-xdist keeps a file's tests in one process, so no two workers write one
    file. The picture is kept in 256 colours (a page's flat colours survive; the file is a
    third of the size), and the file is replaced whole, only when the picture changed, so a
    run that changes nothing leaves the checkout as it was."""
    from PIL import Image

    options = {"animations": "disabled", "caret": "hide", "scale": "css", "type": "png"}
    shot = Image.open(io.BytesIO((element or page).screenshot(**options))).convert("RGB")
    shot = shot.crop((0, 0, shot.width, min(shot.height, PICTURE_MAX_HEIGHT)))
    small = shot.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    encoded = io.BytesIO()
    small.save(encoded, format="PNG", optimize=True)
    picture = encoded.getvalue()
    path = GUIDE_IMAGES / f"{name}.png"
    if path.exists() and path.read_bytes() == picture:
        return path
    GUIDE_IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=GUIDE_IMAGES, suffix=".part", delete=False) as part:
        part.write(picture)
    os.chmod(part.name, 0o644)
    os.replace(part.name, path)
    return path
