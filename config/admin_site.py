"""The admin site, as INSTALLED_APPS loads it (ParableAdminConfig): its index and side bar
lead with a study's work in the order it is done, and group the plumbing (logins, tokens,
provider records, settings) under one heading last."""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.urls import reverse
from django.utils.text import slugify

# A study in order: each heading with what it lists, "app.Model" or a bare app label for
# that app's models no heading names (annotation's: the task types' answers).
STUDY = (
    ("Proverbs", ("annotation.Proverb", "annotation.VariantGroup", "annotation.CurationTarget")),
    ("Batches", ("crowd.Batch", "crowd.BatchItem", "crowd.Worker")),
    ("Review", ("annotation", "crowd.Assignment", "crowd.Bonus", "crowd.SavedReviewMessage")),
    ("Dataset", ("annotation.ImportJob", "annotation.FigurativeNarrative")),
    ("Runs", ("modeling",)),
)
PLUMBING = "Settings and records"
_NAMED = {name for _, names in STUDY for name in names if "." in name}


def _listed(name: str, key: str) -> bool:
    return key == name or (key.partition(".")[0] == name and key not in _NAMED)


class ParableAdminSite(admin.AdminSite):
    def get_app_list(self, request, app_label=None):
        """A study's headings (STUDY), then PLUMBING for the rest; an app's own page as
        Django lists it."""
        apps = super().get_app_list(request, app_label)
        if app_label is not None:
            return apps
        models = {
            f"{app['app_label']}.{m['object_name']}": m for app in apps for m in app["models"]
        }
        sections = []
        for heading, names in (*STUDY, (PLUMBING, (None,))):
            keys = [key for name in names for key in models if name is None or _listed(name, key)]
            if keys:
                label = slugify(heading)
                sections.append(
                    {
                        "name": heading,
                        "app_label": label,
                        "app_url": f"{reverse('admin:index', current_app=self.name)}#{label}",
                        "has_module_perms": True,
                        "models": [models.pop(key) for key in keys],
                    }
                )
        return sections


class ParableAdminConfig(AdminConfig):
    default_site = "config.admin_site.ParableAdminSite"
