from django.apps import AppConfig


class ModelingConfig(AppConfig):
    name = "modeling"
    verbose_name = "Modeling"

    def ready(self) -> None:
        from annotation.analysis.methods import methods_part_register
        from annotation.opponents.backend import opponent_backend_register
        from annotation.task_parts.distractors import register_source_family
        from modeling.opponents import OPPONENTS
        from modeling.runs.distractors import MODEL_SOURCES
        from modeling.runs.methods import baselines_methods

        register_source_family(MODEL_SOURCES)
        # Finished proverb runs as the opponents of write batches in rounds.
        opponent_backend_register(OPPONENTS)
        # After annotation's own parts (800, the dataset), before the figures' sources.
        methods_part_register(key="baselines", order=850, write=baselines_methods)
        # Registers the tasks with Celery in every process: the services queue runs by
        # the task's name (modeling.runs.queueing), never importing this module.
        import modeling.tasks  # noqa: F401
