from django.apps import AppConfig
from django.db.models.signals import post_migrate

from annotation.task_types import PACKAGES
from crowd import task_types


def _ensure_groups(sender, **kwargs) -> None:
    from crowd.access import groups_ensure

    groups_ensure()


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Dataset"

    def import_models(self) -> None:
        super().import_models()
        # Each task type's models live in its package, in this app (label "annotation").
        for package in PACKAGES:
            task_types.package_module_import(package, "models")

    def ready(self) -> None:
        from annotation.analysis.methods_findings import dataset_parts_register

        for package in PACKAGES:
            task_types.package_register(package)
        # The methods statement's own parts; apps above annotation add theirs the same way.
        dataset_parts_register()
        # After the last Parable app migrates, every permission row exists.
        post_migrate.connect(_ensure_groups, dispatch_uid="annotation.groups_ensure")
