"""Admin of the dataset: curation, narrative and task review, agreement pages, the dashboard.

Importing the package registers the model admins (Django's admin autodiscovery imports
``annotation.admin``); the agreement pages and the dashboard are URL modules mounted
in config/urls.py.
"""

from annotation.admin import curation, figurative, import_jobs, narratives, tasks  # noqa: F401
