"""The common app; it loads DRF's compatibility module before any other app reads it."""

from django.apps import AppConfig

from common.optional_imports import import_without

# Here, not in ready(): the admin's ready() imports every app's admin module, and with them
# DRF, before this app's ready() runs; this module is imported before any app's ready().
# DRF's compatibility module imports requests, Pygments and PyYAML whenever they are installed
# (they are: Prolific's client needs requests, spaCy's command line Pygments, drf-spectacular
# PyYAML) for its requests test client, its code-highlighting template tag and its own
# schema renderer, none of which Parable uses: 9 MiB and about 0.05 s of CPU at every web
# worker's start.
import_without("rest_framework.compat", unused=("requests", "pygments", "yaml"))


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Common utilities"
