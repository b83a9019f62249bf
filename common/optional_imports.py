"""Importing a library as if some of its optional dependencies were not installed, for the
libraries a web worker loads whose optional extras it never uses."""

import importlib
import sys


def import_without(module: str, *, unused: tuple[str, ...]) -> None:
    """Import `module` as if the libraries named in `unused` were not installed: it takes
    the path it takes when they are missing. They import as usual afterwards, wherever
    something else needs them. A no-op once `module` is imported."""
    if module in sys.modules:
        return
    hidden = [name for name in unused if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # an import of it raises ImportError
    try:
        importlib.import_module(module)
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]
