"""The admin site as INSTALLED_APPS loads it (ParableAdminConfig): its index and side bar list
a study's work in the order it is done, and the plumbing (logins, tokens, provider records,
settings) under one heading last."""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig

# Each heading with what it lists: "app.Model", or an app's models no heading names.
STUDY = (
    ("Proverbs", ("annotation.Proverb", "annotation.VariantGroup", "annotation.CurationTarget")),
    ("Batches", ("crowd.Batch", "crowd.BatchItem", "crowd.Worker")),
    ("Review", ("annotation", "crowd.Assignment", "crowd.Bonus", "crowd.SavedReviewMessage")),
    ("Dataset", ("annotation.ImportJob", "annotation.FigurativeNarrative")),
    ("Runs", ("modeling",)),
    ("Settings and records", ("",)),
)
_NAMED = {name for _, names in STUDY for name in names if "." in name}


class ParableAdminSite(admin.AdminSite):
    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        if app_label is not None:  # an app's own page, as Django lists it
            return apps
        models = {
            f"{app['app_label']}.{m['object_name']}": m for app in apps for m in app["models"]
        }
        sections = []
        for heading, names in STUDY:
            label = heading.lower().replace(" ", "-")
            listed = [
                models.pop(key)
                for name in names
                for key in list(models)
                if key == name or ("." not in name and key.startswith(name) and key not in _NAMED)
            ]
            section = {"name": heading, "app_label": label, "app_url": f"#{label}"}
            sections += [{**section, "models": listed}] if listed else []
        return sections


class ParableAdminConfig(AdminConfig):
    default_site = "config.admin_site.ParableAdminSite"
