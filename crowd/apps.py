from django.apps import AppConfig


class CrowdConfig(AppConfig):
    name = "crowd"
    verbose_name = "Crowd work"

    def ready(self) -> None:
        # Registers the tasks with Celery in every process: crowd.outbox queues its calls
        # by the task's name, never importing this module.
        import crowd.tasks  # noqa: F401
