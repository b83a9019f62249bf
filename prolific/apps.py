from django.apps import AppConfig


class ProlificConfig(AppConfig):
    name = "prolific"
    verbose_name = "Prolific"

    def ready(self):
        from crowd.providers import register
        from prolific.provider import ProlificProvider

        register(ProlificProvider())
