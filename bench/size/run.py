"""The product's size: lines of product Python, modules over 400 lines, annotation's entries.

Product Python is every `.py` file of the app packages (annotation, common, config, crowd,
frontend, modeling, mturk, prolific), migrations and the providers' stand-ins left out, as
are tests/ and bench/. A module over 400 lines says why in its docstring (STYLE.md: split a
module when it grows past about 400 lines). annotation's entries are its top-level modules
and packages other than Django's own (`__init__.py`, `apps.py`, `migrations`, `management`)
and its data folders (templates, static files, data files).

Run from the repository root: `.venv/bin/python bench/size/run.py [--list]`. Prints the
figures beside the targets; it is not a test. Last line:
`product lines N, modules over 400 N, annotation entries N`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("annotation", "common", "config", "crowd", "frontend", "modeling", "mturk", "prolific")
LEFT_OUT = {"migrations", "standin", "__pycache__"}
DJANGO_OWN = {"__init__.py", "apps.py", "migrations", "management"}
TARGETS = {"lines": 41_500, "over_400": 10, "entries": 14}


def product_modules() -> dict[Path, int]:
    """Each product module and its line count."""
    return {
        path: len(path.read_text().splitlines())
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if not LEFT_OUT & set(path.relative_to(ROOT).parts)
    }


def annotation_entries() -> list[str]:
    return sorted(
        entry.name
        for entry in (ROOT / "annotation").iterdir()
        if entry.name not in DJANGO_OWN
        and (entry.suffix == ".py" or (entry / "__init__.py").exists())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="name the long modules and entries")
    args = parser.parse_args()
    modules = product_modules()
    long_modules = sorted(
        ((lines, path) for path, lines in modules.items() if lines > 400), reverse=True
    )
    entries = annotation_entries()
    lines = sum(modules.values())
    print(f"product Python: {len(modules)} modules, {lines} lines")
    print(f"  (target at most {TARGETS['lines']})")
    print(f"modules over 400 lines: {len(long_modules)} (target at most {TARGETS['over_400']})")
    print(f"annotation entries: {len(entries)} (target at most {TARGETS['entries']})")
    if args.list:
        for count, path in long_modules:
            print(f"  {count:5d}  {path.relative_to(ROOT)}")
        print("  annotation: " + " ".join(entries))
    print(
        f"product lines {lines}, modules over 400 {len(long_modules)}, "
        f"annotation entries {len(entries)}"
    )


if __name__ == "__main__":
    main()
