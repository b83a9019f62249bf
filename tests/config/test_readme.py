"""The admin's names that README.md and the user's guide (docs/*.md) give (Admin → Proverbs,
*Prolific › Participant sessions*, ...) are the names of the admin's links, and the
commands, their options, the make targets and the settings they give exist, so a reader
finds each."""

import re
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
OUTSIDE = {"Settings"}  # *Settings › API token* is Prolific's own site


def guide_pages() -> list[Path]:
    """README.md and every page of the user's guide."""
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def guide_text() -> str:
    """The README and the guide's pages, one after the other."""
    return "\n\n".join(page.read_text() for page in guide_pages())


def readme_admin_names() -> set[str]:
    text = " ".join(guide_text().split())
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
    assert {"Proverbs", "Settings and records", "Participant sessions", "Review queue"} <= names
    index = admin_client.get("/admin/").content.decode()
    shown = {unescape(text).strip() for text in re.findall(r"<a [^>]*>([^<]+)</a>", index)}
    assert sorted(names - shown) == []


def readme_commands() -> list[tuple[str, list[str]]]:
    """Each `manage.py <command> ...` the README and the guide give, with the options on its
    line (a backslash continues a line)."""
    text = guide_text().replace("\\\n", " ")
    found = []
    for match in re.finditer(r"manage\.py ([a-z_]+)([^`\n&;]*)", text):
        found.append((match.group(1), re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", match.group(2))))
    return found


def test_readme_commands_and_their_options_exist():
    from django.core.management import get_commands, load_command_class

    commands = get_commands()
    found = readme_commands()
    assert ("mturk_standin", ["--port"]) in found
    unknown = []
    for name, options in found:
        if name not in commands:
            unknown.append(name)
            continue
        parser = load_command_class(commands[name], name).create_parser("manage.py", name)
        known = {option for action in parser._actions for option in action.option_strings}
        unknown.extend(f"{name} {option}" for option in options if option not in known)
    assert unknown == []


def test_readme_make_targets_exist():
    text = " ".join(guide_text().split())
    named = set(re.findall(r"`(?:[A-Z_]+=\S+ )*make ([a-z][a-z-]*)", text))
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.MULTILINE))
    assert {"run", "test", "prolific-standin"} <= named
    assert sorted(named - targets) == []


def test_readme_settings_are_read_somewhere():
    """Each PARABLE_*, PROLIFIC_* and MTURK_* name the README and the guide give is read by
    the code, the Makefile, the test scripts, the container files or the benchmarks."""
    names = set(re.findall(r"\b((?:PARABLE|PROLIFIC|MTURK)_[A-Z_]*[A-Z])\b", guide_text()))
    sources = [ROOT / "Makefile", ROOT / "docker-compose.yml", *(ROOT / "tests").glob("*.sh")]
    for folder in ("config", "common", "annotation", "crowd", "frontend", "prolific", "mturk"):
        sources += (ROOT / folder).rglob("*.py")
    sources += [*(ROOT / "modeling").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    sources += (ROOT / "platform").iterdir()
    code = "\n".join(path.read_text() for path in sources if path.is_file())
    assert len(names) > 20
    assert sorted(name for name in names if name not in code) == []
