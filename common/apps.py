"""The common app; it loads DRF's compatibility module before any other app reads it."""

import sys

from django.apps import AppConfig

# DRF's compatibility module imports requests and Pygments whenever they are installed (they
# are: Prolific's client needs requests, spaCy's command line Pygments) for its requests
# test client and its code-highlighting template tag, neither of which Parable uses: 7 MiB
# and about 0.04 s of CPU at every web worker's start.
UNUSED_BY_DRF = ("requests", "pygments")


def rest_framework_compat_import() -> None:
    """Import rest_framework.compat as if requests and Pygments were not installed; both
    import as usual afterwards. A no-op once the module is imported."""
    hidden = [name for name in UNUSED_BY_DRF if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # an import of it raises ImportError
    try:
        import rest_framework.compat  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]


# Here, not in ready(): the admin's ready() imports every app's admin module, and with them
# DRF, before this app's ready() runs; this module is imported before any app's ready().
rest_framework_compat_import()


class CommonConfig(AppConfig):
    name = "common"
    verbose_name = "Common utilities"
