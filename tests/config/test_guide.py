"""The user's guide holds together: every relative link and #anchor in README.md and
docs/*.md resolves (anchors as GitHub renders headings), every picture it shows is taken by
a browser test, and the README stays a five-minute read."""

import re
from pathlib import Path

from tests.config.test_readme import README, ROOT, guide_pages

IMAGES = ROOT / "docs" / "images"
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
TAKEN = re.compile(r"guide_picture\(\s*\w+,\s*\"([^\"]+)\"")


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: its rendered text in lower case, with everything but
    letters, digits, `_`, `-` and spaces dropped, and spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link reads as its text
    text = re.sub(r"[`*]", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def without_code_blocks(page: Path) -> str:
    """The page without its fenced and indented code blocks, whose hashes are no headings."""
    text = FENCE.sub("", page.read_text())
    return re.sub(r"(?:\n\n)(?: {4}[^\n]*\n?)+", "\n\n", text)


def prose(page: Path) -> str:
    """The page without any code: its `code spans` hold brackets that are no links."""
    return re.sub(r"`[^`]*`", "", without_code_blocks(page))


def anchors(page: Path) -> set[str]:
    """The ids of the page's headings; a repeated id gets -1, -2, ... as on GitHub."""
    found, seen = set(), {}
    for heading in HEADING.findall(without_code_blocks(page)):
        anchor = github_anchor(heading)
        if anchor in seen:
            seen[anchor] += 1
            anchor = f"{anchor}-{seen[anchor]}"
        else:
            seen[anchor] = 0
        found.add(anchor)
    return found


def relative_links(page: Path) -> list[tuple[Path, str]]:
    """(target file, anchor or "") of each link and image on the page that stays in the
    checkout; a bare #anchor targets the page itself."""
    links = []
    for target in LINK.findall(prose(page)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        links.append(((page.parent / path).resolve() if path else page, anchor))
    return links


def test_github_anchor_follows_githubs_rules():
    assert github_anchor("Writing integrity: typed, pasted, generated or reused") == (
        "writing-integrity-typed-pasted-generated-or-reused"
    )
    assert github_anchor("Serving many workers (production)") == "serving-many-workers-production"
    assert github_anchor("The researcher's commands") == "the-researchers-commands"
    assert github_anchor("Clicking through with `make run`") == "clicking-through-with-make-run"
    assert github_anchor("Idioms & similes") == "idioms--similes"
    assert github_anchor("`PARABLE_PUBLIC_URL` and [HTTPS](x.md)") == "parable_public_url-and-https"


def test_a_repeated_heading_gets_a_numbered_anchor(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Guide\n\n## Settings\n\n```sh\n# not a heading\n```\n\n### Settings\n\n"
        "## Under `make run`\n"
    )
    assert anchors(page) == {"guide", "settings", "settings-1", "under-make-run"}


def test_every_relative_link_leads_to_a_file_of_the_checkout():
    broken = [
        f"{page.relative_to(ROOT)} → {target}"
        for page in guide_pages()
        for target, _ in relative_links(page)
        if not target.exists() or not target.is_relative_to(ROOT)
    ]
    assert len([link for page in guide_pages() for link in relative_links(page)]) > 100
    assert broken == []


def test_every_anchor_names_a_heading_of_its_page():
    broken = [
        f"{page.relative_to(ROOT)} → {target.relative_to(ROOT)}#{anchor}"
        for page in guide_pages()
        for target, anchor in relative_links(page)
        if anchor and target.suffix == ".md" and anchor not in anchors(target)
    ]
    assert broken == []


def test_every_picture_is_shown_and_taken_by_one_browser_test():
    """A picture of the guide stays current because a browser test takes it each run: each
    file in docs/images/ is shown by a page and named by exactly one guide_picture call."""
    taken = [
        name
        for test in sorted((ROOT / "tests" / "browser").glob("*.py"))
        for name in TAKEN.findall(test.read_text())
    ]
    shown = {
        target.stem
        for page in guide_pages()
        for target, _ in relative_links(page)
        if target.parent == IMAGES
    }
    files = {path.stem for path in IMAGES.glob("*.png")}
    assert sorted(name for name in set(taken) if taken.count(name) > 1) == []
    assert files == set(taken)
    assert shown == files


def test_readme_is_read_in_five_minutes():
    lines = README.read_text().splitlines()
    assert len(lines) < 200
