"""Where Django finds a task type's templates and static files: a registered type's
`templates/<name>` and `static/<name>` are "task_types/<key>/<name>", read from the registry
when asked, so a type's files live in its package and a new type needs no setting.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.contrib.staticfiles.finders import BaseFinder, FileSystemFinder
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage
from django.template import Origin
from django.template.loaders.filesystem import Loader as FilesystemLoader
from django.utils._os import safe_join

from crowd import task_types

PREFIX = "task_types"


def _folders(name: str) -> Iterator[tuple[str, Path]]:
    """(prefix, folder) of each registered type that has the folder `name`."""
    for key, task_type in sorted(task_types.registered().items()):
        folder = task_type.package_directory() / name
        if folder.is_dir():
            yield f"{PREFIX}/{key}", folder


class TemplateLoader(FilesystemLoader):
    """Loads "task_types/<key>/<name>" from the registered type's templates/ folder."""

    def get_template_sources(self, template_name: str):
        for prefix, folder in _folders("templates"):
            if not template_name.startswith(f"{prefix}/"):
                continue
            try:
                name = safe_join(folder, template_name.removeprefix(f"{prefix}/"))
            except SuspiciousFileOperation:
                continue  # a name climbing out of the folder
            yield Origin(name=name, template_name=template_name, loader=self)


class StaticFinder(FileSystemFinder):
    """Finds "task_types/<key>/<name>" in the registered type's static/ folder (and lists
    them all for collectstatic)."""

    def __init__(self, *args, **kwargs):
        BaseFinder.__init__(self, *args, **kwargs)  # no STATICFILES_DIRS: the registry

    @property
    def locations(self) -> list[tuple[str, str]]:
        return [(prefix, str(folder)) for prefix, folder in _folders("static")]

    @property
    def storages(self) -> dict[str, FileSystemStorage]:
        storages = {}
        for prefix, root in self.locations:
            storages[root] = FileSystemStorage(location=root)
            storages[root].prefix = prefix
        return storages

    def check(self, **kwargs) -> list:
        return []
