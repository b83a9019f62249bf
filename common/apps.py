"""The common app; it loads DRF's compatibility module before any other app reads it."""

from django.apps import AppConfig

from common.optional_imports import import_without

# Here, not in ready(): the admin's ready() imports DRF first. DRF's compatibility module
# imports requests, Pygments and PyYAML whenever installed, for features Parable does not
# use: 9 MiB and about 0.05 s of CPU at every web worker's start.
import_without("rest_framework.compat", unused=("requests", "pygments", "yaml"))


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Common utilities"
