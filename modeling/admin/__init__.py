"""The modeling admin: run pages (runs.py), their forms (forms.py), what they display
(display.py, plots.py)."""

from modeling.admin import runs  # noqa: F401  (registers the admin classes)
