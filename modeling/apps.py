from django.apps import AppConfig


class ModelingConfig(AppConfig):
    name = "modeling"
    verbose_name = "Modeling"

    def ready(self) -> None:
        from annotation.task_types.choose.distractors import register_source_family
        from modeling.runs.distractors import MODEL_SOURCES

        register_source_family(MODEL_SOURCES)
        # Registers the tasks with Celery in every process: the services queue runs by
        # the task's name (modeling.runs.queueing), never importing this module.
        import modeling.tasks  # noqa: F401
