"""The admin's names that README.md's walkthrough gives (Admin → Proverbs, *Prolific ›
Participant sessions*, ...) are the names of the admin's links, so a reader finds each."""

import re
from html import unescape
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
OUTSIDE = {"Settings"}  # *Settings › API token* is Prolific's own site


def readme_admin_names() -> set[str]:
    text = " ".join(README.read_text().split())
    names = set()
    for match in re.finditer(r"Admin → \*{1,2}([^*]+?)\*{1,2}", text):
        names.update(match.group(1).split(" › "))
    plain = r"Admin → ([A-Z][\w ]+?(?: / [A-Z][\w ]+?)*)(?: →| lists| shows| mark| and| \(|[,.)])"
    for match in re.finditer(plain, text):
        names.update(match.group(1).split(" / "))
    for match in re.finditer(r"\*([A-Z][\w ]+?) › ([A-Z][\w ]+?)(?: › Add)?\*", text):
        if match.group(1) not in OUTSIDE:
            names.update(match.groups())
    return names


def test_readme_names_the_admin_as_it_shows_itself(admin_client):
    names = readme_admin_names()
    assert {"Proverbs", "Crowd work", "Participant sessions", "Review queue"} <= names
    index = admin_client.get("/admin/").content.decode()
    shown = {unescape(text).strip() for text in re.findall(r"<a [^>]*>([^<]+)</a>", index)}
    assert sorted(names - shown) == []
