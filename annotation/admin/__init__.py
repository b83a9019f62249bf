"""Admin of the dataset: curation, narrative review, agreement pages, the dashboard, and
each task type's review list (its package's `admin` module), registered on import (admin
autodiscovery); the agreement pages and the dashboard are mounted in config/urls.py.
"""

from annotation.admin import curation, figurative, import_jobs, narratives  # noqa: F401
from annotation.task_types import PACKAGES
from crowd import task_types

for package in PACKAGES:
    task_types.package_module_import(package, "admin")
