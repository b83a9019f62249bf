"""crowd.task_type_files: a registered type's templates and static files are found in its
package, under task_types/<key>/, and nowhere outside it; collectstatic gathers them."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.core.exceptions import SuspiciousFileOperation
from django.core.management import call_command
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.test import override_settings

import annotation

WRITE = Path(annotation.__file__).parent / "task_types" / "write"


def test_a_types_template_is_read_from_its_package():
    template = get_template("task_types/write/page.html")
    assert template.origin.name == str(WRITE / "templates" / "page.html")


@pytest.mark.parametrize(
    "name",
    [
        "task_types/write/../../write/task.py",  # out of the templates folder
        "task_types/nosuchtype/page.html",
        "task_types/write/nosuch.html",
    ],
)
def test_names_outside_a_types_templates_are_not_found(name):
    with pytest.raises(TemplateDoesNotExist):
        get_template(name)


def test_a_types_static_files_are_found_and_listed_under_its_key():
    assert finders.find("task_types/write/page.js") == str(WRITE / "static" / "page.js")
    with pytest.raises(SuspiciousFileOperation):  # as Django's own finders refuse it
        finders.find("task_types/write/../task.py")
    finder = finders.get_finder("crowd.task_type_files.StaticFinder")
    listed = {f"{storage.prefix}/{path}" for path, storage in finder.list([])}
    assert {
        "task_types/write/page.js",
        "task_types/align/page.js",
        "task_types/rate/page.js",
        "task_types/continue/page.js",
        "task_types/cloze/page.js",
    } <= listed


def test_collectstatic_copies_each_types_module_with_the_manifest(tmp_path):
    storages = {
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
    }
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
        from django.templatetags.static import static

        hashed = static("task_types/write/page.js")
    assert (
        hashed.startswith("/static/task_types/write/page.")
        and hashed != "/static/task_types/write/page.js"
    )
    copied = tmp_path / hashed.removeprefix("/static/")
    assert copied.read_bytes() == (WRITE / "static" / "page.js").read_bytes()
    # The module imports the shared ones by relative URL: they are there under their own names.
    assert (tmp_path / "frontend" / "submit.js").exists()
